"""Large planar boards for scale tests and benchmarks: a grid with one diagonal in some cells.

A rows × cols grid of stations, each joined to its right and lower neighbour, plus one diagonal
in about half of the cells (never both, so no two routes cross: the board is planar, like a real
map). Lengths are 1-6, colors from an 8-color palette with a share of gray; everything is drawn
from `random.Random(seed)`, so the same arguments give the same board. Boards past the schema's
500 stations are built with `build_board` (no schema) for library-level measurements.
"""

from __future__ import annotations

import math
import random

COLORS = ["red", "blue", "green", "yellow", "orange", "black", "white", "pink"]


def grid_board_data(stations: int, seed: int = 0) -> dict:
    cols = max(2, math.ceil(math.sqrt(stations)))
    rows = math.ceil(stations / cols)
    rng = random.Random(seed)
    spacing = 160.0  # room for a 6-space route between neighbours
    ids = {}
    out_stations = []
    for k in range(stations):
        r, c = divmod(k, cols)
        sid = f"s{k}"
        ids[r, c] = sid
        out_stations.append({"id": sid, "name": f"Station {k}", "lat": 40 + r * 0.01, "lon": -100 + c * 0.01,
                             "board": {"x": 60 + c * spacing, "y": 60 + r * spacing}})
    routes = []

    def add(a, b):
        color = "gray" if rng.random() < 0.25 else rng.choice(COLORS)
        routes.append({"from": a, "to": b, "color": color, "length": rng.randint(1, 6)})

    for (r, c), sid in ids.items():
        if (r, c + 1) in ids:
            add(sid, ids[r, c + 1])
        if (r + 1, c) in ids:
            add(sid, ids[r + 1, c])
        if (r + 1, c + 1) in ids and (r, c + 1) in ids and (r + 1, c) in ids and rng.random() < 0.5:
            if rng.random() < 0.5:
                add(sid, ids[r + 1, c + 1])
            else:
                add(ids[r, c + 1], ids[r + 1, c])
    return {
        "schema_version": 1, "id": f"grid-{stations}", "name": f"Grid of {stations}", "version": "1",
        "rules": {"preset": "standard"}, "route_points": [1, 2, 4, 7, 10, 15],
        "physical": {"width_mm": 120 + (cols - 1) * spacing, "height_mm": 120 + (rows - 1) * spacing},
        "palette": [{"id": c, "name": c.title(), "hex": "#%06x" % (0x202020 + 0x151515 * i), "kind": "rail"}
                    for i, c in enumerate(COLORS)],
        "wild": {"name": "Locomotive", "hex": "#cccccc"}, "gray": {"name": "Bus", "kind": "bus"},
        "stations": out_stations, "routes": routes,
    }


def grid_board(stations: int, seed: int = 0):
    from mapkit.boardfile import build_board

    return build_board(grid_board_data(stations, seed))
