"""The cyclic order of routes around each station: on the real map and on the board.

A map stays recognizable when, standing at a station, its routes leave in the same turning order
as the real lines do (north, then east, then south...). Two things here:

- `cyclic_order(data)`: the figure. For each station with three or more neighbouring stations,
  the neighbours sorted by real bearing (lat/lon) and by the direction their route leaves on the
  board (towards the first waypoint, or the other station); kept when one sequence is a rotation
  of the other. Doubles and parallel routes to the same neighbour count once.
- `order_pairs(net)`: what the optimizer keeps. For each station, every two neighbours that come
  one after the other by real bearing less than ORDER_MAX_GAP apart: the second must stay on the
  same (counter-clockwise) side of the first on the board. That holds the cyclic order where the
  real gaps are below a half turn, and stops a station jumping to the other side of a neighbour
  at a bend of a line (a station with two neighbours keeps its bend's direction).
"""

from __future__ import annotations

import math

import numpy as np

from mapkit.geometry import continuous_lon

ORDER_MAX_GAP = math.radians(150)   # wider real gaps are nearly straight on: either side reads right
ORDER_MIN_SIN = 0.12                # the board gap kept at least about 7° on the right side


def _geo_xy(data: dict) -> dict[str, tuple[float, float]]:
    """lat/lon in board axes (x east, y south), equirectangular at the board's mean latitude."""
    st = data["stations"]
    lat0 = math.radians(sum(s["lat"] for s in st) / len(st))
    east = continuous_lon(s["lon"] for s in st)
    return {s["id"]: (east(s["lon"]) * math.cos(lat0), -s["lat"]) for s in st}


def _leaving(data: dict) -> dict[str, dict[str, tuple[float, float]]]:
    """station -> {neighbour: board direction the route to it leaves in}."""
    pos = {s["id"]: (s["board"]["x"], s["board"]["y"]) for s in data["stations"] if "board" in s}
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for r in data["routes"]:
        a, b = r["from"], r["to"]
        if a == b or a not in pos or b not in pos:
            continue
        wps = [(w["x"], w["y"]) for w in r.get("waypoints", []) if "x" in w]
        for s, o, nxt in ((a, b, wps[0] if wps else pos[b]), (b, a, wps[-1] if wps else pos[a])):
            out.setdefault(s, {}).setdefault(o, (nxt[0] - pos[s][0], nxt[1] - pos[s][1]))
    return out


def _cyclic(seq: list[str], other: list[str]) -> bool:
    if len(seq) != len(other):
        return False
    if not seq:
        return True
    k = other.index(seq[0])
    return other[k:] + other[:k] == seq


def cyclic_order(data: dict) -> dict:
    """{"stations": with 3+ neighbours, "kept": how many keep their real cyclic order, "broken": ids}."""
    geo = _geo_xy(data)
    leaving = _leaving(data)
    considered, broken = 0, []
    for s, nbrs in sorted(leaving.items()):
        if len(nbrs) < 3:
            continue
        considered += 1
        g = sorted(nbrs, key=lambda o: math.atan2(geo[o][1] - geo[s][1], geo[o][0] - geo[s][0]))
        b = sorted(nbrs, key=lambda o: math.atan2(nbrs[o][1], nbrs[o][0]))
        if not _cyclic(g, b):
            broken.append(s)
    return {"stations": considered, "kept": considered - len(broken), "broken": broken}


def order_pairs(net) -> np.ndarray:
    """(m, 3) rows (station, bundle 1, bundle 2): bundle 2's other end follows bundle 1's
    counter-clockwise by real bearing, less than ORDER_MAX_GAP apart (see the module)."""
    at: dict[int, dict[int, int]] = {}
    for k, b in enumerate(net.bundles):
        for s, o in ((b.a, b.b), (b.b, b.a)):
            at.setdefault(s, {}).setdefault(o, k)   # one bundle per neighbour: doubles are one already
    rows = []
    for s, nb in sorted(at.items()):
        if len(nb) < 2:
            continue
        others = list(nb)
        ang = np.array([math.atan2(*(net.geo[o] - net.geo[s])[::-1]) for o in others])
        order = np.argsort(ang)
        for j in range(len(order)):
            i1, i2 = order[j], order[(j + 1) % len(order)]
            gap = (ang[i2] - ang[i1]) % (2 * math.pi)
            if 1e-6 < gap < ORDER_MAX_GAP:
                rows.append((s, nb[others[i1]], nb[others[i2]]))
    return np.array(rows, dtype=int).reshape(-1, 3)


def next_points(lines, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(station, point 1, point 2) for the rows: the point each bundle's line leaves the station towards."""
    def nxt(k, s):
        line = lines[k]
        return line[1] if line[0] == s else line[-2]
    s = rows[:, 0]
    p1 = np.array([nxt(k, st) for st, k in zip(s, rows[:, 1])], dtype=int)
    p2 = np.array([nxt(k, st) for st, k in zip(s, rows[:, 2])], dtype=int)
    return s, p1, p2


def order_terms(pos, s, p1, p2, weight: float):
    """weight * max(ORDER_MIN_SIN - sin(board angle from s->p1 to s->p2), 0), and its gradient
    blocks [(rows, points, d/dpoint (m, 2))] for the optimizer (mapkit.layout.optimize)."""
    from mapkit.layout.terms import unit

    u1, J1 = unit(pos[s], pos[p1])
    u2, J2 = unit(pos[s], pos[p2])
    c = u1[:, 0] * u2[:, 1] - u1[:, 1] * u2[:, 0]
    on = (ORDER_MIN_SIN - c) > 0
    v = weight * np.where(on, ORDER_MIN_SIN - c, 0.0)
    f = (-weight * on)[:, None]
    dc_du1 = np.stack([u2[:, 1], -u2[:, 0]], axis=1)
    dc_du2 = np.stack([-u1[:, 1], u1[:, 0]], axis=1)
    g1 = np.einsum("ki,kij->kj", dc_du1, J1) * f
    g2 = np.einsum("ki,kij->kj", dc_du2, J2) * f
    r = np.arange(len(s))
    return v, [(r, p1, g1), (r, p2, g2), (r, s, -(g1 + g2))]
