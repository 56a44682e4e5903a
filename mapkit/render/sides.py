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

from mapkit.geometry import RouteShape
from mapkit.model import Board


def _side(shape: RouteShape, start, end) -> float:
    """> 0 when the track lies left of start→end (y pointing down: x right, y down)."""
    c = shape.centerline
    mx, my = (c[0][0] + c[-1][0]) / 2, (c[0][1] + c[-1][1]) / 2
    if len(c) > 2:
        mx, my = c[len(c) // 2]
    dx, dy = end[0] - start[0], end[1] - start[1]
    ox, oy = mx - (start[0] + end[0]) / 2, my - (start[1] + end[1]) / 2
    return dx * oy - dy * ox


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
            if _side(routes[first.id], positions[frm], positions[to]) < 0:
                a, b = routes[first.id], routes[second.id]
                routes[first.id], routes[second.id] = replace(b, route_id=first.id), replace(a, route_id=second.id)
    return routes
