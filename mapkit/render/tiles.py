"""board-tiles.pdf: an assembly page, then the board tiled over A4 or Letter sheets (see `tiling`)."""

from __future__ import annotations

from pathlib import Path

from mapkit.geometry import Layout
from mapkit.model import Board
from mapkit.render import draw, fonts, marks, pdf, shapes, style
from mapkit.render.draw import Area, Disc, Line, Text
from mapkit.render.scene import BoardScene
from mapkit.render.tiling import Tiling, alignment_marks, row_label

FRAME = "#b0b0b0"


def write_tiles_pdf(scene: BoardScene, board: Board, layout: Layout, tiling: Tiling, path: Path) -> int:
    avoid = [g.bounds for g in scene.label_obstacles] + scene.placement.boxes()
    crosshairs = [item for xy in alignment_marks(tiling, avoid) for item in marks.crosshair(*xy)]
    with pdf.pdf_document(path) as doc:
        doc.add(assembly_page(board, layout, tiling))
        for tile in tiling.tiles:
            doc.add(sheet_page(scene, board, tiling, tile, crosshairs))
        return doc.pages


def sheet_page(scene: BoardScene, board: Board, tiling: Tiling, tile, crosshairs):
    pw, ph = tiling.page
    fig, page_ax = pdf.page(pw, ph)
    x, y, w, h = tiling.content
    board_ax = pdf.mm_axes(fig, tiling.content, tile.window, tiling.page, zorder=1)
    draw.draw(board_ax, scene.items + crosshairs, window=tile.window)
    items = [Area((shapes.rect_ring(x, y, x + w, y + h),), edge=FRAME, lw=0.3, z=5)]
    items += footer(board, tiling, tile, y + h)
    draw.draw(page_ax, items, clip=False)
    return fig


def footer(board: Board, tiling: Tiling, tile, top: float) -> list:
    pw, _ = tiling.page
    left = tiling.content[0]
    width = tiling.content[2]
    label_size = 16.0
    lw = fonts.line_width(tile.label, label_size, True)
    out = [Text((left, top + 5.5), (tile.label,), label_size, style.INK, z=20, bold=True, ha="left")]
    tx = left + lw + 4
    rows = f"A–{row_label(tiling.rows - 1)}" if tiling.rows > 1 else "A"
    cols = f"1–{tiling.cols}" if tiling.cols > 1 else "1"
    info = (f"{marks.NOTICE}  ·  {board.name}: sheet {tile.label} of {tiling.sheets} "
            f"(rows {rows} top to bottom, columns {cols} left to right)")
    size = 6.5
    while fonts.line_width(info, size, False) > left + width - tx and size > 4.5:
        size -= 0.5
    out.append(Text((tx, top + 3.2), (info,), size, style.INK, z=20, ha="left"))
    out += marks.calibration_bar(tx, top + 6.5, 100.0, "100 mm", 10.0)
    ix = tx + 100 + 4 + fonts.line_width("100 mm", 5.5) + 5
    out += marks.calibration_bar(ix, top + 6.5, 25.4, "1 inch", 25.4 / 4)
    return out


def assembly_page(board: Board, layout: Layout, tiling: Tiling):
    pw, ph = tiling.page
    fig, ax = pdf.page(pw, ph)
    m = pdf.PRINT_MARGIN_MM + 4
    width = pw - 2 * m
    items = [Text((m, m + 4), (f"{board.name} — assembling the board",), 14, style.INK, z=20, bold=True, ha="left")]
    bw, bh = tiling.board
    steps = [
        f"The board is {bw:g} × {bh:g} mm, printed on {tiling.sheets} {tiling.paper.upper() if tiling.paper == 'a4' else 'Letter'} "
        f"sheets ({tiling.orientation}) in {tiling.rows} row{'s' if tiling.rows != 1 else ''} and "
        f"{tiling.cols} column{'s' if tiling.cols != 1 else ''}; neighbouring sheets overlap.",
        "1. Print every sheet at 100 % (actual size, not \"fit to page\"). Measure the 100 mm bar at the "
        "foot of a sheet: it must be 100 mm long.",
        "2. Lay the sheets out as in the diagram: rows A, B, … from top to bottom; columns 1, 2, … from left to right.",
        "3. Cut along the thin frame on the left and top edges of every sheet except those of column 1 and row A.",
        "4. Lay each cut sheet over its left and upper neighbours so that the crosshairs on both sheets coincide, "
        "and tape or glue it down: first each row, then the rows together.",
        "5. Cut the remaining outer margins off; glue the board onto card if you like.",
    ]
    y = m + 11
    for text in steps:
        lines = fonts.wrap(text, 8, width)
        items.append(Text((m, y + fonts.block_height(len(lines), 8) / 2), tuple(lines), 8, style.INK, z=20,
                          ha="left", align="left"))
        y += fonts.block_height(len(lines), 8) + 1.5
    items += marks.calibration_bar(m, ph - m - 3, 100.0, "100 mm", 10.0)
    items += marks.calibration_bar(m + 125, ph - m - 3, 25.4, "1 inch", 25.4 / 4)
    items.append(Text((m + 170, ph - m - 2), (marks.NOTICE,), 6, style.INK, z=20, bold=True, ha="left"))
    draw.draw(ax, items, clip=False)

    # the overview: the board to scale with the sheets' windows over it
    top, bottom = y + 4, ph - m - 10
    scale = min(width / bw, (bottom - top) / bh)
    ow, oh = bw * scale, bh * scale
    rect = (m + (width - ow) / 2, top + (bottom - top - oh) / 2, ow, oh)
    pad = 0.0
    over = pdf.mm_axes(fig, rect, (-pad, -pad, bw + pad, bh + pad), tiling.page, zorder=1)
    draw.draw(over, overview_items(board, layout, tiling, scale), clip=False)
    return fig


def overview_items(board: Board, layout: Layout, tiling: Tiling, scale: float) -> list:
    bw, bh = tiling.board
    out = [Area((shapes.rect_ring(0, 0, bw, bh),), face=style.PAPER, edge=style.INK, lw=0.8, z=0)]
    for r in board.routes:
        shape = layout.routes.get(r.id)
        if shape is not None:
            out.append(Line(shape.centerline, style.route_hex(board, r.color), 1.2, z=1))
    for xy in layout.positions.values():
        out.append(Disc(xy, 1.0 / scale, "white", style.INK, 0.5, z=2))
    for t in tiling.tiles:
        x0, y0, x1, y1 = t.window
        out.append(Area((shapes.rect_ring(x0, y0, x1, y1),), edge="#1f5fa8", lw=0.8, z=3, dash=(4.0, 2.0)))
    xs = [(tiling.tile(0, c).window[0], tiling.tile(0, c).window[2]) for c in range(tiling.cols)]
    ys = [(tiling.tile(r, 0).window[1], tiling.tile(r, 0).window[3]) for r in range(tiling.rows)]
    for t in tiling.tiles:
        cx = _centre(xs, t.col, bw)
        cy = _centre(ys, t.row, bh)
        out.append(Text((cx, cy), (t.label,), 16, "#1f5fa8", z=4, bold=True))
    return out


def _centre(spans, i: int, limit: float) -> float:
    lo = spans[i - 1][1] if i > 0 else 0.0
    hi = spans[i + 1][0] if i + 1 < len(spans) else limit
    lo, hi = max(lo, spans[i][0], 0.0), min(hi, spans[i][1], limit)
    return (lo + hi) / 2
