"""The expert's keeps that build one trunk (mapkit/sim/agents/expert/ticket_keeps.py)."""

from __future__ import annotations

import random


from mapkit.sim import engine
from mapkit.sim.agents import make_agent
from mapkit.sim.legal import Legal
from mapkit.sim.longest import longest_trail
from mapkit.sim.view import SeatView


def _names(t, tickets):
    return [f"{t.station_ids[x[0]]}-{t.station_ids[x[1]]}" for x in tickets]


def _trail(t, agent, view, tickets):
    routes = agent.plan_for(view, tickets, agent._costs(view))[0]
    return longest_trail([(t.route_a[r], t.route_b[r], t.route_len[r]) for r in routes]).length


def test_the_trail_credit_keeps_the_tickets_that_make_one_long_trail(na):
    """Setup of game seed 0 (four players), seat 0 offered el-paso-vancouver (15),
    sault-st-marie-seattle (15) and calgary-charleston (17). Without the credit the expert keeps
    the two 15s (a north-south and a northern line); with a point per ten trains of the longest
    trail its plan makes it keeps sault-st-marie-seattle and calgary-charleston, whose plan is one
    longer line across the north and east."""
    t, rules = na
    s = engine.new_game(t, rules, 4, 0)
    assert s.phase == engine.SETUP and s.current == 0
    offer = [s.ticket_pool[i] for i in s.offer]
    assert _names(t, offer) == ["el-paso-vancouver", "sault-st-marie-seattle", "calgary-charleston"]
    chosen = {}
    for credit in (0.0, 0.1):
        agent = make_agent("expert")
        agent.keep_trail_credit = credit
        agent.reset(0, t, 4, random.Random(1))
        chosen[credit] = agent.act(SeatView(s, 0), Legal(s))
    assert chosen[0.0] == (engine.KEEP, 0b011)
    assert chosen[0.1] == (engine.KEEP, 0b110)
    view = SeatView(s, 0)
    kept = {c: tuple(offer[i] for i in range(3) if a[1] >> i & 1) for c, a in chosen.items()}
    assert _trail(t, agent, view, kept[0.1]) > _trail(t, agent, view, kept[0.0])
