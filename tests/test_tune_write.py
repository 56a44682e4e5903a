"""mapkit tune's output: only the changed fields move (the rest byte for byte), the input is
never changed without --write, an --out that is the input is refused; and the aims' syntax."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_tune_loop import small_board  # noqa: E402

from mapkit.errors import MapkitError, UsageError  # noqa: E402
from mapkit.tune.aims import band, read_aims  # noqa: E402
from mapkit.tune.propose import apply_edits  # noqa: E402
from mapkit.tune.writeback import DELETE, Patches  # noqa: E402

TINY = Path(__file__).parent / "fixtures" / "tiny.json"


def one_spoiled() -> dict:
    """The small board with one ticket's points halved: a single repricing fixes it, decided within
    a budget of 1200 games (a few looks of 100 paired games: the budget leaves room for the looks
    an undecided change takes on another seed's games)."""
    d = small_board()
    t = d["ticket_decks"]["standard"][9]
    t["points"] = max(1, t["points"] // 2)
    return d


# ---------------------------------------------------------------------------- aims

def test_aims_defaults_file_then_command_line():
    a = read_aims({})
    assert a.value("completion") == (0.40, 0.90) and a.value("seat-edge") == 0.03
    data = {"tune": {"aims": {"completion": [0.3, 0.8], "seat_edge": 0.05, "route_claimed": False}}}
    a = read_aims(data)
    assert a.value("completion") == (0.3, 0.8) and a.value("seat-edge") == 0.05
    assert "route-claimed" not in a.active
    a = read_aims(data, ("seat-edge=0.1", "route_claimed=0.02", "completion=off"))
    assert a.value("seat-edge") == 0.1 and a.value("route-claimed") == 0.02 and "completion" not in a.active
    assert band(a, "seat-edge", 4) == pytest.approx((0.15, 0.35))


@pytest.mark.parametrize("opt, words", [
    ("completion=0.9:0.4", "LOW < HIGH"), ("seat-edge", "NAME=VALUE"), ("seat-egde=0.1", "did you mean 'seat-edge'"),
    ("seat-edge=lots", "takes a number"), ("route-claimed=2", "outside"),
])
def test_bad_aims_say_what_they_take(opt, words):
    with pytest.raises(UsageError, match=words.replace("(", r"\(").replace(")", r"\)")):
        read_aims({}, (opt,))


def test_unwanted_ok_must_name_a_route():
    data = {"tune": {"unwanted_ok": ["alder-birc"]}}
    with pytest.raises(MapkitError, match=r"\$\.tune\.unwanted_ok\[0\].*did you mean 'alder-birch'"):
        read_aims(data, (), ["alder-birch#1", "alder-birch#2", "birch-cedar"], ["alder-birch"])
    a = read_aims({"tune": {"unwanted_ok": ["alder-birch"]}}, (), ["birch-cedar"], ["alder-birch"])
    assert a.unwanted_ok == {"alder-birch"}


def test_the_schema_takes_the_tune_section(write_board, tiny_data, cli):
    tiny_data["tune"] = {"aims": {"completion": [0.3, 0.9], "value_rises": False}, "unwanted_ok": ["birch-cedar"]}
    assert cli("validate", write_board(tiny_data)).exit_code == 0
    tiny_data["tune"] = {"aims": {"completoin": 0.3}}
    r = cli("validate", write_board(tiny_data))
    assert r.exit_code == 1 and "tune" in r.output
    # the non-inferiority margins: by aim, numbers, read into the aims (the command line wins)
    tiny_data["tune"] = {"margins": {"ticket_worth": 0.02, "seat_edge": 0.1}}
    assert cli("validate", write_board(tiny_data)).exit_code == 0
    aims = read_aims(tiny_data, cli_margins=("seat-edge=0.04",))
    assert aims.margins["ticket-worth"] == 0.02 and aims.margins["seat-edge"] == 0.04
    tiny_data["tune"] = {"margins": {"seat_edge": "big"}}
    assert cli("validate", write_board(tiny_data)).exit_code == 1


# ---------------------------------------------------------------------------- write-back

def test_patches_move_only_the_changed_fields_and_follow_removed_routes(tmp_path):
    text = TINY.read_text()
    data = json.loads(text)
    p = Patches(data)
    # step 1: remove the second track of the alder-birch double (routes 0 and 1)
    e1 = [(("routes", 1), DELETE), (("routes", 0, "double"), DELETE)]
    d1 = apply_edits(data, e1)
    p.add(e1)
    # step 2, in the new coordinates: route 2 of the file is now route 1; a ticket's points
    e2 = [(("routes", 1, "line"), "Birch line"), (("ticket_decks", "standard", 0, "points"), 14)]
    d2 = apply_edits(d1, e2)
    p.add(e2)
    assert p.changes[("routes", 2, "line")] == "Birch line"
    new = p.check(text, d2)
    assert json.loads(new) == d2
    # byte for byte elsewhere: what differs is only around the changed values
    old_lines, new_lines = text.splitlines(), new.splitlines()
    assert len(old_lines) - len(new_lines) in (0, 1)
    changed = [line for line in new_lines if line not in old_lines]
    assert len(changed) <= 3, changed


def test_tune_out_writes_a_new_file_and_leaves_the_input(tmp_path, cli):
    board = tmp_path / "grid.json"
    text = json.dumps(one_spoiled(), indent=2) + "\n"
    text = text.replace("\n", "\r\n")  # the designer's CRLF file
    board.write_bytes(text.encode())
    board.chmod(0o640)
    out = tmp_path / "tuned.json"
    r = cli("tune", board, "--players", "2", "--agents", "route-focus,ticket-hungry", "--change", "tickets",
            "--budget", "1200", "--step-games", "100", "--no-report", "--out", out, "--format", "json")
    assert r.exit_code == 0, r.output
    assert board.read_bytes() == text.encode()          # never changed without --write
    log = json.loads(r.output)
    assert log["kept"], "the spoiled board should give at least one kept change"
    new = out.read_bytes().decode()
    assert "\r\n" in new and new.count("\n") == new.count("\r\n")   # line endings kept
    tuned = json.loads(new)
    for c in log["changes_to_file"]:
        node = tuned
        for k in c["path"]:
            node = node[k]
        assert node == c["value"]
    # everything else byte for byte: undo the changed values and the text is the input's
    old = json.loads(text)
    paths = {tuple(c["path"]) for c in log["changes_to_file"]}
    assert all(p[:2] == ("ticket_decks", "standard") for p in paths)
    diff = [(a, b) for a, b in zip(text.split("\r\n"), new.split("\r\n")) if a != b]
    assert len(diff) == len(paths) and all('"points"' in a for a, _ in diff)
    assert len(text) - len(new) in range(-10, 11) and old["stations"] == tuned["stations"]


def test_tune_write_changes_the_file_in_place_and_refuses_out_as_input(tmp_path, cli):
    board = tmp_path / "grid.json"
    board.write_text(json.dumps(one_spoiled(), indent=1))
    before = board.read_text()
    r = cli("tune", board, "--out", board, "--no-report", "--budget", "100")
    assert r.exit_code == 2 and "would overwrite the input" in r.output
    assert board.read_text() == before
    r = cli("tune", board, "--out", tmp_path / "x.json", "--write")
    assert r.exit_code == 2 and "not both" in r.output
    r = cli("tune", board, "--players", "2", "--agents", "route-focus,ticket-hungry", "--change", "tickets",
            "--budget", "1200", "--step-games", "100", "--no-report", "--write")
    assert r.exit_code == 0, r.output
    after = board.read_text()
    assert after != before and json.loads(after)["stations"] == json.loads(before)["stations"]
    changed = [a for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert changed and all('"points"' in line for line in changed)


@pytest.mark.parametrize("args, words", [
    (("--change", "stations"), "unknown kind 'stations'"),
    (("--aim", "completion=0.9"), "LOW:HIGH"),
    (("--players", "7"), "rules are for"),
    (("--agents", "nobody"), "unknown agent"),
    (("--margin", "ticket-worth=much"), "a margin is a number"),
    (("--margin", "seat-edg=0.1"), "unknown aim 'seat-edg'"),
    (("--margin", "seat-edge"), "NAME=VALUE"),
    (("--budget", "300"), "too small for one round"),
])
def test_bad_usage_is_a_clear_message(cli, args, words):
    r = cli("tune", TINY, "--no-report", *args)
    assert r.exit_code == 2 and words in r.output, r.output
