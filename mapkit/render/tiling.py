"""How the board is cut into A4 or Letter sheets (pure arithmetic, no drawing).

Each sheet prints a window of the board in its content area: the paper less the printer margin
(6 mm) on every side and less a footer strip for the sheet's label, the "print at 100 %" notice
and the calibration bars. Neighbouring windows overlap by at least `overlap` mm: the columns
(rows) needed are the fewest whose windows, overlapping by that much, span the board; the windows
are then spread evenly, so every sheet is full and the spare length goes into the overlaps.
Both orientations are planned and the one needing fewer sheets wins (portrait on a tie).

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
    n = 1 + math.ceil((length - window) / (window - overlap) - 1e-9)
    step = (length - window) / (n - 1)
    return [i * step for i in range(n)], window - step


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


def alignment_marks(t: Tiling, avoid=(), size: float = 12.0) -> list[XY]:
    """Board points for crosshairs: on every seam between neighbouring sheets, in the middle of
    the overlap, once or twice per row (column) of the seam and away from the other seams (so each
    mark is printed on exactly the two sheets it aligns). Each mark slides along its seam, within
    that stretch, to the nearest spot where its size × size box misses every box in avoid
    (x0, y0, x1, y1: station markers, spaces, labels)."""
    bw, bh = t.board
    xs = [(t.tile(0, c).window[0], t.tile(0, c).window[2]) for c in range(t.cols)]
    ys = [(t.tile(r, 0).window[1], t.tile(r, 0).window[3]) for r in range(t.rows)]
    avoid = list(avoid)
    marks = []
    for c in range(t.cols - 1):
        x = (xs[c + 1][0] + xs[c][1]) / 2
        for r in range(t.rows):
            lo, hi = _exclusive(ys, r, bh)
            for part_lo, part_hi in _parts(lo, hi):
                y = _slide(lambda v: (x, v), part_lo, part_hi, avoid, size)
                marks.append((x, y))
    for r in range(t.rows - 1):
        y = (ys[r + 1][0] + ys[r][1]) / 2
        for c in range(t.cols):
            lo, hi = _exclusive(xs, c, bw)
            for part_lo, part_hi in _parts(lo, hi):
                x = _slide(lambda v: (v, y), part_lo, part_hi, avoid, size)
                marks.append((x, y))
    return marks


def _parts(lo: float, hi: float) -> list[tuple[float, float]]:
    """The stretch split in two when it is long (two marks), else whole."""
    if hi - lo > 120:
        mid = (lo + hi) / 2
        return [(lo, mid), (mid, hi)]
    return [(lo, hi)]


def _slide(point, lo: float, hi: float, avoid, size: float, step: float = 2.5) -> float:
    """The value in [lo + size/2, hi - size/2] nearest the middle whose mark box is free."""
    mid, half = (lo + hi) / 2, size / 2
    k = 0
    while True:
        for v in ((mid,) if k == 0 else (mid + k * step, mid - k * step)):
            if v - half < lo or v + half > hi:
                continue
            x, y = point(v)
            if not any(x - half < b[2] and b[0] < x + half and y - half < b[3] and b[1] < y + half for b in avoid):
                return v
        k += 1
        if mid + k * step + half > hi and mid - k * step - half < lo:
            return mid


def _exclusive(spans: list[tuple[float, float]], i: int, limit: float) -> tuple[float, float]:
    """The part of span i on the board that no neighbouring span covers."""
    lo = spans[i - 1][1] if i > 0 else 0.0
    hi = spans[i + 1][0] if i + 1 < len(spans) else limit
    return max(lo, spans[i][0], 0.0), min(hi, spans[i][1], limit)
