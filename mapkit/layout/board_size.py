"""--size auto, last: the smallest standard board that holds the finished drawing as it is.

The size is picked from the first drawing, before the board's rounds; with the routes held to
their gaps (the gap rule) and drawn in by the tightening, the finished network is often smaller
than that drawing, and the board it was laid out on is left partly empty (synthetic 60/2: 80 % x
78 % of 1189 x 841 mm, where 1000 x 700 holds the same drawing at 96 % x 94 %). A smaller standard
board that holds the same drawing, moved to its centre, is the same layout on less paper: every
route, gap and angle as it was, only the board's edge nearer. Kept only where the checks still
find nothing and no label has less room at any of the sizes the label step counts; flights, whose
paths run round the board's edge, are routed again on it.
"""

from __future__ import annotations

import numpy as np

from mapkit.layout import fit
from mapkit.layout.flights import flight_bundles, route_flights
from mapkit.layout.labelroom import room_counts, worse_room
from mapkit.layout.result import build_result

# where the drawing goes in the smaller board's inner area, in shares of its slack each way
PLACES = ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))


def smaller_board(net, dr, size_out: tuple[float, float], check) -> tuple[float, float]:
    """The smallest standard size (either way round, smaller by area than size_out) whose inner
    area holds the drawing's points, with the drawing moved (in place) to its centre and its flights
    routed again, where `check` (the geometry checks of a board dict) finds nothing and labels keep
    their room; size_out, with the drawing as it was, where none does."""
    ph = net.board.physical
    W0, H0 = size_out
    flights = set(flight_bundles(net))
    # the points a move to another board carries: stations and every non-flight waypoint (the
    # flights' own are made again round the new edge)
    keep = np.zeros(len(dr.pos), dtype=bool)
    keep[:net.n] = True
    for k, line in enumerate(dr.lines):
        if k not in flights:
            keep[line[1:-1]] = True
    pts = dr.pos[keep]
    lo, hi = pts.min(0), pts.max(0)
    room = None   # labels without room on the board as it is, at each size (counted once a size holds it)
    candidates = sorted({(W, H) for w, h in fit.STANDARD_SIZES for W, H in ((w, h), (h, w)) if W * H < W0 * H0},
                        key=lambda s: (s[0] * s[1], s))
    saved = (dr.pos.copy(), dr.free.copy(), [list(line) for line in dr.lines], dr.bounds)
    for W, H in candidates:
        # station centres a marker's radius inside the margin at least: nearer the edge than the
        # layout's own bounds (fit.EDGE_MM) is allowed wherever the checks and the labels say so
        e = ph.margin_mm + ph.station_radius_mm
        box = (e, e, W - e, H - e)
        if hi[0] - lo[0] > box[2] - box[0] or hi[1] - lo[1] > box[3] - box[1]:
            continue
        if room is None:
            before = build_result(net, dr, size_out)[0]
            room = room_counts(None, data=before)
        centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]) - (lo + hi) / 2
        slack = np.array([box[2] - box[0] - (hi[0] - lo[0]), box[3] - box[1] - (hi[1] - lo[1])]) / 2
        # centred first; else pushed to a side or corner by the slack, which gives the labels at
        # the other edge their room back (a label near the edge of the smaller board loses it)
        for fx, fy in PLACES:
            dr.pos = saved[0] + centre + slack * (fx, fy)
            dr.bounds = box
            if flights:
                route_flights(net, dr, (W, H))
            data = build_result(net, dr, (W, H))[0]
            if not check(data) and not worse_room(room_counts(None, data=data), room):
                return (W, H)
            dr.pos, dr.free, dr.lines = saved[0].copy(), saved[1].copy(), [list(line) for line in saved[2]]
            dr.bounds = saved[3]
    return size_out
