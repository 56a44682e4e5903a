"""What a printed game needs, and card sheets that are right when followed."""

import math
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from mapkit.model import Ticket
from mapkit.render import card_faces, cards, imposition, pdf, rules, style, summary
from mapkit.render.card_faces import CardBox
from mapkit.render.draw import Area, Text
from mapkit.resources import boards_dir
from mapkit.validate import load_valid_board

TINY = Path(__file__).resolve().parent / "fixtures" / "tiny.json"


@pytest.fixture(scope="module")
def tiny():
    return load_valid_board(TINY)


@pytest.mark.parametrize("name, expected", [("portland", 30), ("seattle", 31), ("north-america", None)])
def test_tickets_print_the_deck_the_rules_use(name, expected):
    b = load_valid_board(boards_dir() / f"{name}.json")
    used = summary.ruleset(b).ticket_decks
    printed = cards.ticket_cards(b)
    assert {deck for deck, _ in printed} <= set(used)
    assert len(printed) == sum(len(b.ticket_decks.get(d, ())) for d in used)
    if expected is not None:
        assert len(printed) == expected
    assert len(cards.ticket_cards(b, ("all",))) == sum(len(ts) for ts in b.ticket_decks.values())


def test_each_deck_starts_its_own_sheets_with_its_own_back(tiny):
    lay = imposition.sheet_layout()
    chosen = cards.ticket_decks(tiny, ("all",))
    sizes = tuple(len(ts) for _, ts in chosen)
    pages = imposition.impose(sum(sizes), lay, "long-edge", groups=sizes)
    starts = {sum(sizes[:i]) for i in range(len(sizes))}
    deck_of = [name for name, ts in chosen for _ in ts]
    for p in pages:
        assert len({deck_of[c.card] for c in p.cards}) == 1  # one deck per sheet
    assert starts <= {p.cards[0].card for p in pages if p.side == "front"}
    box = CardBox(0, 0, 44, 68)
    a = card_faces.ticket_back(box, tiny, "standard", color=cards.DECK_BACKS[0])
    b = card_faces.ticket_back(box, tiny, "1910", color=cards.DECK_BACKS[1])
    assert a[0].face != b[0].face
    assert "1910 deck" in " ".join(" ".join(i.lines) for i in b if isinstance(i, Text))


def test_a_two_valued_ticket_shows_both_values_large(tiny):
    t = Ticket("alder", "fir", 13, transit_points=9)
    mini = card_faces.MiniMap(100, 100, (), {"alder": (10, 10), "fir": (90, 90)})
    items = card_faces.ticket_front(CardBox(0, 0, 44, 68), tiny, t, mini)
    sizes = {i.lines[0]: i.size for i in items if isinstance(i, Text)}
    assert sizes["13"] >= 11 and sizes["9"] >= 11
    assert "transit" in sizes and sizes["transit"] >= 6


def test_train_cards_are_mixed_on_every_sheet():
    b = load_valid_board(boards_dir() / "portland.json")
    deck = cards.train_cards(b)
    lay = imposition.sheet_layout()
    sheets = [deck[i:i + lay.per_sheet] for i in range(0, len(deck), lay.per_sheet)]
    for sheet in sheets[:-1]:
        # today's order put one color (two at a boundary) on a sheet
        assert len(set(sheet)) >= 6
        for c in set(sheet):  # each color about its share of the deck, not a sheet of it
            assert sheet.count(c) <= math.ceil(deck.count(c) * lay.per_sheet / len(deck)) + 1
    assert sorted(deck, key=str) == sorted(cards._train_counts(b), key=str)  # the same cards


def test_light_backs_use_little_ink(tiny):
    box = CardBox(0, 0, 44, 68)
    full = card_faces.train_back(box, tiny)
    light = card_faces.train_back(box, tiny, light=True)
    assert full[0].face == style.CARD_BACK
    assert light[0].face == "white"
    assert not any(isinstance(i, Area) and i.face == style.CARD_BACK and i.alpha > 0.2 for i in light)


def test_duplex_none_pages_say_how_to_print_the_backs(tiny):
    lay = imposition.sheet_layout()
    pages = imposition.impose(20, lay, "none")
    front, back = pages[0], pages[2]
    f = " ".join(" ".join(i.lines) for i in cards.furniture(lay, tiny, "tickets", front, 2, "none") if isinstance(i, Text))
    b = " ".join(" ".join(i.lines) for i in cards.furniture(lay, tiny, "tickets", back, 2, "none") if isinstance(i, Text))
    assert "print all the front pages first" in f
    assert "back of sheet 1" in b and "turn the printed stack over left to right" in b
    # and the backs are where that turn puts them: mirrored left to right
    for c, bc in zip(front.cards, back.cards):
        assert bc.xy == pytest.approx(imposition.back_position(lay, c.xy, "long-edge"))


def test_the_longest_path_bonus_card(tiny):
    bonus = summary.bonus_cards(tiny)
    assert [name for name, _, _ in bonus] == ["Longest Continuous Path"] and bonus[0][1] == 10
    items = card_faces.bonus_face(CardBox(0, 0, 88, 120), tiny, *bonus[0])
    assert "+10" in [i.lines[0] for i in items if isinstance(i, Text)]


def test_rules_booklet_comes_from_the_ruleset(tmp_path, tiny):
    deck = cards.train_cards(tiny)
    counts = {c: deck.count(c) for c in dict.fromkeys(deck)}
    path = tmp_path / "rules.pdf"
    n = rules.write_rules(path, tiny, "a4", 8, counts)
    text = " ".join(p.extract_text() for p in PdfReader(path).pages)
    r = summary.ruleset(tiny)
    assert n >= 1
    assert f"{r.trains_for(2)} trains" in text  # the tiny board's override: 8 trains
    assert f"Draw {r.draws_per_turn} train cards" in text and f"Draw {r.draw_tickets} tickets" in text
    assert "Longest Continuous Path" in text and "110 train cards" in text and "8 destination tickets" in text
    assert " ".join(str(p) for p in tiny.route_points[:3]) in re.sub(r"\s+", " ", text)


def test_pdfs_ask_for_actual_size_and_carry_trim_and_bleed_boxes(tmp_path):
    path = tmp_path / "p.pdf"
    with pdf.pdf_document(path) as doc:
        fig, _ = pdf.page(210, 297)
        doc.add(fig, (10, 20, 200, 277), 3)
    reader = PdfReader(path)
    assert reader.trailer["/Root"]["/ViewerPreferences"]["/PrintScaling"] == "/None"
    page = reader.pages[0]
    mm = 72 / 25.4
    assert [round(float(v) / mm, 2) for v in page.trimbox] == [10, 20, 200, 277]
    assert [round(float(v) / mm, 2) for v in page.bleedbox] == [7, 17, 203, 280]
    second = tmp_path / "q.pdf"
    with pdf.pdf_document(second) as doc:
        fig, _ = pdf.page(210, 297)
        doc.add(fig, (10, 20, 200, 277), 3)
    assert second.read_bytes() == path.read_bytes()
