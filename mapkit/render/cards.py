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
FLIP = {"long-edge": "print double-sided, flip on the long edge", "short-edge": "print double-sided, flip on the short edge",
        "none": "after printing all the fronts, turn the printed stack over left to right, put it back in the tray "
                "and print the back pages onto it, sheet 1 first"}
DECK_BACKS = ("#7a4e2d", "#2f5d50", "#5b3f7a", "#8a3b3b", "#3d5a80", "#6b6b2f")  # one back color per deck


@dataclass(frozen=True)
class CardsOutput:
    pages: int
    cards: int
    sheets: int
    per_sheet: int
    frames: int           # card frames drawn on front pages: one per card


def train_cards(board: Board) -> list[str | None]:
    """One entry per physical train card: its palette color id, or None for a wild card, in a
    mixed order (`mixed`), so that a misprinted or lost sheet costs a few cards of every color,
    not a whole color, and a person cutting one sheet can check a hand of each."""
    return mixed(_train_counts(board))


def mixed(cards: list) -> list:
    """The cards dealt round-robin from each kind in turn, larger kinds spread evenly: card k of a
    kind with n cards goes at (k + 0.5) / n along the deck (ties in the palette's order)."""
    kinds: dict = {}
    for c in cards:
        kinds.setdefault(c, []).append(c)
    keyed = [((k + 0.5) / len(group), order, c) for order, group in enumerate(kinds.values())
             for k, c in enumerate(group)]
    return [c for _, _, c in sorted(keyed, key=lambda t: (t[0], t[1]))]


def _train_counts(board: Board) -> list[str | None]:
    if board.deck is not None:
        counts, wild = dict(board.deck.counts), board.deck.wild
    else:
        d = derive_deck(board)
        counts, wild = dict(d.counts), d.wild
    cards: list[str | None] = []
    for c in board.palette:
        cards += [c.id] * int(counts.get(c.id, 0))
    return cards + [None] * wild


def ticket_decks(board: Board, names: tuple[str, ...] | None = None) -> list[tuple[str, list]]:
    """The ticket decks to print: names (or "all"), by default those the board's ruleset plays
    with (`RuleSet.ticket_decks`: one deck for the standard rules), in that order."""
    if names is None:
        from mapkit.render.summary import ruleset
        names = tuple(ruleset(board).ticket_decks)
    if "all" in names:
        names = tuple(sorted(board.ticket_decks, key=lambda n: (n != "standard", n)))
    return [(name, list(board.ticket_decks[name])) for name in names if board.ticket_decks.get(name)]


def missing_decks(board: Board, names: tuple[str, ...] | None) -> list[str]:
    if names is None:
        from mapkit.render.summary import ruleset
        names = tuple(ruleset(board).ticket_decks)
    return [n for n in names if n != "all" and not board.ticket_decks.get(n)]


def ticket_cards(board: Board, names: tuple[str, ...] | None = None) -> list[tuple[str, object]]:
    """(deck name, ticket) per ticket card of the decks printed (see `ticket_decks`)."""
    return [(name, t) for name, ts in ticket_decks(board, names) for t in ts]


def write_cards(path: Path, board: Board, layout: SheetLayout, duplex: str, count: int, what: str,
                front: Callable[[int, CardBox], list], back: Callable[[int, CardBox], list],
                png: Path | None = None, groups: tuple[int, ...] | None = None,
                stamp: marks.Stamp | None = None) -> CardsOutput:
    """Write the sheets of `count` cards; png: also save the first sheet of fronts there; groups:
    runs of cards that each start on a new sheet (see `impose`); stamp: what every sheet says of
    the board file (marks.Stamp; the board's name and version when not given)."""
    pages = impose(count, layout, duplex, groups=groups)
    sheets = max((p.sheet for p in pages), default=-1) + 1
    frames = 0
    with pdf.pdf_document(path) as doc:
        for page in pages:
            fig, ax = pdf.page(*layout.page)
            items = furniture(layout, board, what, page, sheets, duplex, stamp)
            for placed in page.cards:
                box = CardBox(placed.xy[0], placed.xy[1], *layout.card, layout.bleed)
                items += (front if page.side == "front" else back)(placed.card, box)
                items += card_faces.frame(box, visible=not layout.bleed)
                frames += page.side == "front"
            draw.draw(ax, items, clip=False)
            x0, y0, x1, y1 = layout.frame
            doc.add(fig, (x0 + layout.bleed, y0 + layout.bleed, x1 - layout.bleed, y1 - layout.bleed), layout.bleed)
            if png is not None and page.side == "front" and page.sheet == 0:
                pdf.save_png(fig, png, PNG_DPI)
        n = doc.pages
    return CardsOutput(n, count, sheets, layout.per_sheet, frames)


def furniture(layout: SheetLayout, board: Board, what: str, page: SheetPage, sheets: int, duplex: str,
              stamp: marks.Stamp | None = None) -> list:
    """Crop marks around the grid; beside it the notice, the page line (the board, the cards'
    size, the sheet, the side), the calibration bars and the stamp (marks.Stamp)."""
    x0, y0, x1, y1 = layout.frame
    xs, ys = layout.trim_lines()
    out = marks.crop_marks(xs, ys, (x0, y0, x1, y1), MARK_ROOM_MM - 1.0)
    if page.side == "front":
        side = "fronts" + (" (print all the front pages first)" if duplex == "none" else f" ({FLIP[duplex]})")
    else:
        side = f"back of sheet {page.sheet + 1} ({FLIP[duplex]})"
    info = f"{board.name} — {what}, {card_size(layout)}, sheet {page.sheet + 1} of {sheets}, {side}"
    stamp = stamp or marks.Stamp(board.name, board.version)
    pw, ph = layout.page
    if layout.furniture == "sides":
        band_l = x0 - MARK_ROOM_MM - FURNITURE_MM
        out += marks.calibration_bar(band_l + 0.5, y0 + 8, 100.0, "100 mm", 10.0, vertical=True)
        out += marks.calibration_bar(band_l + 0.5, y0 + 130, 25.4, "1 inch", 25.4 / 4, vertical=True)
        # under the bars, read bottom to top like the page line opposite
        out.append(marks.stamp_text(stamp, (band_l, y0 + 130 + 25.4 + 4, band_l + FURNITURE_MM, y1),
                                    with_name=False, rotation=90))
        bx = x1 + MARK_ROOM_MM + FURNITURE_MM / 2
        size = _fit_size([marks.NOTICE, info], y1 - y0 - 10, 6.5)
        out.append(draw.Text((bx, (y0 + y1) / 2), (marks.NOTICE, info), size, marks.MARK_INK, z=20, rotation=90))
    else:
        band_top = y0 - MARK_ROOM_MM - FURNITURE_MM
        line = marks.NOTICE + "  ·  " + info
        size = _fit_size([line], x1 - x0, 6.5)
        out.append(draw.Text((pw / 2, band_top + 1.8), (line,), size, marks.MARK_INK, z=20))
        out.append(marks.stamp_text(stamp, (x0, band_top + 3.6, x1, y0 - MARK_ROOM_MM), with_name=False, ha="center"))
        by = y1 + MARK_ROOM_MM + FURNITURE_MM / 2 - marks.BAR_MM / 2
        total = 100 + 4 + fonts.line_width("100 mm", 5.5) + 8 + 25.4 + 1.5 + fonts.line_width("1 inch", 5.5)
        bx = pw / 2 - total / 2
        out += marks.calibration_bar(bx, by, 100.0, "100 mm", 10.0)
        out += marks.calibration_bar(bx + total - 25.4 - 1.5 - fonts.line_width("1 inch", 5.5), by, 25.4, "1 inch",
                                     25.4 / 4)
    return out


def card_size(layout: SheetLayout) -> str:
    """The cards' trim size as the sheets state it: "cards 44 × 68 mm"."""
    return f"cards {layout.card[0]:g} × {layout.card[1]:g} mm"


def _fit_size(lines, length: float, size: float) -> float:
    while size > 4 and max(fonts.line_width(s, size) for s in lines) > length:
        size -= 0.5
    return size


# ------------------------------------------------------------------ the three decks

def write_trains(path: Path, board: Board, paper: str, mode: str, duplex: str, png: Path | None = None,
                 light_backs: bool = False, stamp: marks.Stamp | None = None) -> CardsOutput:
    cards = train_cards(board)
    sym = symbols.assign_symbols(board)
    layout = sheet_layout(MINI_CARD, paper, mode)

    def front(i, box):
        cid = cards[i]
        return card_faces.train_front(box, board, cid, sym[cid] if cid else symbols.WILD)

    return write_cards(path, board, layout, duplex, len(cards), "train cards", front,
                       lambda i, box: card_faces.train_back(box, board, light=light_backs), png, stamp=stamp)


def ticket_backs(board: Board, chosen: list[tuple[str, list]]) -> dict[str, tuple[str, str]]:
    """Each printed deck's back: (label, color). The decks the board's rules shuffle into one pile
    (RuleSet.ticket_decks: Mega's standard, 1910 and mega) share one back, the first's color and
    no deck name, so that a drawn ticket does not show which deck it came from; a deck printed
    beside them (--deck) has a back of its own, in its own color and with its name, so that it is
    sorted out face down. The standard deck alone has the plain back."""
    from mapkit.render.summary import ruleset

    rules = ruleset(board)
    order = sorted(board.ticket_decks, key=lambda n: (n != "standard", n))
    color = {name: DECK_BACKS[i % len(DECK_BACKS)] for i, name in enumerate(order)}
    names = [name for name, _ in chosen]
    pile = [name for name in rules.ticket_decks if name in names]
    others = [name for name in names if name not in pile]
    # the pile is named on its back only where other decks are printed with it
    pile_label = (pile[0] if len(pile) == 1 else rules.name) if others else ""
    out = {name: (pile_label, color[pile[0]]) for name in pile}
    for name in others:
        out[name] = (name if len(names) > 1 or name != "standard" else "", color[name])
    return out


def write_tickets(path: Path, board: Board, layout_: Layout, paper: str, mode: str, duplex: str,
                  png: Path | None = None, decks: tuple[str, ...] | None = None,
                  light_backs: bool = False, stamp: marks.Stamp | None = None) -> CardsOutput:
    """The tickets of the decks printed, each deck starting its own sheets, each with the back
    `ticket_backs` gives it (one back for the decks played as one pile)."""
    chosen = ticket_decks(board, decks)
    cards = [(name, t) for name, ts in chosen for t in ts]
    backs = ticket_backs(board, chosen)
    labeled = len(chosen) > 1 or (len(chosen) == 1 and chosen[0][0] != "standard")
    mini = card_faces.MiniMap.of(board, layout_)
    layout = sheet_layout(MINI_CARD, paper, mode)
    return write_cards(path, board, layout, duplex, len(cards), "tickets",
                       lambda i, box: card_faces.ticket_front(box, board, cards[i][1], mini,
                                                              cards[i][0] if labeled else ""),
                       lambda i, box: card_faces.ticket_back(box, board, backs[cards[i][0]][0],
                                                             color=backs[cards[i][0]][1], light=light_backs),
                       png, groups=tuple(len(ts) for _, ts in chosen), stamp=stamp)


def write_summary(path: Path, board: Board, paper: str, mode: str, duplex: str,
                  stamp: marks.Stamp | None = None) -> CardsOutput:
    """One summary card per seat, then the bonus cards the rules award (Longest Path, Globetrotter)."""
    front_sections, back_sections = summary.front(board), summary.back(board)
    layout = sheet_layout(SUMMARY_CARD, paper, mode)
    n = summary.copies(board)
    bonuses = summary.bonus_cards(board)

    def front(i, box):
        if i < n:
            return card_faces.summary_face(box, board, front_sections, f"{board.name}: summary")
        return card_faces.bonus_face(box, board, *bonuses[i - n])

    def back(i, box):
        if i < n:
            return card_faces.summary_face(box, board, back_sections, f"{board.name}: scoring")
        return card_faces.bonus_back(box, board, bonuses[i - n][0])

    return write_cards(path, board, layout, duplex, n + len(bonuses), "summary and bonus cards", front, back,
                       stamp=stamp)
