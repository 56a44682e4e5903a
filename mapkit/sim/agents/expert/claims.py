"""Racing for the planned routes a ticket cannot do without (docs/expert.md, seventh round): a
switch on ExpertAgent.

With several planned routes claimable, the expert claims first one next to an opponent's network
(`_contested`: an opponent's route at either end), then the longest. Tickets that fail are most
of the points a seat loses (7.5 a seat a game in 4-player self-play), and a route next to an
opponent is only worth racing for when losing it costs a long way round. `race_bottleneck`
ranks the claimable planned routes by that cost instead: the planning weight of the cheapest
way between the route's two ends without it (and its double's other track), less its own
weight; a route with a way round within `race_bottleneck` of it is not raced for. The contested
ones with a long way round come first, the longest of them; then the longest route as before.
"""

from __future__ import annotations

from mapkit.sim.paths import INF


class BottleneckMixin:
    """Mixed into ExpertAgent: `_race_key`, the order in which claimable planned routes go."""

    race_bottleneck = None   # None: contested first, then the longest (the play before)

    def _detour(self, view, r, costs) -> float:
        """Planning weight of the cheapest way round route r (r and its double's other track
        closed), less r's own weight; INF when there is none."""
        t = self.t
        work = list(costs)
        work[r] = INF
        q = t.route_partner[r]
        if q >= 0:
            work[q] = INF
        c = self._path(work, t.route_a[r], t.route_b[r], ())[0]
        return INF if c == INF else c - self.weight[r]

    def _race_key(self, view):
        """A key function over claimable planned routes: (raced first, longer, lower id). Raced
        first: none without `race`; next to an opponent (`_contested`), the play before; with
        `race_bottleneck`, only those whose way round is long."""
        t = self.t
        if not self.race:
            return lambda x: (False, t.route_len[x], -x)
        if self.race_bottleneck is None:
            return lambda x: (self._contested(view, x) > 0, t.route_len[x], -x)
        costs = self._costs(view)
        cut = self.race_bottleneck

        def key(x):
            hot = self._contested(view, x) > 0 and self._detour(view, x, costs) >= cut
            return (hot, t.route_len[x], -x)

        return key
