"""On a clean board: a route drawn more than 90° off its real bearing, one of its stations turned
back about the other to the side the real map has it on.

A route pointing the other way from the real map (Seattle from its coordinates alone on 600 x 900
mm: Issaquah drawn west of Eastgate, Mukilteo south-east of Edmonds) is a station that the first
drawing put on the wrong side of its neighbour; the polish's short steps cannot take it round (every
step on the way is worse for its other routes, or crosses one). Here, for each such route, the
station with fewer routes is put at the same distance from the other one along the real bearing
(the untangling's "turned about a neighbour" kick), the part of the board around it is optimized
again (the untangling's local least squares) and repaired, and the move is kept only when the
board stays clean and fewer routes are over 90° off. Only a clean board with a route over 90° off
comes here: Portland and north-america as shipped have none, so they come out as before.
"""

from __future__ import annotations

import numpy as np

from mapkit.layout.flights import route_flights
from mapkit.layout.repair import Repair
from mapkit.layout.untangle import Untangle

OFF_DEG = 90.0      # a route this far off its real bearing is turned back
MAX_TURNS = 8       # moves tried (each with its re-optimization and repair) over one board
REPAIR_TRIES = 200  # the repair after a move: local moves judged by the checks, at most


def off_bearing(net, pos) -> list[tuple[float, int]]:
    """(degrees off, bundle) of each route (flights aside) drawn more than OFF_DEG off its real bearing, worst first."""
    out = []
    for k, b in enumerate(net.bundles):
        if b.flight:
            continue
        g, d = net.geo[b.b] - net.geo[b.a], pos[b.b] - pos[b.a]
        ng, nd = float(np.linalg.norm(g)), float(np.linalg.norm(d))
        if ng < 1e-12 or nd < 1e-6:
            continue
        deg = float(np.degrees(np.arccos(np.clip(np.dot(g, d) / (ng * nd), -1.0, 1.0))))
        if deg > OFF_DEG:
            out.append((deg, k))
    return sorted(out, key=lambda e: (-e[0], e[1]))


def turn_back(net, dr, size_out, check, w, style) -> int:
    """Turn stations back while it keeps the board clean; how many were turned."""
    rp = Repair(net, dr, size_out, check)
    if rp.full():
        return 0
    degree = np.zeros(net.n, dtype=int)
    for b in net.bundles:
        degree[b.a] += 1
        degree[b.b] += 1
    turned = tries = 0
    tried = set()
    while tries < MAX_TURNS:
        off = off_bearing(net, dr.pos)
        moves = []
        for _, k in off:
            b = net.bundles[k]
            for i, j in sorted(((b.a, b.b), (b.b, b.a)), key=lambda e: (degree[e[0]], e[0])):
                if dr.free[i] and (i, j) not in tried:
                    moves.append((i, j))
        if not moves:
            break
        i, j = moves[0]
        tried.add((i, j))
        tries += 1
        g = net.geo[i] - net.geo[j]
        dist = float(np.linalg.norm(dr.pos[i] - dr.pos[j]))
        xy = dr.pos[j] + g / float(np.linalg.norm(g)) * dist
        if not rp._inside(xy):
            continue
        saved = (dr.pos.copy(), dr.free.copy(), [list(line) for line in dr.lines])
        dr.pos[i] = xy
        Untangle(rp, w, style).relax(np.array([xy, dr.pos[j]]))
        route_flights(net, dr, size_out)
        rp.tries, rp.max_tries = 0, REPAIR_TRIES
        if not rp.run() and len(off_bearing(net, dr.pos)) < len(off):
            turned += 1
        else:
            dr.pos, dr.free, dr.lines = saved
    return turned
