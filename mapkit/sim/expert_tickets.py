"""The expert's ticket lookahead: is a ticket draw worth its turn, given the network it has?

A draw shows `draw_tickets` tickets from the deck and at least `keep_on_draw` must be kept. Which
ones come is hidden, but the pool is known: the decks in play minus the tickets this seat holds
(and, with open tickets, those it sees others hold). For each ticket it could be shown, a fast
simulated plan says what it would add: the trains of its cheapest connection once the current
plan is built (own and planned routes free), and from that its completion chance with the trains
and turns left (the expert's completion curve). A ticket the network already serves is near
certain points, which is how a big network makes late tickets cheap (chained tickets, reuse of
built track). The draw's expected value is that of keeping the tickets worth keeping, or the least
bad one when none is: exact for a uniformly random hand of k tickets, since each ticket is
valued against the plan on its own. No game rollouts: the speed budget leaves room for one
shortest-path search per pool ticket, recomputed only when the seat's own network or tickets
change.
"""

from __future__ import annotations

from math import comb

from mapkit.sim.agents import INF, cheapest_path


class TicketLookahead:
    """Mixin for ExpertAgent (needs `self.t`, `self.seat`, `self.adj`, `_completion`,
    `_opponent_costs`)."""

    draw_margin = 3.0   # points a draw must be expected to add: the turn it costs

    def _unknown_tickets(self, view) -> list:
        """Tickets the deck may hold, as far as this seat can tell (the pool as a multiset, minus
        the tickets it holds or sees held)."""
        pool = getattr(self, "_pool", None)
        if pool is None:
            pool = self._pool = [k for name in view.rules.ticket_decks for k in self.t.ticket_decks.get(name, ())]
        out = list(pool)
        seen = list(view.tickets)
        if view.rules.open_tickets or view.rules.team_open_hands:
            for q in range(view.players):
                if q != self.seat:
                    seen.extend(view.tickets_of(q))
        for k in seen:
            try:
                out.remove(k)
            except ValueError:
                pass
        return out

    def _ticket_extras(self, view, routes) -> list:
        """For each unknown ticket, (its points, the trains it adds to the plan: 0 when the
        network serves it once the plan is built, INF when it cannot be connected). Cached until
        this seat claims, takes tickets or its plan changes: others' claims between its turns
        seldom touch the cheapest connections of its own network."""
        owner = view.owner
        key = (owner.count(self.seat), view.ticket_count, tuple(routes))
        hit = getattr(self, "_extras", None)
        if hit is not None and hit[0] == key:
            return hit[1]
        costs = self._opponent_costs(view, self.seat)
        for r in routes:
            costs[r] = 0
        lens, adj = self.t.route_len, self.adj
        out = []
        for a, b, pts, *_ in self._unknown_tickets(view):
            if view.connected(a, b):
                out.append((pts, 0))
                continue
            c, rs = cheapest_path(adj, costs, a, b, ())
            out.append((pts, INF if c == INF else sum(lens[r] for r in rs)))
        self._extras = (key, out)
        return out

    def draw_value(self, view, routes, need: float, trains: int, turns: float) -> float:
        """Expected points a ticket draw adds now: each ticket it may show is worth its points
        times (2p − 1) with p the completion chance of the plan with it, less what its trains take
        from the chance of the tickets held; the seat keeps those worth keeping, or must keep the
        least bad one."""
        rules = view.rules
        k = min(rules.draw_tickets, view.tickets_left)
        if k <= 0:
            return -INF
        factor = -rules.failed_ticket_factor
        turns -= 1  # the draw takes this turn
        held = sum(x[2] for x in view.tickets if not view.connected(x[0], x[1]))
        p0 = self._completion(need, trains, turns)
        memo = {}
        values = []
        for pts, extra in self._ticket_extras(view, routes):
            if extra == 0 and need == 0:
                values.append(pts)  # served by the network already built
                continue
            if extra == INF:
                values.append(-factor * pts)
                continue
            p = memo.get(extra)
            if p is None:
                p = memo[extra] = self._completion(need + extra, trains, turns)
            values.append(pts * p - factor * pts * (1 - p) - (1 + factor) * held * (p0 - p))
        n = len(values)
        if n == 0:
            return -INF
        k = min(k, n)
        # E[sum of the positive values shown] + E[the best value shown | none is positive]
        pos = sum(v for v in values if v > 0)
        neg = sorted((v for v in values if v <= 0), reverse=True)
        total = comb(n, k)
        ev = k * pos / n
        m = len(neg)
        for j, v in enumerate(neg):
            # the j-th best negative is the best shown when it is shown with k-1 worse negatives
            ways = comb(m - j - 1, k - 1)
            if not ways:
                break
            ev += v * ways / total
        return ev

    def wants_draw(self, view, legal, routes, need, trains, turns) -> bool:
        """Draw tickets now: their expected value beats the turn they cost."""
        if view.final_round or view.rules.ticket_market or not legal.tickets():
            return False
        return self.draw_value(view, routes, need, trains, turns) > self.draw_margin
