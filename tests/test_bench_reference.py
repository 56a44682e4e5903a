"""The reference game `mapkit bench` measures against: it plays the rules it says it plays, and the
bench reports its turn rate beside mapkit's (no timing is asserted: speed is the bench's job)."""

from collections import Counter

import pytest

from mapkit.boardfile import load_board
from mapkit.resources import boards_dir
from mapkit.sim import bench, reference
from mapkit.sim.rules import rules_for_board
from mapkit.sim.tables import build_tables


def _na():
    board = load_board(boards_dir() / "north-america.json")
    return build_tables(board), rules_for_board(board)


def _cards(g):
    return Counter(g.deck) + Counter(g.discard) + Counter(c for c in g.face_up if c is not None) + sum(
        (Counter({c: n for c, n in enumerate(h)}) for h in g.hands), Counter())


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("players", [2, 4])
def test_reference_game_keeps_the_rules(policy, players):
    t, rules = _na()
    for seed in range(5):
        g = reference.RefGame(t, rules, players, seed)
        rng = __import__("random").Random(seed)
        start = rules.trains_for(players)
        while not g.over:
            reference.POLICIES[policy](g, rng)
            assert _cards(g) == Counter(t.deck), "train cards are conserved"
            assert all(n >= 0 for h in g.hands for n in h)
            for p in range(players):
                mine = [r for r in range(t.n_routes) if g.owner[r] == p]
                assert g.trains[p] == start - sum(t.route_len[r] for r in mine) >= 0
                assert g.score[p] == sum(t.route_points[r] for r in mine)
                assert not any(g.owner[t.route_partner[r]] == p for r in mine if t.route_partner[r] >= 0)
        assert g.turn < rules.turn_limit and g.final_turns is not None and g.final_turns <= 0, "ends by the trains"
        assert len(g.final_scores()) == players


def test_same_seed_same_reference_game():
    t, rules = _na()
    assert reference.play(t, rules, 3, 7, "greedy") == reference.play(t, rules, 3, 7, "greedy")
    assert reference.play(t, rules, 3, 7, "random") != reference.play(t, rules, 3, 8, "random")


def test_greedy_claims_the_longest_route_it_can_pay():
    t, rules = _na()
    g = reference.RefGame(t, rules, 2, 3)
    g.hands[0] = [0] * (t.wild + 1)
    g.hands[0][t.wild] = 6  # six wilds pay any route of up to six
    reference.greedy_turn(g, None)
    claimed = [r for r in range(t.n_routes) if g.owner[r] == 0]
    assert len(claimed) == 1 and t.route_len[claimed[0]] == min(6, max(t.route_len))


def test_bench_reports_ratios_against_the_reference():
    t, rules = _na()
    rows = bench._compare(t, rules, games=2, seed=0, repeats=1)
    assert [(x["players"], x["agents"], x["reference"]) for x in rows] == [
        (2, "random", "random"), (2, "route-focus", "greedy"), (4, "random", "random"), (4, "route-focus", "greedy")]
    for x in rows:
        assert x["turns_per_second"] > 0 and x["reference_turns_per_second"] > 0
        assert x["ratio"] == pytest.approx(x["turns_per_second"] / x["reference_turns_per_second"], abs=0.01)
    text = bench.format_bench({"board": "b", "runs": [], "reference": rows,
                               "longest_path": {"ordinary_ms": 0, "ordinary_networks": 0, "ordinary_routes_mean": 0,
                                                "dense_ms": 0, "dense_routes": 0, "random_dense_ms": 0},
                               "steps_ms": {}})
    assert "reference greedy" in text and "x" in text
