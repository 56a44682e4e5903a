"""Cheapest connections for the planners: Dijkstra on a board's routes, and the searches of the
untouched board (nothing claimed yet) remembered on the board tables.

At the start of a game every seat of every game searches the same board: those searches are
answered from the tables. (A memory of each seat's later searches, exact by keeping the routes a
search read and checking none changed since, answered a quarter of them but cost about as much as
it saved: measured, and left out; so did a third form, by the stations a search expanded. `cheapest_path_traced` gives those stations for the one place a reuse pays: choosing
tickets, where the changes since a search are known exactly.)
"""

from __future__ import annotations

import heapq

INF = float("inf")
BIG = 1 << 60  # "not reached" in the int search: above any path's cost
UNTOUCHED_MAX = 20_000  # searches of the untouched board kept on the tables (then it starts over)


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


def route_ends(t) -> tuple:
    """For each route, its two stations XORed: one end XOR this is the other (how the int
    search reads its path back). Kept on the tables like the adjacency."""
    ends = t.__dict__.get("_route_ends")
    if ends is None:
        ends = tuple(t.route_a[r] ^ t.route_b[r] for r in range(t.n_routes))
        object.__setattr__(t, "_route_ends", ends)
    return ends


def cheapest_path(adj, costs: list, a: int, b: int, free, whole: bool = False, ends=None) -> tuple[float, list[int]]:
    """Dijkstra from a to b: (cost, the routes on the path that still cost something), with the
    routes in `free` costing nothing. INF and no routes when b cannot be reached. `whole`: every
    cost is a whole number or INF (a planner's own costs), which allows the faster search; there
    BIG may stand for INF (the same search, on ints only).

    The planners' hottest code, so it works on lists indexed by station (not dicts) and on one
    cost list with the free routes zeroed (not a set lookup per edge); the search, its ties and
    its result are those of the dict version it replaced. The faster search needs the board's
    `route_ends` too (without them `whole` is ignored: the same result, more slowly)."""
    work = costs
    if free:
        work = list(costs)
        for r in free:
            work[r] = 0
    if a == b:
        return 0, []
    if whole and ends is not None:
        return _search_whole(adj, work, a, b, ends)
    return _search(adj, work, a, b)


# Both searches are Dijkstra that stops once nothing left to expand is nearer than the best way to
# b found so far, and never queues a station reached at that cost or more: b's cost and the path to
# it are then final (a later station could only tie with b, and ties never replace a path), so the
# result is the plain search's, with fewer steps. The queue pops the least (cost, station): as
# tuples, or for whole-number costs as one int, cost << bits | station (the same order, cheaper
# to compare). Two copies of one loop, because this is the simulator's hottest code.

def _search(adj, work: list, a: int, b: int) -> tuple[float, list[int]]:
    n = len(adj)
    dist = [INF] * n
    dist[a] = 0
    via = [-1] * n  # the route each station was reached by
    prev = [-1] * n
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
    return _route(work, a, b, best, via, prev)


def _search_whole(adj, work: list, a: int, b: int, ends) -> tuple[float, list[int]]:
    # int distances (BIG for "not reached", never float INF: an int compared with a float is
    # slower), and no prev list: the station a route was reached from is its other end
    n = len(adj)
    bits = n.bit_length()
    low = (1 << bits) - 1
    dist = [BIG] * n
    dist[a] = 0
    via = [-1] * n
    heap = [a]  # cost 0 << bits | a
    pop, push = heapq.heappop, heapq.heappush
    best = BIG
    while heap:
        k = pop(heap)
        d = k >> bits
        if d >= best:
            break
        x = k & low
        if d > dist[x]:
            continue
        for m, r in adj[x]:
            nd = d + work[r]  # INF or BIG for a closed route: never below dist[m], never queued
            if nd < dist[m] and nd < best:
                dist[m] = nd
                via[m] = r
                if m == b:
                    best = nd
                else:
                    push(heap, nd << bits | m)
    if best == BIG:
        return INF, []
    routes = []
    x = b
    while x != a:
        r = via[x]
        if work[r]:  # costs[r] and not free
            routes.append(r)
        x = ends[r] ^ x
    return best, routes


def cheapest_path_traced(adj, costs: list, a: int, b: int, free, ends) -> tuple[float, list[int], int]:
    """`cheapest_path(..., whole=True, ends=ends)` and a bit mask of the stations it expanded.

    The search reads a route's cost only when it expands one of the route's two stations (and
    reads the path's routes back, all of them at expanded stations): a later search on costs
    that differ only at routes with neither end in the mask runs step for step the same and
    gives the same result (`PlannerAgent.choose_keep` uses this after free routes were added)."""
    work = costs
    if free:
        work = list(costs)
        for r in free:
            work[r] = 0
    if a == b:
        return 0, [], 0
    n = len(adj)
    bits = n.bit_length()
    low = (1 << bits) - 1
    dist = [BIG] * n
    dist[a] = 0
    via = [-1] * n
    heap = [a]
    pop, push = heapq.heappop, heapq.heappush
    best = BIG
    seen = 0
    while heap:
        k = pop(heap)
        d = k >> bits
        if d >= best:
            break
        x = k & low
        if d > dist[x]:
            continue
        seen |= 1 << x
        for m, r in adj[x]:
            nd = d + work[r]
            if nd < dist[m] and nd < best:
                dist[m] = nd
                via[m] = r
                if m == b:
                    best = nd
                else:
                    push(heap, nd << bits | m)
    if best == BIG:
        return INF, [], seen
    routes = []
    x = b
    while x != a:
        r = via[x]
        if work[r]:
            routes.append(r)
        x = ends[r] ^ x
    return best, routes, seen


def _route(work, a, b, best, via, prev) -> tuple[float, list[int]]:
    """The routes of the path found to b that still cost something, from b back to a."""
    if best == INF:
        return INF, []
    routes = []
    x = b
    while x != a:
        r = via[x]
        if work[r]:  # costs[r] and not free
            routes.append(r)
        x = prev[x]
    return best, routes


def untouched_path(t, adj, a: int, b: int, free) -> tuple[float, list[int]]:
    """`cheapest_path` on the untouched board (no route claimed: every route costs its length),
    remembered on the tables: every seat of every game searches the same board at the start."""
    memo = t.__dict__.get("_untouched_paths")
    if memo is None or len(memo) >= UNTOUCHED_MAX:
        memo = {}
        object.__setattr__(t, "_untouched_paths", memo)  # a cache on the frozen tables, like the adjacency
    fmask = 0
    for r in free:
        fmask |= 1 << r
    got = memo.get((a, b, fmask))
    if got is None:
        c, routes = cheapest_path(adj, list(t.route_len), a, b, free, whole=True, ends=route_ends(t))
        got = memo[(a, b, fmask)] = (c, tuple(routes))
    return got[0], list(got[1])
