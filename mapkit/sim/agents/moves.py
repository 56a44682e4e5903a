"""The planners' moves: which claim to make and how to pay for it, which card to draw, when to
spend cards off the plan or claim to block, transit stations. A mixin of `planner.PlannerAgent`
(it reads the planner's plan, costs and view of the table through `self`)."""

from __future__ import annotations

from mapkit.sim.engine import BLIND, DRAW2, FACE_UP
from mapkit.sim.paths import INF
from mapkit.sim.tables import GRAY


class PlannerMoves:
    """Paying and drawing for a plan (see `planner.PlannerAgent` for the habits they make)."""

    def _claim_key(self, a, keep, hand, planned):
        """How a payment rates (higher is better). For one route and card color it only falls as
        the wilds rise: `short`, the cards taken from the plan, drops by at most one for each wild
        more, and the third place prefers fewer wilds on a tie (best_claim relies on this)."""
        t = self.t
        r, c, w = a[1], a[2], a[3]
        L = t.route_len[r]
        if keep is None or c == t.wild:
            return (L, -w, 0, 0)
        other = keep.get(c, 0) - (L if r in planned and t.route_color[r] == c else 0)
        left = hand[c] - (L - w)
        short = max(0, other - left) - max(0, other - hand[c])  # cards of c this payment takes from the plan
        return (L, -(w + short), -w, left)

    def best_claim(self, legal, routes: set | None = None, keep: dict | None = None, hand=None):
        """The claim of a wanted route (longest first) that uses the fewest wild cards; given
        `keep` (cards per color the plan still needs) and the hand, the payment (the track of a
        double, the color of a gray route) that takes fewest cards the rest of the plan needs."""
        best, key = None, None
        planned = routes or ()
        # for one route and card color, fewer wilds always rate higher (see _claim_key): only the
        # cheapest payments need rating, unless a playstyle rates payments its own way; and the
        # rating's first place is the length: only the longest payable routes can rate best
        if self._cheap_keys:
            if routes is not None:
                for a in legal.longest_cheapest_claims(routes):
                    k = self._claim_key(a, keep, hand, planned)
                    if key is None or k > key:
                        best, key = a, k
                return best
            lens = self.t.route_len
            for a in legal.cheapest_claims():
                if key is not None and lens[a[1]] < key[0]:
                    continue  # a route shorter than the best so far rates lower whatever it is paid with
                k = self._claim_key(a, keep, hand, planned)
                if key is None or k > key:
                    best, key = a, k
            return best
        for a in legal.claims(routes):
            k = self._claim_key(a, keep, hand, planned)
            if key is None or k > key:
                best, key = a, k
        return best

    def _keep_colors(self, routes) -> dict:
        """Cards per color the planned routes of one color need (gray ones take any color)."""
        t = self.t
        keep = {}
        for r in routes:
            c = t.route_color[r]
            if c != GRAY:
                keep[c] = keep.get(c, 0) + t.route_len[r]
        return keep

    def plan_claim(self, view, legal, routes):
        """A claim of a planned route, or of the other track of a planned double: first one an
        opponent visibly needs (race for it), else the longest; paid the way the hand pays best."""
        t = self.t
        held = self._want
        if held[0] == routes:
            want, keep, reach = held[1], held[2], held[3]
        else:
            want = set(routes)
            for r in routes:
                q = t.route_partner[r]
                if q >= 0:
                    want.add(q)
            keep = self._keep_colors(routes)
            reach = self._reach(view, want)
            self._want = (routes, want, keep, reach)
        hand = view.hand
        if reach is not None and not self._may_pay(view, hand, reach):
            return None  # no wanted route is short enough for this hand and these trains
        needs = self._read_table(view)[1]
        if needs:
            hot = {r for r in want if r in needs}
            if hot:
                claim = self.best_claim(legal, hot, keep, hand)
                if claim is not None:
                    return claim
        return self.best_claim(legal, want, keep, hand)

    def _reach(self, view, want):
        """The shortest wanted route per color (GRAY for gray ones), as ((color, length), ...):
        a route longer than its color's cards plus wilds, or than the trains, is never listed.
        None when a claim may be paid in another color than its own (`double_either_color`),
        which this does not know of."""
        if view.rules.double_either_color:
            return None
        t = self.t
        colors, lens = t.route_color, t.route_len
        shortest = {}
        get = shortest.get
        for r in want:
            c, L = colors[r], lens[r]
            if L < get(c, L + 1):
                shortest[c] = L
        return tuple(shortest.items())

    def _may_pay(self, view, hand, reach) -> bool:
        """Could the listing hold a claim of a wanted route (the length checks of
        `legal._claims_of`, route by route, for the shortest route of each color)?"""
        wild = self.t.wild
        hw = hand[wild]
        trains = view.own_trains
        for c, L in reach:
            if L <= trains and L <= (max(hand[:wild]) if c == GRAY else hand[c]) + hw:
                return True
        return False

    def _stations(self, legal) -> list:
        """legal.stations(), listed once per turn: listing them is the transit game's costliest step."""
        hit = self._station_list
        if hit is None or hit[0] is not legal:
            hit = self._station_list = (legal, legal.stations())
        return hit[1]

    def _station_points(self, view, act, ends=None) -> float:
        t = self.t
        st, kind = act[1], act[2]
        points = t.points_table[min(len(t.routes_at[st]), len(t.points_table)) - 1]
        if view.markers[st][1 - kind] != -1:
            points = (points + 1) // 2
        return points + (ends or {}).get(st, 0) / 2

    def scoring_claim(self, view, legal, min_points: int = 0):
        """The legal claim (or transit station) worth most now: route points plus, for each held
        ticket it completes, the ticket's points won and its penalty avoided; paid with the fewest
        wilds. None when nothing legal scores more than `min_points`."""
        t = self.t
        swing = 1 - view.rules.failed_ticket_factor
        comp = view.component
        pending = [(comp(a), comp(b), pts * swing) for a, b, pts, *_ in view.tickets if not view.connected(a, b)]
        best, key = None, (min_points, 0)
        last, v = -1, 0
        # fewer wilds rate higher for the same route: its fewest-wild payment is enough (a route's
        # payments come together, so the first best of the listing is the first best of these)
        for a in legal.fewest_wild_claims():
            r = a[1]
            if r != last:  # a route's payments come one after another: value the route once
                last, v = r, t.route_points[r]
                if pending:
                    u, w = comp(t.route_a[r]), comp(t.route_b[r])
                    for x, y, gain in pending:
                        if (x == u and y == w) or (x == w and y == u):
                            v += gain
            k = (v, -a[3])
            if k > key:
                best, key = a, k
        if view.rules.transit:
            for a in self._stations(legal):
                k = (self._station_points(view, a), -1)
                if k > key:
                    best, key = a, k
        return best

    def _spare(self, view, routes) -> list:
        """The hand left after setting aside the cards the planned routes need."""
        hand = view.hand_list()
        t = self.t
        wild = t.wild
        for r in routes:
            c, L = t.route_color[r], t.route_len[r]
            if c == GRAY:
                c = hand.index(max(hand[:wild]))  # the most-held color, the first of a tie
            use = min(L, hand[c])
            hand[c] -= use
            hand[wild] -= min(L - use, hand[wild])
        return hand

    def spare_claim(self, view, legal, routes, cost, min_points: int = 2):
        """The best-scoring claim off the plan paid only with cards the plan does not need and
        leaving the trains the plan needs; None if there is none worth `min_points`."""
        t = self.t
        wild = t.wild
        spare = self._spare(view, routes)
        room = view.own_trains - cost
        planned = set(routes)
        if not view.rules.double_either_color:
            return self._spare_claim_by_route(view, legal, spare, room, planned, min_points)
        best, key = None, None
        for a in legal.claims():
            r, c, w = a[1], a[2], a[3]
            L = t.route_len[r]
            if r in planned or L > room or t.route_points[r] < min_points:
                continue
            if w > spare[wild] or (c != wild and L - w > spare[c]):
                continue
            k = (t.route_points[r], -w)
            if key is None or k > key:
                best, key = a, k
        return best

    def _spare_claim_by_route(self, view, legal, spare, room, planned, min_points):
        """`spare_claim`'s choice without listing every payment: per claimable route (in the
        listing's order) its payment with fewest wilds among those the spare cards cover. In one
        color the listing's payments run from fewest wilds up, and the spare cards cover those
        with at least L - spare[c] and at most spare[wild] wilds: the first covered one is
        max(0, L - spare[c]) wilds, if that many spare wilds there are (spare never exceeds the
        hand). The action is made here, as the listing would have it."""
        t = self.t
        wild = t.wild
        hand = view.hand
        hw = hand[wild]
        sw = spare[wild]
        lens, colors, points = t.route_len, t.route_color, t.route_points
        best, key = None, None
        for a in legal.fewest_wild_claims():
            r = a[1]
            L = lens[r]
            pts = points[r]
            if r in planned or L > room or pts < min_points:
                continue
            if key is not None and pts < key[0]:
                continue  # rates below the best whatever it is paid with
            c = colors[r]
            pay = None
            if c != GRAY:
                w = L - spare[c] if L > spare[c] else 0
                if w < L:
                    if w <= sw:
                        pay = (c, w)
                elif L <= hw and L <= sw:
                    pay = (wild, L)  # the all-wild payment
            else:
                for c in range(wild):
                    if spare[c] and hand[c] + hw >= L:
                        w = L - spare[c] if L > spare[c] else 0
                        if w <= sw and (pay is None or w < pay[1]):
                            pay = (c, w)
                if pay is None and L <= hw and L <= sw:
                    pay = (wild, L)
            if pay is None:
                continue
            k = (pts, -pay[1])
            if key is None or k > key:
                best, key = (a[0], r, pay[0], pay[1]), k
        return best

    def spend(self, view, legal, routes, cost):
        """Claim for points instead of drawing, when drawing would only grow an unused hand:
        - the plan cannot be finished: more trains than are left, or someone may end the game
          before its missing cards can be drawn and played — take the best scoring claim now;
        - the hand holds 6+ cards more than the plan needs — spend the spare ones off the plan."""
        trains = view.own_trains
        if cost > trains:
            return self.scoring_claim(view, legal)
        if self._danger(view) and sum(self.wanted_colors(view, routes).values()) > self.give_up_missing:
            return self.scoring_claim(view, legal)
        if trains <= self.hoard_trains and view.hand_count - cost >= self.hoard:
            # long routes only while trains are plenty: a short claim spends trains for few points
            return self.spare_claim(view, legal, routes, cost, 7 if trains - cost > 12 else 4)
        return None

    def block_claim(self, view, legal, routes, cost):
        """Open tickets: a cheap claim (1-2 trains, spare cards, spare trains) that cuts an
        opponent's visible ticket off or forces a detour of 4+ trains on it."""
        needs = self._read_table(view)[1]
        if not needs or view.own_trains - cost < 8:
            return None
        t = self.t
        wild = t.wild
        spare = self._spare(view, routes)
        planned = set(routes)
        shared, partner = view.shared_doubles, t.route_partner
        # the needed route itself, or the other track of its double when one track closes the other
        cands = {}
        for r in needs:
            if t.route_len[r] <= 2:
                cands[r] = r
                q = partner[r]
                if q >= 0 and not shared[r]:
                    cands.setdefault(q, r)
        best, best_value = None, 0
        for x in sorted((x for x in cands if x not in planned), key=lambda x: (t.route_len[x], x))[:6]:
            pay = None
            for a in legal.claims({x}):
                c, w = a[2], a[3]
                if w <= spare[wild] and (c == wild or t.route_len[x] - w <= spare[c]):
                    if pay is None or w < pay[3]:
                        pay = a
            if pay is None:
                continue
            r = cands[x]
            value = self._blocks.get(r)
            if value is None:
                value = 0
                for q, pts, c0, a, b in needs[r]:
                    costs = self._seat_costs(view, q)
                    costs[r] = INF
                    if partner[r] >= 0 and not shared[r]:
                        costs[partner[r]] = INF
                    c1, _ = self._path(costs, a, b, set())
                    if c1 == INF or c1 - c0 >= 4:
                        value += pts
                self._blocks[r] = value
            if value > best_value:
                best, best_value = pay, value
        return best

    def wanted_colors(self, view, routes) -> dict:
        """Cards still missing per color for the planned routes (gray: the most-held color)."""
        hand = view.hand_list()
        need = {}
        t = self.t
        colors, lens, wild = t.route_color, t.route_len, t.wild
        for r in routes:
            c = colors[r]
            if c == GRAY:
                c = hand.index(max(hand[:wild]))  # the most-held color, the first of a tie
            h, L = hand[c], lens[r]
            if L > h:
                need[c] = need.get(c, 0) + L - h
                hand[c] = 0
            else:
                hand[c] = h - L
        return need

    def draw(self, view, legal, need: dict, target=None):
        """The card to draw for `need` (color -> cards missing): the face-up card of the most
        needed color, else blind. `target`, a color the caller wants first (the expert's next
        route), beats any other face-up color."""
        draws = legal.draw_tuple()  # the turn's draws as listed (not a copy)
        if not need and target is None and draws and draws[-1][0] == BLIND:
            return draws[-1]  # no face-up card scores above 0 below: the blind draw, as there
        wild = self.t.wild
        fu = view.face_up
        best, key = None, None
        wild_score = None
        for a in draws:
            if a[0] == FACE_UP:
                c = fu[a[1]]
                if c == wild:
                    # a face-up wild ends the draw: worth it only for a large need
                    if wild_score is None:
                        wild_score = 2.5 if view.phase != DRAW2 and sum(need.values()) >= 4 else -1
                    score = wild_score
                elif c == target:
                    score = 8
                else:
                    n = need.get(c, 0)
                    score = n and 3 + (n if n < 3 else 3)
                if key is None or score > key:
                    best, key = a, score
        if best is not None and key > 0:
            return best
        if draws and draws[-1][0] == BLIND:  # the blind draw, when there is one, is listed last
            return draws[-1]
        return best or (legal[0] if len(legal) else None)

    def transit_move(self, view, legal):
        """Transit expansion: build a station when it pays — its points, plus half the transit
        value of own unfinished tickets that end there — for few cards, keeping a hand to play."""
        if not view.rules.transit:
            return None
        options = self._stations(legal)
        if not options:
            return None
        t = self.t
        hand = view.hand_count
        ends = {}
        for a, b, pts, transit_pts in view.tickets:
            if not view.connected(a, b):
                for st in (a, b):
                    ends[st] = ends.get(st, 0) + transit_pts
        best, best_value = None, 0.0
        for act in options:
            _, st, kind, _ = act
            cards = len(t.routes_at[st]) + (1 if kind else 0)
            if cards > hand - 3:
                continue
            points = self._station_points(view, act)
            if st not in ends and points < 2 * cards:
                continue  # away from its tickets a station must pay better than a route
            value = (points + ends.get(st, 0) / 2) / cards
            if value > best_value:
                best, best_value = act, value
        return best if best_value >= 1.5 else None
