"""The expert's read of the table at two players: block a connection an opponent visibly needs.

Tickets are hidden, so needs are read from the claims: two separate pieces of one opponent's
network will be joined, by their cheapest connection."""

from __future__ import annotations

import heapq

from mapkit.sim.paths import INF


class BlockMixin:
    """`_block` for ExpertAgent (needs `self.t`, `self.seat`, `self.adj`, `self._pay`)."""

    block_gain = 4                   # block a route whose loss costs an opponent this many trains

    def _block(self, view, legal, spare: int):
        """A short claim that cuts a connection an opponent visibly needs, or None.

        Tickets are hidden, so needs are read from the claims: two separate pieces of one
        opponent's network will be joined, by their cheapest connection. A route on that
        connection whose loss makes the detour at least `block_gain` trains longer (or
        impossible) is worth a turn when the hand pays for it and the trains can be spared.
        Two players only: at a larger table a block costs the blocker as much as its victim and
        helps everyone else."""
        if view.players != 2 or spare < 4:
            return None
        t = self.t
        owner = view.owner
        lens = t.route_len
        payable = {}
        for a in legal.claims():
            if lens[a[1]] <= min(3, spare - 3):
                payable.setdefault(a[1], []).append(a)
        if not payable:
            return None
        best, best_gain = None, self.block_gain - 1
        for o in range(view.players):
            if o == self.seat:
                continue
            pieces = self._pieces(view, o)
            if len(pieces) < 2:
                continue
            costs = self._opponent_costs(view, o)
            for i in range(len(pieces)):
                for j in range(i + 1, len(pieces)):
                    base, path = self._between(costs, pieces[i], pieces[j])
                    if base == INF:
                        continue
                    for r in path:
                        if r not in payable:
                            continue
                        saved = costs[r]
                        costs[r] = INF
                        q = t.route_partner[r]
                        closes = q >= 0 and not view.shared_doubles[r] and owner[q] == -1
                        if closes:
                            saved_q, costs[q] = costs[q], INF
                        alt, _ = self._between(costs, pieces[i], pieces[j])
                        costs[r] = saved
                        if closes:
                            costs[q] = saved_q
                        gain = min(alt - base, 20)
                        if gain > best_gain:
                            best, best_gain = r, gain
        return None if best is None else self._pay(view, payable[best], {})

    def _pieces(self, view, o) -> list:
        """Stations of each piece of seat o's network (two or more stations), largest first."""
        t = self.t
        parent = {}

        def find(x):
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for r, who in enumerate(view.owner):
            if who == o:
                a, b = find(t.route_a[r]), find(t.route_b[r])
                if a != b:
                    parent[a] = b
        groups = {}
        for st in parent:
            groups.setdefault(find(st), set()).add(st)
        return sorted(groups.values(), key=lambda g: (-len(g), min(g)))[:3]

    def _opponent_costs(self, view, o) -> list:
        """Trains each route would cost seat o: 0 its own, inf taken or closed."""
        owner, t, shared, partner = view.owner, self.t, view.shared_doubles, self.t.route_partner
        costs = []
        for r in range(t.n_routes):
            w = owner[r]
            if w == o:
                costs.append(0)
            elif w != -1:
                costs.append(INF)
            else:
                q = partner[r]
                costs.append(INF if q >= 0 and owner[q] != -1 and (owner[q] == o or not shared[r]) else t.route_len[r])
        return costs

    def _between(self, costs, src: set, dst: set):
        """Cheapest connection between two sets of stations: (cost, routes on it)."""
        dist = {a: 0 for a in src}
        via = {}
        heap = [(0, a) for a in sorted(src)]
        adj = self.adj
        pop, push = heapq.heappop, heapq.heappush
        end = None
        while heap:
            d, n = pop(heap)
            if n in dst:
                end = n
                break
            if d > dist[n]:
                continue
            for m, r in adj[n]:
                nd = d + costs[r]
                if nd < dist.get(m, INF):
                    dist[m] = nd
                    via[m] = (n, r)
                    push(heap, (nd, m))
        if end is None:
            return INF, []
        path = []
        n = end
        while n not in src:
            n, r = via[n]
            if costs[r]:
                path.append(r)
        return dist[end], path
