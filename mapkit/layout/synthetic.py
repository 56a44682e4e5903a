"""Synthetic planar networks with real-looking coordinates and no board positions, for `mapkit layout`
(its tests, through tests/layoutgen.py, and `mapkit bench --only layout`).

Stations are scattered over a lat/lon box (a jittered grid, so no two are on top of each other),
joined by a Delaunay triangulation thinned to a planar network with some faces merged (about 2.3
routes a station, like real maps); each route's length follows its real distance (1-6 spaces), a
share are doubles and a few are long (6 spaces) routes. Everything comes from `random.Random(seed)`.
"""

from __future__ import annotations

import math
import random

import networkx as nx
import numpy as np
from scipy.spatial import Delaunay

COLORS = ["red", "blue", "green", "yellow", "orange", "black", "white", "pink"]
HEX = ["#d62728", "#1f77b4", "#2ca02c", "#f2c500", "#ff7f0e", "#222222", "#f4f4f4", "#e377c2"]


def layout_board_data(stations: int, seed: int = 0, doubles: float = 0.12, keep_edges: float = 0.75) -> dict:
    rng = random.Random(seed)
    cols = max(2, math.ceil(math.sqrt(stations * 1.5)))
    pts = []
    for k in range(stations):
        r, c = divmod(k, cols)
        pts.append((c + rng.uniform(-0.3, 0.3), r + rng.uniform(-0.3, 0.3)))
    xy = np.array(pts)
    tri = Delaunay(xy)
    g = nx.Graph()
    g.add_nodes_from(range(stations))
    for simplex in tri.simplices:
        for i in range(3):
            a, b = int(simplex[i]), int(simplex[(i + 1) % 3])
            g.add_edge(min(a, b), max(a, b), d=float(np.hypot(*(xy[a] - xy[b]))))
    # thin: drop long edges first (sliver triangles on the hull), then random ones, never disconnecting
    edges = sorted(g.edges(data="d"), key=lambda e: (-e[2], e[0], e[1]))
    for a, b, d in edges:
        if d > 1.9 and g.degree(a) > 1 and g.degree(b) > 1:
            g.remove_edge(a, b)
            if not nx.is_connected(g):
                g.add_edge(a, b, d=d)
    target = int(keep_edges * g.number_of_edges())
    order = sorted(g.edges())
    rng.shuffle(order)
    for a, b in order:
        if g.number_of_edges() <= target:
            break
        if g.degree(a) > 1 and g.degree(b) > 1:
            d = g[a][b]["d"]
            g.remove_edge(a, b)
            if not nx.is_connected(g):
                g.add_edge(a, b, d=d)
    deg_lat = 0.05  # one grid step is about 5.5 km
    lat0, lon0 = 45.0, -122.0
    k = math.cos(math.radians(lat0))
    out_stations = [{"id": f"s{i}", "name": f"Station {i}", "lat": round(lat0 - xy[i, 1] * deg_lat, 5),
                     "lon": round(lon0 + xy[i, 0] * deg_lat / k, 5)} for i in range(stations)]
    routes = []
    for a, b in sorted(g.edges()):
        d = g[a][b]["d"]
        length = max(1, min(6, round(d * 2.6)))
        if rng.random() < 0.04:
            length = 6 if d > 1.1 else length  # a few long routes
        color = "gray" if rng.random() < 0.25 else rng.choice(COLORS)
        if rng.random() < doubles:
            other = rng.choice([c for c in COLORS if c != color])
            name = f"s{a}-s{b}"
            routes.append({"from": f"s{a}", "to": f"s{b}", "color": color, "length": length, "double": name})
            routes.append({"from": f"s{a}", "to": f"s{b}", "color": other, "length": length, "double": name})
        else:
            routes.append({"from": f"s{a}", "to": f"s{b}", "color": color, "length": length})
    return {
        "schema_version": 1, "id": f"planar-{stations}", "name": f"Planar network of {stations}", "version": "1",
        "rules": {"preset": "standard"}, "route_points": [1, 2, 4, 7, 10, 15],
        "palette": [{"id": c, "name": c.title(), "hex": h, "kind": "rail"} for c, h in zip(COLORS, HEX)],
        "wild": {"name": "Locomotive", "hex": "#cccccc"}, "gray": {"name": "Gray", "kind": "rail"},
        "stations": out_stations, "routes": routes,
    }
