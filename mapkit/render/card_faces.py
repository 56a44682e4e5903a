"""Card faces and backs as primitives: train cards, tickets and the summary card.

Each function draws one card into a box on the page (its trim box, plus bleed in bleed mode) and
returns items for `draw.draw`. In home mode cards get a white border and a thin frame on the trim
line (the cut line); in bleed mode their art runs into the bleed instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from mapkit.geometry import Layout
from mapkit.model import Board
from mapkit.render import fonts, shapes, style, symbols
from mapkit.render.draw import Area, Disc, Line, Text

FRAME_INK = "#b8b8b8"
SAFE_MM = 3.0  # text stays this far inside the trim line


@dataclass(frozen=True)
class CardBox:
    x: float
    y: float
    w: float
    h: float
    bleed: float = 0.0

    @property
    def trim(self):
        return (self.x, self.y, self.x + self.w, self.y + self.h)

    def panel(self, inset: float = 2.0):
        """The card's colored area: inset with a white border at home, into the bleed otherwise."""
        if self.bleed:
            b = self.bleed
            return (self.x - b, self.y - b, self.x + self.w + b, self.y + self.h + b), 0.0
        return (self.x + inset, self.y + inset, self.x + self.w - inset, self.y + self.h - inset), 2.0


def frame(box: CardBox, visible: bool = True) -> list:
    """The card's trim line, drawn thin and gray in home mode (where to cut); in bleed mode the
    crop marks show it and nothing is drawn."""
    return [Area((shapes.rect_ring(*box.trim),), edge=FRAME_INK, lw=0.3, z=15)] if visible else []


def _panel(box: CardBox, face, edge=None) -> list:
    rect, radius = box.panel()
    ring = shapes.rounded_rect(*rect, radius) if radius else shapes.rect_ring(*rect)
    return [Area((ring,), face=face, edge=edge, lw=0.6 if edge else 0.0, z=1)]


def _fit(text: str, width: float, height: float, sizes, bold=False):
    return fonts.fit_lines(text, width, height, sizes, bold)


# ------------------------------------------------------------------ train cards

def train_front(box: CardBox, board: Board, color_id: str | None, symbol: str) -> list:
    """A train card of a palette color (color_id) or the wild card (None)."""
    x0, y0, x1, y1 = box.trim
    cx = (x0 + x1) / 2
    out = []
    if color_id is None:
        return out + _wild_front(box, board, symbol)
    c = board.color(color_id)
    ink = style.ink_on(c.hex)
    out += _panel(box, c.hex, "#555555" if style.is_whitish(c.hex) else None)
    lines, size = _fit(c.name, box.w - 2 * SAFE_MM - 2, 11, (9, 8, 7, 6.5, 6), True)
    out.append(Text((cx, y0 + 4 + fonts.block_height(len(lines), size) / 2), tuple(lines), size, ink, z=3, bold=True))
    (px0, py0, px1, py1), radius = box.panel()
    inset = 1.8 if radius else SAFE_MM + 0.5
    out.append(Area((shapes.rounded_rect(px0 + inset, py0 + inset, px1 - inset, py1 - inset, 1.5),),
                    edge=ink, lw=0.5, alpha=0.45, z=2))
    out.append(Disc((cx, y0 + box.h * 0.52), 13.0, None, ink, 1.0, z=2))
    out += _symbol(symbol, (cx, y0 + box.h * 0.52), 18.0, ink)
    out.append(Text((cx, y1 - 6.5), (style.kind_name(c.kind),), 6.5, ink, z=3))
    out += _symbol(symbol, (x0 + 6.5, y1 - 6.5), 4.0, ink)
    out += _symbol(symbol, (x1 - 6.5, y1 - 6.5), 4.0, ink)
    return out


def _wild_front(box: CardBox, board: Board, symbol: str) -> list:
    x0, y0, x1, y1 = box.trim
    (px0, py0, px1, py1), _ = box.panel()
    colors = [c.hex for c in board.palette] or [board.wild.hex]
    step = (px1 - px0) / len(colors)
    out = [Area((shapes.rect_ring(px0 + i * step, py0, px0 + (i + 1) * step, py1),), face=h, z=1)
           for i, h in enumerate(colors)]
    if not box.bleed:
        out.append(Area((shapes.rect_ring(px0, py0, px1, py1),), edge="#555555", lw=0.6, z=1.5))
    cx, cy = (x0 + x1) / 2, y0 + box.h * 0.5
    lines, size = _fit(board.wild.name, box.w - 2 * SAFE_MM - 6, 10, (9, 8, 7, 6), True)
    th = fonts.block_height(len(lines), size)
    out.append(Area((shapes.rounded_rect(x0 + 5, cy - 16, x1 - 5, cy + 11 + th, 2.5),), face="white",
                    edge="#333333", lw=0.6, z=2))
    out += _symbol(symbol, (cx, cy - 4), 18.0, style.INK)
    out.append(Text((cx, cy + 9 + th / 2), tuple(lines), size, style.INK, z=3, bold=True))
    out.append(Area((shapes.rounded_rect(x0 + 6, y0 + 4, x1 - 6, y0 + 10, 1.5),), face="white", z=2))
    out.append(Text((cx, y0 + 7), ("wild card",), 6.5, style.INK, z=3))
    return out


def _symbol(name: str, center, size: float, color) -> list:
    return [Area(tuple(r), face=color, z=3) for r in symbols.rings(name, center, size)]


def _back_panel(box: CardBox, color: str, light: bool) -> tuple[list, str]:
    """A back's background and the ink for what is on it: full color, or with light ink (saves
    toner and cuts cleanly) a white card with a colored frame and colored print."""
    if not light:
        return _panel(box, color), "white"
    (px0, py0, px1, py1), radius = box.panel()
    inset = 1.5 if radius else SAFE_MM
    out = _panel(box, "white")
    out.append(Area((shapes.rounded_rect(px0 + inset, py0 + inset, px1 - inset, py1 - inset, 1.5),),
                    edge=color, lw=1.6, z=1.5))
    return out, color


def train_back(box: CardBox, board: Board, light: bool = False) -> list:
    x0, y0, x1, y1 = box.trim
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    out, ink = _back_panel(box, style.CARD_BACK, light)
    for r in symbols.rings(symbols.WILD, (cx, cy), box.w * 0.8):
        out.append(Area(tuple(r), face=ink, alpha=0.12, z=2))
    out.append(Text((cx, cy - 3), ("Train card",), 9, ink, z=3, bold=True))
    lines, size = _fit(board.name, box.w - 2 * SAFE_MM - 2, 9, (7, 6.5, 6, 5.5))
    out.append(Text((cx, cy + 3 + fonts.block_height(len(lines), size) / 2), tuple(lines), size, ink, z=3))
    return out


# ------------------------------------------------------------------ tickets

@dataclass(frozen=True)
class MiniMap:
    """What a ticket's mini-map shows: every route's centreline and every station, in board mm."""

    width: float
    height: float
    lines: tuple
    stations: dict

    @classmethod
    def of(cls, board: Board, layout: Layout) -> "MiniMap":
        return cls(board.physical.width_mm, board.physical.height_mm,
                   tuple(s.centerline for s in layout.routes.values()), dict(layout.positions))


def minimap_items(mini: MiniMap, rect, marked: tuple[str, ...]) -> list:
    """The mini-map scaled into rect (x0, y0, x1, y1), the marked stations highlighted."""
    x0, y0, x1, y1 = rect
    s = min((x1 - x0) / mini.width, (y1 - y0) / mini.height)
    ox = x0 + ((x1 - x0) - mini.width * s) / 2
    oy = y0 + ((y1 - y0) - mini.height * s) / 2

    def at(p):
        return (ox + p[0] * s, oy + p[1] * s)

    out = [Area((shapes.rect_ring(ox, oy, ox + mini.width * s, oy + mini.height * s),), face="#f4efe2",
                edge="#c9bfa6", lw=0.4, z=2)]
    out += [Line(tuple(at(p) for p in line), "#9a9a9a", 0.45, z=3) for line in mini.lines]
    out += [Disc(at(p), 0.35, "#6f6f6f", None, 0, z=4) for sid, p in mini.stations.items() if sid not in marked]
    for sid in marked:
        out.append(Disc(at(mini.stations[sid]), 1.25, style.ACCENT, "white", 0.6, z=5))
    return out


def ticket_front(box: CardBox, board: Board, ticket, mini: MiniMap, deck_label: str = "") -> list:
    x0, y0, x1, y1 = box.trim
    cx = (x0 + x1) / 2
    out = _panel(box, "#fbf3df", None if box.bleed else "#b89c6e")
    width = box.w - 2 * SAFE_MM
    y = y0 + SAFE_MM + 0.5
    for i, sid in enumerate((ticket.a, ticket.b)):
        lines, size = _fit(board.station(sid).name, width, 7.5, (8, 7.5, 7, 6.5, 6, 5.5, 5), True)
        h = fonts.block_height(len(lines), size)
        out.append(Text((cx, y + h / 2), tuple(lines), size, style.INK, z=6, bold=True))
        y += h
        if i == 0:
            out.append(Text((cx, y + 1.6), ("to",), 5.5, "#6b5a3e", z=6))
            y += 3.4
    map_w = box.w - 2 * 2.5
    map_h = map_w * mini.height / mini.width
    my0 = max(y + 1.5, y0 + 21)
    out += minimap_items(mini, (x0 + 2.5, my0, x1 - 2.5, min(my0 + map_h, y1 - 17)), (ticket.a, ticket.b))
    # the points, big, in the bottom-right corner; a two-valued ticket (transit) shows its second
    # value the same way to the left, each named, both large enough to read across the table
    pcx, pcy, r = x1 - 9, y1 - 9, 6.2
    out.append(Disc((pcx, pcy), r, style.TICKET_BACK, "white", 0.8, z=6))
    out.append(Text((pcx, pcy), (str(ticket.points),), 15 if ticket.points < 100 else 11, "white", z=7, bold=True))
    left = x1 - 9 - 2 * r - 1
    if ticket.transit_points:
        tcx = x1 - 9 - 2 * r - 1.5
        out.append(Disc((tcx, pcy), r, "white", style.TICKET_BACK, 1.2, z=6))
        out.append(Text((tcx, pcy), (str(ticket.transit_points),), 15 if ticket.transit_points < 100 else 11,
                        style.TICKET_BACK, z=7, bold=True))
        out.append(Text((tcx, pcy - r - 1.6), ("transit",), 6.5, "#6b5a3e", z=7))
        out.append(Text((pcx, pcy - r - 1.6), ("points",), 6.5, "#6b5a3e", z=7))
        left = tcx - r - 1
    foot = [board.name]
    if deck_label:
        foot.insert(0, f"{deck_label} deck")
    fl, fs = _fit("\n".join(foot), left - x0 - SAFE_MM - 0.5, 9, (5.5, 5, 4.5, 4))
    out.append(Text((x0 + SAFE_MM, y1 - 9), tuple(fl), fs, "#6b5a3e", z=6, ha="left", align="left"))
    return out


def ticket_back(box: CardBox, board: Board, deck_label: str = "", color: str = style.TICKET_BACK,
                light: bool = False) -> list:
    """A ticket's back: in its deck's color, with the deck's name in large print when the kit
    has more than the standard deck, so that shuffled decks are sorted face down."""
    x0, y0, x1, y1 = box.trim
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    out, ink = _back_panel(box, color, light)
    out.append(Disc((cx, cy - 6), 9, None, ink, 1.2, z=2))
    out.append(Disc((cx, cy - 6), 2.2, ink, None, 0, z=2))
    out.append(Text((cx, cy + 8), ("Destination", "ticket"), 8.5, ink, z=3, bold=True))
    if deck_label:
        dl, ds = _fit(f"{deck_label} deck", box.w - 2 * SAFE_MM - 2, 6, (10, 9, 8, 7), True)
        out.append(Text((cx, y0 + SAFE_MM + 4), tuple(dl), ds, ink, z=3, bold=True))
    lines, size = _fit(board.name, box.w - 2 * SAFE_MM - 2, 10, (6.5, 6, 5.5, 5))
    out.append(Text((cx, y1 - 6 - fonts.block_height(len(lines), size) / 2), tuple(lines), size, ink, z=3))
    return out


# ------------------------------------------------------------------ bonus cards

def bonus_face(box: CardBox, board: Board, name: str, points: int, rule: str) -> list:
    """A bonus card (Longest Continuous Path): its name, its points, large, and its rule."""
    x0, y0, x1, y1 = box.trim
    cx = (x0 + x1) / 2
    out = _panel(box, "#fdfbf6", None if box.bleed else "#8a8a8a")
    out.append(Area((shapes.rect_ring(x0 + 2, y0 + 2, x1 - 2, y0 + 16),), face=style.CARD_BACK, z=2))
    tl, ts = _fit(name, box.w - 2 * SAFE_MM - 2, 12, (12, 11, 10, 9), True)
    out.append(Text((cx, y0 + 9), tuple(tl), ts, "white", z=3, bold=True))
    out.append(Disc((cx, y0 + 42), 18, style.ACCENT, None, 0, z=2))
    out.append(Text((cx, y0 + 42), (f"+{points}",), 30, "white", z=3, bold=True))
    rl, rs = _fit(rule, box.w - 2 * SAFE_MM - 4, y1 - (y0 + 66) - SAFE_MM - 8, (9, 8.5, 8, 7.5, 7, 6.5, 6))
    out.append(Text((cx, y0 + 66 + fonts.block_height(len(rl), rs) / 2), tuple(rl), rs, style.INK, z=3))
    fl, fs = _fit(board.name, box.w - 2 * SAFE_MM, 6, (6.5, 6, 5.5))
    out.append(Text((cx, y1 - SAFE_MM - 2), tuple(fl), fs, "#555555", z=3))
    return out


def bonus_back(box: CardBox, board: Board, name: str) -> list:
    x0, y0, x1, y1 = box.trim
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    out = _panel(box, style.CARD_BACK)
    lines, size = _fit(name, box.w - 2 * SAFE_MM - 4, 20, (14, 12, 11, 10), True)
    out.append(Text((cx, cy - 4), tuple(lines), size, "white", z=3, bold=True))
    bl, bs = _fit(f"{board.name}: bonus card", box.w - 2 * SAFE_MM, 8, (8, 7, 6.5, 6))
    out.append(Text((cx, cy + 12), tuple(bl), bs, "white", z=3))
    return out


# ------------------------------------------------------------------ summary card

def summary_face(box: CardBox, board: Board, sections, title: str) -> list:
    """A side of the summary card: a title band, then the sections at the largest size that fits."""
    x0, y0, x1, y1 = box.trim
    out = _panel(box, "#fdfbf6", None if box.bleed else "#8a8a8a")
    band = (x0 if box.bleed else x0 + 2, y0 if box.bleed else y0 + 2, x1 if box.bleed else x1 - 2, y0 + 13)
    out.append(Area((shapes.rect_ring(band[0] - box.bleed, band[1] - box.bleed, band[2] + box.bleed, band[3]),),
                    face=style.CARD_BACK, z=2))
    tl, ts = _fit(title, box.w - 2 * SAFE_MM - 2, 9, (10, 9, 8, 7), True)
    out.append(Text(((x0 + x1) / 2, (y0 + 2 + y0 + 13) / 2), tuple(tl), ts, "white", z=3, bold=True))
    width = box.w - 2 * (SAFE_MM + 1.5)
    top, bottom = y0 + 16, y1 - SAFE_MM - 1
    for size in (8.5, 8, 7.5, 7, 6.5, 6, 5.5, 5, 4.5):
        body, height = _sections(sections, x0 + SAFE_MM + 1.5, top, width, size)
        if height <= bottom - top:
            break
    return out + body


def _sections(sections, x: float, y: float, width: float, size: float) -> tuple[list, float]:
    out, y_start = [], y
    for sec in sections:
        if sec.heading:
            out.append(Text((x, y + fonts.block_height(1, size + 0.5) / 2), (sec.heading,), size + 0.5,
                            style.CARD_BACK, z=3, bold=True, ha="left"))
            y += fonts.block_height(1, size + 0.5) + 0.6
        if sec.table:
            out_t, h = _table(sec.table, x, y, width, size)
            out += out_t
            y += h + 1.0
        s = size - 1.5 if sec.small else size
        for line in sec.lines:
            wrapped = fonts.wrap(line, s, width)
            h = fonts.block_height(len(wrapped), s)
            out.append(Text((x, y + h / 2), tuple(wrapped), s, "#555555" if sec.small else style.INK, z=3,
                            ha="left", align="left"))
            y += h + 0.5
        y += 1.6
    return out, y - y_start


def _table(rows, x: float, y: float, width: float, size: float) -> tuple[list, float]:
    """The scoring table: a row of lengths over a row of points, headed in a first column."""
    head_w = max(fonts.line_width(h, size - 0.5, True) for h in ("Spaces", "Points")) + 2.0
    cw = (width - head_w) / len(rows)
    rh = fonts.block_height(1, size) + 1.2
    out = []
    for r, (head, key) in enumerate((("Spaces", 0), ("Points", 1))):
        cy = y + r * rh + rh / 2
        out.append(Area((shapes.rect_ring(x, y + r * rh, x + width, y + (r + 1) * rh),),
                        face="#e9eef6" if r == 0 else None, edge="#8a8a8a", lw=0.4, z=2.5))
        out.append(Text((x + head_w / 2, cy), (head,), size - 0.5, style.INK, z=3, bold=True))
        for i, row in enumerate(rows):
            out.append(Text((x + head_w + cw * (i + 0.5), cy), (row[key],), size, style.INK, z=3, bold=r == 1))
    for i in range(len(rows)):
        xi = x + head_w + cw * i
        out.append(Line(((xi, y), (xi, y + 2 * rh)), "#8a8a8a", 0.4, z=2.6))
    return out, 2 * rh
