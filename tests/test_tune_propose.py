"""mapkit tune's proposals for train cards and doubles make valid boards that touch only what
they may (never stations, route colors or lengths)."""

import json
from pathlib import Path

from mapkit.sim.batch import GameRunner
from mapkit.sim.rules import rules_for_board
from mapkit.sim.tables import build_tables
from mapkit.tune.aims import read_aims
from mapkit.tune.evidence import analyse, gather, weights
from mapkit.tune.loop import board_of
from mapkit.tune.propose import apply_edits, geometry_findings, propose
from mapkit.tune.writeback import Patches

PORTLAND = Path(__file__).parent.parent / "boards" / "portland.json"
SEATTLE = PORTLAND.with_name("seattle.json")


def _proposals(aim_opts, allowed, counts, path=PORTLAND):
    data = json.loads(path.read_text())
    board, problem = board_of(data, path.stem)
    assert board is not None, problem
    rules = rules_for_board(board)
    t = build_tables(board)
    aims = read_aims(data, aim_opts)
    with GameRunner(1) as runner:
        ev = gather(board, rules, t, counts, ["route-focus"], 60, 0, runner, aims)
    _, subjects = analyse(ev, aims, weights(ev.games, 0, 0, 50))
    return data, [c for g in propose(ev, subjects, aims, data, board, rules, t, allowed, set(), 0) for c in g]


def _map(d):
    return [(r["from"], r["to"], r["color"], r["length"]) for r in d["routes"]], d["stations"]


def test_card_moves_keep_the_total_and_the_map():
    data, changes = _proposals(("color-wilds=0",), ("cards",), [2])
    assert changes and all(c.kind == "cards" for c in changes)
    for c in changes:
        new = apply_edits(data, c.edits)
        assert board_of(new, "portland")[0] is not None
        assert sum(new["deck"]["counts"].values()) == sum(data["deck"]["counts"].values())
        size = int(c.subject.split("+")[1].split()[0])   # one card or two move
        assert size in (1, 2)
        assert sum(abs(new["deck"]["counts"][k] - v) for k, v in data["deck"]["counts"].items()) == 2 * size
        assert _map(new) == _map(data)


def test_double_changes_add_or_remove_a_second_track_only():
    data, changes = _proposals(("route-claimed=0.99", "seat-edge=0"), ("doubles",), [4])
    kinds = {c.kind for c in changes}
    assert kinds <= {"double-remove", "double-add"} and kinds
    for c in changes:
        new = apply_edits(data, c.edits)
        if c.problem:   # a second track that does not fit the drawing is only logged, never tried
            assert c.kind == "double-add" and "would not fit the drawing" in c.problem, c.as_dict()
            continue
        assert board_of(new, "portland")[0] is not None, c.as_dict()
        assert {"double-remove", "double-add"} == kinds
        # and the file's own text patched the same way parses to exactly that board
        patches = Patches(data)
        patches.add(c.edits)
        assert json.loads(patches.check(PORTLAND.read_text(), new)) == new
        old_routes, new_routes = _map(data)[0], _map(new)[0]
        assert new["stations"] == data["stations"]
        if c.kind == "double-remove":
            assert len(new_routes) == len(old_routes) - 1 and set(new_routes) <= set(old_routes)
        else:
            assert new_routes[:len(old_routes)] == old_routes and len(new_routes) == len(old_routes) + 1
            assert new["routes"][-1]["color"] == "gray"


def test_a_second_track_that_would_overlap_is_dropped_with_the_finding():
    """Seattle at 4 players, the first seat's edge aimed at 0: the most claimed single route's
    second track (bellevue-south-kirkland, measured) would lay spaces over bellevue-kirkland, so it
    is proposed only as a logged refusal naming the overlap, and the next most claimed route whose
    track fits is proposed instead; the one proposed adds no geometry finding the board had not."""
    data, changes = _proposals(("seat-edge=0",), ("doubles",), [4], SEATTLE)
    adds = [c for c in changes if c.kind == "double-add"]
    assert adds and not adds[-1].problem and all(c.problem for c in adds[:-1])
    assert len(adds) >= 2, "this board's most claimed single route cannot take a second track"
    assert "overlap" in adds[0].problem and adds[0].subject in adds[0].problem
    before = geometry_findings(board_of(data, "seattle")[0])
    new, _ = board_of(apply_edits(data, adds[-1].edits), "seattle")
    assert new is not None and geometry_findings(new) <= before
