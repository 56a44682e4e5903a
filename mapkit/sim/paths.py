"""Cheapest connections for the planners: Dijkstra on a board's routes, and a memory of the searches
a seat made that answers a repeated one without searching again, exactly.

Why a memory is exact: Dijkstra's run from a to b (its pops, its ties, the path it returns) depends
only on the costs of the routes at the stations it expanded before it reached b. A stored search
is therefore the search of now as long as none of those routes changed cost since. A seat's route
costs change only when a route is claimed (that route and its double's other track) and when the
set of routes it counts as free changes, so each stored search keeps, as bit masks over routes, the
routes it read, the claimed routes and the free routes of its time; it answers when no route
claimed since and no route that became free or stopped being free touches what it read.

Planning repeats itself a lot: a seat's plan is searched again after a claim far away from it, a
ticket kept is searched once to choose it and once more in the new plan, and at the start of a game
(nothing claimed) every seat of every game searches the same untouched board, which a memory kept
on the board tables answers for all of them.
"""

from __future__ import annotations

import heapq

INF = float("inf")
SLOTS = 4               # stored searches per pair of stations (most recently used first)
PRISTINE_MAX = 20_000   # searches of the untouched board kept on the tables (then it starts over)


def adjacency(t) -> tuple:
    """Per-board adjacency for planning: for each station, (neighbor, route) pairs.

    Kept on the tables object itself, so it lives and dies with it: a class-level dict keyed by
    id kept one tables object alive for every chunk of games a worker unpickled."""
    adj = t.__dict__.get("_planner_adjacency")
    if adj is None:
        lists = [[] for _ in range(t.n_stations)]
        for r in range(t.n_routes):
            a, b = t.route_a[r], t.route_b[r]
            lists[a].append((b, r))
            lists[b].append((a, r))
        adj = tuple(tuple(x) for x in lists)
        object.__setattr__(t, "_planner_adjacency", adj)  # Tables is frozen; this is a cache, not a field
    return adj


def cheapest_path(adj, costs: list, a: int, b: int, free) -> tuple[float, list[int]]:
    """Dijkstra from a to b: (cost, the routes on the path that still cost something), with the
    routes in `free` costing nothing. INF and no routes when b cannot be reached.

    The planners' hottest code, so it works on lists indexed by station (not dicts) and on one
    cost list with the free routes zeroed (not a set lookup per edge); the search, its ties and
    its result are those of the dict version it replaced."""
    work = costs
    if free:
        work = list(costs)
        for r in free:
            work[r] = 0
    c, routes, _ = _search(adj, work, a, b)
    return c, routes


def _search(adj, work: list, a: int, b: int) -> tuple:
    """The search of `cheapest_path` on costs `work` (free routes already zeroed): (cost, routes to
    claim, the cost of reaching each station as the search left it).

    Dijkstra that stops once nothing left to expand is nearer than the best way to b found so
    far, and never queues a station reached at that cost or more: b's cost and the path to it
    are then final (a later station could only tie with b, and ties never replace a path), so
    the result is the plain search's, with fewer steps. The stations it expanded are those it
    left at a cost below b's (b unreachable: every station reached), and perhaps some at b's."""
    n = len(adj)
    dist = [INF] * n
    dist[a] = 0
    if a == b:
        return 0, [], dist
    prev = [-1] * n
    via = [-1] * n
    heap = [(0, a)]
    pop, push = heapq.heappop, heapq.heappush
    best = INF  # the cost of the best way to b found so far
    while heap:
        d, x = pop(heap)
        if d >= best:
            break
        if d > dist[x]:
            continue
        for m, r in adj[x]:
            nd = d + work[r]
            if nd < dist[m] and nd < best:
                dist[m] = nd
                prev[m] = x
                via[m] = r
                if m == b:
                    best = nd  # b itself is never expanded
                else:
                    push(heap, (nd, m))
    if best == INF:
        return INF, [], dist
    routes = []
    x = b
    while x != a:
        r = via[x]
        if work[r]:  # costs[r] and not free
            routes.append(r)
        x = prev[x]
    return best, routes, dist


class SeatPaths:
    """One seat's cheapest-path searches in one game, on its own route costs (see the module
    docstring). `path` answers what `cheapest_path(adj, costs, a, b, free)` would, given the mask
    of the routes claimed so far (by anyone), which the costs must be those of."""

    __slots__ = ("adj", "reads", "touch", "stored", "pristine", "hits", "searches")

    def __init__(self, t, adj):
        self.adj = adj
        memo = t.__dict__.get("_planner_paths")
        if memo is None:
            reads, touch = [], []
            partner = t.route_partner
            for rs in t.routes_at:
                m = 0
                for r in rs:
                    m |= 1 << r
                reads.append(m)
                for r in rs:
                    if partner[r] >= 0:
                        m |= 1 << partner[r]
                touch.append(m)
            memo = (tuple(reads), tuple(touch), {})
            object.__setattr__(t, "_planner_paths", memo)  # a cache on the frozen tables, like the adjacency
        self.reads, self.touch, self.pristine = memo
        self.stored = {}
        self.hits = self.searches = 0

    def path(self, costs: list, a: int, b: int, free, claimed: int) -> tuple[float, list[int]]:
        fmask = 0
        work = costs
        if free:
            work = list(costs)
            for r in free:
                work[r] = 0
                fmask |= 1 << r
        if not claimed:
            # the untouched board: the costs are the route lengths, the same for every seat and game
            got = self.pristine.get((a, b, fmask))
            if got is None:
                if len(self.pristine) >= PRISTINE_MAX:
                    self.pristine.clear()
                c, routes, _ = _search(self.adj, work, a, b)
                got = self.pristine[(a, b, fmask)] = (c, tuple(routes))
                self.searches += 1
            else:
                self.hits += 1
            return got[0], list(got[1])
        slots = self.stored.get((a, b))
        if slots:
            for i, (then, then_free, read, touched, c, routes) in enumerate(slots):
                # a route claimed since changes its own cost and its double's: `touched` is `read`
                # with the doubles' other tracks; a free route changed only if it was read
                if not (claimed & ~then & touched) and not ((fmask ^ then_free) & read):
                    if i:
                        slots.insert(0, slots.pop(i))
                    self.hits += 1
                    return c, list(routes)
        else:
            slots = self.stored[(a, b)] = []
        c, routes, dist = _search(self.adj, work, a, b)
        # what the search read: the routes at every station it may have expanded (see _search)
        read = touched = 0
        reads, touch = self.reads, self.touch
        for x, d in enumerate(dist):
            if d <= c and d != INF:
                read |= reads[x]
                touched |= touch[x]
        slots.insert(0, (claimed, fmask, read, touched, c, tuple(routes)))
        del slots[SLOTS:]
        self.searches += 1
        return c, routes
