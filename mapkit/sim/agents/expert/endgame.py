"""The expert's last two turns as a small exact search (docs/design/expert.md).

A seat that does not end the game reaches its last turn with about 6.5 trains and 5.5 cards it
cannot lay together (4-player self-play: the seats that do not trigger the end leave 5.9 trains
unlaid; the last claim lays 1.9). Once an opponent holds at most 4 trains (the end trigger and
2), the game ends before this seat plays again 84-99 % of the time (measured: 3 trains 99 %,
4 trains 84 %, 5 trains 21 %), so the seat takes its next turn as its last and searches this turn
and that one exactly over what it sees: the hand, the face-up row, the open routes its trains can
still lay and the tickets a claim completes:

- this turn a claim (each legal payment), then the best claim the rest of the hand pays;
- or this turn a draw (two blind cards, a face-up card and a blind one, or two face-up cards),
  then the best claim of the hand with the cards drawn, in expectation over the blind cards
  (each color as likely as the cards of it the seat has not seen in its hand or the row).

The value of a claim is its route points plus the ticket swing it makes (a ticket completed
instead of failed: twice its points). The best last claim of a hand is read from a table per
color of the best value payable with n cards, so a draw's expectation (81 two-card outcomes)
costs a few hundred look-ups; the search runs about 4 times a seat-game.

Not when the seat itself is that close to the trigger (it may be the one that ends the game: two
low seats each drawing for a last turn the other was to start made games 0.16 turns a seat
longer), and not in the final round (the last turn is agent.py's cash-out: the best claim).
Measured (4-player self-play, docs/design/expert.md): winner +2.6 / +1.9 points (seeds 23 / 29), the
mean seat +1.8 / +2.0, turns a seat +0.02 / +0.03; the last claim lays 2.8 trains instead of 1.9.
"""

from __future__ import annotations

from mapkit.sim.engine import BLIND, FACE_UP
from mapkit.sim.paths import INF
from mapkit.sim.tables import GRAY


class EndgameMixin:
    """Mixed into ExpertAgent: `_last_two`, the best action when the next turn is the seat's last."""

    # search the last two turns exactly when the next turn is surely the last (False: no search)
    endgame_search = True
    # "surely": an opponent holds at most end trigger + this many trains (measured, seed 23, 200
    # games, docs/design/expert.md: 3 gave 129.35 winner points against 129.16, within the
    # noise; 1 lost 1.5 points in the first version)
    endgame_margin = 2
    # ... and this seat more than end trigger + this many (None: whatever it holds, 129.61 winner
    # points but 37.56 turns a seat against 37.07, as two low seats each wait for the other to end
    # the game; 1: 129.43 and 37.29 turns; 3: 128.92, 37.06)
    endgame_self_margin = 2

    # ------------------------------------------------------------ the pieces

    def _end_comp(self, view):
        """Component id of each station in this seat's network (a copy the search can merge)."""
        return [view.component(s) for s in range(self.t.n_stations)]

    @staticmethod
    def _ticket_ends(comp, tickets) -> set:
        """The components holding an end of a ticket still open."""
        ends = set()
        for x, y, *_ in tickets:
            if comp[x] != comp[y]:
                ends.add(comp[x])
                ends.add(comp[y])
        return ends

    def _claim_value(self, r, comp, tickets, factor, ends=()) -> float:
        """Route points of r plus the ticket swing of joining its ends' components (`ends`: the
        components holding an end of an open ticket; a claim completes one only between two)."""
        t = self.t
        ca, cb = comp[t.route_a[r]], comp[t.route_b[r]]
        v = t.route_points[r]
        if ca == cb or ca not in ends or cb not in ends:
            return v
        for x, y, pts, *_ in tickets:
            cx, cy = comp[x], comp[y]
            if cx != cy and ((cx == ca and cy == cb) or (cx == cb and cy == ca)):
                v += pts * factor
        return v

    def _last_tables(self, cands, vals, trains, skip=-1, base=None, keys=()):
        """best[c][n]: the best claim value payable with n cards of color c or wilds, n ≤ trains
        (c = wild: gray routes, paid by the color held best). `cands` are (route, length, color),
        `vals` their claim values; `skip` (and its other track) is left out. With `base` (tables
        of other values and without the skip), only the rows of skip's colors and of `keys` are
        built again. Without `base`, also sets `_end_users`: the routes a row's best values come
        from (leaving any other route out changes no row)."""
        wild = self.t.wild
        partner = self.t.route_partner
        rebuild = None
        setter = None
        if base is not None:
            colors = self.t.route_color
            keys = rebuild = set(keys) | {wild if colors[x] == GRAY else colors[x] for x in (skip, partner[skip]) if x >= 0}
            best = dict(base)
            for k in keys:
                best.pop(k, None)
        else:
            best = {}
            setter = {}
        for r, L, c in cands:
            if L > trains or (skip >= 0 and (r == skip or partner[r] == skip)):
                continue
            key = wild if c == GRAY else c
            if rebuild is not None and key not in rebuild:
                continue
            v = vals[r]
            row = best.get(key)
            if row is None:
                row = best[key] = [0.0] * (trains + 1)
                if setter is not None:
                    setter[key] = [-1] * (trains + 1)
            if v > row[L]:
                row[L] = v
                if setter is not None:
                    setter[key][L] = r
        users = set()
        for k, row in best.items():
            if rebuild is None or k in rebuild:
                by = setter[k] if setter is not None else None
                for n in range(1, trains + 1):
                    if row[n - 1] >= row[n]:
                        row[n] = row[n - 1]
                    elif by is not None:
                        users.add(by[n])
        if setter is not None:
            self._end_users = users
        return best

    def _last_value(self, hand, best, trains) -> float:
        """The best single claim `hand` pays with `trains` trains (tables built for ≥ trains)."""
        wild = self.t.wild
        hw = hand[wild]
        v = 0.0
        for c, row in best.items():
            n = (max(hand[:wild]) if c == wild else hand[c]) + hw
            x = row[n if n < trains else trains]
            if x > v:
                v = x
        return v

    def _end_candidates(self, view, trains):
        """Open routes this seat may still claim with `trains` trains: (route, length, color)."""
        t = self.t
        costs = self._costs(view)
        return [(r, t.route_len[r], t.route_color[r]) for r in range(t.n_routes)
                if costs[r] != INF and costs[r] and t.route_len[r] <= trains]

    def _end_start(self, view):
        """What every end-game search starts from: (trains, candidate claims, the network's
        component per station, the tickets, the failed-ticket factor, the components holding an
        open ticket's end, each candidate's claim value)."""
        trains = view.trains[self.seat]
        cands = self._end_candidates(view, trains)
        comp, tickets, factor = self._end_comp(view), view.tickets, 1 - view.rules.failed_ticket_factor
        # the parts of the network (or lone stations) at the ends of tickets still open: a claim
        # completes a ticket only between two of them, and a claim that joins two of them changes
        # what the next claim completes (only the claims touching the joined part)
        ends = self._ticket_ends(comp, tickets)
        vals = {r: self._claim_value(r, comp, tickets, factor, ends) for r, _, _ in cands}
        return trains, cands, comp, tickets, factor, ends, vals

    def _blind_last_value(self, hand, tables, trains, p) -> float:
        """The best last claim's value expected after one blind card (p: each color's chance)."""
        e = 0.0
        for c in range(self.t.wild + 1):
            if p[c]:
                hand[c] += 1
                e += p[c] * self._last_value(hand, tables, trains)
                hand[c] -= 1
        return e

    def _unseen_cards(self, view):
        """Chance of each card color on a blind draw: the deck less the own hand and the row."""
        left = list(self._color_total)
        for c, n in enumerate(view.hand):
            left[c] -= n
        for c in view.face_up:
            if c >= 0:
                left[c] -= 1
        left = [max(0, x) for x in left]
        total = sum(left) or 1
        return [x / total for x in left]

    # ------------------------------------------------------------ the search

    def _last_two(self, view, legal):
        """(action, value) of the best plan for this turn and one last turn after it."""
        t = self.t
        wild = t.wild
        trains, cands, comp, tickets, factor, ends, vals = self._end_start(view)
        hand = list(view.hand)
        best_a, best_v = None, -1.0
        base = self._last_tables(cands, vals, trains)
        users = self._end_users
        ra, rb, partner = t.route_a, t.route_b, t.route_partner
        by_route = {}
        for a in legal.claims():
            by_route.setdefault(a[1], []).append(a)
        # a claim now, then the best claim of what is left
        for r, acts in by_route.items():
            L = t.route_len[r]
            v = vals[r] if r in vals else self._claim_value(r, comp, tickets, factor, ends)
            left = trains - L
            tables = None
            if left > 0:
                ca, cb = comp[t.route_a[r]], comp[t.route_b[r]]
                if ca != cb and (ca in ends or cb in ends):
                    merged = [ca if x == cb else x for x in comp]
                    merged_ends = {ca if x == cb else x for x in ends}
                    after = dict(vals)
                    changed = set()
                    for x, _, cx in cands:
                        if merged[ra[x]] == ca or merged[rb[x]] == ca:
                            nv = self._claim_value(x, merged, tickets, factor, merged_ends)
                            if nv != after[x]:
                                after[x] = nv
                                changed.add(wild if cx == GRAY else cx)
                    tables = self._last_tables(cands, after, trains, skip=r, base=base, keys=changed)
                elif r in users or partner[r] in users:
                    tables = self._last_tables(cands, vals, trains, skip=r, base=base)
                else:
                    tables = base  # r gives no row its best value: leaving it out changes nothing
            fewest = {}
            for a in acts:
                c, w = a[2], a[3]
                # a payment with more wilds than an earlier one of the same color leaves a hand
                # the earlier one's rest dominates (a wild pays whatever a card pays)
                if fewest.get(c, w + 1) <= w:
                    continue
                fewest[c] = w
                total = v
                if tables:
                    rest = list(hand)
                    rest[wild] -= w
                    if c != wild:
                        rest[c] -= L - w
                    total += self._last_value(rest, tables, left)
                if total > best_v + 1e-9:
                    best_a, best_v = a, total
        draws = legal.draws()
        if draws:
            tables = base
            p = self._unseen_cards(view)
            colors = [c for c in range(wild + 1) if p[c] > 0]
            fu = view.face_up
            # the expert's habit holds here too: no face-up wild while a blind draw is legal
            # (agent.py's `draw` explains the habit)
            blind_ok = any(a[0] == BLIND for a in draws)

            def after_one(h):
                # expected value of one blind card more
                e = 0.0
                for c in colors:
                    h[c] += 1
                    e += p[c] * self._last_value(h, tables, trains)
                    h[c] -= 1
                return e

            by_color = {}  # two slots of one color are the same draw
            for a in draws:
                if a[0] == BLIND:
                    # two blind cards: each unordered pair once
                    e = 0.0
                    for i, c in enumerate(colors):
                        hand[c] += 1
                        for c2 in colors[i:]:
                            hand[c2] += 1
                            e += (1 if c2 == c else 2) * p[c] * p[c2] * self._last_value(hand, tables, trains)
                            hand[c2] -= 1
                        hand[c] -= 1
                    e += 1e-3 * after_one(hand)
                elif a[0] == FACE_UP:
                    c = fu[a[1]]
                    if c == wild and blind_ok:
                        continue
                    if c in by_color:
                        continue  # worth what the first slot of its color is: not more
                    hand[c] += 1
                    if c == wild:
                        e = self._last_value(hand, tables, trains)  # a face-up wild ends the turn
                    else:
                        # the second card: blind, or another face-up card (not a wild); of two
                        # draws worth the same, the one whose first card is worth more (the row
                        # changes after it)
                        first = 1e-3 * self._last_value(hand, tables, trains)
                        e = after_one(hand)
                        rest = list(fu)
                        rest.pop(a[1])
                        for c2 in set(rest):
                            if c2 >= 0 and c2 != wild:
                                hand[c2] += 1
                                e = max(e, self._last_value(hand, tables, trains))
                                hand[c2] -= 1
                        e += first
                    hand[c] -= 1
                    by_color[c] = e
                else:
                    continue
                if e > best_v + 1e-9:
                    best_a, best_v = a, e
        return best_a, best_v

    def _last_second_card(self, view, legal):
        """The second card of a draw whose next turn is the last: the one that makes the best last
        claim likeliest (a face-up card exactly, the blind card in expectation)."""
        trains, cands, comp, tickets, factor, ends, vals = self._end_start(view)
        tables = self._last_tables(cands, vals, trains)
        hand = list(view.hand)
        fu = view.face_up
        best_a, best_v = None, -1.0
        for a in legal.draws():
            if a[0] == BLIND:
                p = self._unseen_cards(view)
                e = self._blind_last_value(hand, tables, trains, p)
            elif a[0] == FACE_UP:
                c = fu[a[1]]
                hand[c] += 1
                e = self._last_value(hand, tables, trains)
                hand[c] -= 1
            else:
                continue
            if e > best_v + 1e-9:
                best_a, best_v = a, e
        return best_a

    def _next_is_last(self, view) -> bool:
        """Is this seat's next turn surely its last? An opponent within 2 trains of the end
        trigger ends the game before it 84-99 % of the time (4-player self-play: 3 trains 99 %,
        4 trains 84 %, 5 trains 21 %)."""
        trigger = view.rules.end_trigger + self.endgame_margin
        if view.fewest_trains > trigger or view.final_round:
            return False
        trains = view.trains
        if self.endgame_self_margin is not None and trains[self.seat] <= view.rules.end_trigger + self.endgame_self_margin:
            return False
        return any(trains[q] <= trigger for q in range(len(trains)) if q != self.seat)
