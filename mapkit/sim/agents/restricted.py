"""Restricted players: the expert with one habit taken away, for the balance report's question
"does one simple strategy dominate this map?" (mapkit/balance/strategies.py).

- `no-tickets`: never draws tickets after the starting keep (it draws a card instead);
- `no-longest`: plays as if there were no longest-path bonus (its end game does not chase it and
  its keeps give no credit for a longer trail).

The third restricted strategy the report plays, claiming only the longest routes it can pay for,
is the `long-route` playstyle (playstyles.py).
"""

from __future__ import annotations

from dataclasses import replace

from mapkit.sim.agents.expert import ExpertAgent
from mapkit.sim.state import TICKETS


class NoTicketsAgent(ExpertAgent):
    name = "no-tickets"

    def act(self, view, legal):
        a = super().act(view, legal)
        if a[0] != TICKETS:
            return a
        for b in reversed(range(len(legal))):  # the blind draw is listed last
            if legal[b][0] != TICKETS:
                return legal[b]
        return a


class _NoBonusView:
    """A seat's view whose rules have no longest-path bonus; everything else is the view's."""

    __slots__ = ("_view", "rules")

    def __init__(self, view, rules):
        self._view = view
        self.rules = rules

    def __getattr__(self, name):
        return getattr(self._view, name)


class NoLongestAgent(ExpertAgent):
    name = "no-longest"
    keep_trail_credit = 0.0

    def act(self, view, legal):
        rules = view.rules
        if rules.longest_path_bonus:
            view = _NoBonusView(view, replace(rules, longest_path_bonus=0))
        return super().act(view, legal)


RESTRICTED = {cls.name: cls for cls in (NoTicketsAgent, NoLongestAgent)}
