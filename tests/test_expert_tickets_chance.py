"""The expert's completion chance per ticket (mapkit/sim/agents/expert/ticket_keeps.py) and its refit script
(bench/expert_chance_fit.py)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import play_through
from mapkit.resources import boards_dir
from mapkit.sim import engine
from mapkit.sim.agents import make_agent

from mapkit.sim.agents.expert.ticket_keeps import FEATURES, chance, hand_clock
from mapkit.sim.legal import Legal
from mapkit.sim.view import SeatView

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))  # expert_chance_fit, a measuring script


@pytest.mark.parametrize("by_ticket, kept", [(True, 0b101), (False, 0b011)])
def test_expert_keeps_two_long_tickets_that_share_a_station_at_setup(na, by_ticket, kept):
    """Setup of game seed 10 (four players), seat 0 offered sault-st-marie-seattle (15),
    atlanta-little-rock (5) and los-angeles-sault-st-marie (17). By one curve in the plan's slack
    the expert keeps the 15 and the short 5 (a plan of both long ones leaves little slack, and the
    curve gives every ticket of it the same low chance); by a chance per ticket (fitted on random
    keeps: a long ticket kept by chance completes about 60 % of the time, not the curve's 40 %)
    it keeps the two long ones, whose connections share sault-st-marie."""
    t, rules = na
    s = engine.new_game(t, rules, 4, 10)
    assert s.phase == engine.SETUP and s.current == 0
    names = [f"{t.station_ids[x[0]]}-{t.station_ids[x[1]]}" for x in (s.ticket_pool[i] for i in s.offer)]
    assert names == ["sault-st-marie-seattle", "atlanta-little-rock", "los-angeles-sault-st-marie"]
    agent = make_agent("expert")
    agent.ticket_chance = by_ticket
    agent.reset(0, t, 4, random.Random(1))
    assert agent.act(SeatView(s, 0), Legal(s)) == (engine.KEEP, kept)


def _turn_position(t, rules):
    s = engine.new_game(t, rules, 4, 3)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << s.min_keep) - 1))
    s.tickets[0] = []
    return s


def test_a_ticket_whose_connection_opponents_crowd_has_a_lower_chance(na):
    """denver-chicago planned over the open board, then with opponents' routes at the stations
    of its connection (not on it): the `contest` feature rises and the chance falls."""
    t, rules = na
    s = _turn_position(t, rules)
    a, b = t.station_ids.index("denver"), t.station_ids.index("chicago")
    ticket = (a, b, 11, 0)
    agent = make_agent("expert")
    agent.reset(0, t, 4, random.Random(1))

    def p_of():
        view = SeatView(s, 0)
        costs = agent._costs(view)
        _, need, _, own = agent.plan_detail(view, (ticket,), costs)
        x = agent.ticket_features(view, ticket, own[ticket], need, 40, 30, 30)
        return x, chance(x), own[ticket]

    x0, p0, routes = p_of()
    on_path = set(routes)
    stations = {t.route_a[r] for r in routes} | {t.route_b[r] for r in routes}
    # every route touching the connection's stations but not on it goes to seat 1
    for r in range(t.n_routes):
        if r not in on_path and (t.route_a[r] in stations or t.route_b[r] in stations):
            partner = t.route_partner[r]
            if partner in on_path:
                continue
            s.owner[r] = 1
    agent._contest_memo = None  # the table was changed by hand, not by a claim the memo would see
    x1, p1, routes1 = p_of()
    assert routes1 == routes
    contest = FEATURES.index("contest") - 1
    assert x0[contest] == 0 and x1[contest] > 1
    assert p1 < p0 - 0.1


def test_the_hand_clock_counts_a_seat_that_holds_the_cards_for_its_trains(na):
    """Seat 2 has 11 trains and 14 cards: it can lay them in 9 / 3 = 3 claim turns, so the
    game ends about 4 turns from now whatever the long clock says; with 2 cards it needs
    (9 - 2) / 2 draw turns more."""
    t, rules = na
    s = _turn_position(t, rules)
    s.trains[2] = 11
    s.hands[2] = [0] * (t.wild + 1)
    s.hands[2][0] = 14
    view = SeatView(s, 0)
    assert rules.end_trigger == 2
    assert hand_clock(view, 20.0) == pytest.approx(9 / 3 + 1)
    s.hands[2][0] = 2
    assert hand_clock(view, 20.0) == pytest.approx(9 / 3 + 7 / 2 + 1)
    assert hand_clock(view, 2.5) == 2.5  # never longer than the long clock


def test_the_fit_recovers_a_known_logistic():
    """Records drawn from a known logistic in slack and contest: the fit finds its signs and
    sizes (the same code fits ticket_keeps.COEF on the logged games)."""
    from expert_chance_fit import curve_loss, fit

    rng = np.random.default_rng(5)
    rows = []
    for _ in range(3000):
        slack, contest = rng.normal(3, 6), rng.exponential(1.0)
        x = (slack, rng.normal(9, 4), rng.normal(11, 4), 2.0, rng.normal(-1, 2), contest)
        p = 1 / (1 + np.exp(-(1.0 + 0.15 * slack - 0.5 * contest)))
        rows.append((x, bool(rng.random() < p), 0.5))
    coef, ll = fit(rows)
    assert coef[FEATURES.index("slack")] == pytest.approx(0.15, abs=0.04)
    assert coef[FEATURES.index("contest")] == pytest.approx(-0.5, abs=0.15)
    assert abs(coef[FEATURES.index("points")]) < 0.05
    assert ll < curve_loss(rows) == pytest.approx(np.log(2))
    with pytest.raises(ValueError, match="too few"):
        fit(rows[:3])


def test_the_fit_script_on_one_game(na, capsys):
    """The refit plays games with random keeps and fits them; on one two-player game it records
    the tickets kept at random (features and whether they completed). Bad input: a clear message."""
    from expert_chance_fit import collect, main

    t, rules = na
    rows = collect(t, rules, 2, [11], 1.0)
    assert rows and all(len(x) == len(FEATURES) - 1 and isinstance(ok, bool) for x, ok, _ in rows)
    assert {x[FEATURES.index("seats") - 1] for x, _, _ in rows} == {0}
    board = str(boards_dir() / "north-america.json")
    assert main([board, "--players", "x"]) == 2
    assert "give player counts like 2,3,4" in capsys.readouterr().err
    assert main([board, "--players", "9", "--games", "1"]) == 2
    assert main(["no-such-board.json", "--games", "1"]) == 1
    assert "no-such-board.json" in capsys.readouterr().err


def test_a_keep_decision_reusing_plan_prefixes_gets_the_plans_planned_afresh(na):
    """choose_keep's options share their tickets' prefixes, and `_plan_detail` picks a plan up
    from the longest prefix planned before in the same decision: every such plan, in every keep
    of two 4-player games, equals the plan made from scratch (a memo keyed on the prefix's
    tickets without their order fails here)."""
    from mapkit.sim.agents.expert import ExpertAgent
    t, rules = na
    reused = []

    class Checked(ExpertAgent):
        def _plan_detail(self, view, tickets, costs, budget):
            got = super()._plan_detail(view, tickets, costs, budget)
            memo, self._prefix_memo = self._prefix_memo, None
            try:
                assert got == super()._plan_detail(view, tickets, costs, budget)
            finally:
                self._prefix_memo = memo
            reused.append(memo is not None and len(memo) > len(tickets))
            return got

    for seed in (4, 7):
        play_through(t, rules, [Checked() for _ in range(4)], seed)
    assert sum(reused) > 20  # the memo was in use, with plans of other options in it


def test_the_refit_can_take_the_agents_own_keeps(na):
    """`--own-keeps chance`: the keeps not chosen at random are the agent's own by a chance per
    ticket (the first fit), not the plan's one curve; the games, so the records, differ."""
    from expert_chance_fit import collect

    t, rules = na
    by_curve = collect(t, rules, 2, [11], 0.5)
    by_chance = collect(t, rules, 2, [11], 0.5, own="chance")
    assert by_chance and all(len(x) == len(FEATURES) - 1 for x, _, _ in by_chance)
    assert by_chance != by_curve
