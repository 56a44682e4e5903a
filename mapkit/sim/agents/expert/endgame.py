"""The expert's last two turns as a small exact search (docs/expert.md).

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
Measured (4-player self-play, docs/expert.md): winner +2.6 / +1.9 points (seeds 23 / 29), the
mean seat +1.8 / +2.0, turns a seat +0.02 / +0.03; the last claim lays 2.8 trains instead of 1.9.

The expert's last three turns (docs/expert.md): the two-turn search of
endgame.py started a turn sooner, with the chance of each end.

With an opponent at the end trigger + 3 trains (5 on the standard rules) this seat's next turn is
its last only about a fifth of the time (4-player self-play: 21 %); otherwise it
usually has two turns more. So each action of this turn is valued as

    q × (its value when the next turn is the last: endgame._last_two, exact)
    + (1 − q) × (its value when the turn after next is the last)

where the second term is a cheap estimate, not an exact search (an exact one over two draws of
two blind cards each costs about 2,000 hand look-ups a draw, ten times the speed budget allows):

- after a claim: its value, then the better of (a draw and one last claim) and (two more claims
  from the hand left);
- after a draw: the last claim after one more draw of two blind cards.

"A draw, then a last claim" is valued by committing to one row (a color, or gray routes paid by
the color held best): the expected best value payable in that row with the cards of its color or
wilds among the blind cards (binomial), the best row taken. That is what a seat holding 8 trains
and 7 spread cards does when it gathers one color for its longest route ("what is left"). Two claims from a hand: the best claim of each row the hand pays, then the best
last claim of what is left, the first route left out (each row keeps its three best routes of
each length, so leaving out two routes is a look-up).

q per margin is `endgame_three_q` (measured: 21 % at trigger + 3, about 5 % at
trigger + 4). Measured (docs/expert.md; 4-player self-play on top of card_draws.py):
+0.5 points the mean seat on three seeds, the winner +0.3 (within the noise), turns a seat
unchanged; 8 % of the agent's instructions.
"""

from __future__ import annotations

from mapkit.sim.engine import BLIND, DRAW2, FACE_UP
from mapkit.sim.longest import longest_trail
from mapkit.sim.paths import INF
from mapkit.sim.tables import GRAY


class EndgameMixin:
    """Mixed into ExpertAgent: `_last_two`, the best action when the next turn is the seat's last."""

    # search the last two turns exactly when the next turn is surely the last. False: the play
    # before
    endgame_search = True
    # "surely": an opponent holds at most end trigger + this many trains (measured, seed 23, 200
    # games, docs/expert.md: 3 gave 129.35 winner points against 129.16, within the
    # noise; 1 lost 1.5 points in the first version)
    endgame_margin = 2
    # ... and this seat more than end trigger + this many (None: whatever it holds, 129.61 winner
    # points but 37.56 turns a seat against 37.07, as two low seats each wait for the other to end
    # the game; 1: 129.43 and 37.29 turns; 3: 128.92, 37.06)
    endgame_self_margin = 2
    # the last turn (final round) counts the longest-path bonus a claim takes: a transfer between
    # seats in self-play (winner 129.22, the seats' bonus 2.74 -> 3.12, their route points
    # 64.3 -> 64.0), so off; against route-focus at two players 68.1 % against 67.0 % (seed 41,
    # 500 games an order: within the noise)
    endgame_bonus = False

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

    def _last_two(self, view, legal, record=None):
        """(action, value) of the best plan for this turn and one last turn after it. With
        `record` (a dict), every action searched is recorded there: claim -> (value, claim value,
        hand left, trains left, claim values after it), draw -> (value, None, ...), and None ->
        (candidates, claim values): the three-turn search (endgame.py) builds on them."""
        t = self.t
        wild = t.wild
        trains, cands, comp, tickets, factor, ends, vals = self._end_start(view)
        hand = list(view.hand)
        best_a, best_v = None, -1.0
        base = self._last_tables(cands, vals, trains)
        users = self._end_users
        if record is not None:
            record[None] = (cands, vals)
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
            after = vals
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
                if record is not None:
                    rest = list(hand)
                    rest[wild] -= w
                    if c != wild:
                        rest[c] -= L - w
                    record[a] = (total, v, rest, left, after)
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
                if record is not None:
                    record[a] = (e, None, None, trains, vals)
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

    # ------------------------------------------------------------ the longest path, last turn

    def _final_claim(self, view, legal, tickets):
        """The last turn's claim: route points, the ticket swing and the longest-path bonus it
        takes (this seat's longest trail with the route reaching the longest of the others' as
        they stand); None when nothing is claimable."""
        return self._best_scoring_claim(view, legal, tickets, bonus=True)

    def _bonus_gains(self, view, routes) -> dict:
        """route -> bonus points a claim of it wins (0 when this seat already holds the longest
        trail, or the route does not touch its network)."""
        bonus = view.rules.longest_path_bonus
        if not bonus:
            return {}
        t = self.t
        ra, rb, lens = t.route_a, t.route_b, t.route_len

        def edges(seat):
            return [(ra[r], rb[r], lens[r]) for r in view.claims_of(seat)]

        mine = edges(self.seat)
        others = max(longest_trail(edges(q)).length for q in range(view.players) if q != self.seat)
        if not mine or longest_trail(mine).length >= others:
            return {}
        stations = {x for e in mine for x in e[:2]}
        gains = {}
        for r in routes:
            if ra[r] in stations or rb[r] in stations:
                if longest_trail(mine + [(ra[r], rb[r], lens[r])]).length >= others:
                    gains[r] = bonus
        return gains


# the chances measured (21 % at trigger + 3 trains, about 5 % at + 4): the value
# that turns the three-turn search on (`endgame_three_q = THREE_Q_MEASURED`)
THREE_Q_MEASURED = {3: 0.21, 4: 0.05}


def _two_face_up(fu, i, wild) -> list[dict]:
    """The cards of a draw that takes face-up slot i and then another face-up card (not a wild):
    one {color: count} for each color the rest of the row offers."""
    others = list(fu)
    c = others.pop(i)
    out = []
    for c2 in set(others):
        if c2 >= 0 and c2 != wild:
            fixed = {c: 1}
            fixed[c2] = fixed.get(c2, 0) + 1
            out.append(fixed)
    return out


class ThreeTurnMixin:
    """Mixed into ExpertAgent (before EndgameMixin's user): `_three_q` and `_last_three`."""

    # the chance the next turn is the last, by the fewest trains an opponent holds past the end
    # trigger; the three-turn search runs at these margins ({}: off). OFF by default: measured with
    # {3: 0.21, 4: 0.05} it gave the winner +0.27 (about one standard error; the mean seat +0.5) for
    # 13 % more instructions a 4-player game (156.8 M against 138.2 M after the merge of the sixth
    # round), which the 20 games/s target cannot spare (docs/expert.md)
    endgame_three_q: dict = {}
    # ... and only while this seat holds more than end trigger + this many trains (None: the
    # two-turn search's `endgame_self_margin`, 2: at trigger + 4 games got 0.1 turn a seat longer,
    # seats that would end the game drawing for a bigger last claim)
    endgame_three_self = 3
    # the two-turn part by the exact search above (True; the same figures within the noise
    # at 3-4 times the cost) or estimated from the rows too
    endgame_three_exact = False

    def _three_q(self, view):
        """The chance the next turn is the last when the three-turn search applies, else None."""
        trig = view.rules.end_trigger
        if not self.endgame_three_q or view.final_round or view.fewest_trains > trig + max(self.endgame_three_q):
            return None
        trains = view.trains
        own = self.endgame_self_margin if self.endgame_three_self is None else self.endgame_three_self
        if own is not None and trains[self.seat] <= trig + own:
            return None
        others = [trains[q] for q in range(len(trains)) if q != self.seat]
        if not others:
            return None  # solo: no opponent ends the game
        m = min(others) - trig
        return self.endgame_three_q.get(m)

    # ------------------------------------------------------------ rows

    def _rows3(self, cands, vals, trains):
        """(rows, users): rows[key][n] the best three claims of row `key` (a color, or gray as
        wild) payable with at most n cards, as (value, route group, length), of three different
        groups (a double's two tracks are one group: a seat claims one), best first: leaving out
        one or two routes is then a look-up. users: the groups first in some row (leaving any
        other out changes nothing)."""
        wild = self.t.wild
        partner = self.t.route_partner
        cells = {}
        for r, L, c in cands:
            if L > trains:
                continue
            key = wild if c == GRAY else c
            row = cells.get(key)
            if row is None:
                row = cells[key] = [[] for _ in range(trains + 1)]
            q = partner[r]
            row[L].append((vals[r], r if q < 0 or r < q else q, L))
        rows = {}
        users = set()
        for key, row in cells.items():
            pre = [()] * (trains + 1)
            top = []
            for n in range(1, trains + 1):
                if row[n]:
                    merged = sorted(top + row[n], reverse=True)
                    top = []
                    seen = set()
                    for e in merged:
                        if e[1] not in seen:
                            seen.add(e[1])
                            top.append(e)
                            if len(top) == 3:
                                break
                    users.add(top[0][1])
                pre[n] = tuple(top)
            rows[key] = pre
        return rows, users

    def _best_color(self, hand):
        """The color a gray route is paid with: the one held best (the lowest of a tie)."""
        wild = self.t.wild
        top = max(hand[:wild])
        return hand.index(top)

    def _last3(self, hand, rows, trains, skip):
        """The best single claim `hand` pays with `trains` trains, the groups in skip left out
        (rows[key][n]: the best three of a row with at most n cards, best first)."""
        wild = self.t.wild
        hw = hand[wild]
        v = 0.0
        for key, row in rows.items():
            n = (max(hand[:wild]) if key == wild else hand[key]) + hw
            for e in row[n if n < trains else trains]:
                if e[1] not in skip:
                    if e[0] > v:
                        v = e[0]
                    break
        return v

    def _pair3(self, hand, rows, trains, skip):
        """Two claims from `hand`: the best of each row it pays, then the best last claim of the
        rest."""
        wild = self.t.wild
        hw = hand[wild]
        best = 0.0
        for key, row in rows.items():
            c = self._best_color(hand) if key == wild else key
            n = hand[c] + hw
            for v, g, L in row[n if n < trains else trains]:
                if g not in skip:
                    break
            else:
                continue
            if L >= trains:
                continue
            rest = list(hand)
            own = min(L, rest[c])
            rest[c] -= own
            rest[wild] -= L - own
            v += self._last3(rest, rows, trains - L, skip | {g})
            if v > best:
                best = v
        return best

    def _draw_last3(self, hand, rows, trains, skip, p, fixed, blind):
        """The last claim after drawing the cards `fixed` (color -> count) and `blind` blind
        cards, committed to one row: the expected best value of that row, the best row."""
        wild = self.t.wild
        h = list(hand)
        for c, k in fixed.items():
            h[c] += k
        pw = p[wild]
        hw = h[wild]
        gray = self._best_color(h)
        best = 0.0
        for key, row in rows.items():
            c = gray if key == wild else key
            n0 = h[c] + hw
            top = n0 + blind
            for x in row[top if top < trains else trains]:
                if x[1] not in skip:
                    break
            else:
                continue
            if x[0] <= best:
                continue  # even all blind cards of this row would not beat the best row
            pc = p[c] + pw
            # binomial(blind, pc) cards of the row among the blind ones
            e = 0.0
            prob = (1 - pc) ** blind
            for k in range(blind + 1):
                n = n0 + k
                for x in row[n if n < trains else trains]:
                    if x[1] not in skip:
                        e += prob * x[0]
                        break
                if k < blind and pc < 1:
                    prob *= (blind - k) / (k + 1) * pc / (1 - pc)
            if e > best:
                best = e
        return best

    # ------------------------------------------------------------ the search

    def _group(self, r):
        q = self.t.route_partner[r]
        return r if q < 0 or r < q else q

    def _later(self, a, rec, rows_by, trains, hand, p, fu):
        """This action's value when the turn after next is the last (the estimate above)."""
        wild = self.t.wild
        # the claim values before this turn's claim, also after a claim that joins two parts of the
        # network (the exact two-turn value counts the tickets it then completes; one table for
        # the estimate keeps it cheap)
        total, v, rest, left, _ = rec
        rows, users, vals = rows_by["rows"]
        if v is not None:  # a claim
            if left <= 0:
                return v
            g = self._group(a[1])
            # claims of one color and length leave the same hand: their estimates differ only
            # when the route is the best of some row
            key = (id(vals), tuple(rest), left, g if g in users else -1)
            e = rows_by.get(key)
            if e is None:
                skip = {g}
                e = rows_by[key] = max(self._draw_last3(rest, rows, left, skip, p, {}, 2),
                                       self._pair3(rest, rows, left, skip))
            return v + e
        if a[0] == BLIND:
            return self._draw_last3(hand, rows, trains, set(), p, {}, 4)
        c = fu[a[1]]
        if c == wild:
            return self._draw_last3(hand, rows, trains, set(), p, {wild: 1}, 2)
        # the second card: blind, or another face-up card (not a wild)
        e = self._draw_last3(hand, rows, trains, set(), p, {c: 1}, 3)
        for fixed in _two_face_up(fu, a[1], wild):
            e = max(e, self._draw_last3(hand, rows, trains, set(), p, fixed, 2))
        return e

    def _last_three(self, view, legal, q):
        """(action, value): this turn chosen by q × the two-turn value + (1 − q) × the three-turn
        estimate."""
        if view.phase == DRAW2:
            return self._second_card3(view, legal, q), None
        if not self.endgame_three_exact:
            return self._last_three_cheap(view, legal, q)
        record = {}
        self._last_two(view, legal, record)
        cands, vals = record.pop(None)
        trains = view.trains[self.seat]
        hand = list(view.hand)
        p = self._unseen_cards(view)
        rows_by = {"rows": self._rows3(cands, vals, trains) + (vals,)}
        best_a, best_v = None, -1.0
        for a, rec in record.items():
            v = q * rec[0] + (1 - q) * self._later(a, rec, rows_by, trains, hand, p, view.face_up)
            if v > best_v + 1e-9:
                best_a, best_v = a, v
        return best_a, best_v

    def _last_three_cheap(self, view, legal, q):
        """_last_three with the two-turn part estimated too (`endgame_three_exact` False): every
        value from the one table of rows (a claim's later tickets and a draw's pick of the row
        after seeing the cards left out), at a fraction of the exact search's cost."""
        t = self.t
        wild = t.wild
        trains, cands, comp, tickets, factor, ends, vals = self._end_start(view)
        rows, users = self._rows3(cands, vals, trains)
        hand = list(view.hand)
        p = self._unseen_cards(view)
        memo = {}
        best_a, best_v = None, -1.0
        by_route = {}
        for a in legal.claims():
            by_route.setdefault(a[1], []).append(a)
        lens = t.route_len
        for r, acts in by_route.items():
            L = lens[r]
            v = vals[r] if r in vals else self._claim_value(r, comp, tickets, factor, ends)
            left = trains - L
            g = self._group(r)
            fewest = {}
            for a in acts:
                c, w = a[2], a[3]
                if fewest.get(c, w + 1) <= w:
                    continue  # more wilds than an earlier payment of the color: dominated
                fewest[c] = w
                total = v
                if left > 0:
                    rest = list(hand)
                    rest[wild] -= w
                    if c != wild:
                        rest[c] -= L - w
                    key = (tuple(rest), left, g if g in users else -1)
                    e = memo.get(key)
                    if e is None:
                        skip = {g}
                        e = memo[key] = (q * self._last3(rest, rows, left, skip)
                                         + (1 - q) * max(self._draw_last3(rest, rows, left, skip, p, {}, 2),
                                                         self._pair3(rest, rows, left, skip)))
                    total += e
                if total > best_v + 1e-9:
                    best_a, best_v = a, total
        draws = legal.draws()
        blind_ok = any(a[0] == BLIND for a in draws)
        fu = view.face_up
        none = set()
        seen = set()
        for a in draws:
            if a[0] == BLIND:
                e = (q * self._draw_last3(hand, rows, trains, none, p, {}, 2)
                     + (1 - q) * self._draw_last3(hand, rows, trains, none, p, {}, 4))
            elif a[0] == FACE_UP:
                c = fu[a[1]]
                if c in seen or (c == wild and blind_ok):
                    continue
                seen.add(c)
                if c == wild:
                    e = (q * self._draw_last3(hand, rows, trains, none, p, {wild: 1}, 0)
                         + (1 - q) * self._draw_last3(hand, rows, trains, none, p, {wild: 1}, 2))
                else:
                    now = self._draw_last3(hand, rows, trains, none, p, {c: 1}, 1)
                    later = self._draw_last3(hand, rows, trains, none, p, {c: 1}, 3)
                    for fixed in _two_face_up(fu, a[1], wild):
                        now = max(now, self._draw_last3(hand, rows, trains, none, p, fixed, 0))
                        later = max(later, self._draw_last3(hand, rows, trains, none, p, fixed, 2))
                    e = q * now + (1 - q) * later
            else:
                continue
            if e > best_v + 1e-9:
                best_a, best_v = a, e
        return best_a, best_v

    def _second_card3(self, view, legal, q):
        """The second card of a draw: q × the best last claim with it + (1 − q) × the best of one
        more draw and a last claim, or two claims."""
        trains, cands, comp, tickets, factor, ends, vals = self._end_start(view)
        tables = self._last_tables(cands, vals, trains)
        rows = self._rows3(cands, vals, trains)[0]
        hand = list(view.hand)
        fu = view.face_up
        p = self._unseen_cards(view)
        none = set()
        best_a, best_v = None, -1.0
        for a in legal.draws():
            if a[0] == BLIND:
                e = self._blind_last_value(hand, tables, trains, p)
                later = max(self._draw_last3(hand, rows, trains, none, p, {}, 3), self._pair3(hand, rows, trains, none))
            elif a[0] == FACE_UP:
                c = fu[a[1]]
                hand[c] += 1
                e = self._last_value(hand, tables, trains)
                later = max(self._draw_last3(hand, rows, trains, none, p, {}, 2), self._pair3(hand, rows, trains, none))
                hand[c] -= 1
            else:
                continue
            v = q * e + (1 - q) * later
            if v > best_v + 1e-9:
                best_a, best_v = a, v
        return best_a
