"""Bends: the routes that cannot be drawn straight, and where their waypoint goes.

A route needs a bend when its stations are held closer than its spaces need: by the other routes
between them (its length is more than the longest drawing of another path between its ends, a
triangle that cannot close; "longest" is at the widest gaps the layout allows, network.Bundle.lsoft), by both ends being pinned, by a second route between the same two
stations (it must leave the first one's line), or, after an optimization, when the real check
still finds it too short.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from mapkit.layout.network import Network


def needs_bend(net: Network) -> list[int]:
    g = nx.Graph()
    g.add_nodes_from(range(net.n))
    for k, b in enumerate(net.bundles):
        if b.flight:
            continue
        if g.has_edge(b.a, b.b):
            g[b.a][b.b]["lmax"] = max(g[b.a][b.b]["lmax"], b.lsoft)
        else:
            g.add_edge(b.a, b.b, lmax=b.lsoft)
    out, seen_pairs = [], set()
    for k, b in enumerate(net.bundles):
        pair = frozenset((b.a, b.b))
        if pair in seen_pairs:
            out.append(k)  # a second route between the same stations
            continue
        seen_pairs.add(pair)
        if b.flight or b.fixed_waypoints:
            continue
        if net.fixed[b.a] and net.fixed[b.b]:
            if float(np.hypot(*(net.given[b.a] - net.given[b.b]))) < b.lmin:
                out.append(k)
            continue
        data = g[b.a][b.b]
        saved = data["lmax"]
        g.remove_edge(b.a, b.b)
        try:
            d = nx.dijkstra_path_length(g, b.a, b.b, weight="lmax")
        except nx.NetworkXNoPath:
            d = math.inf
        g.add_edge(b.a, b.b, lmax=saved)
        if d < b.lmin:
            out.append(k)
    return out


def bend_point(pos: np.ndarray, a: int, b: int, length: float, n_stations: int, away=None) -> np.ndarray:
    """A waypoint off the middle of a-b making the polyline about `length` long, on the side with
    more room (farther from the nearest other station), or on the side away from the point `away`
    (a neighbour's far end, when the bend is to leave a shared station at a wider angle)."""
    pa, pb = pos[a], pos[b]
    c = float(np.hypot(*(pb - pa)))
    mid = (pa + pb) / 2
    if c < 1e-6:
        u = np.array([1.0, 0.0])
    else:
        u = (pb - pa) / c
    nrm = np.array([-u[1], u[0]])
    h = math.sqrt(max((length / 2) ** 2 - (c / 2) ** 2, 25.0))
    best, best_room = None, -1.0
    others = np.delete(pos[:n_stations], [a, b], axis=0)
    for sign in (1, -1):
        p = mid + sign * h * nrm
        if away is not None:
            room = float(np.hypot(*(np.asarray(away) - p)))
        else:
            room = float(np.min(np.hypot(*(others - p).T))) if len(others) else math.inf
        if room > best_room:
            best, best_room = p, room
    return best
