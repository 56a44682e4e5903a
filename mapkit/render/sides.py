"""Shared-track lines keep their side.

Where two lines run side by side over several double routes in a row (Portland's MAX Blue and
Red from Hillsboro to Gateway), `mapkit.geometry` puts each double's first-listed track on the
left of its own a→b direction, so a line swaps sides wherever the file lists a pair the other way
or a route is written b→a, and a player following the Blue line sees it cross the Red one at a
station. Here each run of doubles shared by the same two lines is walked end to end and the line
that comes first in the palette is kept on the same side all along; where geometry put it on the
other side, the two tracks' shapes are exchanged. Both tracks of a double are the same length
laid the same distance either side of one centreline, so the exchange moves no space: the
checks' geometry and the drawing's stay the same set of spaces, only their colors trade places.
"""

from __future__ import annotations

from dataclasses import replace

from shapely.geometry import LineString, Point

from mapkit.geometry import RouteShape
from mapkit.model import Board


def track_side(shape: RouteShape, other: RouteShape, start) -> float:
    """> 0 when `shape` lies left of the `other` track of its double walking from `start` (y down).

    Read against the other track near the middle, not against the straight line between the
    stations: on a double that bends (a waypoint), the middle of the centreline is off that line
    by the bend, which says nothing about which side the track is on."""
    a, b = LineString(shape.centerline), LineString(other.centerline)
    if Point(shape.centerline[-1]).distance(Point(start)) < Point(shape.centerline[0]).distance(Point(start)):
        a = LineString(shape.centerline[::-1])
    p, q = a.interpolate(0.5, normalized=True), a.interpolate(0.52, normalized=True)
    o = b.interpolate(b.project(p))
    dx, dy = q.x - p.x, q.y - p.y
    return dx * (p.y - o.y) - dy * (p.x - o.x)


def chains(board: Board) -> list[list[tuple[tuple, str, str]]]:
    """Runs of doubles shared by the same two lines: each a list of (the two routes, from, to) in
    walking order, oriented so that each one starts where the one before ended."""
    rank = {c.id: i for i, c in enumerate(board.palette)}
    groups: dict[str, list] = {}
    for r in board.routes:
        if r.double:
            groups.setdefault(r.double, []).append(r)
    by_pair: dict[tuple, list] = {}
    for members in groups.values():
        if len(members) == 2 and members[0].color != members[1].color and members[0].length == members[1].length \
                and members[0].ends == members[1].ends:
            pair = tuple(sorted(members, key=lambda m: (rank.get(m.color, len(rank)), m.color)))
            by_pair.setdefault((pair[0].color, pair[1].color), []).append(pair)
    out = []
    for _, segs in sorted(by_pair.items()):
        at: dict[str, list[int]] = {}
        for i, (m, _) in enumerate(segs):
            for s in (m.a, m.b):
                at.setdefault(s, []).append(i)
        seen: set[int] = set()
        # start walks at a run's ends (a station only one of its doubles touches), then any left
        starts = [(i, s) for s, ids in sorted(at.items()) if len(ids) == 1 for i in ids]
        starts += [(i, segs[i][0].a) for i in range(len(segs))]
        for i, s in starts:
            if i in seen:
                continue
            run, stack = [], [(i, s)]
            while stack:
                j, frm = stack.pop()
                if j in seen:
                    continue
                seen.add(j)
                m = segs[j][0]
                to = m.b if frm == m.a else m.a
                run.append((segs[j], frm, to))
                stack += [(k, to) for k in at[to] if k not in seen]
            out.append(run)
    return out


def keep_sides(board: Board, positions: dict, routes: dict[str, RouteShape]) -> dict[str, RouteShape]:
    """The route shapes with the tracks of shared runs exchanged where needed (see the module)."""
    routes = dict(routes)
    for run in chains(board):
        for (first, second), frm, to in run:
            if first.id not in routes or second.id not in routes:
                continue
            if track_side(routes[first.id], routes[second.id], positions[frm]) < 0:
                a, b = routes[first.id], routes[second.id]
                routes[first.id], routes[second.id] = replace(b, route_id=first.id), replace(a, route_id=second.id)
    return routes
