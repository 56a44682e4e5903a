"""Keeps that build one trunk (docs/expert.md, sixth round): switches on ExpertAgent.

Human winners hold about six tickets of about 13 points: long coast-to-coast tickets whose middle
the short ones reuse. The expert's keep already charges the trains of the whole kept set (a
ticket sharing routes with the others costs only its own extra trains); this mixin adds two
credits on top of that, each measured in docs/expert.md (the trail's on, with the
own-play refit of the completion chance and a train cost of 0.6; the share's off):

- `keep_share_credit`: points per train the kept tickets share, i.e. the trains their own
  cheapest connections would take one by one, less the trains the plan of all of them needs;
- `keep_trail_credit`: points per train of the longest trail the seat's network would make with
  the plan built (the longest-path bonus goes to the longest trail).
"""

from __future__ import annotations

from mapkit.sim.longest import longest_trail
from mapkit.sim.paths import INF


class TrunkMixin:
    """Mixed into ExpertAgent: `trunk_value`, the credits above for one keep option."""

    # measured (docs/expert.md, sixth round; 4-player self-play, seeds 23 / 29): 0.5 a shared
    # train +0.6 winner points, 1.0 −0.7 (more failures), both within the noise: off
    keep_share_credit = 0.0   # 0: off
    # a tenth of a point a train of the longest trail. Alone: +1.1 / +0.9 winner points at seeds
    # 23 / 29 but +0.1 at seed 0 (1,000 games). With chance_own_fit = True and keep_train_cost =
    # 0.6 (the shipped combination): +1.1 winner points over four fresh seeds of 1,000 games
    # (2.7 standard errors), the same tickets and turns (docs/expert.md, sixth round); 0 with
    # keep_train_cost = 0.5 and chance_own_fit = False gives the play before
    keep_trail_credit = 0.1
    _trunk_memo = None        # {ticket: trains of its own connection} of one keep decision
    # the trail credit only while the trail the plan makes is within this many trains of the
    # longest trail another seat has laid (the bonus still winnable); None: always. Measured
    # (seventh round): margin 0, +0.07 winner points, within the noise
    trail_winnable_margin = None
    _others_trail_memo = None

    def trunk_value(self, view, tickets, routes, need, costs, given_up) -> float:
        value = 0.0
        if self.keep_share_credit:
            memo = self._trunk_memo
            if memo is None:
                memo = self._trunk_memo = {}
            lens = self.t.route_len
            alone = 0
            for k in tickets:
                if k in given_up or view.connected(k[0], k[1]):
                    continue
                c = memo.get(k)
                if c is None:
                    w, path = self._path(costs, k[0], k[1], ())
                    c = memo[k] = 0 if w == INF else sum(lens[r] for r in path if costs[r])
                alone += c
            value += self.keep_share_credit * (alone - need)
        if self.keep_trail_credit:
            t = self.t
            ra, rb, lens = t.route_a, t.route_b, t.route_len
            edges = [(ra[r], rb[r], lens[r]) for r in view.claims_of(self.seat)]
            edges += [(ra[r], rb[r], lens[r]) for r in routes]
            length = longest_trail(edges, budget=3000).length
            if self.trail_winnable_margin is None or length + self.trail_winnable_margin >= self._others_trail(view):
                value += self.keep_trail_credit * length
        return value

    def _others_trail(self, view) -> int:
        """The longest trail any other seat has laid, kept while no route is claimed (forgotten at
        reset: ExpertAgent.reset)."""
        key = view.claimed
        got = self._others_trail_memo
        if got is not None and got[0] == key:
            return got[1]
        t = self.t
        ra, rb, lens = t.route_a, t.route_b, t.route_len
        best = 0
        for seat in range(view.players):
            if seat == self.seat:
                continue
            edges = [(ra[r], rb[r], lens[r]) for r in view.claims_of(seat)]
            if edges:
                best = max(best, longest_trail(edges, budget=3000).length)
        self._others_trail_memo = (key, best)
        return best
