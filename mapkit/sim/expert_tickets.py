"""What a network is worth for the tickets still to come: the `expert`'s synergy term when it
chooses tickets (issue 8: "keeps tickets by expected value"; docs/expert.md, fourth round).

A ticket whose ends lie on or near the network a seat is building is cheap when it is drawn later.
Two keeps of about the same value now differ in what the next ticket draws will offer: a network
that spans the board's hubs makes many of the tickets left in the pool cheap, one in a corner
few. The mixin rates a candidate network by the tickets of the pool this seat has not seen
(neither held nor offered to it): each one's connection cost to the network (the trains from its
ends to the nearest station of one piece of the network), turned into a share of its points that
falls from 1 at no trains to 0 at `synergy_reach` trains. The mean over those tickets is what a
ticket of a future draw is worth to the network; `synergy_weight` times it is added to a keep's
expected value.
"""

from __future__ import annotations

import heapq
import math

from mapkit.sim.paths import INF


class TicketSynergyMixin:
    """Mixed into ExpertAgent: `_synergy` rates a planned network for tickets still to be drawn."""

    synergy_weight = 0.0   # points of keep value per point a future ticket is expected to fit
    synergy_reach = 8.0    # trains to the network at which a future ticket counts nothing

    def _reset_tickets(self) -> None:
        """Forget the game before: the pool, the tickets seen, the connections kept."""
        self._pool_cache = None
        self._seen_tickets = set()
        self._conn_key = self._conn = None

    def _pool(self, view) -> tuple:
        """The game's ticket pool (every deck the rules play), kept for the game."""
        pool = self._pool_cache
        if pool is None:
            t = self.t
            pool = tuple(x for name in view.rules.ticket_decks for x in t.ticket_decks.get(name, ()))
            self._pool_cache = pool
        return pool

    def _unseen(self, view) -> list:
        """Tickets of the pool this seat has not held nor been offered (offers are remembered)."""
        seen = self._seen_tickets
        seen.update(view.tickets)
        seen.update(view.offer)
        return [x for x in self._pool(view) if x not in seen]

    def _synergy(self, view, routes, costs, unseen) -> float:
        """Mean share of a future ticket's points the network (own routes and `routes` planned)
        makes cheap: for each unseen ticket, the cheapest piece of the network joined to both its
        ends, (1 - trains / reach) of its points, at least 0."""
        if not unseen:
            return 0.0
        pieces = self._pieces(costs, routes)
        if not pieces:
            return 0.0
        reach = self.synergy_reach
        dists = [self._dist_from(sources, costs, reach) for sources in pieces]
        total = 0.0
        for a, b, pts, *_ in unseen:
            best = reach
            for d in dists:
                c = d.get(a, reach) + d.get(b, reach)
                if c < best:
                    best = c
            total += pts * (1.0 - best / reach)
        return total / len(unseen)

    def _pieces(self, costs, routes) -> list:
        """The stations of each piece of a network: the routes of cost 0 (own) and `routes`."""
        t = self.t
        ra, rb = t.route_a, t.route_b
        parent = {}

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for r in [r for r in range(t.n_routes) if costs[r] == 0] + list(routes):
            a, b = ra[r], rb[r]
            parent.setdefault(a, a)
            parent.setdefault(b, b)
            x, y = find(a), find(b)
            if x != y:
                parent[x] = y
        pieces = {}
        for x in parent:
            pieces.setdefault(find(x), []).append(x)
        return list(pieces.values())

    def _dist_from(self, sources, costs, reach) -> dict:
        """Trains from the nearest of `sources` to each station within `reach` (Dijkstra)."""
        dist = {s: 0 for s in sources}
        heap = [(0, s) for s in sources]
        adj = self.adj
        while heap:
            d, x = heapq.heappop(heap)
            if d > dist.get(x, INF):
                continue
            for y, r in adj[x]:
                c = costs[r]
                if c == INF:
                    continue
                nd = d + c
                if nd < reach and nd < dist.get(y, INF):
                    dist[y] = nd
                    heapq.heappush(heap, (nd, y))
        return dist

    # ---------------------------------------------------------------- is a ticket draw worth it?

    draw_ev_min = None     # draw tickets after the plan when a draw is worth this many points (None: off)
    draw_ev_alone = True   # ... a ticket far from the network valued by its own connection (else as failed)

    def draw_value(self, view, costs, trains, turns) -> float:
        # costs: the seat's route costs with 0 for its network (None: its own routes, `_costs`)
        """Expected points of a ticket draw now, the plan done: the unseen tickets of the pool
        (`_unseen`) each valued as the keep rates it (points × completion chance − points ×
        failure chance, its connection to the network in trains as the plan), and the draw's
        keep taken as every ticket of positive value among the three offered, or the least bad
        when none is (a keep is forced). Exact over the unseen tickets, drawn without
        replacement (sorted values: ticket j is the best of three all negative with chance
        C(below j, 2) / C(n, 3))."""
        unseen = self._unseen(view)
        n = len(unseen)
        if n < view.rules.draw_tickets:
            return -INF
        conn = self._connections(view, costs, trains, unseen)
        factor = -view.rules.failed_ticket_factor
        values = []
        for (a, b, pts, *_), best in zip(unseen, conn):
            if best > trains:
                values.append(-factor * pts)
                continue
            p = self._completion(best, trains, turns)
            values.append(pts * p - factor * pts * (1 - p))
        values.sort(reverse=True)
        k = min(view.rules.draw_tickets, n)
        total = k / n * sum(v for v in values if v > 0)
        if view.rules.keep_on_draw >= 1:
            # every offered ticket negative: the least bad is kept all the same
            combos = math.comb(n, k)
            for j, v in enumerate(values):
                if v <= 0:
                    total += v * math.comb(n - 1 - j, k - 1) / combos
        return total

    def _connections(self, view, costs, trains, unseen) -> list:
        """Trains to connect each unseen ticket with the network of `costs` (0 = own or built):
        through the nearest piece of it joined to both ends, or on its own when no piece is
        within `trains` of both; INF when neither fits. Kept while no route is claimed and no
        ticket is seen (a turn that draws cards changes neither)."""
        key = (view.claimed, len(unseen), trains)
        if costs is not None:
            key += (sum(1 for c in costs if c == 0),)
        if self._conn_key == key:
            return self._conn
        if costs is None:
            costs = self._costs(view)
        t = self.t
        lens = t.route_len
        tcosts = [c if c == 0 or c == INF else lens[r] for r, c in enumerate(costs)]
        pieces = self._pieces(tcosts, ())
        reach = trains + 1
        dists = [self._dist_from(src, tcosts, reach) for src in pieces]
        out = []
        for a, b, *_ in unseen:
            best = INF
            for d in dists:
                c = d.get(a, INF) + d.get(b, INF)
                if c < best:
                    best = c
            if best > trains and self.draw_ev_alone:
                # no piece within reach of both ends: its own connection, or nothing
                best = self._path(tcosts, a, b, ())[0]
            out.append(best)
        self._conn_key, self._conn = key, out
        return out
