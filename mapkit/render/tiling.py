"""How the board is cut into A4 or Letter sheets (pure arithmetic, no drawing).

Each sheet prints a window of the board in its content area: the paper less the printer margin
(6 mm) on every side and less a footer strip for the sheet's label, the "print at 100 %" notice
and the calibration bars. Neighbouring windows overlap by exactly `overlap` mm, the glue zone: the
columns (rows) needed are the fewest whose windows, overlapping by that much, span the board, and
the spare length is split between the outer edges of the first and last sheets (blank paper there
is cut off), not spread into the overlaps, which would print the same strip of board twice for
nothing. Both orientations are planned and the one needing fewer sheets wins (portrait on a tie).

Assembly: every sheet except those of column 1 is cut along its left frame line, every sheet
except those of row A along its top one; that cut edge (the seam) is laid onto the neighbour's
glue zone, whose inner edge is printed as a line. Registration ticks cross each seam, half on each
sheet, so that with the upper sheet in place a tick on it continues one on the sheet below.

Sheets are named by row letter and column number: A1 is the top-left sheet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mapkit.render.pdf import PAPERS, PRINT_MARGIN_MM

OVERLAP_MM = 10.0
FOOTER_MM = 11.0
XY = tuple[float, float]
Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class Tile:
    label: str
    row: int
    col: int
    window: Box  # the board area (x0, y0, x1, y1 in board mm) this sheet prints


@dataclass(frozen=True)
class Tiling:
    paper: str
    orientation: str            # "portrait" or "landscape"
    page: tuple[float, float]   # width, height in mm
    content: Box                # where the window is printed on the page: x, y, w, h in mm
    cols: int
    rows: int
    tiles: tuple[Tile, ...]
    board: tuple[float, float]
    overlap_x: float            # between neighbouring columns (0 with one column)
    overlap_y: float
    other_sheets: int           # what the other orientation would need

    @property
    def sheets(self) -> int:
        return self.cols * self.rows

    def tile(self, row: int, col: int) -> Tile:
        return self.tiles[row * self.cols + col]


def row_label(i: int) -> str:
    """A, B, …, Z, AA, AB, …"""
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(65 + r) + s
    return s


def _spans(length: float, window: float, overlap: float) -> tuple[list[float], float]:
    """Window starts along one axis, and the overlap between neighbours."""
    if length <= window + 1e-9:
        return [(length - window) / 2], 0.0  # one sheet, the board centred on it
    step = window - overlap
    n = 1 + math.ceil((length - window) / step - 1e-9)
    spare = window + (n - 1) * step - length
    return [i * step - spare / 2 for i in range(n)], overlap


def plan(board_w: float, board_h: float, page_w: float, page_h: float, overlap: float = OVERLAP_MM,
         margin: float = PRINT_MARGIN_MM, footer: float = FOOTER_MM, paper: str = "",
         orientation: str = "portrait", other_sheets: int = 0) -> Tiling:
    """The tiling for one orientation of the paper."""
    cw, ch = page_w - 2 * margin, page_h - 2 * margin - footer
    if cw <= overlap or ch <= overlap:
        raise ValueError(f"a {page_w} × {page_h} mm page is too small to tile on")
    xs, ox = _spans(board_w, cw, overlap)
    ys, oy = _spans(board_h, ch, overlap)
    tiles = tuple(Tile(f"{row_label(r)}{c + 1}", r, c, (x, y, x + cw, y + ch))
                  for r, y in enumerate(ys) for c, x in enumerate(xs))
    return Tiling(paper, orientation, (page_w, page_h), (margin, margin, cw, ch), len(xs), len(ys), tiles,
                  (board_w, board_h), ox, oy, other_sheets)


def tile_board(board_w: float, board_h: float, paper: str = "a4", overlap: float = OVERLAP_MM,
               margin: float = PRINT_MARGIN_MM, footer: float = FOOTER_MM) -> Tiling:
    """The tiling of a board_w × board_h mm board on `paper` that needs the fewest sheets."""
    pw, ph = PAPERS[paper]
    portrait = plan(board_w, board_h, pw, ph, overlap, margin, footer, paper, "portrait")
    landscape = plan(board_w, board_h, ph, pw, overlap, margin, footer, paper, "landscape")
    if landscape.sheets < portrait.sheets:
        return _with_other(landscape, portrait.sheets)
    return _with_other(portrait, landscape.sheets)


def _with_other(t: Tiling, other: int) -> Tiling:
    from dataclasses import replace
    return replace(t, other_sheets=other)


TICK_MM = 5.0      # each registration tick reaches this far either side of its seam
SHORT_TICK_MM = 2.0   # ... or this far, where a stretch of seam has no room for a full one


@dataclass(frozen=True)
class Tick:
    """A registration tick: a short line across a seam, at board (x, y); `vertical` seams run top
    to bottom (between columns) and their ticks are horizontal."""

    x: float
    y: float
    vertical: bool
    reach: float = TICK_MM   # how far it reaches either side of the seam

    def segment(self, reach: float | None = None) -> tuple[XY, XY]:
        reach = self.reach if reach is None else reach
        if self.vertical:
            return (self.x - reach, self.y), (self.x + reach, self.y)
        return (self.x, self.y - reach), (self.x, self.y + reach)


def seams(t: Tiling) -> tuple[list[float], list[float]]:
    """Board x of every cut edge between columns, y of every one between rows: the left (top)
    window edge of columns (rows) 2 onwards."""
    return ([t.tile(0, c).window[0] for c in range(1, t.cols)], [t.tile(r, 0).window[1] for r in range(1, t.rows)])


def glue_zones(t: Tiling, tile: Tile) -> list[tuple[Box, str, bool]]:
    """The strips of this sheet that the sheets right of it and below it cover: (box in board mm,
    the covering sheet's label, vertical strip?)."""
    x0, y0, x1, y1 = tile.window
    out = []
    if tile.col + 1 < t.cols:
        nx = t.tile(tile.row, tile.col + 1).window[0]
        out.append(((nx, y0, x1, y1), t.tile(tile.row, tile.col + 1).label, True))
    if tile.row + 1 < t.rows:
        ny = t.tile(tile.row + 1, tile.col).window[1]
        out.append(((x0, ny, x1, y1), t.tile(tile.row + 1, tile.col).label, False))
    return out


def registration_ticks(t: Tiling, avoid=(), reach: float = TICK_MM) -> list[Tick]:
    """Two ticks per seam per row (column) it separates, each in the stretch of the seam that only
    those two sheets print, slid to the nearest spot where the tick (and 1.5 mm around it) misses
    every box in avoid (x0, y0, x1, y1: stations, spaces, labels, badges), so that no mark lands
    on the finished board's playing pieces."""
    bw, bh = t.board
    xs = [(t.tile(0, c).window[0], t.tile(0, c).window[2]) for c in range(t.cols)]
    ys = [(t.tile(r, 0).window[1], t.tile(r, 0).window[3]) for r in range(t.rows)]
    avoid = list(avoid)
    vx, hy = seams(t)
    out = []
    short = min(reach, SHORT_TICK_MM)
    for x in vx:
        for r in range(t.rows):
            lo, hi = _exclusive(ys, r, bh)
            for y, n in _ticks_on(lambda v: (x, v), lo, hi, avoid, reach, short, True):
                out.append(Tick(x, y, True, n))
    for y in hy:
        for c in range(t.cols):
            lo, hi = _exclusive(xs, c, bw)
            for x, n in _ticks_on(lambda v: (v, y), lo, hi, avoid, reach, short, False):
                out.append(Tick(x, y, False, n))
    return out


def _ticks_on(point, lo, hi, avoid, reach: float, short: float, vertical: bool) -> list[tuple[float, float]]:
    """(where, reach) of a stretch's ticks: full ones where they fit (_free_spots); a stretch with
    no room for any gets short ones (SHORT_TICK_MM) where those fit, so that its two sheets still
    have a mark to line up by."""
    def size(n):   # the mark box (w x h): the tick and 1.5 mm round it
        return (2 * n + 3, 3.0) if vertical else (3.0, 2 * n + 3)
    spots = _free_spots(point, lo, hi, avoid, size(reach))
    if spots or short >= reach:
        return [(v, reach) for v in spots]
    return [(v, short) for v in _free_spots(point, lo, hi, avoid, size(short))]


def _free_spots(point, lo: float, hi: float, avoid, size: tuple[float, float]) -> list[float]:
    """Where a seam stretch [lo, hi] gets its ticks: in each of its thirds (_thirds) the free spot
    nearest the third's middle; a third with none takes the free spot nearest its middle anywhere
    on the stretch not already taken (by 2 mark widths); none at all there, no tick: a mark on a
    station, space or label would be printed on the finished board, while one tick fewer only
    leaves the sheet's angle to the other ticks of its seam."""
    spots: list[float] = []
    gap = 2 * min(size)
    for a, b in _thirds(lo, hi):
        v = _slide(point, a, b, avoid, size)
        if v is None:
            v = _slide(point, lo, hi, avoid, size, mid=(a + b) / 2,
                       taken=lambda w: any(abs(w - u) < gap for u in spots))
        if v is not None and all(abs(v - u) >= gap for u in spots):
            spots.append(v)
    return spots


def _thirds(lo: float, hi: float) -> list[tuple[float, float]]:
    """Two stretches around the first and last third of [lo, hi] (two ticks fix a sheet's angle)."""
    third = (hi - lo) / 3
    return [(lo + 5, lo + 2 * third), (lo + third, hi - 5)] if hi - lo > 40 else [(lo, hi)]


def _slide(point, lo: float, hi: float, avoid, size: tuple[float, float], step: float = 1.0,
           mid: float | None = None, taken=lambda v: False) -> float | None:
    """The value in [lo, hi] nearest `mid` (the stretch's middle) whose mark box (w × h) is free
    and not `taken`; None when there is none."""
    mid = (lo + hi) / 2 if mid is None else mid
    hw, hh = size[0] / 2, size[1] / 2
    k = 0
    while True:
        for v in ((mid,) if k == 0 else (mid + k * step, mid - k * step)):
            if v < lo or v > hi or taken(v):
                continue
            x, y = point(v)
            if not any(x - hw < b[2] and b[0] < x + hw and y - hh < b[3] and b[1] < y + hh for b in avoid):
                return v
        k += 1
        if mid + k * step > hi and mid - k * step < lo:
            return None


def _exclusive(spans: list[tuple[float, float]], i: int, limit: float) -> tuple[float, float]:
    """The part of span i on the board that no neighbouring span covers."""
    lo = spans[i - 1][1] if i > 0 else 0.0
    hi = spans[i + 1][0] if i + 1 < len(spans) else limit
    return max(lo, spans[i][0], 0.0), min(hi, spans[i][1], limit)
