"""Flights: routes of a `flight` kind, drawn along a path of their own round the rest of the board.

A flight holds a few spaces between far stations (Seattle's Paine Field to SeaTac, 6 spaces
across the whole map). Its length has no upper limit (the stretch check leaves flights alone) and
a flight flagged `"overpass": true` may cross other routes' lines, but its spaces, like every
route's, must stay clear of other spaces, of stations and of the board's margin. A straight line
through the middle of the map cannot do that, and the optimizer's smooth terms would only fight
the rest of the network over it. So the optimizer leaves flights out, and here, on the drawing it
made, each flight gets a path:

1. a grid over the board's inner area, each node priced by what is there: blocked on other
   stations, dear on other routes' spaces (a crossing; dearer still when the flight is no
   overpass: a crossing is then a warning), a little dearer near spaces and stations (their labels);
2. shortest paths from both ends (scipy's Dijkstra), and from them one candidate path through
   each of many "via" nodes, cheapest first (each has another length, so its evenly spread spaces
   fall elsewhere);
3. each candidate simplified to a few waypoints; its spaces built as the checks build them and
   tested against the other spaces, the stations, the margin and (no overpass) the other lines.
   The cheapest candidate whose spaces are clear, with room to spare, wins.

All of it is deterministic (grid, costs and ties in a fixed order), so a seed gives one board.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra
from shapely import STRtree
from shapely.geometry import LineString

from mapkit.geometry import _rectangles

GRID_MM = 5.0          # grid spacing
CROSS_COST = 12.0      # per mm of centreline on another route's space (an overpass flight)
CROSS_COST_HARD = 200.0  # the same, for a flight that is no overpass (a crossing is a warning)
NEAR_COST = 1.5        # per mm, at most, close to other spaces and stations
STATION_ROOM_MM = 30.0  # around a station (its label): a little dearer
VIA_TRIES = 400        # candidate paths tested at most, per flight
VIA_SPACING_MM = 20.0  # the lattice of the any-angle graph (and of the candidate vias)
LEG_MM = 120.0  # longest leg of the graph
LEG_COST = 15.0  # mm a leg costs on top of its length: fewer bends
SLACK = 2.5            # candidates cost at most this many times the cheapest path
CLEAR_MM = 2.0         # a flight's space kept at least this far from other spaces and stations
SIMPLIFY_MM = (1.0, 6.0)  # tried in turn: the fewer waypoints the better, if the spaces stay clear
BEND_IN_SPACE_DEG = 20.0


def flight_bundles(net) -> list[int]:
    return [k for k, b in enumerate(net.bundles) if b.flight and not b.fixed_waypoints]


def clear_flights(net, dr, ks) -> None:
    """Take the flights' waypoints out of their lines (the points stay in dr.pos, frozen, unused)."""
    for k in ks:
        for p in dr.lines[k][1:-1]:
            dr.free[p] = False
        dr.lines[k] = [dr.lines[k][0], dr.lines[k][-1]]


def route_flights(net, dr, size_out, even: bool = False) -> None:
    """Give every flight of the drawing a path round the rest of the board (in place); even: round
    the spaces as spread evenly (mapkit.geometry.Layout's even), as the checked repairs judge them."""
    from mapkit.boardfile import build_board
    from mapkit.geometry import Layout
    from mapkit.layout.result import build_result

    ks = flight_bundles(net)
    if not ks:
        return
    clear_flights(net, dr, ks)
    routed: set[int] = set()
    for k in ks:
        data, _ = build_result(net, dr, size_out)
        skip = {ri for j in ks if j not in routed for ri in net.bundles[j].routes}
        data["routes"] = [r for i, r in enumerate(data["routes"]) if i not in skip]
        data["tickets"] = []
        layout = Layout(build_board(data), even=even)
        wps = _best_path(net, dr, k, layout)
        if wps is not None:
            for xy in wps:
                dr.add_waypoint(k, xy, free=False)
        routed.add(k)


def _best_path(net, dr, k, layout):
    ph = layout.board.physical
    b = net.bundles[k]
    A, B = dr.pos[b.a], dr.pos[b.b]
    m = ph.margin_mm
    x0, y0, x1, y1 = m, m, ph.width_mm - m, ph.height_mm - m
    xs = np.arange(x0 + GRID_MM / 2, x1, GRID_MM)
    ys = np.arange(y0 + GRID_MM / 2, y1, GRID_MM)
    nx_, ny_ = len(xs), len(ys)
    gx, gy = np.meshgrid(xs, ys, indexing="xy")          # (ny, nx)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    polys = layout.space_polygons
    r = ph.station_radius_mm
    stations = np.array([layout.positions[s] for s in layout.positions], dtype=float)
    ends = [net.ids[b.a], net.ids[b.b]]
    others = np.array([layout.positions[s] for s in layout.positions if s not in ends], dtype=float).reshape(-1, 2)
    half_diag = math.hypot(ph.space_length_mm, ph.space_width_mm) / 2
    # distances of each node to the nearest other space and station marker
    gpts = shapely.points(pts)
    if len(polys):
        tree = STRtree(polys)
        _, d_space = tree.query_nearest(gpts, return_distance=True, all_matches=False)
    else:
        d_space = np.full(len(pts), 1e9)
    if len(others):
        from scipy.spatial import cKDTree
        d_st, _ = cKDTree(others).query(pts)
        d_st = d_st - r
    else:
        d_st = np.full(len(pts), 1e9)
    need = half_diag + CLEAR_MM
    cross = CROSS_COST if b.overpass else CROSS_COST_HARD
    price = 1.0 + np.where(d_space <= 0.0, cross, NEAR_COST * np.clip(1 - d_space / need, 0, 1))
    price += NEAR_COST * np.clip(1 - d_st / STATION_ROOM_MM, 0, 1)
    blocked = d_st < 2.0
    # around the flight's own stations the line must get out: never blocked there
    dA = np.hypot(*(pts - A).T)
    dB = np.hypot(*(pts - B).T)
    blocked &= ~((dA < r + GRID_MM) | (dB < r + GRID_MM))
    price = np.where(blocked, np.inf, price)
    # an any-angle graph on a coarser lattice (and the two ends): legs of up to LEG_MM, each priced
    # by the fine grid under it, plus LEG_COST a leg (fewer bends)
    step = max(1, int(round(VIA_SPACING_MM / GRID_MM)))
    ix, iy = np.meshgrid(np.arange(nx_), np.arange(ny_), indexing="xy")
    lattice = np.flatnonzero(((ix % step == 0) & (iy % step == 0)).ravel() & np.isfinite(price))
    P = np.vstack([A, B, pts[lattice]])
    fine = np.concatenate([[-1, -1], lattice])
    from scipy.spatial import cKDTree
    pairs = cKDTree(P).query_pairs(LEG_MM, output_type="ndarray")
    if not len(pairs):
        return None
    samples = int(math.ceil(LEG_MM / GRID_MM)) + 1
    t = np.linspace(0.0, 1.0, samples)
    p0, p1 = P[pairs[:, 0]], P[pairs[:, 1]]
    sx = p0[:, None, 0] + (p1 - p0)[:, None, 0] * t[None]
    sy = p0[:, None, 1] + (p1 - p0)[:, None, 1] * t[None]
    gi = np.clip(np.rint((sx - xs[0]) / GRID_MM).astype(int), 0, nx_ - 1)
    gj = np.clip(np.rint((sy - ys[0]) / GRID_MM).astype(int), 0, ny_ - 1)
    mean = price[gj * nx_ + gi].mean(axis=1)
    seg_len = np.hypot(*(p1 - p0).T)
    w = seg_len * mean + LEG_COST
    ok = np.isfinite(w)
    g = coo_matrix((w[ok], (pairs[ok, 0], pairs[ok, 1])), shape=(len(P), len(P))).tocsr()
    dist, pred = dijkstra(g, directed=False, indices=[0, 1], return_predecessors=True)
    total = dist[0] + dist[1]
    best = total[1]
    if not np.isfinite(best):
        return None
    # via nodes: where a space could sit, cheapest first
    fi = np.maximum(fine, 0)
    room = (fine >= 0) & (d_space[fi] >= need) & (d_st[fi] >= need) & np.isfinite(total) & (total <= SLACK * best)
    vias = np.flatnonzero(room)
    vias = vias[np.lexsort((vias, total[vias]))]
    # thin out: nodes on the same path differ little; keep every few
    chosen, seen_paths = [], set()
    obstacles = STRtree(polys) if len(polys) else None
    disc_all = shapely.buffer(shapely.points(stations), r + CLEAR_MM) if len(stations) else np.zeros(0, dtype=object)
    inner = shapely.box(x0, y0, x1, y1)
    lines_other = [shapely.LineString(s.centerline) for s in layout.routes.values()] if not b.overpass else []
    best_pick = None
    for v in vias:
        if len(chosen) >= VIA_TRIES:
            break
        path = _walk(pred[0], v)[::-1] + _walk(pred[1], v)[1:]
        key = tuple(path[:: max(1, len(path) // 12)])
        if key in seen_paths:
            continue
        seen_paths.add(key)
        chosen.append(v)
        coords = [tuple(P[i]) for i in path]
        for tol in SIMPLIFY_MM[::-1]:
            line = LineString(coords).simplify(tol, preserve_topology=False)
            bad, room = _judge(line, b, ph, obstacles, disc_all, inner, lines_other)
            key = (bad, total[v] - 20.0 * room + 5.0 * len(line.coords))
            if best_pick is None or key < best_pick[0]:
                best_pick = (key, [tuple(c) for c in line.coords][1:-1])
            if not bad:
                break
    return None if best_pick is None else best_pick[1]


def _walk(pred_row, v) -> list[int]:
    out = [int(v)]
    while pred_row[out[-1]] >= 0:
        out.append(int(pred_row[out[-1]]))
    return out


def _judge(line, b, ph, obstacles, discs, inner, lines_other):
    """(badness, room): badness 0 when the flight's spaces on this line are clear of other spaces
    and stations, inside the playing area and off sharp bends (and, no overpass, the line crosses
    nothing), else how many of those each space breaks (weighted: off the board worst); room is the
    distance to spare (mm, capped) around its spaces. The least bad line is the fallback when none
    is clean (the repair then moves stations)."""
    n = b.length
    total = line.length
    r, length = ph.station_radius_mm, ph.space_length_mm
    usable = total - 2 * r
    spread = (usable - n * length) / (n + 1)
    if spread < ph.space_gap_mm + 0.5:
        return 1e9, 0.0
    at = np.array([r + spread * (i + 1) + length * (i + 0.5) for i in range(n)])
    bad = 0.0
    # a space across a real bend would leave the line: keep bends sharper than a few degrees in the gaps
    c = np.array(line.coords)
    if len(c) > 2:
        seg = np.diff(c, axis=0)
        ang = np.arctan2(seg[:, 1], seg[:, 0])
        turn = np.abs((np.diff(ang) + np.pi) % (2 * np.pi) - np.pi)
        bends = np.cumsum(np.hypot(seg[:, 0], seg[:, 1]))[:-1][turn > math.radians(BEND_IN_SPACE_DEG)]
        if len(bends):
            bad += 5.0 * float(np.sum(np.min(np.abs(at[:, None] - bends[None, :]), axis=1) < length / 2 + 3.0))
    corners = _rectangles(np.array([line] * n, dtype=object), at, np.full(n, total), length, ph.space_width_mm)
    spaces = shapely.polygons(corners)
    bad += 100.0 * float(np.sum(~shapely.contains(inner, spaces)))
    if len(discs):
        bad += 30.0 * float(np.sum(shapely.intersects(spaces[:, None], discs[None, :])))
    room = 8.0
    if obstacles is not None:
        _, d = obstacles.query_nearest(spaces, return_distance=True, all_matches=False)
        if len(d):
            bad += 20.0 * float(np.sum(d < CLEAR_MM))
            room = min(room, float(np.min(d)))
    if lines_other:
        inner_line = line.difference(shapely.union_all(discs)) if len(discs) else line
        bad += 30.0 * sum(inner_line.crosses(o) for o in lines_other)
    return bad, max(room, 0.0)
