"""The expert's last two turns, searched exactly (mapkit/sim/agents/expert/endgame.py)."""

import random


from mapkit.sim import engine
from mapkit.sim.agents import make_agent
from mapkit.sim.legal import Legal
from mapkit.sim.view import SeatView


def _position(t, rules, trains, others, yellow):
    """North-america, four players after setup, seat 0 to play with no ticket, `trains` trains and
    `yellow` yellow cards; the other seats hold `others` trains; the face-up row shows one yellow."""
    s = engine.new_game(t, rules, 4, 3)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << s.min_keep) - 1))
    assert s.phase == engine.TURN and s.current == 0
    y, red = t.color_ids.index("yellow"), t.color_ids.index("red")
    s.tickets[0] = []
    s.hands[0] = [0] * (t.wild + 1)
    s.hands[0][y] = yellow
    s.trains[0] = trains
    s.trains[1:] = [others] * 3
    s.face_up = [red, red, y, red, red]
    return s, y


def _agent(t, search=True):
    agent = make_agent("expert")
    agent.endgame_search = search
    agent.reset(0, t, 4, random.Random(7))
    return agent


def test_the_next_turn_is_the_last_when_an_opponent_is_two_trains_from_the_trigger(na):
    """Another seat with 4 trains (the trigger is 2) ends the game before this seat plays again 84 %
    of the time, with 3 trains 99 %, with 5 only 21 %: the search runs from 4. Not when this seat
    is that close itself (it may be the one to end the game), nor in the final round (the last
    turn is the last claim: the cash-out)."""
    t, rules = na
    view = lambda s: SeatView(s, 0)
    agent = _agent(t)
    assert agent._next_is_last(view(_position(t, rules, 20, 4, 5)[0]))
    assert not agent._next_is_last(view(_position(t, rules, 20, 5, 5)[0]))
    assert not agent._next_is_last(view(_position(t, rules, 4, 4, 5)[0]))
    s = _position(t, rules, 20, 4, 5)[0]
    s.final_turns_left = 3
    assert not agent._next_is_last(view(s))


def test_with_one_turn_after_this_one_it_draws_for_the_route_that_lays_every_train(na):
    """6 trains, 5 yellow cards, the next turn the last: claiming el-paso-oklahoma-city (5 yellow,
    10 points) now leaves a train and no card; the face-up yellow makes seattle-helena (6 yellow,
    15 points) payable next turn. The search takes the yellow; the play before (no search, no
    plan: the longest claim near the end) claims the 5-train route."""
    t, rules = na
    s, y = _position(t, rules, 6, 4, 5)
    act = _agent(t).act(SeatView(s, 0), Legal(s))
    assert act == (engine.FACE_UP, 2)
    before = _agent(t, search=False).act(SeatView(s, 0), Legal(s))
    assert before[0] == engine.CLAIM and t.route_len[before[1]] == 5
    # the second card of that draw: whatever comes, seattle-helena is paid; with 4 yellow cards
    # (after the yellow, 5) the second card must be yellow or wild: the row's reds do not help,
    # so it draws blind
    s, y = _position(t, rules, 6, 4, 4)
    engine.apply(s, (engine.FACE_UP, 2))
    assert s.phase == engine.DRAW2 and s.current == 0
    s.face_up = [t.color_ids.index("red")] * 5
    assert _agent(t).act(SeatView(s, 0), Legal(s)) == (engine.BLIND,)


def test_two_claims_that_lay_every_train_beat_the_longest_one(na):
    """8 trains, 5 yellow and 3 red cards, the next turn the last, no card on the row helps: the
    search claims now and again next turn (5 yellow and a 3-train red route: 10 + 4 points); a
    draw could only add to one claim."""
    t, rules = na
    s, y = _position(t, rules, 8, 4, 5)
    red = t.color_ids.index("red")
    s.hands[0][red] = 3
    s.face_up = [t.color_ids.index("black")] * 5
    agent = _agent(t)
    act, value = agent._last_two(SeatView(s, 0), Legal(s))
    assert act[0] == engine.CLAIM
    assert value >= 14
