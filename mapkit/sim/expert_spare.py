"""What the expert draws for once its plan is done (issue 8; docs/expert.md, sixth round).

With no planned route left, expert.py's `_spare_need` draws for the three longest open routes the
seat's trains fit, whatever its hand holds. Near the end more than half the seats are there (4-player
self-play, seed 23: 58 % of the seats on their last turn have no planned route left), and they
reach their last turn with about 7 trains and 7 cards spread over the colors, laying 2.7 of the
trains. Drawing instead for the routes that score the most points a turn from the hand as it is
(points over the draw turns the missing cards take, plus the claim's turn) gathers one color the
hand already leans to. Measured (docs/expert.md, sixth round): against route-focus at two players
68.6 % instead of 64.7 % (2,000 games, seed 0), where the expert finishes its plan and ends the
game; 4-player self-play within the noise (winner −0.1 / +0.7 / 0.0 at seeds 23 / 29 / 0),
turns a seat −0.1 / +0.03 / −0.1. `spare_routes = 1` lost 0.9 winner points (seed 23).
"""

from __future__ import annotations

from mapkit.sim.paths import INF
from mapkit.sim.tables import GRAY


class SpareMixin:
    """Mixed into ExpertAgent: `_spare_by_hand`, called from its `_spare_need`."""

    # draw for the routes of most points a turn by the hand (False: the three longest, the play
    # before)
    spare_by_hand = True
    # how many routes the draw goes for
    spare_routes = 3
    # turns a claim counts for, besides a draw turn per two missing cards
    spare_claim_turn = 1

    def _spare_by_hand(self, view):
        """Colors for the open routes of most points a turn by the hand; None when none fits."""
        t = self.t
        wild = t.wild
        hand = view.hand
        hw = hand[wild]
        gray = max(hand[:wild]) + hw
        costs = self._costs(view)
        trains = view.trains[self.seat]
        lens, pts, colors = t.route_len, t.route_points, t.route_color
        scored = []
        for r in range(t.n_routes):
            L = lens[r]
            if costs[r] == INF or not costs[r] or L > trains:
                continue
            c = colors[r]
            have = gray if c == GRAY else hand[c] + hw
            missing = L - have
            turns = self.spare_claim_turn + ((missing + 1) // 2 if missing > 0 else 0)
            scored.append((-pts[r] / turns, -L, r))
        if not scored:
            return None
        scored.sort()
        routes = [r for *_, r in scored[:self.spare_routes]]
        need = self.wanted_colors(view, routes)
        self._wild_short = False  # alternatives, not all to be claimed: no wild for their sum
        return need
