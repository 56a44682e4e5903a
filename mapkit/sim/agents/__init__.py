"""AI players. Each gets a SeatView and the legal actions and returns one of them.

The playstyles follow the agents of published AI playtesting of Ticket to Ride (de Mesentier Silva
et al., 2017, "AI-based playtesting of contemporary board games"):

- `random`: uniform over the legal actions;
- `route-focus`: plans the cheapest connections for its tickets (its own routes free, open routes
  at their length, others' routes closed), claims planned routes as soon as it can pay for them and
  otherwise draws the colors they need; keeps tickets greedily by expected value; draws new
  tickets when its plan is done;
- `ticket-hungry`: the same planner, but draws new tickets while its plan still needs up to a
  third of its trains (of the planners, it draws the most tickets);
- `long-route`: claims the longest routes it can pay for and collects the colors of the longest
  open routes; keeps cheap tickets and draws more when its plan is nearly done;
- `one-step`: looks one action ahead: rates every claim by its points plus the planned ticket
  cost it saves, and takes the best if it is worth it (off the plan only when the plan keeps its
  trains), else draws like route-focus.

Every planner takes the best scoring claim on its final turn, spends spare cards instead of
hoarding them as its trains run out, pays for a double with the track its hand pays best, counts
a teammate's routes as its own when the team's routes count together, and uses what it can see of
others' tickets (open tickets, a teammate's open hand). `random` stays uniform over the legal
actions: it is the conformance tests' player, not a playstyle.

Agents are seeded by the runner; nothing reads global random state.
"""


from __future__ import annotations

from mapkit.errors import UsageError, did_you_mean
from mapkit.sim.agents.base import Agent, RandomAgent
from mapkit.sim.agents.expert import ExpertAgent
from mapkit.sim.agents.planner import PlannerAgent
from mapkit.sim.agents.playstyles import LongRouteAgent, OneStepAgent, TicketHungryAgent
from mapkit.sim.agents.restricted import RESTRICTED

# base (the interface, random), planner with moves and fused_turn (route-focus, the planner the
# others build on), playstyles, expert (a package: its decisions one module each), restricted (the
# expert with one habit taken away); this module names them
__all__ = ["AGENTS", "Agent", "PlannerAgent", "RandomAgent", "make_agent"]

AGENTS = {cls.name: cls for cls in (RandomAgent, PlannerAgent, TicketHungryAgent, LongRouteAgent, OneStepAgent, ExpertAgent)}
AGENTS.update(RESTRICTED)  # the expert with one habit taken away (restricted.py), for the balance report


def make_agent(name: str) -> Agent:
    if name not in AGENTS:
        raise UsageError(f"unknown agent '{name}'{did_you_mean(name, AGENTS)}; agents: {', '.join(AGENTS)}")
    return AGENTS[name]()
