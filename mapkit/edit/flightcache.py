"""The print's flight search (`render.flights.reroute`), remembered between the editor's drawings.

Moving a flight clear of other routes is a search of seconds on a board with a flight (Seattle:
about 4 s of CPU, in every print drawing). A drag elsewhere on the board cannot change its result:
every path the search tries lies near the flight (its own line, the arcs of `flights.BULGES`
between its ends, and those nudged by at most `NUDGE_REACH_MM`), and the cost of a path counts only
what lies under it. So the result is kept with everything within `reach` of those paths (the
other routes' spaces, the stations, the board's size) and handed back when all of that is
unchanged; anything else runs the search again, handing it the path costs it measured last
time (`flights.Trials`: each kept while nothing near that path changed, so most of a search after
a drag is not measured again). The same inputs give the same result, so the drawing is the one
`mapkit render` makes (tests/test_edit_make.py and tests/test_edit_speed_flights.py compare them).

`install()` puts the remembering search in place of `flights.reroute` for the process it runs in:
the editor's drawing process (`edit.worker`) calls it, nothing else does.
"""

from __future__ import annotations

import math

from mapkit.render import flights

NUDGE_REACH_MM = 3 * (12.0 + 6.0 + 3.0) * math.sqrt(2)   # flights._nudged: 3 rounds of steps 12, 6, 3 mm each way
_ORIGINAL = flights.reroute
_KEPT: dict = {}   # flight ids → (key, result)
_TRIALS = flights.Trials()   # the search's path costs, for a search that must run again


def _reach(board, layout, routes, flight) -> tuple:
    """Everything the search for this flight can see: what lies within reach of every path it tries."""
    import numpy as np
    import shapely
    from shapely.geometry import MultiPoint

    ph = board.physical
    a, b = layout.positions[flight.a], layout.positions[flight.b]
    pts = [a, b, *routes[flight.id].centerline]
    d = math.dist(a, b) or 1.0
    for k in flights.BULGES:  # the arcs' control points hold the arcs in their hull
        nx, ny = -(b[1] - a[1]) / d, (b[0] - a[0]) / d
        pts.append(((a[0] + b[0]) / 2 + nx * k * d * 2, (a[1] + b[1]) / 2 + ny * k * d * 2))
    # a space seen by the search has a corner within its diagonal of the paths; a station, its centre
    # within its radius and the clearance
    diagonal = math.hypot(ph.space_length_mm, ph.space_width_mm)
    area = MultiPoint(pts).convex_hull.buffer(NUDGE_REACH_MM + diagonal + flights.LINE_CLEAR_MM
                                              + ph.station_radius_mm + 2.0)
    shapely.prepare(area)
    others = [(rid, s.spaces) for rid, s in sorted(routes.items()) if rid != flight.id and s.spaces]
    corners = np.array([c[0] for _, sp in others for c in sp] or [(0.0, 0.0)], dtype=float)
    hit = shapely.intersects_xy(area, corners[:, 0], corners[:, 1]) if others else np.zeros(0, bool)
    spaces, i = [], 0
    for rid, sp in others:
        if hit[i:i + len(sp)].any():
            spaces.append((rid, sp))
        i += len(sp)
    ids = sorted(layout.positions)
    xy = np.array([layout.positions[sid] for sid in ids], dtype=float)
    near = shapely.intersects_xy(area, xy[:, 0], xy[:, 1])
    stations = tuple((sid, layout.positions[sid]) for sid, n in zip(ids, near) if n)
    return (flight.id, flight.length, flight.a, flight.b, a, b, tuple(routes[flight.id].centerline),
            (ph.width_mm, ph.height_mm, ph.margin_mm, ph.space_length_mm, ph.space_width_mm, ph.station_radius_mm),
            tuple(spaces), stations)


def reroute(board, layout, routes=None):
    """`flights.reroute`, its result kept for a board whose flights' surroundings did not change."""
    given = dict(layout.routes if routes is None else routes)
    fl = [r for r in board.routes if r.kind == "flight" and r.id in given]
    if not fl:
        return _ORIGINAL(board, layout, routes)
    ids = tuple(r.id for r in fl)
    current, keys = dict(given), []
    kept = _KEPT.get(ids)
    for r in fl:  # in the search's own order: a later flight sees the earlier ones moved
        keys.append(_reach(board, layout, current, r))
        if kept is None or keys[-1] != kept[0][len(keys) - 1]:
            break
        current[r.id] = kept[1][0][r.id]
    if kept is not None and keys == list(kept[0]):
        moved, drawn, warnings = kept[1]
        out = dict(given)
        out.update({rid: moved[rid] for rid in ids})
        return out, dict(drawn), list(warnings)
    result = _ORIGINAL(board, layout, routes, _TRIALS)
    current, keys = dict(given), []
    for r in fl:
        keys.append(_reach(board, layout, current, r))
        current[r.id] = result[0][r.id]
    _KEPT.clear()
    _KEPT[ids] = (tuple(keys), ({rid: result[0][rid] for rid in ids}, dict(result[1]), list(result[2])))
    return result


def install() -> None:
    """Use the remembering search in this process (the editor's drawing process)."""
    flights.reroute = reroute
