"""When the expert takes a face-up wild: only when its plan cannot be paid otherwise, or (at three
players and more) when it waits with a big hand for a route one card short (`_stuck`, below).

The expert never draws a face-up wild while a blind draw is legal (a turn for one card; see
agent.py). On a deck with a scarce color that leaves routes it can never pay: Seattle's flight
color has 3 cards for the 6-train paine-field-seatac, west-seattle 5 cards for 11 trains of track.
So the face-up wild is taken when the cards of a planned color the seat could still get are fewer
than its planned routes of that color need, beyond the wilds it holds. An exact count from what
the seat sees, never a guess:

- the deck's cards of that color, minus those the seat itself paid into the discards since the
  discards were last shuffled back (the view shows the seat its own payments, not the other
  seats' — in the rules the discards are public, but the SeatView does not expose them, so the
  count is an upper bound of what is obtainable and the wild is never taken without need);
- the discards are forgotten whenever a reshuffle may have happened since the last look: the deck
  grew, the discards shrank, or the deck was small enough for the other seats to empty it.

What the expert draws for once its plan is done (SpareMixin, `_spare_need`): the colors of the
open routes that score the most points a turn from the hand as it is (points over the draw turns
the missing cards take, plus the claim's turn), the `spare_routes` best, so the draws gather one
color the hand already leans to. Near the end more than half the seats have no planned route left
(4-player self-play, seed 23: 58 % of the seats on their last turn). Measured against drawing for
the three longest open routes whatever the hand (docs/design/expert.md): against route-focus at two
players 68.6 % instead of 64.7 % (2,000 games, seed 0); 4-player self-play within the noise.
"""

from __future__ import annotations

from mapkit.sim.engine import CLAIM, DRAW2
from mapkit.sim.paths import INF
from mapkit.sim.tables import GRAY


# cards that can leave the deck between two looks of one seat without a reshuffle showing: two
# draws a turn per seat and two wipes of the face-up row (five cards each); a deck this small
# at the last look may have run out, so the seat's own payments may be back in it
_WIPES_ALLOWED = 2


class ScarceColorMixin:
    """Counts, for ExpertAgent, the cards of each color the seat can still obtain; and when a
    face-up wild is worth its turn to a seat stuck one card from a claim (`_stuck`)."""

    # a face-up wild when the hand holds this many cards and the route nearest to a claim lacks at
    # most `stuck_wild_missing` cards (after the wilds held): it makes that route claimable next
    # turn, where two blind cards are each that color (or wild) about one time in four. None: never.
    # Not at two players, where the expert is the seat that ends the game and a card matters more
    # than a turn: measured, it won 2–4 points of win share less against route-focus there
    stuck_wild_hand = 6
    stuck_wild_missing = 1
    stuck_wild_players = 3
    _needed_key = _needed = None  # wilds_needed's last answer and what it was asked

    def _reset_scarce(self, tables, players):
        total = [0] * (tables.wild + 1)
        for c in tables.deck:
            total[c] += 1
        self._color_total = total
        self._gone = [0] * len(total)        # own payments still in the discards
        self._deck_seen = None
        self._discard_seen = 0
        self._deck_margin = 2 * players + 5 * _WIPES_ALLOWED
        self._wild_short = False
        self._needed_key = self._needed = None

    def _look(self, view):
        """Forget the own payments once the discards may have been shuffled back into the deck."""
        deck, discard = view.deck_size, view.discard_size
        seen = self._deck_seen
        if seen is None or deck > seen or discard < self._discard_seen or seen <= self._deck_margin:
            self._gone = [0] * len(self._gone)
        self._deck_seen, self._discard_seen = deck, discard

    def _paid(self, a):
        """Record the cards of a claim this seat makes (they go to the discards)."""
        if a is not None and a[0] == CLAIM:
            L = self.t.route_len[a[1]]
            w = a[3]
            wild = self.t.wild
            if a[2] != wild:
                self._gone[a[2]] += L - w
            self._gone[wild] += w
            self._discard_seen += L
        return a

    def wilds_needed(self, view, routes):
        """Wilds the planned routes need because their colors are short: per color, the cards its
        planned routes need beyond those the seat can still obtain. Also returns the scarce
        colors. A double counts on its track of the more plentiful color; gray routes never count
        (any color pays them)."""
        # a function of the routes, the owners (claims only change them) and the own payments
        # still in the discards: kept while none changes (a turn asks it two or three times)
        key = (view.claimed, tuple(routes), tuple(self._gone))
        if key == self._needed_key:
            return self._needed
        t = self.t
        owner, partner, colors, lens = view.owner, t.route_partner, t.route_color, t.route_len
        total, gone = self._color_total, self._gone
        demand = {}
        for r in routes:
            c = colors[r]
            if c == GRAY:
                continue
            q = partner[r]
            if q >= 0 and owner[q] == -1:
                cq = colors[q]
                if cq == GRAY:
                    continue
                if total[cq] - gone[cq] > total[c] - gone[c]:
                    c = cq
            demand[c] = demand.get(c, 0) + lens[r]
        need, scarce = 0, set()
        for c, d in demand.items():
            if d > total[c] - gone[c]:
                need += d - (total[c] - gone[c])
                scarce.add(c)
        self._needed_key, self._needed = key, (need, scarce)
        return need, scarce

    def wilds_short(self, view, routes) -> bool:
        """True when the plan cannot be paid without more wilds than the seat holds."""
        return self.wilds_needed(view, routes)[0] > view.hand[self.t.wild]

    def keep_wilds(self, view, routes, claims):
        """The claims that leave the wilds a scarce color of the plan needs: a wild taken for it
        is not spent on a route its own color can still pay (the claims of the scarce color's
        routes themselves are kept)."""
        need, scarce = self.wilds_needed(view, routes)
        if not need:
            return claims
        spare = view.hand[self.t.wild] - need
        colors, partner = self.t.route_color, self.t.route_partner
        return [a for a in claims
                if a[3] <= spare or colors[a[1]] in scarce
                or (partner[a[1]] >= 0 and colors[partner[a[1]]] in scarce)]

    def _stuck(self, view, target) -> bool:
        """Is a face-up wild worth its turn (a first draw)? The hand is big (the seat is waiting for
        a color, not short of cards) and the route nearest to a claim lacks at most
        `stuck_wild_missing` cards (`target` and `_target_missing`, from the expert's
        `wanted_colors`). Measured (docs/design/expert.md): +2 winner points and +2 seat
        points in 4-player self-play, games 0.4-0.7 turns a seat longer."""
        return (self.stuck_wild_hand is not None and target is not None and view.phase != DRAW2
                and view.players >= self.stuck_wild_players
                and self._target_missing <= self.stuck_wild_missing and sum(view.hand) >= self.stuck_wild_hand)


class SpareMixin:
    """Mixed into ExpertAgent: `_spare_need`, what to draw for with no planned route left."""

    # how many routes the draw goes for
    spare_routes = 3
    # turns a claim counts for, besides a draw turn per two missing cards
    spare_claim_turn = 1

    def _spare_need(self, view) -> dict:
        """Cards missing per color for the `spare_routes` open routes of most points a turn by the
        hand, among those the seat's trains fit (none: {}); sets `_target` as `wanted_colors`
        does, and no wild is wanted for their sum (they are alternatives)."""
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
        scored.sort()
        routes = [r for *_, r in scored[:self.spare_routes]]
        need = self.wanted_colors(view, routes)
        self._wild_short = False  # alternatives, not all to be claimed: no wild for their sum
        return need
