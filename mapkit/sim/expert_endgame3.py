"""The expert's last three turns (issue 8; docs/expert.md, sixth round): the two-turn search of
expert_endgame.py started a turn sooner, with the chance of each end.

With an opponent at the end trigger + 3 trains (5 on the standard rules) this seat's next turn is
its last only about a fifth of the time (4-player self-play, fifth round: 21 %); otherwise it
usually has two turns more. So each action of this turn is valued as

    q × (its value when the next turn is the last: expert_endgame._last_two, exact)
    + (1 − q) × (its value when the turn after next is the last)

where the second term is a cheap estimate, not an exact search (an exact one over two draws of
two blind cards each costs about 2,000 hand look-ups a draw, ten times the speed budget allows):

- after a claim: its value, then the better of (a draw and one last claim) and (two more claims
  from the hand left);
- after a draw: the last claim after one more draw of two blind cards.

"A draw, then a last claim" is valued by committing to one row (a color, or gray routes paid by
the color held best): the expected best value payable in that row with the cards of its color or
wilds among the blind cards (binomial), the best row taken. That is what a seat holding 8 trains
and 7 spread cards does when it gathers one color for its longest route (the fifth round's
"what is left"). Two claims from a hand: the best claim of each row the hand pays, then the best
last claim of what is left, the first route left out (each row keeps its three best routes of
each length, so leaving out two routes is a look-up).

q per margin is `endgame_three_q` (measured in the fifth round: 21 % at trigger + 3, about 5 % at
trigger + 4). Measured (docs/expert.md, sixth round; 4-player self-play on top of expert_spare.py):
+0.5 points the mean seat on three seeds, the winner +0.3 (within the noise), turns a seat
unchanged; 8 % of the agent's instructions.
"""

from __future__ import annotations

from mapkit.sim.engine import BLIND, DRAW2, FACE_UP
from mapkit.sim.tables import GRAY


# the chances measured in the fifth round (21 % at trigger + 3 trains, about 5 % at + 4): the value
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
    # round), which the 20 games/s target cannot spare (docs/expert.md, sixth round, lead's note)
    endgame_three_q: dict = {}
    # ... and only while this seat holds more than end trigger + this many trains (None: the
    # two-turn search's `endgame_self_margin`, 2: at trigger + 4 games got 0.1 turn a seat longer,
    # seats that would end the game drawing for a bigger last claim)
    endgame_three_self = 3
    # the two-turn part by expert_endgame's exact search (True; the same figures within the noise
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
                if c in seen or (c == wild and blind_ok and not self.endgame_face_up_wild):
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
