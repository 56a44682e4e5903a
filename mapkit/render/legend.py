"""The board's legend: each color's space (with its symbol), name and kind; gray; the wild card;
the route kinds drawn differently (water, cable, flight) and special-route badges.

It is placed in the first free spot of the playing area (corners first), in one column or, when
that fits nowhere, two.
"""

from __future__ import annotations

from shapely.geometry import Polygon

from mapkit.model import Board
from mapkit.render import fonts, labels, shapes, style, symbols
from mapkit.render.draw import Area, Disc, Line, Text

ROW_MM = 6.2
SAMPLE_W, SAMPLE_H = 11.0, 5.0
TEXT_PT = 7.0
PAD = 2.5


def rows(board: Board, sym: dict) -> list[tuple[str, str, str]]:
    """(sample kind, sample argument, text) per legend row."""
    out = [("space", c.id, f"{c.name} — {style.kind_name(c.kind)}") for c in board.palette]
    kinds = {r.kind for r in board.routes}
    out += gray_rows(board)
    out.append(("wild", "", f"{board.wild.name} — wild card, counts as any color"))
    if kinds & set(style.WATER_KINDS):
        names = " / ".join(style.kind_name(k) for k in style.WATER_KINDS if k in kinds)
        out.append(("water", "", f"{names}: wavy line"))
    if "aerial-tram" in kinds:
        out.append(("cable", "", "Aerial tram: cable line"))
    if "flight" in kinds:
        out.append(("flight", "", "Flight: dashed path, broken where it passes other routes"))
    if any(r.bonus for r in board.routes):
        pts = sorted({r.bonus.points for r in board.routes if r.bonus})
        out.append(("badge", "/".join(f"+{p}" for p in pts), "Special route: bonus points when claimed"))
    if any(s.hub for s in board.stations):
        out.append(("hub", "", "Hub station"))
    return out


def gray_rows(board: Board) -> list[tuple[str, str, str]]:
    """The gray routes named by what they are: one row per kind among them (the board's most
    common first), naming the lines of the less common kinds (Seattle: bus, then streetcar and
    Amtrak by name), so that a streetcar is not called a bus."""
    by_kind: dict[str, list] = {}
    for r in board.routes:
        if r.is_gray:
            by_kind.setdefault(r.kind, []).append(r)
    if not by_kind:
        return []
    kinds = sorted(by_kind, key=lambda k: (-len(by_kind[k]), k))
    if len(kinds) == 1:
        return [("space", "gray", f"{board.gray_name} — {style.kind_name(kinds[0])}")]
    out = []
    for i, k in enumerate(kinds):
        lines = sorted({r.line for r in by_kind[k] if r.line})
        named = f": {', '.join(lines)}" if i and lines and len(lines) <= 3 else ""
        head = "Gray (any one color)" if i == 0 else "Gray"
        out.append(("space", "gray", f"{head} — {style.kind_name(k)}{named}"))
    return out


def block_size(board: Board, sym: dict, ncols: int) -> tuple[float, float]:
    rs = rows(board, sym)
    per_col = -(-len(rs) // ncols)
    text_w = max(fonts.line_width(t, TEXT_PT) for _, _, t in rs)
    col_w = SAMPLE_W + 2.5 + text_w
    title_h = 6.0
    return (2 * PAD + 1.5 + ncols * col_w + (ncols - 1) * 4.0, 2 * PAD + title_h + per_col * ROW_MM)


def items_at(board: Board, sym: dict, ncols: int, x0: float, y0: float) -> list:
    rs = rows(board, sym)
    w, h = block_size(board, sym, ncols)
    per_col = -(-len(rs) // ncols)
    text_w = max(fonts.line_width(t, TEXT_PT) for _, _, t in rs)
    col_w = SAMPLE_W + 2.5 + text_w
    out = [Area((shapes.rounded_rect(x0, y0, x0 + w, y0 + h, 2.0),), face="white", edge=style.HAIRLINE, lw=0.6, z=12),
           Text((x0 + PAD, y0 + PAD + 2.2), ("Legend",), 8, style.INK, z=12.5, bold=True, ha="left")]
    for i, (kind, arg, text) in enumerate(rs):
        col, row = divmod(i, per_col)
        sx = x0 + PAD + col * (col_w + 4.0)
        cy = y0 + PAD + 6.0 + row * ROW_MM + ROW_MM / 2
        out += _sample(board, sym, kind, arg, sx, cy)
        out.append(Text((sx + SAMPLE_W + 2.5, cy), (text,), TEXT_PT, style.INK, z=12.5, ha="left"))
    return out


def _sample(board: Board, sym: dict, kind: str, arg: str, x: float, cy: float) -> list:
    y0, y1 = cy - SAMPLE_H / 2, cy + SAMPLE_H / 2
    x1 = x + SAMPLE_W
    z = 12.3
    if kind == "space":
        hex_ = style.route_hex(board, arg)
        edge, lw = style.space_edge(hex_)
        out = [Area((shapes.rounded_rect(x, y0, x1, y1, 1.0),), face=hex_, edge=edge, lw=lw, z=z)]
        if arg != "gray":
            for rs in symbols.rings(sym[arg], ((x + x1) / 2, cy), SAMPLE_H * 0.7):
                out.append(Area(tuple(rs), face=style.ink_on(hex_), alpha=0.8, z=z + 0.1))
        return out
    if kind == "wild":
        colors = [c.hex for c in board.palette] or [board.wild.hex]
        step = SAMPLE_W / len(colors)
        out = [Area((shapes.rect_ring(x + i * step, y0, x + (i + 1) * step, y1),), face=h, z=z)
               for i, h in enumerate(colors)]
        out.append(Area((shapes.rect_ring(x, y0, x1, y1),), edge="#555555", lw=0.5, z=z + 0.1))
        return out
    if kind == "water":
        return [Line(tuple(shapes.wavy([(x, cy), (x1, cy)], 1.2, 5.0)), style.WATER, 0.9, z=z)]
    if kind == "cable":
        return [Line(((x, cy), (x1, cy)), style.INK, 0.8, z=z, dash=(1.0, 1.5))]
    if kind == "flight":
        return [Line(((x, cy), (x1, cy)), style.INK, 1.4, z=z, dash=(5.0, 3.0))]
    if kind == "badge":
        return [Area((shapes.rounded_rect(x, y0, x1, y1, 1.0),), face="white", edge=style.ACCENT, lw=0.8, z=z),
                Text(((x + x1) / 2, cy), (arg,), 6.5, style.ACCENT, z=z + 0.1, bold=True)]
    if kind == "hub":
        r = SAMPLE_H / 2
        return [Disc((x + r, cy), r, "white", style.INK, 1.6, z=z), Disc((x + r, cy), r * 0.45, style.INK, None, 0, z=z + 0.1)]
    raise ValueError(kind)


def place_legend(board: Board, sym: dict, inner: Polygon, obstacles) -> tuple[list, tuple | None]:
    """The legend's items at the first free spot, and its box; when it collides everywhere, at the
    spot where it covers least, and None for the box."""
    area = tuple(b + d for b, d in zip(inner.bounds, (3, 3, -3, -3)))
    for ncols in (1, 2, 3):
        w, h = block_size(board, sym, ncols)
        found = labels.first_free(labels.scan_boxes(w, h, area), obstacles, inner)
        if found is not None:
            return items_at(board, sym, ncols, found[0], found[1]), found
    w, h = block_size(board, sym, 2)
    least = labels.least_covering(labels.scan_boxes(w, h, area, step=10.0), obstacles, inner)
    return items_at(board, sym, 2, least[0], least[1]), None
