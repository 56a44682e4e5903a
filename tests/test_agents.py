"""The agents play real games on the standard map: planners complete their tickets, and
playstyles differ the way their names say."""

import pytest

from mapkit.boardfile import load_board
from mapkit.resources import boards_dir
from mapkit.sim.batch import run_games
from mapkit.sim.rules import resolve_rules
from mapkit.sim.tables import build_tables


@pytest.fixture(scope="module")
def na():
    b = load_board(boards_dir() / "north-america.json")
    return build_tables(b), resolve_rules(b.rules.preset, b.rules.overrides)


def test_route_focus_completes_most_tickets(na):
    t, rules = na
    totals, _ = run_games(t, rules, ["route-focus"] * 2, 40, seed=3)
    assert totals.completed / totals.held >= 0.75  # the literature's agents: 75-87 %
    assert totals.ends["final_round"] == 40


def test_planner_beats_random(na):
    t, rules = na
    totals, _ = run_games(t, rules, ["route-focus", "random"], 40, seed=4)
    assert totals.wins[0] >= 36


@pytest.mark.parametrize("agent", ["ticket-hungry", "long-route", "one-step"])
def test_every_playstyle_finishes_its_games(na, agent):
    t, rules = na
    totals, _ = run_games(t, rules, [agent, "route-focus", "random"], 20, seed=5)
    assert totals.games == 20 and totals.ends.get("final_round", 0) >= 18
    assert totals.gaps.get("agent_error", 0) == 0


def test_ticket_hungry_holds_more_tickets_than_long_route(na):
    t, rules = na
    hungry, _ = run_games(t, rules, ["ticket-hungry"] * 2, 30, seed=6)
    long_, _ = run_games(t, rules, ["long-route"] * 2, 30, seed=6)
    assert hungry.held > long_.held
    # long-route claims longer routes: more points from routes per route claimed
    assert sum(c["routes"] for c in long_.components) / sum(long_.claims.values()) > \
        sum(c["routes"] for c in hungry.components) / sum(hungry.claims.values())


def test_planners_play_the_transit_expansion():
    b = load_board(boards_dir() / "seattle.json")
    from mapkit.sim.rules import rules_for_board

    t, rules = build_tables(b), rules_for_board(b, "transit")
    totals, _ = run_games(t, rules, ["route-focus", "one-step", "random"], 20, seed=8)
    assert totals.gaps.get("agent_error", 0) == 0
    assert totals.components[0]["stations"] > 0  # the planner builds stations
    assert totals.ends["final_round"] == 20
