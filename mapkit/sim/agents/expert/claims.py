"""Which claimable planned route the expert claims first: one next to an opponent's network
(`_contested`: an opponent's route at either end), then the longest. Tickets that fail are most of the points a seat loses (7.5 a seat a game in 4-player
self-play), so a route an opponent may take is claimed before one nobody is near.
"""

from __future__ import annotations


class ClaimOrderMixin:
    """Mixed into ExpertAgent: `_race_key`, the order in which claimable planned routes go."""

    def _race_key(self, view):
        """A key function over claimable planned routes: (next to an opponent (`_contested`),
        longer, lower id)."""
        t = self.t
        return lambda x: (self._contested(view, x) > 0, t.route_len[x], -x)
