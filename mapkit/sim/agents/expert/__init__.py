"""The `expert` agent (agent.ExpertAgent): the route-focus planner with a decision of its own for each
kind of turn, one module each: which tickets to keep (ticket_keeps), when to draw tickets
(ticket_draws), which cards to draw (card_draws), which planned route to claim first (claims),
the last turns (endgame), and blocking at two players (blocking). Each is a class of methods that
ExpertAgent composes; none imports another."""

from mapkit.sim.agents.expert.agent import ExpertAgent

__all__ = ["ExpertAgent"]
