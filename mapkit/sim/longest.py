"""Longest continuous path: the longest trail (no route used twice, stations may repeat).

Exact, and fast on the small networks players build:

- per connected component: with 0 or 2 odd-degree stations an Euler trail uses every route, so
  the answer is the component's total length (the Euler case);
- otherwise a longest trail starts at an odd-degree station (a trail starting at an even-degree
  station leaves an unused route there that could be prepended), so the search starts only there;
- the routes a trail leaves unused make every station even except the trail's two ends: they
  are a T-join for T = the odd stations less (at most) two. So total length minus the cheapest
  such T-join (a minimum-weight matching of the odd stations on shortest-path distances, with two
  free "end" partners) bounds every trail. If removing that T-join leaves the rest connected, an
  Euler trail of the rest reaches the bound: exact without a search (dense networks);
- otherwise a depth-first search over routes, stopping at the bound, with a budget of steps;
  when the budget runs out first the result says so (`exact=False`) and carries the bound.

A short search comes first (it settles the networks players build, faster than the matching).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

DEFAULT_BUDGET = 200_000
QUICK_BUDGET = 3_000  # search steps tried before computing the T-join bounds


@dataclass(frozen=True)
class LongestPath:
    length: int
    bound: int
    exact: bool


def longest_trail(edges: list[tuple[int, int, int]], budget: int = DEFAULT_BUDGET) -> LongestPath:
    """Longest trail in a multigraph given as (u, v, length) edges."""
    if not edges:
        return LongestPath(0, 0, True)
    adj: dict[int, list[tuple[int, int, int]]] = {}
    for i, (u, v, w) in enumerate(edges):
        adj.setdefault(u, []).append((i, v, w))
        adj.setdefault(v, []).append((i, u, w))
    best, best_bound, exact = 0, 0, True
    seen: set[int] = set()
    for start in adj:
        if start in seen:
            continue
        # the component of start, and in the same pass its odd stations, its edges' lengths (each
        # edge is met from both ends: twice) and their count (one pass, not four)
        comp, stack = {start}, [start]
        odd = 0
        twice = []
        while stack:
            n = stack.pop()
            links = adj[n]
            if len(links) % 2:
                odd += 1
            for _, m, w in links:
                twice.append(w)
                if m not in comp:
                    comp.add(m)
                    stack.append(m)
        seen |= comp
        total = sum(twice) // 2
        if odd <= 2:
            best, best_bound = max(best, total), max(best_bound, total)
            continue
        twice.sort()  # each length twice, so every other one is the lengths sorted once
        bound = total - sum(twice[: (odd - 2) // 2 * 2: 2])
        if bound <= best:
            best_bound = max(best_bound, bound)
            continue
        if len(twice) // 2 == len(comp) - 1:
            # a tree (most networks players build): its longest trail is its longest path, the
            # weighted diameter, found in two passes; the search below finds the same length
            best = max(best, _tree_diameter(adj, start))
            best_bound = max(best_bound, bound)
            continue
        comp_edges = sorted({i for n in comp for i, _, _ in adj[n]})
        odd = [n for n in comp if len(adj[n]) % 2]
        # a quick search settles the networks players build; dense ones get the T-join bounds
        found, done = _search(adj, sorted(odd), bound, QUICK_BUDGET, len(edges))
        best = max(best, found)
        if not done:
            upper, lower = _tjoin_bounds(edges, comp_edges, odd, total)
            bound = min(bound, upper)
            best = max(best, lower)
            if best < bound:
                found, done = _search(adj, sorted(odd), bound, budget, len(edges))
                best = max(best, found)
                exact = exact and done
        best_bound = max(best_bound, bound)
    return LongestPath(best, max(best_bound, best), exact or best == best_bound)


def _farthest(adj, start) -> tuple[int, int]:
    """(station, distance) farthest from `start` in a tree (lengths are not negative)."""
    far, far_d = start, 0
    stack = [(start, -1, 0)]
    while stack:
        n, came, d = stack.pop()
        if d > far_d:
            far, far_d = n, d
        for i, m, w in adj[n]:
            if i != came:
                stack.append((m, i, d + w))
    return far, far_d


def _tree_diameter(adj, start) -> int:
    """The longest path of the tree holding `start`: the farthest station from the station
    farthest from any one (the classic two-pass argument, for lengths that are not negative)."""
    return _farthest(adj, _farthest(adj, start)[0])[1]


def _search(adj, starts, bound, budget, n_edges=None) -> tuple[int, bool]:
    """DFS from each start; returns (best length, finished within budget or reached the bound).
    `n_edges`: how many edges the network has (edges are numbered from 0), when the caller knows."""
    best = 0
    steps = 0
    if n_edges is None:
        n_edges = 1 + max(i for links in adj.values() for i, _, _ in links)
    used = [False] * n_edges  # by edge: on the trail

    def dfs(node: int, length: int) -> bool:
        nonlocal best, steps
        steps += 1
        if length > best:
            best = length
            if best >= bound:
                return True
        if steps > budget:
            return True
        for i, m, w in adj[node]:
            if not used[i]:
                used[i] = True
                stop = dfs(m, length + w)
                used[i] = False
                if stop:
                    return True
        return False

    for s in starts:
        if dfs(s, 0):
            return best, best >= bound
    return best, True


def _tjoin_bounds(edges, comp_edges, odd, total) -> tuple[int, int]:
    """(upper, lower) bounds from the cheapest T-join of the odd stations with two free ends."""
    g = nx.Graph()
    for i in comp_edges:
        u, v, w = edges[i]
        if not g.has_edge(u, v) or w < g[u][v]["w"]:
            g.add_edge(u, v, w=w, i=i)
    dist, paths = {}, {}
    for s in odd:
        dist[s], paths[s] = nx.single_source_dijkstra(g, s, weight="w")
    k = nx.Graph()
    ends = ("end-1", "end-2")
    for x in range(len(odd)):
        for y in range(x + 1, len(odd)):
            # max weight matching of (big - distance) = min weight perfect matching
            k.add_edge(odd[x], odd[y], w=dist[odd[x]][odd[y]])
        for e in ends:
            k.add_edge(odd[x], e, w=0)
    k.add_edge(*ends, w=0)
    matching = nx.min_weight_matching(k, weight="w")
    removed: set[int] = set()
    cost = 0
    for a, b in matching:
        if a in ends or b in ends:
            continue
        cost += dist[a][b]
        path = paths[a][b]
        for u, v in zip(path, path[1:]):
            removed ^= {g[u][v]["i"]}
    upper = total - cost
    rest = [edges[i] for i in comp_edges if i not in removed]
    lower = 0
    if rest:
        h = nx.MultiGraph()
        h.add_weighted_edges_from(rest)
        parts = list(nx.connected_components(h))
        if len(parts) == 1 and sum(d % 2 for _, d in h.degree()) <= 2:
            lower = sum(w for _, _, w in rest)
    return upper, lower


def grid_network(n: int) -> list[tuple[int, int, int]]:
    """An n × n grid of one-space routes: the dense network of the bench and the tests."""
    edges = []
    for x in range(n):
        for y in range(n):
            if x < n - 1:
                edges.append((x * n + y, (x + 1) * n + y, 1))
            if y < n - 1:
                edges.append((x * n + y, x * n + y + 1, 1))
    return edges
