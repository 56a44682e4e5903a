"""rules.pdf: the rules booklet, written from the board's RuleSet and the board itself.

Nothing here is per-board text: components are counted from the board and the kit (trains per
player, train cards by color, the tickets of the decks printed), setup, the turn, the scoring
table, the end of the game and the final scoring come from the RuleSet's values, and the special
routes and bonuses from the board's routes and the ruleset (the same sections as the summary card,
at reading size, with the longer explanations a first game needs).
"""

from __future__ import annotations

from pathlib import Path

from mapkit.model import Board
from mapkit.render import card_faces, draw, fonts, marks, pdf, style, summary
from mapkit.render.draw import Text
from mapkit.render.summary import Section

BODY_PT = 10.0
MARGIN_MM = 18.0


def sections(board: Board, tickets: int, train_cards: dict) -> list[Section]:
    r = summary.ruleset(board)
    wild = board.wild.name
    colors = ", ".join(f"{n} {board.color(c).name}" for c, n in train_cards.items() if c is not None)
    wilds = train_cards.get(None, 0)
    bonus = summary.bonus_cards(board)
    parts = ["• the board (board.pdf at real size, or board-tiles.pdf to assemble from sheets)",
             f"• {sum(train_cards.values())} train cards: {colors}, and {wilds} {wild} (wild)",
             f"• {tickets} destination tickets",
             f"• {summary.copies(board)} summary cards"]
    parts += [f"• 1 {name} bonus card" for name, _, _ in bonus]
    parts.append(f"• per player: trains in one color ({summary._trains(r)}) and a scoring marker — "
                 "not printed: use plastic trains or tokens about 20 × 9 mm")
    front = summary.front(board)
    back = summary.back(board)
    goal = ["Score the most points: by claiming routes between neighbouring stations, by completing the "
            "tickets you keep (a continuous path of your own routes between their two stations), and by "
            "the bonuses below. A ticket you keep but do not complete costs its value"
            + ("." if r.failed_ticket_factor else " nothing.")]
    claim = ["To claim a route, play cards of the route's color, as many as it has spaces (a gray route: cards "
             f"of any one color); {wild} cards count as any color. Place one of your trains on each space and "
             "score the route at once on the scoring track (table below). A route is claimed once, in one turn; "
             "you may claim any open route, connected to your others or not."]
    out = [Section("The game", tuple(goal)), Section("Components", tuple(parts))]
    out += [Section(s.heading, s.lines) for s in front if s.heading != "On your turn, do one"]
    turn = next(s for s in front if s.heading == "On your turn, do one")
    out.insert(3, Section("On your turn, do exactly one of these", turn.lines + tuple(claim)))
    for s in back:
        out.append(s)
    for name, points, rule in bonus:
        out.append(Section(f"{name} (+{points})", (rule,)))
    return out


FOOT_MM = 16.0   # the foot of every page: the 100 mm bar, the page line and the stamp, one above the other


def write_rules(path: Path, board: Board, paper: str, tickets: int, train_cards: dict,
                stamp: marks.Stamp | None = None) -> int:
    """Write the booklet on as many pages of `paper` as it needs; returns the page count."""
    pw, ph = pdf.PAPERS[paper]
    pages = page_items(board, paper, tickets, train_cards, stamp)
    with pdf.pdf_document(path) as doc:
        for items in pages:
            fig, ax = pdf.page(pw, ph)
            draw.draw(ax, items, clip=False)
            doc.add(fig)
        return doc.pages


def page_items(board: Board, paper: str, tickets: int, train_cards: dict, stamp: marks.Stamp | None = None) -> list[list]:
    """Each page's items: the sections flowed down the page above its foot, and the foot (foot_items)."""
    pw, ph = pdf.PAPERS[paper]
    width = pw - 2 * MARGIN_MM
    bottom = ph - MARGIN_MM - FOOT_MM + 4   # the body ends above the foot
    secs = sections(board, tickets, train_cards)
    pages: list[list] = []
    items: list = []
    y = MARGIN_MM + 12
    title = [Text((MARGIN_MM, MARGIN_MM + 4), (f"{board.name} — rules",), 18, style.INK, z=5, bold=True, ha="left")]
    items += title
    for sec in secs:
        body, h = card_faces._sections([sec], MARGIN_MM, 0.0, width, BODY_PT)
        if y + h > bottom and items:
            pages.append(items)
            items, y = [], MARGIN_MM
        items += [_shift(i, y) for i in body]
        y += h
    pages.append(items)
    stamp = stamp or marks.Stamp(board.name, board.version)
    return [items + foot_items(board, stamp, n, len(pages), pw, ph) for n, items in enumerate(pages, start=1)]


def foot_items(board: Board, stamp: marks.Stamp, n: int, count: int, pw: float, ph: float) -> list:
    """A page's foot, three rows from the bottom margin up: the stamp, the page line (the board,
    the page number, the print-at-100 % notice, shrunk to the width), the 100 mm bar."""
    left, right = MARGIN_MM, pw - MARGIN_MM
    base = ph - MARGIN_MM / 2            # the bottom of the foot, inside the printable area
    stamp_item = marks.stamp_text(stamp, (left, base - 3.5, right, base), with_name=False)
    foot = f"{board.name} rules · page {n} of {count} · {marks.NOTICE}"
    size = 7.0
    while fonts.line_width(foot, size) > right - left and size > 4.5:
        size -= 0.5
    lines = (foot,) if fonts.line_width(foot, size) <= right - left else tuple(fonts.wrap(foot, size, right - left))
    fw, fh = fonts.block_size(lines, size)
    fy = base - 4.5 - fh / 2
    line = Text((left + fw / 2, fy), lines, size, "#555555", z=5, align="left",
                box=(left, fy - fh / 2, left + fw, fy + fh / 2))
    bar = marks.calibration_bar(left, fy - fh / 2 - 1.5 - marks.BAR_MM - 1.0, 100.0, "100 mm", 10.0)
    return bar + [line, stamp_item]


def _shift(item, dy: float):
    """An item of `card_faces._sections` (laid out from y = 0) moved down by dy."""
    from dataclasses import replace
    if isinstance(item, Text):
        return replace(item, center=(item.center[0], item.center[1] + dy), box=None)
    if isinstance(item, draw.Area):
        return replace(item, rings=tuple(tuple((x, y + dy) for x, y in ring) for ring in item.rings), bbox=None)
    if isinstance(item, draw.Line):
        return replace(item, coords=tuple((x, y + dy) for x, y in item.coords), bbox=None)
    return item
