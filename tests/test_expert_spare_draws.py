"""What the expert draws for once its plan is done (mapkit/sim/agents/expert/card_draws.py)."""

import random

from mapkit.sim import engine
from mapkit.sim.agents import make_agent
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


def test_a_done_plan_draws_for_the_routes_the_hand_leans_to(na):
    """No route planned, 4 red cards: the draw goes for red routes (most points a turn from this
    hand), though the three longest open routes the seat's trains fit are not red."""
    t, rules = na
    s = _position(t, rules, 20, 30, {"red": 4}, ["blue", "blue", "white", "white", "purple"])
    red = t.color_ids.index("red")
    agent = make_agent("expert")
    agent.reset(0, t, 4, random.Random(7))
    view = SeatView(s, 0)
    need = agent._spare_need(view)
    assert agent._target == red and need[red] > 0
    longest = sorted((r for r in range(t.n_routes) if s.owner[r] == -1 and t.route_len[r] <= 20),
                     key=lambda r: (-t.route_len[r], r))[:3]
    assert all(t.route_color[r] != red for r in longest)
