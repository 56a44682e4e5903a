"""The figures a layout is judged by, measured the same way on a hand layout and a computed one.

- errors, warnings: what `mapkit validate` says of the geometry (and crossings among them)
- stretched_routes: routes drawn longer than max_stretch (the route-stretched warning)
- largest_gap_mm: the widest gap between a route's spaces (about 6 mm still reads as one line)
- routes_over_gap: routes whose gaps between spaces are wider than network.MAX_GAP_MM (6 mm; 6.1 as
  rounded here), of routes_drawn (flights not counted: their spaces are spread along a path of their
  own). The gaps between spaces, as mapkit.geometry.space_placement places them: where a route end
  at a narrow fan needs its first space farther out, that end gap is not one of them (a route of one
  space: its even gap)
- end_gaps_over_need, largest_end_gap_mm: route ends whose gap to the station is wider than
  max(6 mm, what the end needs to clear its neighbours), and the widest end gap (so that a wide end
  gap is not hidden); routes_over_gap_even: routes whose even spread (all n+1 gaps alike, how spaces
  were placed before) would be over 6 mm, for comparison
- largest_bare_end_gap_mm, bare_route_ends: the widest bare board between a station's rim and its
  route as printed (a route end more than 6 mm out gets its line drawn to the station where that
  crosses nothing: mapkit.render.scene.leads), and how many ends are left bare beyond 6 mm
- label_pt_smallest, labels_unplaced: the smallest font size a station label needed to find room
  (12 pt is the normal size; the renderer falls back to 7 pt) and how many found none
  (labels_unplaced_at: their station ids)
- empty_share: the share of the inner area farther than 30 mm from every station and space
- direction_error_deg_mean / _max, within_45deg: each route's board direction against its real
  bearing (from the stations' lat/lon), and the share within 45°
- routes_over_90deg: routes drawn more than 90° off their real bearing (a station on the wrong
  side of its neighbour; routes_across names them, each with the station to move)
- order_kept / order_stations: stations with 3+ neighbours whose routes leave in their real cyclic
  order (mapkit.layout.order), out of how many
- trunk_sides_swapped: along runs of doubles shared by the same two lines, how often a line changes
  side from one double to the next, as drawn (mapkit.render.sides.keep_sides) — and as the checks'
  geometry lays the tracks before that (trunk_sides_swapped_raw)
- labels_with_room: station labels placed clear of everything, of labels_total
- fill_w, fill_h: the stations' bounding box over the inner area, each way (aim: 0.8 or more)
"""

from __future__ import annotations

import math

import numpy as np
from shapely.geometry import Point, Polygon, box
from shapely.ops import unary_union

from mapkit.boardfile import build_board
from mapkit.checks import check_geometry
from mapkit.geometry import Layout, continuous_lon, space_placement
from mapkit.layout.network import MAX_GAP_MM
from mapkit.layout.order import cyclic_order
from mapkit.render.sides import chains, keep_sides, track_side

EMPTY_REACH_MM = 30.0


def measure(data: dict, labels: bool = True) -> dict:
    board = build_board(data)
    layout = Layout(board)
    ph = board.physical
    found = list(check_geometry(board))
    out = {
        "board_mm": [ph.width_mm, ph.height_mm],
        "errors": sum(p.severity == "error" for p in found),
        "warnings": sum(p.severity == "warning" for p in found),
        "crossings": sum(p.code == "crossing" for p in found),
        "stretched_routes": sum(p.code == "route-stretched" for p in found),
    }
    out.update(gap_figures(data, board, layout))
    # directions against geography
    errs = [d for _, d in bearing_errors(board, layout)]
    out["direction_error_deg_mean"] = round(float(np.mean(errs)), 1) if errs else None
    out["direction_error_deg_max"] = round(float(np.max(errs)), 1) if errs else None
    out["within_45deg"] = round(float(np.mean(np.array(errs) <= 45)), 3) if errs else None
    out["routes_over_90deg"] = int(np.sum(np.array(errs) > 90)) if errs else 0
    order = cyclic_order(data)
    out["order_kept"], out["order_stations"] = order["kept"], order["stations"]
    out["trunk_sides_swapped_raw"] = trunk_swaps(board, layout.positions, layout.routes)
    out["trunk_sides_swapped"] = trunk_swaps(board, layout.positions,
                                             keep_sides(board, layout.positions, layout.routes))
    xy = np.array(list(layout.positions.values()))
    inner_w, inner_h = ph.width_mm - 2 * ph.margin_mm, ph.height_mm - 2 * ph.margin_mm
    span = xy.max(0) - xy.min(0)
    out["fill_w"], out["fill_h"] = round(float(span[0] / inner_w), 3), round(float(span[1] / inner_h), 3)
    shapes = [Polygon(c) for s in layout.routes.values() for c in s.spaces]
    shapes += [Point(p).buffer(ph.station_radius_mm, quad_segs=4) for p in layout.positions.values()]
    inner = box(ph.margin_mm, ph.margin_mm, ph.width_mm - ph.margin_mm, ph.height_mm - ph.margin_mm)
    covered = unary_union([g.buffer(EMPTY_REACH_MM, quad_segs=4) for g in shapes]).intersection(inner)
    out["empty_share"] = round(1.0 - covered.area / inner.area, 3)
    if labels:
        out.update(label_figures(board, layout))
    return out


COMPASS = ("east", "south-east", "south", "south-west", "west", "north-west", "north", "north-east")


def bearing_errors(board, layout) -> list[tuple[object, float]]:
    """(route, degrees between its drawn direction, station to station, and its real bearing) of
    every route whose stations are apart on both (the figures direction_error_deg_*)."""
    lat0 = math.radians(sum(s.lat for s in board.stations) / len(board.stations))
    east = continuous_lon(s.lon for s in board.stations)
    st = {s.id: s for s in board.stations}
    out = []
    for r in board.routes:
        a, b = st[r.a], st[r.b]
        gx, gy = (east(b.lon) - east(a.lon)) * math.cos(lat0), -(b.lat - a.lat)
        pa, pb = layout.positions[r.a], layout.positions[r.b]
        bx, by = pb[0] - pa[0], pb[1] - pa[1]
        if math.hypot(gx, gy) == 0 or math.hypot(bx, by) == 0:
            continue
        out.append((r, math.degrees(abs(math.atan2(gx * by - gy * bx, gx * bx + gy * by)))))
    return out


def _compass(dx: float, dy: float) -> str:
    """The compass word of a direction on the board (y down, north up)."""
    return COMPASS[round(math.degrees(math.atan2(dy, dx)) / 45.0) % 8]


def routes_across(data: dict, board=None, layout=None) -> list[dict]:
    """The routes counted in routes_over_90deg (drawn more than 90° off their real bearing: one
    station on the wrong side of the other), farthest first. Each: route id, its stations,
    off_deg, which station to move (`move`: the one with fewer neighbours, the other end of a
    hanging station's only route is not what is wrong; ties: the route's second station), where it
    is drawn from the other (`drawn`) and where the real map has it (`real`), as compass words."""
    if board is None:
        board = build_board(data)
        layout = Layout(board)
    lat0 = math.radians(sum(s.lat for s in board.stations) / len(board.stations))
    east = continuous_lon(s.lon for s in board.stations)
    st = {s.id: s for s in board.stations}
    degree = {}
    for r in board.routes:
        for x, y in ((r.a, r.b), (r.b, r.a)):
            degree.setdefault(x, set()).add(y)
    out = []
    for r, off in bearing_errors(board, layout):
        if off <= 90:
            continue
        move, other = (r.a, r.b) if len(degree[r.a]) < len(degree[r.b]) else (r.b, r.a)
        m, o = st[move], st[other]
        pm, po = layout.positions[move], layout.positions[other]
        out.append({"route": r.id, "a": r.a, "b": r.b, "off_deg": round(off, 1), "move": move,
                    "drawn": _compass(pm[0] - po[0], pm[1] - po[1]),
                    "real": _compass((east(m.lon) - east(o.lon)) * math.cos(lat0), -(m.lat - o.lat))})
    return sorted(out, key=lambda x: (-x["off_deg"], x["route"]))


def gap_figures(data: dict, board=None, layout=None) -> dict:
    """largest_gap_mm, routes_over_gap and routes_drawn of a board dict (or of its built board and Layout)."""
    if board is None:
        board = build_board(data)
        layout = Layout(board)
    ph = board.physical
    gaps, even, ends = [], [], []   # gaps between spaces; the even spread; (end gap, its allowance)
    kinds = {r.id: r for r in board.routes}
    for rid, shape in layout.routes.items():
        r = kinds[rid]
        if r.kind == "flight":
            continue
        even.append((shape.usable_mm - r.length * ph.space_length_mm) / (r.length + 1))
        end_a, inner, end_b = shape.gaps
        gaps.append(inner)
        for g, need in zip((end_a, end_b), shape.needs):
            ends.append((g, max(MAX_GAP_MM, need)))
    # a gap that rounds to 6.0 is within the rule (the layout aims a little inside it)
    return {"largest_gap_mm": round(max(gaps), 1) if gaps else None,
            "routes_over_gap": sum(round(g, 1) > MAX_GAP_MM for g in gaps), "routes_drawn": len(gaps),
            "end_gaps_over_need": sum(round(g, 1) > round(allow, 1) for g, allow in ends),
            "largest_end_gap_mm": round(max(g for g, _ in ends), 1) if ends else None,
            "routes_over_gap_even": sum(round(g, 1) > MAX_GAP_MM for g in even)}


LOOSE_LENGTHS_TRIED = 3   # a loose route's suggestion: up to this many more spaces (more would be a different route)


def loose_routes(data: dict, board=None, layout=None) -> list[dict]:
    """The routes counted in routes_over_gap (gaps between spaces over 6 mm, MAX_GAP_MM, as
    rounded there; a route of one space: its even gap either side), widest gap first, and what
    would draw each in. Each: route id, its stations, length (spaces), gap_mm (as drawn), needs_mm
    (what each end needs to clear its neighbours round a crowded station, end_needs: 0 where 6 mm
    is enough), over_mm (how much longer the route is drawn than its spaces need with 6 mm between
    them and each end at 6 mm or its need: what moving its stations closer has to take out), held
    (over_mm at most 0: the route is as short as its crowded ends allow; only a route of one space
    or a too-short one drawn with the even spread can be: its space is centred, so the end without
    a need shows the gap of the end with one), and fits (the smallest longer length whose gaps
    between spaces would be 6 mm or less on this same drawing, up to LOOSE_LENGTHS_TRIED more
    spaces; None beyond). Flights are left out (their spaces follow a path of their own)."""
    if board is None:
        board = build_board(data)
        layout = Layout(board)
    ph = board.physical
    size, smallest = ph.space_length_mm, ph.space_gap_mm
    routes = {r.id: r for r in board.routes}
    out = []
    for rid, shape in layout.routes.items():
        r = routes[rid]
        if r.kind == "flight" or shape.gaps is None:
            continue
        inner = shape.gaps[1]
        if round(inner, 1) <= MAX_GAP_MM:
            continue
        needs = shape.needs or (0.0, 0.0)
        tight = r.length * size + (r.length - 1) * MAX_GAP_MM + sum(max(MAX_GAP_MM, n) for n in needs)
        over = shape.usable_mm - tight
        fits = None
        for n in range(r.length + 1, r.length + LOOSE_LENGTHS_TRIED + 1):
            if shape.usable_mm < n * size + (n + 1) * smallest:
                break
            if round(space_placement(shape.usable_mm, n, size, smallest, *needs)[1], 1) <= MAX_GAP_MM:
                fits = n
                break
        out.append({"route": rid, "a": r.a, "b": r.b, "length": r.length, "gap_mm": round(inner, 1),
                    "needs_mm": [round(n, 1) for n in needs], "over_mm": round(over, 1),
                    "held": round(over, 1) <= 0.0, "fits": fits})
    return sorted(out, key=lambda x: (x["held"], -x["gap_mm"], x["route"]))


def label_figures(board, layout) -> dict:
    """Station labels placed as the renderer places them (mapkit.render.scene)."""
    from mapkit.render.scene import build_scene

    scene = build_scene(board, layout, "0" * 8)
    sizes = [c.size for key, c in scene.placement.placed.items() if not key.startswith("bonus:")]
    unplaced = [k for k in scene.unplaced if not k.startswith("bonus:")]
    return {"label_pt_smallest": min(sizes) if sizes else None, "labels_unplaced": len(unplaced),
            "labels_unplaced_at": sorted(unplaced),
            "labels_below_12pt": sum(s < 12 for s in sizes), "labels_total": len(sizes),
            "labels_with_room": len(sizes) - len(unplaced),
            # the bare board left at a route end as drawn (mapkit.render.scene.route_end_figures)
            "largest_bare_end_gap_mm": scene.route_ends["largest_bare_gap_mm"],
            "bare_route_ends": len(scene.route_ends["bare"])}


def trunk_swaps(board, positions, routes) -> int:
    """Side changes of the first line of each shared run between a double and the one it follows.

    The side is read against the other track, at the middle of the double, along the line's walking
    direction there (so that a bend in the double does not read as a side)."""
    swaps = 0
    for run in chains(board):
        side_at: dict[str, float] = {}   # the side of the run's first line on the double ending here
        for (first, _second), frm, to in run:
            if first.id not in routes:
                continue
            side = track_side(routes[first.id], routes[_second.id], positions[frm]) > 0
            if frm in side_at and side_at[frm] != side:
                swaps += 1
            side_at[to] = side
    return swaps


