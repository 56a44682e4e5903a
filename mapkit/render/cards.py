"""tickets.pdf, trains.pdf and summary.pdf: card sheets with crop marks, fronts and mirrored backs.

Which cards a deck has comes from the board (`train_cards`, `ticket_cards`); where they go on a
sheet from `imposition`; what they look like from `card_faces`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from mapkit.cards import derive_deck
from mapkit.geometry import Layout
from mapkit.model import Board
from mapkit.render import card_faces, draw, fonts, marks, pdf, summary, symbols
from mapkit.render.card_faces import CardBox
from mapkit.render.imposition import (FURNITURE_MM, MARK_ROOM_MM, MINI_CARD, SUMMARY_CARD, SheetLayout,
                                      SheetPage, impose, sheet_layout)

PNG_DPI = 150
FLIP = {"long-edge": "flip on the long edge", "short-edge": "flip on the short edge",
        "none": "print the back pages on the back of their sheets"}


@dataclass(frozen=True)
class CardsOutput:
    pages: int
    cards: int
    sheets: int
    per_sheet: int
    frames: int           # card frames drawn on front pages: one per card


def train_cards(board: Board) -> list[str | None]:
    """One entry per physical train card: its palette color id, or None for a wild card."""
    if board.deck is not None:
        counts, wild = dict(board.deck.counts), board.deck.wild
    else:
        d = derive_deck(board)
        counts, wild = dict(d.counts), d.wild
    cards: list[str | None] = []
    for c in board.palette:
        cards += [c.id] * int(counts.get(c.id, 0))
    return cards + [None] * wild


def ticket_decks(board: Board) -> list[tuple[str, list]]:
    """The board's ticket decks, "standard" first."""
    decks = list(board.ticket_decks.items())
    decks.sort(key=lambda kv: kv[0] != "standard")
    return [(name, list(ts)) for name, ts in decks if ts]


def ticket_cards(board: Board) -> list[tuple[str, object]]:
    """(deck label, ticket) per ticket card; the label is empty when the board has one deck."""
    decks = ticket_decks(board)
    labeled = len(decks) > 1
    return [(name if labeled else "", t) for name, ts in decks for t in ts]


def write_cards(path: Path, board: Board, layout: SheetLayout, duplex: str, count: int, what: str,
                front: Callable[[int, CardBox], list], back: Callable[[int, CardBox], list],
                png: Path | None = None) -> CardsOutput:
    """Write the sheets of `count` cards; png: also save the first sheet of fronts there."""
    pages = impose(count, layout, duplex)
    sheets = max((p.sheet for p in pages), default=-1) + 1
    frames = 0
    with pdf.pdf_document(path) as doc:
        for page in pages:
            fig, ax = pdf.page(*layout.page)
            items = furniture(layout, board, what, page, sheets, duplex)
            for placed in page.cards:
                box = CardBox(placed.xy[0], placed.xy[1], *layout.card, layout.bleed)
                items += (front if page.side == "front" else back)(placed.card, box)
                items += card_faces.frame(box, visible=not layout.bleed)
                frames += page.side == "front"
            draw.draw(ax, items, clip=False)
            doc.add(fig)
            if png is not None and page.side == "front" and page.sheet == 0:
                pdf.save_png(fig, png, PNG_DPI)
        n = doc.pages
    return CardsOutput(n, count, sheets, layout.per_sheet, frames)


def furniture(layout: SheetLayout, board: Board, what: str, page: SheetPage, sheets: int, duplex: str) -> list:
    """Crop marks around the grid, and the notice, page info and calibration bars beside it."""
    x0, y0, x1, y1 = layout.frame
    xs, ys = layout.trim_lines()
    out = marks.crop_marks(xs, ys, (x0, y0, x1, y1), MARK_ROOM_MM - 1.0)
    side = "fronts" if page.side == "front" else f"backs ({FLIP[duplex]})"
    info = f"{board.name} — {what}, sheet {page.sheet + 1} of {sheets}, {side}"
    pw, ph = layout.page
    if layout.furniture == "sides":
        band_l = x0 - MARK_ROOM_MM - FURNITURE_MM
        out += marks.calibration_bar(band_l + 0.5, y0 + 8, 100.0, "100 mm", 10.0, vertical=True)
        out += marks.calibration_bar(band_l + 0.5, y0 + 130, 25.4, "1 inch", 25.4 / 4, vertical=True)
        bx = x1 + MARK_ROOM_MM + FURNITURE_MM / 2
        size = _fit_size([marks.NOTICE, info], y1 - y0 - 10, 6.5)
        out.append(draw.Text((bx, (y0 + y1) / 2), (marks.NOTICE, info), size, marks.MARK_INK, z=20, rotation=90))
    else:
        top = y0 - MARK_ROOM_MM - FURNITURE_MM / 2
        size = _fit_size([marks.NOTICE + "  ·  " + info], x1 - x0, 6.5)
        out.append(draw.Text((pw / 2, top), (marks.NOTICE + "  ·  " + info,), size, marks.MARK_INK, z=20))
        by = y1 + MARK_ROOM_MM + FURNITURE_MM / 2 - marks.BAR_MM / 2
        total = 100 + 4 + fonts.line_width("100 mm", 5.5) + 8 + 25.4 + 1.5 + fonts.line_width("1 inch", 5.5)
        bx = pw / 2 - total / 2
        out += marks.calibration_bar(bx, by, 100.0, "100 mm", 10.0)
        out += marks.calibration_bar(bx + total - 25.4 - 1.5 - fonts.line_width("1 inch", 5.5), by, 25.4, "1 inch",
                                     25.4 / 4)
    return out


def _fit_size(lines, length: float, size: float) -> float:
    while size > 4 and max(fonts.line_width(s, size) for s in lines) > length:
        size -= 0.5
    return size


# ------------------------------------------------------------------ the three decks

def write_trains(path: Path, board: Board, paper: str, mode: str, duplex: str, png: Path | None = None) -> CardsOutput:
    cards = train_cards(board)
    sym = symbols.assign_symbols(board)
    layout = sheet_layout(MINI_CARD, paper, mode)

    def front(i, box):
        cid = cards[i]
        return card_faces.train_front(box, board, cid, sym[cid] if cid else symbols.WILD)

    return write_cards(path, board, layout, duplex, len(cards), "train cards", front,
                       lambda i, box: card_faces.train_back(box, board), png)


def write_tickets(path: Path, board: Board, layout_: Layout, paper: str, mode: str, duplex: str,
                  png: Path | None = None) -> CardsOutput:
    cards = ticket_cards(board)
    mini = card_faces.MiniMap.of(board, layout_)
    layout = sheet_layout(MINI_CARD, paper, mode)
    return write_cards(path, board, layout, duplex, len(cards), "tickets",
                       lambda i, box: card_faces.ticket_front(box, board, cards[i][1], mini, cards[i][0]),
                       lambda i, box: card_faces.ticket_back(box, board, cards[i][0]), png)


def write_summary(path: Path, board: Board, paper: str, mode: str, duplex: str) -> CardsOutput:
    front_sections, back_sections = summary.front(board), summary.back(board)
    layout = sheet_layout(SUMMARY_CARD, paper, mode)
    return write_cards(path, board, layout, duplex, summary.copies(board), "summary cards",
                       lambda i, box: card_faces.summary_face(box, board, front_sections, f"{board.name}: summary"),
                       lambda i, box: card_faces.summary_face(box, board, back_sections, f"{board.name}: scoring"))
