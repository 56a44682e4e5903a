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
from mapkit.sim.basic_agents import Agent, RandomAgent
from mapkit.sim.paths import INF, adjacency, cheapest_path
from mapkit.sim.planner import PlannerAgent
from mapkit.sim.playstyles import LongRouteAgent, OneStepAgent, TicketHungryAgent

# the agents live in basic_agents.py (the interface, random), planner.py and planner_moves.py
# (route-focus, the planner the others build on), playstyles.py and expert.py; this module names
# them. INF and cheapest_path are re-exported for expert.py and older callers.
__all__ = ["AGENTS", "Agent", "INF", "PlannerAgent", "RandomAgent", "cheapest_path", "make_agent"]

_adjacency = adjacency  # the old name


class _Adjacency:
    """Kept for callers of the old name: the adjacency now lives on the tables object."""

    of = staticmethod(_adjacency)


AGENTS = {cls.name: cls for cls in (RandomAgent, PlannerAgent, TicketHungryAgent, LongRouteAgent, OneStepAgent)}


def _expert() -> Agent:
    from mapkit.sim.expert import ExpertAgent  # imported here: expert.py builds on this module

    return ExpertAgent()


AGENTS["expert"] = _expert  # a factory like the classes above: AGENTS[name]() makes the agent


def _restricted(name: str):
    def make() -> Agent:
        from mapkit.sim.restricted import RESTRICTED  # the expert with one habit taken away

        return RESTRICTED[name]()

    return make


for _name in ("no-tickets", "no-longest"):
    AGENTS[_name] = _restricted(_name)


def make_agent(name: str) -> Agent:
    if name not in AGENTS:
        raise UsageError(f"unknown agent '{name}'{did_you_mean(name, AGENTS)}; agents: {', '.join(AGENTS)}")
    return AGENTS[name]()
