"""The expert's last three turns (mapkit/sim/agents/expert/endgame.py) and its draws once the plan is
done (mapkit/sim/agents/expert/card_draws.py)."""

import random

import pytest

from mapkit.sim import engine
from mapkit.sim.agents import make_agent
from mapkit.sim.legal import Legal
from mapkit.sim.agents.expert.endgame import THREE_Q_MEASURED
from mapkit.sim.view import SeatView


def _position(t, rules, trains, others, hand, face_up):
    """North-america, four players after setup, seat 0 to play with no ticket, `trains` trains and
    `hand` (color -> cards); the other seats hold `others` trains."""
    s = engine.new_game(t, rules, 4, 3)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << s.min_keep) - 1))
    assert s.phase == engine.TURN and s.current == 0
    s.tickets[0] = []
    s.hands[0] = [0] * (t.wild + 1)
    for c, n in hand.items():
        s.hands[0][t.color_ids.index(c)] = n
    s.trains[0] = trains
    s.trains[1:] = [others] * 3
    s.face_up = [t.color_ids.index(c) for c in face_up]
    return s


def _agent(t, **switches):
    """The expert with the three-turn search on (it is off by default: its cost), then `switches`."""
    agent = make_agent("expert")
    agent.endgame_three_q = THREE_Q_MEASURED
    for k, v in switches.items():
        setattr(agent, k, v)
    agent.reset(0, t, 4, random.Random(7))
    return agent


ROW = ["red", "red", "yellow", "blue", "green"]


def test_three_turns_when_an_opponent_is_three_or_four_trains_from_the_trigger(na):
    """Opponent at 5 trains (the trigger is 2): the next turn is the last about a fifth of the time;
    at 6 a twentieth; at 4 the two-turn search runs instead, at 7 neither. Not when this seat holds
    5 trains or fewer itself (it may be the one that ends the game)."""
    t, rules = na
    agent = _agent(t)
    q = lambda trains, others: agent._three_q(SeatView(_position(t, rules, trains, others, {"yellow": 4}, ROW), 0))
    assert q(12, 5) == pytest.approx(0.21)
    assert q(12, 6) == pytest.approx(0.05)
    assert q(12, 4) is None and q(12, 7) is None
    assert q(5, 6) is None and q(6, 6) == pytest.approx(0.05)
    assert _agent(t, endgame_three_q={})._three_q(SeatView(_position(t, rules, 12, 5, {}, ROW), 0)) is None


def test_three_turns_gather_one_color_instead_of_a_short_claim_now(na):
    """4 yellow and 2 red cards, 12 trains, an opponent at 5: the play before claims a 4-train
    yellow route now (7 points); the three-turn search takes the face-up yellow, as two turns more
    are likelier than one (79 %) and 6 yellow cards pay a 6-train route (15 points)."""
    t, rules = na
    s = _position(t, rules, 12, 5, {"yellow": 4, "red": 2}, ROW)
    yellow = t.color_ids.index("yellow")
    a = _agent(t).act(SeatView(s, 0), Legal(s))
    assert a[0] == engine.FACE_UP and s.face_up[a[1]] == yellow
    before = _agent(t, endgame_three_q={}).act(SeatView(s, 0), Legal(s))
    assert before[0] == engine.CLAIM and t.route_len[before[1]] == 4 and before[2] == yellow
    # the exact two-turn part gives the same choice here
    exact = _agent(t, endgame_three_exact=True).act(SeatView(s, 0), Legal(s))
    assert exact == a
    # the second card of that draw is a legal draw chosen by the same three-turn value
    engine.apply(s, a)
    assert s.phase == engine.DRAW2
    second = _agent(t).act(SeatView(s, 0), Legal(s))
    assert second in Legal(s) and second[0] in (engine.FACE_UP, engine.BLIND)


def test_a_done_plan_draws_for_the_routes_the_hand_leans_to(na):
    """No route planned, 4 red cards: the draw goes for red routes (most points a turn from this
    hand), where the play before went for the three longest routes whatever the hand."""
    t, rules = na
    s = _position(t, rules, 20, 30, {"red": 4}, ["blue", "blue", "white", "white", "purple"])
    red = t.color_ids.index("red")
    agent = _agent(t)
    need = agent._spare_need(SeatView(s, 0))
    assert agent._target == red and need[red] > 0
    before = _agent(t, spare_by_hand=False)
    need = before._spare_need(SeatView(s, 0))
    assert before._target != red and red not in need
