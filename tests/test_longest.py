import random
import time

import pytest

from mapkit.sim.longest import LongestPath, _search, grid_network, longest_trail


def brute(edges):
    """Longest trail by trying every ordered sequence of distinct edges (tiny graphs only)."""
    best = 0

    def extend(node, used, length):
        nonlocal best
        best = max(best, length)
        for i, (u, v, w) in enumerate(edges):
            if i in used:
                continue
            if u == node:
                extend(v, used | {i}, length + w)
            elif v == node:
                extend(u, used | {i}, length + w)

    nodes = {x for e in edges for x in e[:2]}
    for s in nodes:
        extend(s, frozenset(), 0)
    return best


def test_empty_and_single():
    assert longest_trail([]).length == 0
    assert longest_trail([(0, 1, 4)]).length == 4


def test_loop_is_used_whole():
    # a triangle: an Euler circuit, every route once
    assert longest_trail([(0, 1, 2), (1, 2, 3), (2, 0, 4)]).length == 9


def test_figure_eight_revisits_a_station():
    # two triangles sharing station 0: the trail passes through 0 twice
    edges = [(0, 1, 1), (1, 2, 1), (2, 0, 1), (0, 3, 1), (3, 4, 1), (4, 0, 1)]
    assert longest_trail(edges).length == 6


def test_star_takes_the_two_longest_arms():
    edges = [(0, 1, 5), (0, 2, 4), (0, 3, 3), (0, 4, 1)]
    r = longest_trail(edges)
    assert r.length == 9 and r.exact


def test_double_route_between_same_stations_counts_both():
    # a player cannot own both tracks of a double, but parallel routes through other stations
    # make multigraph-like structures; the trail may use each edge once
    edges = [(0, 1, 2), (1, 0, 2), (1, 2, 3)]
    assert longest_trail(edges).length == 7


def test_separate_components_take_the_best():
    edges = [(0, 1, 2), (2, 3, 6), (3, 4, 1)]
    assert longest_trail(edges).length == 7


@pytest.mark.parametrize("seed", range(60))
def test_matches_brute_force_on_random_graphs(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    edges = [(rng.randrange(n), rng.randrange(n), rng.randint(1, 6)) for _ in range(rng.randint(1, 7))]
    edges = [(u, v, w) for u, v, w in edges if u != v] or [(0, 1, 1)]
    r = longest_trail(edges)
    assert r.exact
    assert r.length == brute(edges)
    assert r.length <= r.bound


def test_dense_network_is_bounded_in_time():
    # a 7 x 7 grid of one-space routes (84 routes, many odd stations): must not take minutes
    edges = grid_network(7)
    assert len(edges) == 84
    t = time.perf_counter()
    r = longest_trail(edges, budget=50_000)
    assert time.perf_counter() - t < 5
    # 20 odd border stations: the cheapest T-join with two free ends costs 10, the rest is connected
    assert r == LongestPath(74, 74, True)


@pytest.mark.parametrize("seed", range(25))
def test_tjoin_shortcut_agrees_with_exhaustive_search(seed):
    rng = random.Random(seed)
    n = rng.randint(7, 9)
    edges = []
    while len(edges) < 15:
        u, v = rng.sample(range(n), 2)
        edges.append((u, v, rng.randint(1, 4)))
    adj = {}
    for i, (u, v, w) in enumerate(edges):
        adj.setdefault(u, []).append((i, v, w))
        adj.setdefault(v, []).append((i, u, w))
    total = sum(w for _, _, w in edges)
    exhaustive, done = _search(adj, sorted(adj), total + 1, 10**7)
    assert done
    assert longest_trail(edges).length == exhaustive
