"""Tickets drawn in the first turns, valued on the network the plan will build (docs/expert.md,
seventh round): a switch on ExpertAgent.

The expert draws tickets only once its plan is done (expert_tickets.py), and by then a drawn
ticket is joined to the network with the trains that are left. In 4-player self-play nearly all
of a seat's turns go to the plan of its setup tickets (a trace: about 30 of 37 turns), and its
later tickets are add-ons to whatever network that plan made. A draw in the first turns, valued
with the planned routes counted as the seat's own, keeps tickets that the plan already runs
along (cheap) while every train is still free, so the network is planned once for all of them.

`early_draw_turns`: the seat's own turns (from its first) in which such a draw may be made (0:
off); `early_draw_min`: the draw's expected value (TicketDrawMixin.draw_value over the unseen
tickets, the planned routes free, with the trains and turns the plan leaves) it must reach;
`early_draw_slack`: trains the plan must leave free. Measured (4-player self-play, seeds 23
and 29): −0.2 to −0.4 winner points at every setting tried, so off.
"""

from __future__ import annotations


class EarlyDrawMixin:
    """Mixed into ExpertAgent: `_early_draw`, asked from `_act` while the plan is open."""

    early_draw_turns = 0     # 0: off (the play before)
    early_draw_min = 0.0
    early_draw_slack = 15
    _own_turns = 0

    def _early_draw(self, view, legal, routes, need, trains, turns):
        """A ticket draw, or None."""
        if self._own_turns > self.early_draw_turns or view.players <= 2 or self.draw_ev_min is None:
            return None
        draws = legal.tickets()
        if not draws:
            return None
        free = trains - need
        if free < self.early_draw_slack:
            return None
        # the plan's trains and (about a turn a train) its turns are spoken for
        if self.draw_value(view, free, turns - 1 - need, planned=routes) >= self.early_draw_min:
            return draws[0]
        return None
