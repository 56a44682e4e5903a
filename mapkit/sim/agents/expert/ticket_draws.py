"""Is a ticket draw worth its turn? The `expert`'s answer once its plan is done, from three players
(docs/design/expert.md).

A ticket draw is the one turn that can score without spending trains, and whether it pays depends
on what the draw can offer: tickets whose ends lie on or near the network the seat has built are
cheap, the others cost trains it may not have. The mixin values a draw exactly over the tickets
of the pool this seat has not seen (neither held nor offered to it: the others' tickets are
hidden, so each unseen ticket is as likely to come as any other): each one's connection to the
network in trains (through the nearest piece of it joined to both ends), valued as the keep
values it (points × completion chance − points × failure chance, the completion curve of
`ExpertAgent._completion`), and the draw's keep as every offered ticket of positive value, or
the least bad one when none is (a keep is forced). The seat draws while that is worth at least
`draw_ev_min` points (negative: the curve is fitted to whole plans and is pessimistic for a
single short connection; kept tickets drawn this way complete 60 % of the time at 12-17 trains
left, 79 % at 18-23, 91 % at 24-29) and it has `draw_ev_trains` trains.

Measured against drawing once the plan is done while 12 trains and 8 turns remain by its clock,
whatever the pool holds (4-player self-play, north-america): +1.1 / +0.8 winner points and
+0.41 / +0.49 tickets held by the winner (seed 23, 200 games / seed 29, 400 games).
"""

from __future__ import annotations

import heapq
import math

from mapkit.sim.paths import INF, cheapest_path, route_ends


class TicketDrawMixin:
    """Mixed into ExpertAgent: `draw_value`, the expected points of a ticket draw now."""

    draw_ev_min = -3.0     # draw tickets after the plan while a draw is worth this many points
                           # (None: by more_tickets_trains and _turns at any player count)
    draw_ev_trains = 6     # ... and only with this many trains (measured: 12 gave 0.2 tickets less)

    def _reset_tickets(self) -> None:
        """Forget the game before: the pool, the tickets seen, the connections kept."""
        self._pool_cache = None
        self._seen_tickets = set()
        self._conn_key = self._conn = None
        self._contest_memo = None  # ticket_keeps.py's contest of the turn

    def _pool(self, view) -> tuple:
        """The game's ticket pool (every deck the rules play), kept for the game."""
        pool = self._pool_cache
        if pool is None:
            t = self.t
            pool = tuple(x for name in view.rules.ticket_decks for x in t.ticket_decks.get(name, ()))
            self._pool_cache = pool
        return pool

    def _unseen(self, view) -> list:
        """Tickets of the pool this seat has not held nor been offered. A returned ticket goes to
        the bottom of the deck, so it is not counted as one that may come."""
        seen = self._seen_tickets
        seen.update(view.tickets)
        seen.update(view.offer)
        return [x for x in self._pool(view) if x not in seen]

    def draw_value(self, view, trains, turns, planned=None) -> float:
        """Expected points of a ticket draw now (see the module docstring). Exact over the unseen
        tickets, drawn without replacement: with their values sorted, ticket j is the best of k
        offered all negative with chance C(n - 1 - j, k - 1) / C(n, k). With `planned` (routes),
        those count as the seat's own already (ticket_draws.py: the network its plan will build)."""
        unseen = self._unseen(view)
        n = len(unseen)
        k = view.rules.draw_tickets
        if n < max(1, k):
            return -INF
        conn = self._connections(view, trains, unseen, planned)
        factor = -view.rules.failed_ticket_factor  # 1 standard, 0 family
        values = []
        for (_, _, pts, *_), c in zip(unseen, conn):
            if c > trains:
                values.append(-factor * pts)  # more trains than the seat has: it would fail
                continue
            p = self._completion(c, trains, turns)
            values.append(pts * p - factor * pts * (1 - p))
        values.sort(reverse=True)
        total = k / n * sum(v for v in values if v > 0)
        if view.rules.keep_on_draw >= 1:
            # every offered ticket negative: the least bad is kept all the same
            combos = math.comb(n, k)
            for j, v in enumerate(values):
                if v <= 0:
                    total += v * math.comb(n - 1 - j, k - 1) / combos
        return total

    def _connections(self, view, trains, unseen, planned=None) -> list:
        """Trains to connect each unseen ticket to this seat's network: both ends to the nearest
        piece of it joined to both, or the ticket's own connection when no piece is within
        `trains` of both (INF when it cannot be connected). Kept while no route is claimed and no
        ticket seen: a turn that draws cards changes neither. `planned`: routes counted as own
        (not kept)."""
        key = (view.claimed, len(unseen), trains)
        if self._conn_key == key and planned is None:
            return self._conn
        lens = self.t.route_len
        costs = [c if c == 0 or c == INF else lens[r] for r, c in enumerate(self._costs(view))]
        if planned is not None:
            for r in planned:
                costs[r] = 0
        reach = trains + 1
        dists = [self._dist_from(piece, costs, reach) for piece in self._network_pieces(costs)]
        out = []
        for a, b, *_ in unseen:
            best = INF
            for d in dists:
                c = d[a] + d[b]
                if c < best:
                    best = c
            if best > trains:
                # no piece of the network within reach of both ends (or no network yet): the
                # ticket's own cheapest connection
                # whole-number costs (lengths, 0, INF): the int search, the same cost
                best = cheapest_path(self.adj, costs, a, b, (), whole=True, ends=route_ends(self.t))[0]
            out.append(best)
        if planned is None:
            self._conn_key, self._conn = key, out
        return out

    def _network_pieces(self, costs) -> list:
        """The stations of each piece of the seat's network (its routes: cost 0)."""
        t = self.t
        ra, rb = t.route_a, t.route_b
        parent = {}

        def find(x):
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for r in range(t.n_routes):
            if costs[r] == 0:
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

    def _dist_from(self, sources, costs, reach) -> list:
        """Trains from the nearest of `sources` to each station closer than `reach` (Dijkstra), INF
        for the others: a list by station (a dict's `get` on every route read was the slower
        part; the distances, and so every answer, are the same)."""
        # the costs are whole (lengths, 0, INF): the queue holds cost << bits | station ints
        adj = self.adj
        bits = len(adj).bit_length()
        low = (1 << bits) - 1
        dist = [INF] * len(adj)
        for s in sources:
            dist[s] = 0
        heap = list(sources)
        heapq.heapify(heap)
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            k = pop(heap)
            d, x = k >> bits, k & low
            if d > dist[x]:
                continue
            for y, r in adj[x]:
                nd = d + costs[r]  # INF for a closed route: never below reach, never queued
                if nd < reach and nd < dist[y]:
                    dist[y] = nd
                    push(heap, nd << bits | y)
        return dist
