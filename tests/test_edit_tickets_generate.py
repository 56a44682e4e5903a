""""Generate tickets" in the editor: the deck `mapkit tickets generate` makes, written as one undoable
patch of the file (the deck's lines only), checked, and the targets it misses said as the CLI says them.

A real server runs on 127.0.0.1 for each test (urllib talks to it as the page does).
"""

import difflib
import json
import shutil

import pytest

from mapkit.boardfile import load_board
from mapkit.textpatch import DELETE, patch_text
from mapkit.ticket_deck import format_generated, generate
from mapkit.validate import validate_file
from mapkit.writer import dump_board_json

from boardgen import grid_board_data
from test_edit import TINY, call, open_editor


def small_board(path):
    """A valid 12-station grid board (tests/boardgen.py) with 12 trains a player and a deck of two."""
    data = grid_board_data(12, seed=1)
    data["rules"] = {"preset": "standard", "overrides": {"trains": 12, "max_players": 3}}
    data["ticket_decks"] = {"standard": [{"from": "s0", "to": "s11", "points": 9},
                                         {"from": "s3", "to": "s8", "points": 7}]}
    path.write_text(dump_board_json(data), encoding="utf-8")
    return path


@pytest.fixture
def editor(tmp_path):
    """(server, file, post): an editor on the small board; post(endpoint, expect, **body) sends
    the current hash."""
    path = small_board(tmp_path / "grid.json")
    session, server, post = open_editor(path)
    yield server, path, post
    server.shutdown()
    session.stop()


def changed_old_lines(before: str, after: str) -> set[int]:
    """Line numbers (0-based) of `before` that the change replaced or removed, and the ones new
    lines went in front of."""
    out = set()
    sm = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for tag, i1, i2, _, _ in sm.get_opcodes():
        if tag != "equal":
            out |= set(range(i1, max(i2, i1 + 1)))
    return out


def block_lines(text: str, opener: str) -> range:
    """The lines from the one holding `opener` to its array's closing bracket."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if opener in line)
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = next(i for i in range(start + 1, len(lines)) if lines[i].strip().startswith("]")
               and len(lines[i]) - len(lines[i].lstrip()) == indent)
    return range(start, end + 1)


def test_a_generated_deck_is_one_patch_of_its_lines_and_undo_gives_the_file_back(editor):
    server, path, post = editor
    before = path.read_bytes()
    reply = post("/api/tickets/generate", count=6, seed=3)
    after = path.read_bytes()
    # the deck mapkit tickets generate makes, with the same options
    expected = generate(load_board(path), count=6, seed=3).deck_json()
    data = json.loads(after)
    assert data["ticket_decks"]["standard"] == expected
    old = json.loads(before)
    old["ticket_decks"]["standard"] = expected
    assert data == old                                   # nothing else in the file changed
    text_before, text_after = before.decode(), after.decode()
    assert changed_old_lines(text_before, text_after) <= set(block_lines(text_before, '"standard": ['))
    block = [text_after.splitlines()[i].strip() for i in block_lines(text_after, '"standard": [')]
    assert block[1:-1] == [json.dumps(t) + "," for t in expected[:-1]] + [json.dumps(expected[-1])]  # one a line
    assert validate_file(path)[0].valid
    st = call(server, "/api/state")[1]
    shown = [(t["from"], t["to"], t["points"]) for t in st["tickets"] if t["deck"] == "standard"]
    assert shown == [(t["from"], t["to"], t["points"]) for t in expected]
    assert st["undo_what"] == reply["done"] and "6 tickets" in reply["done"] and "seed 3" in reply["done"]
    post("/api/undo")
    assert path.read_bytes() == before


def test_the_misses_are_the_ones_the_cli_prints(editor):
    server, path, post = editor
    board = load_board(path)
    reply = post("/api/tickets/generate", count=10, seed=1)
    g = generate(board, count=10, seed=1)
    printed = format_generated(g)
    assert reply["misses"] and len(reply["misses"]) == len(g.figures["length_misses"])
    for text in reply["misses"]:
        assert text in printed
    assert [t["got"] for t in reply["targets"][:len(g.targets.buckets)]] == g.figures["bucket_counts"]


def test_a_deck_into_a_file_without_tickets_and_into_a_new_deck_name(editor):
    server, path, post = editor
    path.write_text(patch_text(path.read_text(encoding="utf-8"), {("ticket_decks",): DELETE}), encoding="utf-8")
    server.session.refresh()
    before = path.read_bytes()
    post("/api/tickets/generate", count=5, seed=2, style="long", deck="hubs")
    data = json.loads(path.read_bytes())
    assert list(data["ticket_decks"]) == ["hubs"] and len(data["ticket_decks"]["hubs"]) == 5
    assert data["ticket_decks"]["hubs"] == generate(load_board(path), style="long", count=5, seed=2).deck_json()
    assert validate_file(path)[0].valid
    post("/api/undo")
    assert path.read_bytes() == before


def test_a_board_too_small_for_a_deck_says_so_in_the_pages_words_and_writes_nothing(tmp_path):
    path = tmp_path / "tiny.json"
    shutil.copy(TINY, path)   # 8 trains a player: no pair of its stations fits a ticket
    before = path.read_bytes()
    session, server, post = open_editor(path)
    try:
        reply = post("/api/tickets/generate", 409)
        assert "too small" in reply["error"] and "--" not in reply["error"]
        assert path.read_bytes() == before
    finally:
        server.shutdown()
        session.stop()


def test_too_many_tickets_asked_names_the_count_the_board_allows(editor):
    server, path, post = editor
    before = path.read_bytes()
    reply = post("/api/tickets/generate", 409, count=400)
    assert "set the count to" in reply["error"] and "--" not in reply["error"]
    assert path.read_bytes() == before


@pytest.mark.parametrize("body, words", [
    ({"style": "huge"}, "unknown style"),
    ({"count": 0}, "1 to 500"),
    ({"deck": "My Deck"}, "not a deck name"),
    ({"require": "alder"}, "FROM:TO"),
    ({"require": "alder:nowhere"}, "unknown station"),
    ({"seed": -1}, "seed"),
])
def test_bad_options_are_refused_with_the_reason(editor, body, words):
    server, path, post = editor
    before = path.read_bytes()
    reply = post("/api/tickets/generate", 400, **body)
    assert words in reply["error"]
    assert path.read_bytes() == before


def test_the_targets_shown_before_generating_are_the_decks(editor):
    server, path, post = editor
    code, t = call(server, "/api/tickets/targets?style=standard&count=8")
    assert code == 200
    g = generate(load_board(path), count=8, seed=0)
    assert [(b["low"], b["high"], b["tickets"]) for b in t["lengths"]] == [tuple(b) for b in g.targets.buckets]
    assert sum(b["tickets"] for b in t["lengths"]) == 8 and t["longest_at_least"] == g.targets.longest_at_least
    assert call(server, "/api/tickets/targets?style=long")[1]["count"] == 6
    assert call(server, "/api/tickets/targets?style=huge")[0] == 400
    assert call(server, "/api/tickets/targets?count=x")[0] == 400
