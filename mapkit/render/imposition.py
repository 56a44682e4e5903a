"""Where cards go on a sheet, fronts and backs (pure arithmetic, no drawing).

A sheet is the paper less the printer margin (6 mm). Around the grid of cards it keeps room for
crop marks (4 mm) on every side, and for the "print at 100 %" notice and calibration bars (7 mm) on
two opposite sides: left and right, or top and bottom, whichever leaves room for more cards.

- home mode: cards butted edge to edge (one cut between neighbours), 16 mini cards (44 × 68 mm)
  per A4 sheet, 12 per Letter sheet;
- bleed mode: each card's art runs 3 mm past its trim line, so neighbours sit 2 × 3 mm apart.

The grid is centred on the page, so a back mirrored about the page's centre lands behind its
front: long-edge duplex flips the sheet left-right (columns mirrored), short-edge top-bottom
(rows mirrored). With duplex "none" (a printer that prints one side) all fronts come first, then
all backs, mirrored as for long-edge: the person turns the printed stack over left to right and
feeds it again, which is a long-edge flip done by hand (its pages say so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mapkit.render.pdf import PAPERS, PRINT_MARGIN_MM

MINI_CARD = (44.0, 68.0)
SUMMARY_CARD = (88.0, 120.0)
BLEED_MM = 3.0
MARK_ROOM_MM = 4.0       # crop marks: 1 mm gap + 3 mm line
FURNITURE_MM = 7.0       # notice and calibration bars
DUPLEX = ("none", "long-edge", "short-edge")
MODES = ("home", "bleed")


@dataclass(frozen=True)
class SheetLayout:
    paper: str
    page: tuple[float, float]
    card: tuple[float, float]   # trim size, w × h
    bleed: float
    cols: int
    rows: int
    furniture: str              # "sides" (left and right) or "ends" (top and bottom)

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def pitch(self) -> tuple[float, float]:
        return (self.card[0] + 2 * self.bleed, self.card[1] + 2 * self.bleed)

    @property
    def frame(self) -> tuple[float, float, float, float]:
        """The grid of cards with their bleed: x0, y0, x1, y1 on the page."""
        (pw, ph), (sx, sy) = self.page, self.pitch
        gw, gh = self.cols * sx, self.rows * sy
        x0, y0 = (pw - gw) / 2, (ph - gh) / 2
        return (x0, y0, x0 + gw, y0 + gh)

    def slot(self, i: int) -> tuple[float, float]:
        """Top-left corner of the trim box of slot i (row by row from the top left)."""
        r, c = divmod(i, self.cols)
        x0, y0, _, _ = self.frame
        sx, sy = self.pitch
        return (x0 + c * sx + self.bleed, y0 + r * sy + self.bleed)

    def trim_lines(self) -> tuple[list[float], list[float]]:
        """x of every vertical and y of every horizontal trim line (for crop marks)."""
        xs = sorted({round(self.slot(c)[0] + d, 6) for c in range(self.cols) for d in (0, self.card[0])})
        ys = sorted({round(self.slot(r * self.cols)[1] + d, 6) for r in range(self.rows) for d in (0, self.card[1])})
        return xs, ys


def sheet_layout(card=MINI_CARD, paper: str = "a4", mode: str = "home") -> SheetLayout:
    """The most cards of this size a portrait sheet holds, with room for marks and furniture."""
    if mode not in MODES:
        raise ValueError(f"unknown mode '{mode}'; modes: {', '.join(MODES)}")
    pw, ph = PAPERS[paper]
    bleed = BLEED_MM if mode == "bleed" else 0.0
    sx, sy = card[0] + 2 * bleed, card[1] + 2 * bleed
    best = None
    for furniture in ("sides", "ends"):
        room_w = pw - 2 * PRINT_MARGIN_MM - 2 * MARK_ROOM_MM - (2 * FURNITURE_MM if furniture == "sides" else 0)
        room_h = ph - 2 * PRINT_MARGIN_MM - 2 * MARK_ROOM_MM - (2 * FURNITURE_MM if furniture == "ends" else 0)
        cols, rows = math.floor(room_w / sx + 1e-9), math.floor(room_h / sy + 1e-9)
        if cols < 1 or rows < 1:
            continue
        layout = SheetLayout(paper, (pw, ph), tuple(card), bleed, cols, rows, furniture)
        if best is None or layout.per_sheet > best.per_sheet:
            best = layout
    if best is None:
        raise ValueError(f"a {card[0]} × {card[1]} mm card does not fit on {paper}")
    return best


def back_position(layout: SheetLayout, xy: tuple[float, float], duplex: str) -> tuple[float, float]:
    """Where the back of a card whose front's trim box starts at xy is printed on the back page."""
    (pw, ph), (w, h) = layout.page, layout.card
    x, y = xy
    if duplex in ("long-edge", "none"):  # none: the stack is turned over by hand, left to right
        return (pw - x - w, y)
    if duplex == "short-edge":
        return (x, ph - y - h)
    raise ValueError(f"unknown duplex '{duplex}'; choose one of {', '.join(DUPLEX)}")


@dataclass(frozen=True)
class Placed:
    card: int                  # index into the deck
    xy: tuple[float, float]    # top-left of the trim box on the page


@dataclass(frozen=True)
class SheetPage:
    side: str                  # "front" or "back"
    sheet: int                 # 0-based sheet number
    cards: tuple[Placed, ...]


def impose(count: int, layout: SheetLayout, duplex: str = "long-edge", backs: bool = True,
           groups: tuple[int, ...] | None = None) -> list[SheetPage]:
    """The pages for `count` cards: for duplex printing each front page followed by its back page;
    with duplex "none" all the fronts, then all the backs in the same order. groups: sizes of runs
    of cards (decks) that each start on a new sheet, so that no sheet mixes two decks' backs."""
    if duplex not in DUPLEX:
        raise ValueError(f"unknown duplex '{duplex}'; choose one of {', '.join(DUPLEX)}")
    n = layout.per_sheet
    runs, start = [], 0
    for size in (groups if groups is not None else (count,)):
        for k in range(0, size, n):
            runs.append(range(start + k, start + min(size, k + n)))
        start += size
    fronts, back_pages = [], []
    for sheet, ids in enumerate(runs):
        first = ids.start
        front = tuple(Placed(i, layout.slot(i - first)) for i in ids)
        fronts.append(SheetPage("front", sheet, front))
        back_pages.append(SheetPage("back", sheet, tuple(Placed(p.card, back_position(layout, p.xy, duplex))
                                                          for p in front)))
    if not backs:
        return fronts
    if duplex == "none":
        return fronts + back_pages
    return [p for pair in zip(fronts, back_pages) for p in pair]
