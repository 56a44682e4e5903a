"""Which stations have room for their label: the layout's label-room test (without_room,
board_without_room, room_counts at each of ROOM_SIZES), which the local steps keep and the label
step (mapkit.layout.labels) improves.

A label is the renderer's own candidate boxes for that station (the same compass positions, line
breaks, slides and far rings, measured with the same fonts) at sizes of at least LABEL_PT: a
station has room when one of them stays inside the print's label bounds and clear of every station
marker, space and drawn line (the renderer's ferry waves and aerial-tram lines, _drawn_lines).
Other labels are not counted (the print's placement sorts those out among themselves).

Which boxes are free (Obstacles.free) is decided with the answers of GEOS's tree query (`STRtree.query(boxes, predicate="dwithin", distance=CLEARANCE_MM)`
over the station markers, the spaces and the drawn lines, and `contains(label bounds, box)`) with
numpy arithmetic deciding the boxes whose answer is certain, GEOS only the rest.

The query was most of the label-room test (a tenth of the 60-station board's layout): some 350 000
boxes, most of them against a few spaces. Here a box is

- inside the label bounds when its corners are (an axis-parallel rectangle in another: GEOS's
  contains compares the same coordinates);
- not free when an obstacle is certainly within the clearance of it: a marker (GEOS's buffer of
  its centre, quad_segs=8: a regular 32-gon inscribed in the circle of the station radius, so
  holding the circle of radius r·cos(π/32)) whose inner circle is within the clearance less EPS_MM,
  or a space (a convex quadrilateral) with a corner within the clearance less EPS_MM of the box, or
  overlapping it (no separating axis among the box's and the quadrilateral's edge normals), or
  whose distance (for disjoint convex polygons, the least distance of a corner of one to the other)
  is the clearance less EPS_MM or less;
- free when it is inside and every obstacle is certainly farther than the clearance plus EPS_MM
  (a marker's outer circle; a space's separating gap or its distance);
- otherwise (a distance within EPS_MM of the clearance, a drawn line's outline, a space that is
  not a convex quadrilateral) asked of GEOS as before, with the very same tree query.

EPS_MM (1e-7 mm) is a million times the rounding of these sums on a board of a metre, so a box
decided here gets the answer GEOS gives it. tests/test_labelroom_identity.py compares the two on
random boxes round markers, spaces and lines, on their edges and at the clearance.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import Polygon, box

from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.layout.labelboxes import candidate_boxes
from mapkit.render import labels as render_labels
from mapkit.render import scene
from mapkit.render import shapes

EPS_MM = 1e-7
_INNER = math.cos(math.pi / 32)   # a 32-gon's inscribed circle, as a part of its circumradius
_NEXT = [1, 2, 3, 0]


class Obstacles:
    """The obstacles of one label-room test: the markers at `centres` (radius), the space polygons
    and the drawn lines' outlines, in the order board_without_room made its tree of them."""

    def __init__(self, centres: list, radius: float, spaces: np.ndarray, lines: list, serials=None):
        self.centres, self.radius = centres, float(radius)
        self.spaces, self.lines = spaces, lines
        # the spaces' numbers (geometry.Layout._space_serials: one a space shape, never reused), for near()
        self.serials = None if serials is None or len(serials) != len(spaces) else np.asarray(serials, dtype=np.int64)
        self.c = np.asarray(centres, dtype=float).reshape(-1, 2)
        nq = len(spaces)
        q = None
        if nq:
            xy = shapely.get_coordinates(spaces)
            if len(xy) == 5 * nq:
                q = xy.reshape(nq, 5, 2)[:, :4]
        if q is not None:
            # convex quadrilaterals only (the spaces' rectangles): the others are asked of GEOS
            e = q[:, _NEXT] - q
            f = e[:, _NEXT]
            cross = e[:, :, 0] * f[:, :, 1] - e[:, :, 1] * f[:, :, 0]
            if not ((cross >= 0).all(1) | (cross <= 0).all(1)).all():
                q = None
        self.nm = len(self.c)
        self.nq = nq if q is not None else 0
        r = self.radius
        env = [np.concatenate([self.c - r, self.c + r], axis=1)]
        if q is not None:
            self.q, self.e = q, e
            lo, hi = q.min(1), q.max(1)
            env.append(np.concatenate([lo, hi], axis=1))
            # the separating axes of a box and each quadrilateral: x, y and the quadrilateral's
            # unit edge normals, with its extent along each (a degenerate edge's axis is left
            # out: its extent unbounded)
            ln = np.sqrt(e[:, :, 0] ** 2 + e[:, :, 1] ** 2)
            use = ln > 0
            safe = np.where(use, ln, 1.0)
            nx = np.where(use, -e[:, :, 1] / safe, 0.0)
            ny = np.where(use, e[:, :, 0] / safe, 0.0)
            proj = nx[:, :, None] * q[:, None, :, 0] + ny[:, :, None] * q[:, None, :, 1]
            one, zero = np.ones((nq, 1)), np.zeros((nq, 1))
            self.ax = np.concatenate([one, zero, nx], axis=1)
            self.ay = np.concatenate([zero, one, ny], axis=1)
            self.aax, self.aay = np.abs(self.ax), np.abs(self.ay)
            self.pmin = np.concatenate([lo, np.where(use, proj.min(2), -np.inf)], axis=1)
            self.pmax = np.concatenate([hi, np.where(use, proj.max(2), np.inf)], axis=1)
        rest = ([] if q is not None else list(spaces)) + list(lines)
        if rest:
            env.append(shapely.bounds(np.asarray(rest, dtype=object)))
        self.env = np.concatenate(env)
        self._tree = None

    def near(self, env):
        """What decides the answers for boxes within the envelope env (x0, y0, x1, y1): the
        centres of the markers and the numbers of the spaces within reach of it (the candidates of
        _decide for any box in it); None when a drawn line or a space without a number is (or env
        is None: no boxes)."""
        if env is None or self.serials is None:
            return None
        m = render_labels.CLEARANCE_MM + 1e-6
        e = self.env
        hit = np.flatnonzero((env[0] - m <= e[:, 2]) & (env[2] + m >= e[:, 0])
                             & (env[1] - m <= e[:, 3]) & (env[3] + m >= e[:, 1]))
        nm, nq = self.nm, self.nq
        if len(hit) and hit[-1] >= nm + nq:
            return None
        k = int(np.searchsorted(hit, nm))
        return (tuple(map(tuple, self.c[hit[:k]].tolist())), tuple(self.serials[hit[k:] - nm].tolist()))

    def tree(self) -> STRtree:
        """board_without_room's tree of every obstacle (markers, spaces, drawn lines)."""
        if self._tree is None:
            markers = _markers(self.centres, self.radius)
            self._tree = STRtree(np.concatenate([np.asarray(markers, dtype=object), self.spaces,
                                                 np.asarray(self.lines, dtype=object)]))
        return self._tree

    def free(self, b: np.ndarray, o: np.ndarray, bounds) -> np.ndarray:
        """For each box of b ((n, 4): x0, y0, x1, y1; o its station, non-decreasing): inside the
        label bounds (a shapely box) and clear of every obstacle by CLEARANCE_MM."""
        bx0, by0, bx1, by1 = bounds.bounds
        inside = (b[:, 0] >= bx0) & (b[:, 1] >= by0) & (b[:, 2] <= bx1) & (b[:, 3] <= by1)
        idx = np.flatnonzero(inside)
        free = np.zeros(len(b), dtype=bool)
        if not len(idx):
            return free
        bb, oo = b[idx], o[idx]
        c = render_labels.CLEARANCE_MM
        hit, amb = self._decide(bb, oo, c)
        ok = ~hit & ~amb
        ask = np.flatnonzero(amb & ~hit)
        if len(ask):
            boxes = shapely.box(bb[ask, 0], bb[ask, 1], bb[ask, 2], bb[ask, 3])
            got = self.tree().query(boxes, predicate="dwithin", distance=c)
            clear = np.ones(len(ask), dtype=bool)
            clear[got[0]] = False
            ok[ask] = clear
        free[idx] = ok
        return free

    def _decide(self, bb, oo, c):
        """(certainly within c of an obstacle, not certain) for each box."""
        n = len(bb)
        hit = np.zeros(n, dtype=bool)
        amb = np.zeros(n, dtype=bool)
        env = self.env
        if not len(env):
            return hit, amb

        m = c + 1e-6   # candidate pairs: envelopes within c (a superset of GEOS's)
        # the pairs of boxes and obstacles whose envelopes come within m: per station first (the
        # envelope of all its boxes), then box by box among that station's
        cut = np.flatnonzero(oo[1:] != oo[:-1]) + 1
        start = np.concatenate([[0], cut]).tolist()
        stop = np.concatenate([cut, [n]]).tolist()
        lo = bb[:, :2] - m
        hi = bb[:, 2:] + m
        ex0, ey0, ex1, ey1 = env[:, 0], env[:, 1], env[:, 2], env[:, 3]
        bis, ojs = [], []
        for a, z in zip(start, stop):
            l, h = lo[a:z], hi[a:z]
            near = np.flatnonzero((l[:, 0].min() <= ex1) & (h[:, 0].max() >= ex0)
                                  & (l[:, 1].min() <= ey1) & (h[:, 1].max() >= ey0))
            if not len(near):
                continue
            e = env[near]
            ok = ((l[:, 0, None] <= e[:, 2]) & (h[:, 0, None] >= e[:, 0])
                  & (l[:, 1, None] <= e[:, 3]) & (h[:, 1, None] >= e[:, 1]))
            r, k = np.nonzero(ok)
            bis.append(r + a)
            ojs.append(near[k])
        if not bis:
            return hit, amb
        bi, oj = np.concatenate(bis), np.concatenate(ojs)
        nm, nq = self.nm, self.nq
        # markers
        mk = oj < nm
        if mk.any():
            i, j = bi[mk], oj[mk]
            cx, cy = self.c[j, 0], self.c[j, 1]
            dx = np.maximum(np.maximum(bb[i, 0] - cx, cx - bb[i, 2]), 0.0)
            dy = np.maximum(np.maximum(bb[i, 1] - cy, cy - bb[i, 3]), 0.0)
            d = np.sqrt(dx * dx + dy * dy)
            r = self.radius
            sure = d - r * _INNER <= c - EPS_MM
            hit[i[sure]] = True
            amb[i[~sure & ~(d - r > c + EPS_MM)]] = True
        # spaces: overlapping the box (no separating axis), far from it (a separating gap over c),
        # or between, where their distance decides; only for boxes not hit yet
        # (each box's first space, then the others of the boxes still not hit: most boxes are hit
        # by the first)
        qk = np.flatnonzero((oj >= nm) & (oj < nm + nq))
        qk = qk[~hit[bi[qk]]]
        if len(qk):
            i = bi[qk]
            first = np.ones(len(qk), dtype=bool)
            first[1:] = i[1:] != i[:-1]     # (the pairs are in the order of their boxes)
            for part in (qk[first], qk[~first]):
                part = part[~hit[bi[part]]]
                if not len(part):
                    continue
                i, j = bi[part], oj[part] - nm
                sure, unsure = self._quad_pairs(bb[i], j, c)
                hit[i[sure]] = True
                amb[i[unsure]] = True
        # anything else (drawn lines, spaces that are not convex quadrilaterals): GEOS decides
        other = oj >= nm + nq
        if other.any():
            amb[bi[other]] = True
        return hit, amb

    def _quad_pairs(self, bb, j, c):
        """(certainly within c, not certain) of axis-parallel boxes bb (k, 4) and the convex
        quadrilaterals j."""
        x0, y0, x1, y1 = bb[:, 0], bb[:, 1], bb[:, 2], bb[:, 3]
        # the largest separating gap along x, y and the quadrilateral's edge normals (each a lower
        # bound of the distance); none positive: the two overlap
        cx, cy = ((x0 + x1) / 2)[:, None], ((y0 + y1) / 2)[:, None]
        hw, hh = ((x1 - x0) / 2)[:, None], ((y1 - y0) / 2)[:, None]
        mid = self.ax[j] * cx + self.ay[j] * cy
        ext = self.aax[j] * hw + self.aay[j] * hh
        gap = np.maximum(self.pmin[j] - (mid + ext), (mid - ext) - self.pmax[j]).max(1)
        sure = gap <= 0
        unsure = np.zeros(len(j), dtype=bool)
        near = np.flatnonzero(~sure & (gap <= c + EPS_MM))
        if len(near):
            # the distance of disjoint convex polygons: a corner of one to the other
            q, e = self.q[j[near]], self.e[j[near]]
            b0, b1, b2, b3 = x0[near][:, None], y0[near][:, None], x1[near][:, None], y1[near][:, None]
            ddx = np.maximum(np.maximum(b0 - q[:, :, 0], q[:, :, 0] - b2), 0.0)
            ddy = np.maximum(np.maximum(b1 - q[:, :, 1], q[:, :, 1] - b3), 0.0)
            d1 = (ddx * ddx + ddy * ddy).min(1)
            bx = np.concatenate([b0, b2, b2, b0], axis=1)
            by = np.concatenate([b1, b1, b3, b3], axis=1)
            px = bx[:, None, :] - q[:, :, None, 0]
            py = by[:, None, :] - q[:, :, None, 1]
            ex, ey = e[:, :, None, 0], e[:, :, None, 1]
            ll = ex * ex + ey * ey
            t = np.clip((px * ex + py * ey) / np.where(ll > 0, ll, 1.0), 0.0, 1.0)
            rx, ry = px - t * ex, py - t * ey
            d2 = (rx * rx + ry * ry).reshape(len(near), -1).min(1)
            dist = np.sqrt(np.minimum(d1, d2))
            sure[near] = dist <= c - EPS_MM
            unsure[near] = ~(dist <= c - EPS_MM) & ~(dist > c + EPS_MM)
        return sure, unsure


LABEL_PT = 10.0          # the size every station label should find room at (hubs one point more)
LABEL_REACH_MM = 45.0    # stations this close to a moved one can gain or lose room
FIRST_BOXES = 16         # candidate boxes of each station tested before the rest (without_room)


def label_bounds(ph) -> Polygon:
    """Where the print lets labels go (inside the scoring track), as mapkit.render.scene does.
    Made once a board size and margin (the tightening and the polish ask it for every part judged)."""
    key = (ph.margin_mm, ph.width_mm, ph.height_mm)
    got = _BOUNDS.get(key)
    if got is None:
        inset = shapes.track_band(ph.margin_mm).inner + 1.0
        if len(_BOUNDS) >= 64:
            _BOUNDS.clear()
        got = _BOUNDS[key] = box(inset, inset, ph.width_mm - inset, ph.height_mm - inset)
    return got


_BOUNDS: dict = {}   # (margin, width, height) -> label_bounds (a shapely polygon: immutable)


def without_room(data: dict, only=None, size: float = LABEL_PT) -> list[str]:
    """Ids of the stations (of `only`, or all) with no label candidate of `size` pt or more that is
    clear of markers and spaces and inside the label bounds."""
    board = build_board(data)
    return board_without_room(board, Layout(board), only, size)


def board_without_room(board, layout: Layout, only=None, size: float = LABEL_PT, after: float | None = None,
                       memo: bool = True) -> list[str]:
    """without_room of a built board and its Layout (mapkit.layout.repair.Part: the one its checks used).
    after: a larger size at which every station asked about was found without room on this very
    board and Layout (room_counts): the boxes of that size, the first of this size's, are not asked again.
    memo: False to work every station's answer out afresh instead of giving the one remembered under
    what it depends on (the same answers: tests/test_labelroom_identity.py compares them)."""
    ph = board.physical
    obstacles = _obstacles(board, layout)
    bounds = label_bounds(ph)
    where = (bounds.bounds, ph.station_radius_mm)
    # every candidate box of every station asked about, made and tested in one array call each
    # (one shapely object at a time, this was most of a layout's polish step)
    # (the renderer's boxes, from mapkit.layout.labelboxes: the same numbers without a Candidate each)
    # A station's answer is remembered (_ROOM) under everything it depends on: its boxes (their
    # arguments, and how many are skipped), the label bounds, and the obstacles that come within
    # the clearance of the envelope of all its boxes (markers by centre, spaces by their numbers;
    # a station with a drawn line there is not remembered): the polish and the tightening ask
    # the same unmoved stations round a move again and again.
    ids, owner, coords, known, keys = [], [], [], [], []
    for s in board.stations:
        if only is not None and s.id not in only:
            continue
        need = size + (1.0 if s.hub else 0.0)
        xy = layout.positions[s.id]
        boxes, env = _boxes_env(s.name, xy, ph.station_radius_mm, s.label, s.hub, need)
        skip = 0
        if after is not None:
            # a station's boxes at a smaller size begin with those of the larger one (labelboxes:
            # the sizes largest first, the same numbers), all of them blocked there
            skip = len(_boxes(s.name, xy, ph.station_radius_mm, s.label, s.hub, after + (1.0 if s.hub else 0.0)))
            boxes = boxes[skip:]
        near = obstacles.near(env) if memo else None
        key = None if near is None else ((s.name, xy, s.label, s.hub, need), skip, where, near)
        got = None if key is None else _ROOM.get(key)
        known.append(got)
        keys.append(key)
        if got is None:
            owner.append(np.full(len(boxes), len(ids), dtype=int))
            coords.append(boxes)
        ids.append(s.id)
    if not ids:
        return []
    has_room = np.array([bool(v) for v in known], dtype=bool)
    owner_a = np.concatenate(owner) if owner else np.zeros(0, dtype=int)
    if len(owner_a):
        xy = np.concatenate(coords)
        # a station has room when any one box is free, and most find it among their first few
        # (the renderer's preferred positions): those are tested first, the rest only for the
        # stations still without room (the same answer, a fraction of the tests)
        first = np.searchsorted(owner_a, owner_a, side="left")
        rank = np.arange(len(owner_a)) - first
        for stage in (rank < FIRST_BOXES, rank >= FIRST_BOXES):
            pick = stage & ~has_room[owner_a]
            if not pick.any():
                continue
            b, o = xy[pick], owner_a[pick]
            free = obstacles.free(b, o, bounds)
            has_room[o[free]] = True
    if len(_ROOM) >= CACHE_SIZE:
        _ROOM.clear()
    for n, (got, key) in enumerate(zip(known, keys)):
        if got is None and key is not None:
            _ROOM[key] = bool(has_room[n])
    out = [sid for sid, ok in zip(ids, has_room) if not ok]
    return out


def _obstacles(board, layout) -> Obstacles:
    """The markers, spaces and drawn lines labels must keep clear of (labelroom.Obstacles), made
    once a Layout (room_counts asks its board at up to three sizes)."""
    got = layout.__dict__.get("_label_obstacles")
    if got is not None and got[0] is board:
        return got[1]
    ph = board.physical
    centres = list(layout.positions.values())
    if len(layout.routes) == len(layout._shapes):
        # the Layout's own space polygons (its checks made them): shapely.polygons of the same
        # corners, route by route in the same order (a board with a repeated route id has fewer
        # entries in layout.routes: its spaces are made from those, as before)
        spaces = layout.space_polygons
    else:
        corners = [c for shape in layout.routes.values() for c in shape.spaces]
        spaces = shapely.polygons(np.asarray(corners, dtype=float).reshape(-1, 4, 2))   # the same rings, in one call
    lines = _drawn_lines(board, layout)
    serials = layout._space_serials if len(layout.routes) == len(layout._shapes) else None
    out = Obstacles(centres, ph.station_radius_mm, spaces, lines, serials)
    layout.__dict__["_label_obstacles"] = (board, out)
    return out


def _drawn_lines(board, layout) -> list:
    """The outlines of the lines the renderer draws beside the spaces of ferry and water-taxi routes
    (a wave) and aerial trams (its cable): mapkit.render.scene.guide_line and line_outline, as
    scene.build_scene counts them for its labels. A label over one has no room in the print.
    Flights are left out: the renderer draws their line along a path of its own."""
    ph = board.physical
    out = []
    kinds = {r.id: r.kind for r in board.routes}
    for rid, shape in layout.routes.items():
        kind = kinds.get(rid)
        if kind not in scene.GUIDE_KINDS:
            continue
        key = (kind, tuple(shape.centerline), ph.station_radius_mm)
        got = _LINES.get(key)
        if got is None:
            guide = scene.guide_line(ph, kind, shape.centerline)
            got = scene.line_outline(guide[0], guide[2])
            if len(_LINES) >= CACHE_SIZE:
                _LINES.clear()
            _LINES[key] = got
        out.append(got)
    return out


_LINES: dict = {}     # (kind, centreline, radius) -> the drawn line's outline
# A station's boxes and marker depend only on what they are made from: the polish asks about the
# same few unmoved stations around each move hundreds of times. Emptied when full (bounded memory).
_BOXES: dict = {}     # candidate_boxes arguments -> its (read-only) array
_MARKERS: dict = {}   # (x, y, radius) -> the marker polygon (quad_segs=8, as the renderer's test uses)
CACHE_SIZE = 20_000
_ROOM: dict = {}      # (boxes' arguments, boxes skipped, (label bounds, radius), obstacles near) -> has room
_ENVS: dict = {}      # candidate_boxes arguments -> the envelope of all the boxes


def _boxes_env(name, xy, radius, preferred, hub, need) -> tuple[np.ndarray, tuple]:
    """_boxes and the envelope (x0, y0, x1, y1) of all of them."""
    out = _boxes(name, xy, radius, preferred, hub, need)
    key = (name, xy, radius, preferred, hub, need)
    env = _ENVS.get(key)
    if env is None:
        env = (float(out[:, 0].min()), float(out[:, 1].min()), float(out[:, 2].max()), float(out[:, 3].max())) if len(out) else None
        if len(_ENVS) >= CACHE_SIZE:
            _ENVS.clear()
        _ENVS[key] = env
    return out, env


def _boxes(name, xy, radius, preferred, hub, need) -> np.ndarray:
    key = (name, xy, radius, preferred, hub, need)
    out = _BOXES.get(key)
    if out is None:
        out = candidate_boxes(name, xy, radius, preferred, hub, need)
        out.setflags(write=False)
        if len(_BOXES) >= CACHE_SIZE:
            _BOXES.clear()
        _BOXES[key] = out
    return out


def _markers(centres: list, radius: float) -> np.ndarray:
    """shapely.buffer of the points at these centres, quad_segs=8: the ones made before reused
    (GEOS's buffer of the same point is the same polygon)."""
    got = [_MARKERS.get((*c, radius)) for c in centres]
    todo = [n for n, g in enumerate(got) if g is None]
    if todo:
        made = shapely.buffer(shapely.points(np.asarray([centres[n] for n in todo], dtype=float).reshape(-1, 2)),
                              radius, quad_segs=8)
        if len(_MARKERS) >= CACHE_SIZE:
            _MARKERS.clear()
        for n, m in zip(todo, made):
            got[n] = _MARKERS[(*centres[n], radius)] = m
    return np.array(got, dtype=object)


ROOM_SIZES = (7.0, 8.0, LABEL_PT)   # label room counted at these sizes, smallest first (room_counts)


def room_counts(part, only=None, data=None, sizes=None) -> tuple[int, ...]:
    """Stations (of `only`, or all) without label room at each of `sizes` (ROOM_SIZES), smallest
    size first, on a mapkit.layout.repair.Part (or a board dict, `data`). A station with room at a
    size has it at every smaller one (its boxes are a part of theirs): each smaller size is asked
    only of the stations without room at the size above it."""
    sizes = ROOM_SIZES if sizes is None else tuple(sorted(sizes))
    def lacking(ask, pt, after=None):
        if part is None:
            return without_room(data, ask, pt)
        if part.board is not None:
            # (the stations asked at a smaller size have no room at the size above it, on this
            # same Layout: their boxes of that size are not asked again)
            return board_without_room(part.board, part.layout(), ask, pt, after)
        return without_room(part.data, ask, pt)
    out = [lacking(only, sizes[-1])]
    for pt, above in zip(reversed(sizes[:-1]), reversed(sizes[1:])):
        out.append(lacking(set(out[-1]), pt, above) if out[-1] else [])
    return tuple(len(x) for x in reversed(out))


def worse_room(after, before) -> bool:
    """More stations without label room at any of ROOM_SIZES (room_counts): a move that takes one
    label's room at 8 pt is not paid for by another's at 10 pt."""
    return any(a > b for a, b in zip(after, before))
