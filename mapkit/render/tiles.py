"""board-tiles.pdf: an assembly page, then the board tiled over A4 or Letter sheets (see `tiling`)."""

from __future__ import annotations

from pathlib import Path

from mapkit.geometry import Layout
from mapkit.model import Board
from mapkit.render import draw, fonts, marks, pdf, shapes, style
from mapkit.render.draw import Area, Disc, Line, Text
from mapkit.render.scene import BoardScene
from mapkit.render.tiling import Tiling, row_label, registration_ticks, glue_zones

FRAME = "#b0b0b0"


GLUE = "#7f7f7f"
TICK_LW = 0.6


def mark_obstacles(scene: BoardScene) -> list:
    """Boxes no registration mark may touch: stations, spaces, labels and badges (the label
    obstacles also hold drawn lines and the margin text, which marks avoid too)."""
    return [g.bounds for g in scene.label_obstacles] + scene.placement.boxes()


def tick_items(ticks) -> list:
    return [Line(t.segment(), marks.MARK_INK, TICK_LW, z=30) for t in ticks]


def write_tiles_pdf(scene: BoardScene, board: Board, layout: Layout, tiling: Tiling, path: Path,
                    stamp: marks.Stamp | None = None) -> int:
    """The assembly page, then each sheet; every page carries the stamp (marks.Stamp: the board's
    name, version and file, a playtest box)."""
    ticks = tick_items(registration_ticks(tiling, mark_obstacles(scene)))
    with pdf.pdf_document(path) as doc:
        doc.add(assembly_page(board, layout, tiling, stamp))
        for tile in tiling.tiles:
            doc.add(sheet_page(scene, board, tiling, tile, ticks, stamp))
        return doc.pages


def glue_items(tiling: Tiling, tile) -> list:
    """This sheet's glue zones: shaded (the board shows through, to line the picture up), edged
    by a solid line where the covering sheet's cut edge goes, and labelled with their width."""
    out = []
    for (x0, y0, x1, y1), under, vertical in glue_zones(tiling, tile):
        out.append(Area((shapes.rect_ring(x0, y0, x1, y1),), face=GLUE, alpha=0.28, z=29))
        edge = ((x0, y0), (x0, y1)) if vertical else ((x0, y0), (x1, y0))
        out.append(Line(edge, marks.MARK_INK, 0.5, z=30))
        text = f"glue zone {x1 - x0 if vertical else y1 - y0:.0f} mm: sheet {under} covers this, its cut edge on the line"
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        for k in ((0.25, 0.75) if vertical else (0.25, 0.75)):
            at = (cx, y0 + (y1 - y0) * k) if vertical else (x0 + (x1 - x0) * k, cy)
            out.append(Text(at, (text,), 5.5, marks.MARK_INK, z=30.5, rotation=90 if vertical else 0,
                            box=(at[0] - 1, at[1] - 1, at[0] + 1, at[1] + 1)))
    return out


def sheet_page(scene: BoardScene, board: Board, tiling: Tiling, tile, ticks, stamp: marks.Stamp | None = None):
    pw, ph = tiling.page
    fig, page_ax = pdf.page(pw, ph)
    x, y, w, h = tiling.content
    board_ax = pdf.mm_axes(fig, tiling.content, tile.window, tiling.page, zorder=1)
    # the cut lines: dashed, on the edges that are cut (left of columns 2…, top of rows B…), drawn
    # with the board (whose axes lie over the page's) so that the picture does not hide them
    wx0, wy0, wx1, wy1 = tile.window
    cuts = []
    if tile.col > 0:
        cuts.append(Line(((wx0, wy0), (wx0, wy1)), marks.MARK_INK, 1.2, z=31, dash=(4.0, 2.0)))
    if tile.row > 0:
        cuts.append(Line(((wx0, wy0), (wx1, wy0)), marks.MARK_INK, 1.2, z=31, dash=(4.0, 2.0)))
    draw.draw(board_ax, scene.items + ticks + glue_items(tiling, tile) + cuts, window=tile.window)
    items = [Area((shapes.rect_ring(x, y, x + w, y + h),), edge=FRAME, lw=0.3, z=5)]
    items += footer(board, tiling, tile, y + h, stamp)
    draw.draw(page_ax, items, clip=False)
    return fig


def footer(board: Board, tiling: Tiling, tile, top: float, stamp: marks.Stamp | None = None) -> list:
    pw, _ = tiling.page
    left = tiling.content[0]
    width = tiling.content[2]
    label_size = 16.0
    lw = fonts.line_width(tile.label, label_size, True)
    out = [Text((left, top + 5.5), (tile.label,), label_size, style.INK, z=20, bold=True, ha="left")]
    tx = left + lw + 4
    rows = f"A–{row_label(tiling.rows - 1)}" if tiling.rows > 1 else "A"
    cols = f"1–{tiling.cols}" if tiling.cols > 1 else "1"
    cuts = [side for side, yes in (("left", tile.col > 0), ("top", tile.row > 0)) if yes]
    cut = f"cut along the dashed {' and '.join(cuts)} edge" if cuts else "no cut: the other sheets go on top"
    order = f" (rows {rows} top to bottom, columns {cols} left to right)"
    info, size = _fit_info(board.name, f"{marks.NOTICE}  ·  {{}}: sheet {tile.label} of {tiling.sheets}{{}}  ·  {cut}",
                           order, left + width - tx)
    out.append(Text((tx, top + 3.2), (info,), size, style.INK, z=20, ha="left"))
    out += marks.calibration_bar(tx, top + 6.5, 100.0, "100 mm", 10.0)
    ix = tx + 100 + 4 + fonts.line_width("100 mm", 5.5) + 5
    out += marks.calibration_bar(ix, top + 6.5, 25.4, "1 inch", 25.4 / 4)
    sx = ix + 25.4 + 1.5 + fonts.line_width("1 inch", 5.5) + 4
    out.append(marks.stamp_text(stamp or marks.Stamp(board.name, board.version),
                                (sx, top + 4.6, left + width, top + tiling_footer_room(tiling)), with_name=False))
    return out


def _fit_info(name: str, pattern: str, order: str, room: float) -> tuple[str, float]:
    """A sheet's info line (pattern with the board's name and the rows-and-columns note in its
    two {}) within room mm: at the largest size from 6.5 to 5 pt that fits, else without the note
    down to 4.5 pt, else with the name cut short (…)."""
    for text, sizes in ((pattern.format(name, order), (6.5, 6.0, 5.5, 5.0)),
                        (pattern.format(name, ""), (6.5, 6.0, 5.5, 5.0, 4.5))):
        for size in sizes:
            if fonts.line_width(text, size) <= room:
                return text, size
    short = name
    while len(short) > 8 and fonts.line_width(pattern.format(short + "…", ""), 4.5) > room:
        short = short[:-1].rstrip()
    return pattern.format(short + "…", ""), 4.5


def tiling_footer_room(tiling: Tiling) -> float:
    """How far below the content the footer may print: the footer strip, to the printer's margin."""
    return tiling.page[1] - tiling.content[1] - tiling.content[3] - pdf.PRINT_MARGIN_MM


TITLE_SIZES = (14.0, 13.0, 12.0, 11.0, 10.0)


def title_items(text: str, x: float, y: float, width: float) -> tuple[list, float]:
    """The page's title from (x, y), top left: on one line at the largest of TITLE_SIZES that fits
    width, else wrapped at the smallest. Returns items and the y below it."""
    for size in TITLE_SIZES:
        if fonts.line_width(text, size, True) <= width:
            lines = [text]
            break
    else:
        lines = fonts.wrap(text, size, width, True)
    w, h = fonts.block_size(lines, size, True)
    return [Text((x + w / 2, y + h / 2), tuple(lines), size, style.INK, z=20, bold=True, align="left",
                 box=(x, y, x + w, y + h))], y + h


def assembly_foot(stamp: marks.Stamp, left: float, right: float, bottom: float) -> tuple[list, float]:
    """The assembly page's foot above `bottom`, rows from the bottom up: the stamp; the notice;
    the 100 mm and 1 inch bars (the inch bar under the 100 mm one where the page is too narrow for
    both side by side). Each fits between left and right. Returns items and the foot's top."""
    out = [marks.stamp_text(stamp, (left, bottom - 3.5, right, bottom))]
    size = 6.0
    while fonts.line_width(marks.NOTICE, size, True) > right - left and size > 4.0:
        size -= 0.5
    nw, nh = fonts.block_size([marks.NOTICE], size, True)
    ny = bottom - 4.5 - nh / 2
    out.append(Text((left + nw / 2, ny), (marks.NOTICE,), size, style.INK, z=20, bold=True,
                    box=(left, ny - nh / 2, left + nw, ny + nh / 2)))
    bar_y = ny - nh / 2 - 1.5 - marks.BAR_MM - 1.0
    first = 100 + 1.5 + fonts.line_width("100 mm", 5.5) + 5
    inch = 25.4 + 1.5 + fonts.line_width("1 inch", 5.5)
    if left + first + inch <= right:
        out += marks.calibration_bar(left, bar_y, 100.0, "100 mm", 10.0)
        out += marks.calibration_bar(left + first, bar_y, 25.4, "1 inch", 25.4 / 4)
        return out, bar_y - 1.0
    out += marks.calibration_bar(left, bar_y, 25.4, "1 inch", 25.4 / 4)
    bar_y -= marks.BAR_MM + 3.0
    out += marks.calibration_bar(left, bar_y, 100.0, "100 mm", 10.0)
    return out, bar_y - 1.0


def assembly_page(board: Board, layout: Layout, tiling: Tiling, stamp: marks.Stamp | None = None):
    pw, ph = tiling.page
    fig, ax = pdf.page(pw, ph)
    m = pdf.PRINT_MARGIN_MM + 4
    width = pw - 2 * m
    items, y = title_items(f"{board.name} — assembling the board", m, m, width)
    bw, bh = tiling.board
    steps = [
        f"The board is {bw:g} × {bh:g} mm, printed on {tiling.sheets} {tiling.paper.upper() if tiling.paper == 'a4' else 'Letter'} "
        f"sheets ({tiling.orientation}) in {tiling.rows} row{'s' if tiling.rows != 1 else ''} and "
        f"{tiling.cols} column{'s' if tiling.cols != 1 else ''}; neighbouring sheets overlap by "
        f"{tiling.overlap_x or tiling.overlap_y:.0f} mm.",
        "1. Print every sheet at 100 % (actual size, not \"fit to page\"). Measure the 100 mm bar at the "
        "foot of a sheet: it must be 100 mm long.",
        "2. Lay the sheets out as in the diagram: rows A, B, … from top to bottom; columns 1, 2, … from left to right.",
        "3. Cut: every sheet except those of column 1 along its dashed left edge, every sheet except those of "
        "row A along its dashed top edge. Cut exactly on the line: that edge is the seam.",
        f"4. A sheet with a neighbour to its right or below has a gray glue zone "
        f"({tiling.overlap_x or tiling.overlap_y:.0f} mm wide) along that edge, which the neighbour covers. Put glue there, lay the sheet to the right (below) on it "
        f"with its cut edge on the glue zone's black line, and slide it until the short black ticks on both sheets "
        f"form straight lines across the seam and the picture continues. Do row A from left to right, then each row; "
        f"then glue the rows together from the top.",
        "5. Cut the outer margins (the paper outside the board's edge) off; glue the board onto card if you like.",
    ]
    y += 5
    for text in steps:
        lines = fonts.wrap(text, 8, width)
        items.append(Text((m, y + fonts.block_height(len(lines), 8) / 2), tuple(lines), 8, style.INK, z=20,
                          ha="left", align="left"))
        y += fonts.block_height(len(lines), 8) + 1.5
    foot, foot_top = assembly_foot(stamp or marks.Stamp(board.name, board.version), m, pw - m, ph - m)
    items += foot
    draw.draw(ax, items, clip=False)

    # the overview: the board to scale with the sheets' windows over it
    # the sheets' windows reach past the board's edges (the spare paper of the outer sheets): the
    # overview shows all of them
    top, bottom = y + 4, foot_top - 4
    ex0 = min(0.0, min(t.window[0] for t in tiling.tiles))
    ey0 = min(0.0, min(t.window[1] for t in tiling.tiles))
    ex1 = max(bw, max(t.window[2] for t in tiling.tiles))
    ey1 = max(bh, max(t.window[3] for t in tiling.tiles))
    scale = min(width / (ex1 - ex0), (bottom - top) / (ey1 - ey0))
    ow, oh = (ex1 - ex0) * scale, (ey1 - ey0) * scale
    rect = (m + (width - ow) / 2, top + (bottom - top - oh) / 2, ow, oh)
    over = pdf.mm_axes(fig, rect, (ex0, ey0, ex1, ey1), tiling.page, zorder=1)
    draw.draw(over, overview_items(board, layout, tiling, scale), clip=False)
    return fig


def overview_items(board: Board, layout: Layout, tiling: Tiling, scale: float) -> list:
    bw, bh = tiling.board
    out = [Area((shapes.rect_ring(0, 0, bw, bh),), face=style.PAPER, edge=style.INK, lw=0.8, z=0)]
    for r in board.routes:
        shape = layout.routes.get(r.id)
        if shape is not None:
            hex_ = style.route_hex(board, r.color)
            if style.is_whitish(hex_):
                # a whitish line vanishes on the paper: an ink casing under it, as its spaces on the board
                out.append(Line(shape.centerline, style.INK, 1.2 + 2 * 0.5, z=0.9))
            out.append(Line(shape.centerline, hex_, 1.2, z=1))
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
