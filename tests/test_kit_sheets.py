"""Every printed sheet as a printer and a player see it: the foot of the rules
pages, the assembly page on portrait and landscape paper with a long board name, one back for the
tickets shuffled into one pile, the stamp on every sheet, the cards' size on the card sheets.

The pages' items are caught as they are drawn (draw.draw), so the test reads what is printed,
where: each text's extent is measured with the fonts the PDF embeds."""

import json
from pathlib import Path

import pytest

from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.render import cards, draw, fonts, imposition, marks, pdf, rules, tiles, tiling
from mapkit.render.draw import Area, Text
from mapkit.resources import boards_dir
from mapkit.validate import load_valid_board

TINY = Path(__file__).resolve().parent / "fixtures" / "tiny.json"
LONG = "The Greater Metropolitan Interurban and Suburban Railways of the Lower Rhine–Ruhr Region"


def extent(t: Text) -> tuple[float, float, float, float]:
    """Where a text is printed: its block measured at its size, placed as draw.draw places it."""
    w, h = fonts.block_size(t.lines, t.size, t.bold)
    if t.rotation:
        w, h = h, w
    x, y = t.center
    x0 = x - w / 2 if t.ha == "center" or t.rotation else x if t.ha == "left" else x - w
    return (x0, y - h / 2, x0 + w, y + h / 2)


def meets(a, b, pad: float = 0.0) -> bool:
    return a[0] < b[2] + pad and b[0] < a[2] + pad and a[1] < b[3] + pad and b[1] < a[3] + pad


@pytest.fixture
def drawn(monkeypatch):
    """Every call of draw.draw while the test runs: (page size in mm, items)."""
    calls = []
    real = draw.draw

    def catch(ax, items, window=None, clip=True):
        items = list(items)
        w, h = ax.figure.get_size_inches() * pdf.MM_PER_INCH
        calls.append(((round(w, 1), round(h, 1)), items, ax))
        return real(ax, items, window=window, clip=clip)

    monkeypatch.setattr(draw, "draw", catch)
    return calls


@pytest.fixture
def planned(monkeypatch):
    """As `drawn`, but nothing is drawn: the pages are planned (every item made and recorded) and
    written empty, for tests that read only the items (drawing a deck's sheets is most of its cost)."""
    calls = []

    def catch(ax, items, window=None, clip=True):
        items = list(items)
        w, h = ax.figure.get_size_inches() * pdf.MM_PER_INCH
        calls.append(((round(w, 1), round(h, 1)), items, ax))
        return len(items)

    monkeypatch.setattr(draw, "draw", catch)
    return calls


def page_items(calls):
    """The items drawn on the page's own axes (those covering the whole page), per call."""
    out = []
    for size, items, ax in calls:
        x0, x1 = ax.get_xlim()
        if abs(x0) < 1e-6 and abs(x1 - size[0]) < 1e-6:
            out.append((size, items))
    return out


def bars(items):
    """The calibration bars' outlines (white, edged, 2 mm tall or wide)."""
    return [i.bbox for i in items if isinstance(i, Area) and i.face == "white" and i.edge == marks.MARK_INK]


def texts(items):
    return [i for i in items if isinstance(i, Text)]


def assert_readable(size, items, margin=pdf.PRINT_MARGIN_MM - 0.5):
    """No text over another or over a calibration bar, every text on the printable page."""
    w, h = size
    ts = [(t, extent(t)) for t in texts(items)]
    for t, e in ts:
        assert e[0] >= margin and e[2] <= w - margin and e[1] >= margin and e[3] <= h - margin, (t.lines, e, size)
        for b in bars(items):
            assert not meets(e, b), (t.lines, e, b)
    for i, (t, e) in enumerate(ts):
        for u, f in ts[i + 1:]:
            assert not meets(e, f), (t.lines, u.lines)


def _counts(board):
    deck = cards.train_cards(board)
    return {c: deck.count(c) for c in dict.fromkeys(deck)}


# ------------------------------------------------------------------ rules.pdf


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("name", ["portland", "north-america"])
def test_the_rules_foot_is_readable_on_every_page(tmp_path, planned, paper, name):
    # the footer was printed over the 100 mm bar on every page
    b = load_valid_board(boards_dir() / f"{name}.json")
    n = rules.write_rules(tmp_path / "rules.pdf", b, paper, 30, _counts(b))
    pages = page_items(planned)
    assert len(pages) == n
    for size, items in pages:
        assert len(bars(items)) == 1
        bar = bars(items)[0]
        assert bar[2] - bar[0] == pytest.approx(100.0)
        foot = [i for i in items if i.bbox[1] >= bar[1] - 20]
        assert_readable(size, foot)
        # and the body ends above the foot
        body_bottom = max(extent(t)[3] for t in texts(items) if extent(t)[3] < bar[1])
        assert body_bottom < bar[1]


# ------------------------------------------------------------------ the assembly page


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("size", [(900, 600), (600, 900), (800, 530), (420, 1200)])
@pytest.mark.parametrize("name", ["Tiny", LONG])
def test_the_assembly_page_fits_its_paper(tmp_path, drawn, paper, size, name):
    # the "Print at 100 %" line ran 20 mm past a portrait page's edge; a long name was cut off
    data = json.loads(TINY.read_text())
    data["name"] = name
    b = build_board(data)
    t = tiling.tile_board(*size, paper)
    fig = tiles.assembly_page(b, Layout(b), t)
    (page, items), = page_items(drawn)
    assert page == pytest.approx(t.page, abs=0.1)
    assert_readable(page, items)
    title = texts(items)[0]
    assert " ".join(title.lines).replace("  ", " ") == f"{name} — assembling the board"
    assert title.size >= 10
    assert any(marks.NOTICE in t.lines for t in texts(items))
    fig.clear()


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("size", [(900, 600), (600, 900)])
def test_a_tile_sheet_foot_fits_with_a_long_name(drawn, paper, size):
    data = json.loads(TINY.read_text())
    data["name"] = LONG
    data["version"] = "2.3-beta"
    b = build_board(data)
    t = tiling.tile_board(*size, paper)
    stamp = marks.Stamp(b.name, b.version, "0123abcd")
    items = tiles.footer(b, t, t.tile(0, 1), t.content[1] + t.content[3], stamp)
    assert_readable(t.page, items)
    said = " ".join(" ".join(i.lines) for i in texts(items))
    assert "version 2.3-beta" in said and "0123abcd" in said and "playtest ☐" in said


# ------------------------------------------------------------------ one pile, one back


def _mega(board_name="north-america"):
    data = json.loads((boards_dir() / f"{board_name}.json").read_text())
    data["rules"] = {"preset": "mega"}
    return build_board(data)


def test_mega_tickets_shuffled_into_one_pile_have_one_back():
    b = _mega()
    chosen = cards.ticket_decks(b)
    assert sum(len(ts) for _, ts in chosen) == 69
    backs = cards.ticket_backs(b, chosen)
    assert len(set(backs.values())) == 1          # one color, one label
    assert backs["standard"] == ("", cards.DECK_BACKS[0])


def test_a_deck_printed_beside_the_pile_has_its_own_back():
    b = _mega()
    chosen = cards.ticket_decks(b, ("all",))
    backs = cards.ticket_backs(b, chosen)
    pile = {backs[n] for n in ("standard", "1910", "mega")}
    assert len(pile) == 1 and next(iter(pile))[0]          # the pile named, as other decks are printed
    for other in ("long", "cities"):
        assert backs[other][0] == other and backs[other] not in pile
    # the standard rules: one deck, the plain back, as before
    na = load_valid_board(boards_dir() / "north-america.json")
    assert cards.ticket_backs(na, cards.ticket_decks(na)) == {"standard": ("", cards.DECK_BACKS[0])}


def test_mega_ticket_sheets_print_one_back(tmp_path, planned):
    b = _mega()
    out = cards.write_tickets(tmp_path / "t.pdf", b, Layout(b), "a4", "home", "long-edge")
    assert out.cards == 69
    backs = set()
    for _, items, _ in planned:
        page = texts(items)
        if any("back of sheet" in " ".join(t.lines) for t in page):
            backs |= {i.face for i in items if isinstance(i, Area) and i.face in cards.DECK_BACKS}
            assert not any(" deck" in " ".join(t.lines) for t in page)
    assert len(backs) == 1


# ------------------------------------------------------------------ the stamp and the card size on every sheet


def _stamped(text: str, board) -> bool:
    flat = " ".join(text.split())
    return "playtest ☐" in flat and "date" in flat and (not board.version or f"version {board.version}" in flat)


@pytest.mark.parametrize("card, paper, mode", [(imposition.MINI_CARD, "a4", "home"), (imposition.MINI_CARD, "letter", "bleed"),
                                               (imposition.SUMMARY_CARD, "a4", "bleed"), (imposition.SUMMARY_CARD, "letter", "home")])
def test_card_sheets_state_the_card_size_and_stay_readable(card, paper, mode):
    b = load_valid_board(TINY)
    lay = imposition.sheet_layout(card, paper, mode)
    page = imposition.impose(20, lay, "long-edge")[0]
    items = cards.furniture(lay, b, "tickets", page, 2, "long-edge", marks.Stamp(b.name, "1.0", "0123abcd"))
    said = " ".join(" ".join(t.lines) for t in texts(items))
    assert f"cards {card[0]:g} × {card[1]:g} mm" in said
    assert _stamped(said, build_board({**json.loads(TINY.read_text()), "version": "1.0"}))
    frame = lay.frame
    for t in texts(items):
        assert not meets(extent(t), frame), t.lines          # beside the cards, not on them
    assert_readable(lay.page, [i for i in items if isinstance(i, Text)] + [i for i in items if isinstance(i, Area)])
