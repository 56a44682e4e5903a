"""The seventh round's switches on the expert (docs/design/expert.md, "Tried and left out"). None is on by
default (none gained beyond the noise); each test builds a position and checks that the switch
does what the docs say it does, and that off it leaves the play as it was."""

from __future__ import annotations

import random

import pytest

from mapkit.sim import engine
from mapkit.sim.agents import make_agent
from mapkit.sim.legal import Legal
from mapkit.sim.view import SeatView
from conftest import network_position


SOUTH_WEST = ["denver-santa-fe", "santa-fe-el-paso", "salt-lake-city-denver#1", "las-vegas-salt-lake-city",
              "los-angeles-las-vegas"]
COMPLETE = ["denver-el-paso", "los-angeles-salt-lake-city", "el-paso-las-vegas"]


def _agent(t, seen_all_but, view, **switches):
    agent = make_agent("expert")
    for k, v in switches.items():
        setattr(agent, k, v)
    agent.reset(0, t, 4, random.Random(7))
    names = t.ticket_names["standard"]
    pool = agent._pool(view)
    agent._seen_tickets = {x for x, n in zip(pool, names) if n not in seen_all_but}
    return agent


@pytest.mark.parametrize("certain", [False, True])
def test_a_draw_of_tickets_the_network_completes_is_worth_their_points_when_certain(na, certain):
    """The three tickets the seat has not seen are all complete on its south-western network. With
    few turns left the completion curve gives each well under an even chance; with
    `draw_complete_certain` the draw is worth their points in full (all three are offered)."""
    t, rules = na
    s = network_position(t, rules, SOUTH_WEST, 8, 30)
    view = SeatView(s, 0)
    agent = _agent(t, COMPLETE, view, draw_complete_certain=certain)
    pts = sum(x[2] for x in agent._unseen(view))
    value = agent.draw_value(view, 8, 2.0)
    if certain:
        assert value == pytest.approx(pts)
    else:
        assert value < 0.5 * pts


def test_an_early_draw_values_tickets_on_the_planned_network(na):
    """`planned` routes count as the seat's own in the draw's value: a ticket along them is
    complete (no train), so the same draw is worth more than on the bare board."""
    t, rules = na
    s = network_position(t, rules, [], 45, 1)
    view = SeatView(s, 0)
    agent = _agent(t, COMPLETE, view)
    planned = [t.route_ids.index(r) for r in SOUTH_WEST]
    bare = agent.draw_value(view, 30, 25.0)
    on_plan = agent.draw_value(view, 30, 25.0, planned=planned)
    assert on_plan > bare
    # the planned routes were not kept as the network's connections: the next plain value is the bare one
    assert agent.draw_value(view, 30, 25.0) == bare


@pytest.mark.parametrize("turns, draws", [(0, False), (2, True)])
def test_the_early_draw_switch_draws_tickets_in_the_first_turns(na, turns, draws):
    """Seat 0 holds el-paso-vancouver on its first turn (planned through denver and helena), and
    the three tickets it has not seen run along that plan: with `early_draw_turns` it draws
    tickets before claiming; off (0) it goes on with its plan."""
    t, rules = na
    s = network_position(t, rules, [], 45, 0)
    s.tickets[0] = [t.ticket_names["standard"].index("el-paso-vancouver")]
    view = SeatView(s, 0)
    agent = _agent(t, ["denver-el-paso", "helena-vancouver", "denver-seattle"], view, early_draw_turns=turns,
                   early_draw_min=0.0, early_draw_slack=10)
    assert agent.plan(view)[0]
    assert (agent.act(view, Legal(s))[0] == engine.TICKETS) == draws


def test_the_trail_credit_can_wait_for_a_winnable_bonus(na):
    """`trail_winnable_margin`: the keep's trail credit counts only while the plan's trail is within
    the margin of the longest trail another seat has laid."""
    t, rules = na
    s = network_position(t, rules, [], 45, 5)
    # seat 1 owns a long chain in the west
    for rid in ("seattle-helena", "helena-duluth"):
        r = t.route_ids.index(rid)
        s.hands[1][t.wild] += t.route_len[r]
        engine._claim(s, 1, r, t.wild, t.route_len[r])
    view = SeatView(s, 0)
    short = [t.route_ids.index("denver-santa-fe")]
    agent = make_agent("expert")
    agent.reset(0, t, 4, random.Random(7))
    assert agent.trunk_value(view, (), short, 2, agent._costs(view), []) == pytest.approx(0.2)
    agent.trail_winnable_margin = 0
    assert agent.trunk_value(view, (), short, 2, agent._costs(view), []) == 0
    agent.trail_winnable_margin = 20
    assert agent.trunk_value(view, (), short, 2, agent._costs(view), []) == pytest.approx(0.2)


def test_setup_keeps_can_charge_their_own_train_cost(na):
    """`keep_train_cost_setup`: the keep at setup charges its trains at that cost; off (None) at
    `keep_train_cost` as before."""
    t, rules = na
    s = engine.new_game(t, rules, 4, 10)
    assert s.phase == engine.SETUP
    view = SeatView(s, 0)
    values = {}
    for cost in (None, 0.6, 1.6):
        agent = make_agent("expert")
        agent.keep_train_cost_setup = cost
        agent.reset(0, t, 4, random.Random(1))
        ticket = s.ticket_pool[s.offer[0]]
        value, _, need, _ = agent.keep_value_by_ticket(view, (ticket,), agent._costs(view), 45, 45, 30)
        values[cost] = (value, need)
    assert values[None] == values[0.6]
    assert values[1.6][0] == pytest.approx(values[0.6][0] - values[0.6][1])


def test_racing_by_the_way_round_skips_a_contested_route_with_a_cheap_detour(na):
    """`race_bottleneck`: a contested planned route is raced for (claimed before a longer one)
    only while the way round it costs at least that much more planning weight; None: every
    contested route first, as before."""
    t, rules = na
    s = network_position(t, rules, [], 45, 5)
    short = t.route_ids.index("denver-santa-fe")
    long = t.route_ids.index("seattle-helena")
    # an opponent's route at denver: denver-santa-fe is contested, seattle-helena is not
    opp = t.route_ids.index("denver-omaha#1") if "denver-omaha#1" in t.route_ids else t.route_ids.index("denver-omaha")
    s.hands[1][t.wild] += t.route_len[opp]
    engine._claim(s, 1, opp, t.wild, t.route_len[opp])
    view = SeatView(s, 0)
    agent = make_agent("expert")
    agent.reset(0, t, 4, random.Random(7))
    assert agent._contested(view, short) > 0 and agent._contested(view, long) == 0
    detour = agent._detour(view, short, agent._costs(view))
    assert 0 < detour < float("inf")
    pick = lambda: max((short, long), key=agent._race_key(view))
    assert pick() == short                      # as before: contested first
    agent.race_bottleneck = detour              # the way round is long enough: still raced
    assert pick() == short
    agent.race_bottleneck = detour + 0.5        # a cheaper way round than asked: the longer route
    assert pick() == long
