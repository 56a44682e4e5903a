"""Board geometry with shapely: positions, route centrelines, spaces, and what collides.

It draws nothing and returns plain coordinates (tuples of mm, x from the left edge, y from the
top edge); the checks turn its findings into problems and the renderer draws what it is given.
See docs/board-format.md for the rules this implements.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import LineString, Polygon, box

from mapkit.model import Board

XY = tuple[float, float]
MIN_AREA_MM2 = 0.5  # overlaps smaller than this are rounding, not a printing problem
# A route end's need (space_placement): the margins its first space keeps from its neighbours' bands
# at a shared station, smaller than the optimizer's (crowding.HALF_EXTRA_MM, ANGLE_CLEAR): the
# checks only ask that the spaces do not overlap
END_HALF_EXTRA_MM = 0.25
END_ANGLE_CLEAR = 0.02
WIDEST_END_GAP_MM = 30.0   # an end that would need more than this gets no more than the even spread
# needs are rounded up to this step: a point moved a little turns the first segments of its
# neighbours' routes a little, and their other ends' neighbours' spaces should not all move with it
# (the layout's repair judges a move on the part of the board near it)
NEED_STEP_MM = 1.0


def continuous_lon(lons):
    """lon -> the same longitude on one continuous scale for these stations: where taking the
    western longitudes (below 0) as +360 makes them span less (a network around ±180°: Fiji's
    177.5 to −178.5 spans 4°, not 356°), those are taken +360 so the network is one piece; for any
    other network lon itself, unchanged to the last bit."""
    lons = list(lons)
    if lons and max(lons) - min(lons) > 180:
        east = [x + 360.0 if x < 0 else x for x in lons]
        if max(east) - min(east) < max(lons) - min(lons):
            return lambda lon: lon + 360.0 if lon < 0 else lon
    return lambda lon: lon


def projector(board: Board):
    """A function (lat, lon) → (x, y) mm fitting every station into the board's inner area.

    Equirectangular at the stations' mean latitude, uniform scale, centred (docs/board-format.md).
    """
    ph = board.physical
    lat0 = sum(s.lat for s in board.stations) / len(board.stations)
    k = math.cos(math.radians(lat0))
    east = continuous_lon(s.lon for s in board.stations)
    xs = [east(s.lon) * k for s in board.stations]
    ys = [s.lat for s in board.stations]
    pad = ph.margin_mm + ph.station_radius_mm
    avail_w, avail_h = ph.width_mm - 2 * pad, ph.height_mm - 2 * pad
    span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
    scale = min(avail_w / span_x if span_x else math.inf, avail_h / span_y if span_y else math.inf)
    if not math.isfinite(scale):
        scale = 1.0
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2

    def project(lat: float, lon: float) -> XY:
        return (ph.width_mm / 2 + (east(lon) * k - cx) * scale, ph.height_mm / 2 - (lat - cy) * scale)

    return project


@dataclass(frozen=True)
class RouteShape:
    """Where one route is drawn: its track's centreline and its spaces."""

    route_id: str
    centerline: tuple[XY, ...]
    usable_mm: float      # centreline length less one station radius at each end
    needed_mm: float      # what its spaces need with the smallest gaps
    spaces: tuple[tuple[XY, XY, XY, XY], ...]  # rectangle corners, in order
    # (gap at end a, gap between spaces, gap at end b) as placed (space_placement), and what each end
    # needs (0: nothing beyond the even spread); None where not known (flights drawn by the renderer)
    gaps: tuple[float, float, float] | None = None
    needs: tuple[float, float] | None = None

    @property
    def stretch(self) -> float:
        return self.usable_mm / self.needed_mm if self.needed_mm else 1.0


class Layout:
    """The geometry of a whole board, computed once and queried by checks and the renderer.

    Shapes are built and compared with shapely 2's array functions (one call for all the spaces of
    a board, one tree query for all pairs) rather than one object at a time: the layout's repair
    step runs these checks hundreds of times. Each array call is the same GEOS operation the
    one-at-a-time version made, in the same order, so the findings are identical
    (tests/test_geometry_fast.py compares them with tests/geometry_plain.py)."""

    def __init__(self, board: Board, needs: dict | None = None, even: bool = False):
        """needs: {route id: (need at its a, need at its b)} where the board is a part of a larger
        one (the layout's repair judges parts): the needs the whole board gives its routes, which
        the part's own stations, missing some of their routes, would not (end_needs otherwise).
        even: every route's spaces spread evenly, no end given its need (the layout's repairs judge
        the drawing so: their models and moves are made for the even spread); the board as
        written, checked and printed has the placement by needs (docs/board-format.md)."""
        self.board = board
        self._finish(*self._route_keys(needs, even))

    def _finish(self, todo: list, keys: list, found: list | None = None) -> None:
        """The route shapes of a Layout whose positions and route keys are known (_route_keys);
        found: the keys' entries in _SHAPES where the caller has looked them up (layouts_of), None
        for one not there."""
        board = self.board
        ph = board.physical
        radius, length, gap = ph.station_radius_mm, ph.space_length_mm, ph.space_gap_mm
        self.routes: dict[str, RouteShape] = {}
        # one look-up a key (hashing these nested tuples is a good part of a warm Layout's time)
        shapes, missing = [], {}
        for n, key in enumerate(keys):
            sh = _SHAPES.get(key) if found is None else found[n]
            shapes.append(sh)
            if sh is None:
                missing.setdefault(key, []).append(n)
        if missing:
            for key, sh in _build_shapes(list(missing)).items():
                for n in missing[key]:
                    shapes[n] = sh
        self._keys = keys
        self._shapes = shapes
        self._lines = np.array([sh[0] for sh in shapes], dtype=object)
        counts = [r.length for r in todo]
        self._space_owner_index = np.repeat(np.arange(len(todo), dtype=int), counts)
        # each shape's spaces' names, made with it (r.length of them, r.length being key[2])
        self._space_serials = [name for sh in shapes for name in sh[7]]
        for r, key, sh in zip(todo, keys, shapes):
            # a RouteShape is a function of its key (points, length, the board's sizes, the end
            # needs) and the route's id: made once a shape and id, and shared (it is frozen)
            made = sh[8]
            shape = made.get(r.id)
            if shape is None:
                n = r.length
                usable = max(0.0, sh[1] - 2 * radius)
                shape = made[r.id] = RouteShape(r.id, sh[3], usable, n * length + (n + 1) * gap, sh[4],
                                                space_placement(usable, n, length, gap, *key[4]), key[4])
            self.routes[r.id] = shape
        self._route_index = [r.id for r in todo]

    @cached_property
    def _project(self):
        """projector(board), made only for a station or waypoint without a board position (the
        layout's boards have none such)."""
        return projector(self.board)

    def _route_keys(self, given: dict | None = None, even: bool = False) -> tuple[list, list]:
        """self.positions, and (the routes drawn, each one's key in _SHAPES); given: the routes'
        end needs where known (Layout)."""
        board = self.board
        ph = board.physical
        self.positions: dict[str, XY] = {
            s.id: (s.board.x, s.board.y) if s.board is not None else self._project(s.lat, s.lon)
            for s in board.stations
        }
        offsets = _track_offsets(board, ph.space_width_mm / 2 + 1)
        todo = [r for r in board.routes if r.a in self.positions and r.b in self.positions and r.a != r.b]
        phys = (ph.station_radius_mm, ph.space_length_mm, ph.space_gap_mm, ph.space_width_mm)
        # a route's shape depends only on its points, its offset, its length, the board's sizes and
        # what its ends need (end_needs, from the points of the routes round its end stations): that
        # is its key in _SHAPES, so an unmoved route is not rebuilt (the repair and the polish judge
        # hundreds of boards that differ in one point)
        positions = self.positions
        allpts = []
        for r in todo:
            a, b = positions[r.a], positions[r.b]
            # _dedupe([a, *(self.point(w) for w in r.waypoints), b]), inline (a good part of the
            # time of a repair's part Layout, most of whose routes are unmoved)
            out, last = [a], a
            for w in r.waypoints:
                p = (w.x, w.y) if w.x is not None else self._project(w.lat, w.lon)
                if math.dist(p, last) > 1e-9:
                    out.append(p)
                    last = p
            if math.dist(b, last) > 1e-9:
                out.append(b)
            if len(out) == 1:   # both ends at one spot: keep a degenerate but valid line
                out.append((a[0] + 1e-6, a[1]))
            allpts.append(tuple(out))
        if even:
            needs = [(0.0, 0.0)] * len(todo)
        else:
            needs = end_needs(todo, allpts, offsets, ph) if given is None else [given[r.id] for r in todo]
        keys = []
        for r, pts, need in zip(todo, allpts, needs):
            # offset relative to the route's canonical direction, so that a track written b→a
            # still lands on its own side
            d = (1 if r.a <= r.b else -1) * offsets.get(r.id, 0.0)
            keys.append((pts, d, r.length, phys, need))
        return todo, keys

    def point(self, p) -> XY:
        return (p.x, p.y) if p.is_board else self._project(p.lat, p.lon)

    # ------------------------------------------------------------ shapely views, built once

    @cached_property
    def _discs(self):
        """The station markers, in the order of self.positions, as an array of polygons."""
        r = self.board.physical.station_radius_mm
        ids = list(self.positions)
        keys = self._disc_keys
        # one look-up a key (a Layout of the repair's finds nearly all of them)
        got = [_DISCS.get(key) for key in keys]
        missing = [n for n, g in enumerate(got) if g is None]
        if missing:
            todo = list(dict.fromkeys(keys[n] for n in missing))
            pts = shapely.points(np.array([key[:2] for key in todo], dtype=float).reshape(-1, 2))
            built = dict(zip(todo, shapely.buffer(pts, r, quad_segs=16)))
            _remember(_DISCS, built)
            got = [built[key] if g is None else g for key, g in zip(keys, got)]
        out = np.empty(len(got), dtype=object)
        out[:] = got
        return ids, out

    @cached_property
    def _disc_keys(self) -> list:
        """Each station marker's key in _DISCS ((x, y, radius)), in the order of self.positions
        (also stations_off_board's: it needs the markers themselves only for keys it has not met)."""
        r = self.board.physical.station_radius_mm
        positions = self.positions
        return [(*positions[i], r) for i in positions]

    @cached_property
    def station_discs(self) -> dict[str, Polygon]:
        ids, discs = self._discs
        return dict(zip(ids, discs))

    @property
    def space_polygons(self) -> np.ndarray:
        """Every space's rectangle as a shapely polygon, route by route in the board's order (the
        layout's flight routing measures its grid against them)."""
        return self._space_index[0]

    @cached_property
    def _space_index(self):
        polys = np.concatenate([sh[5] for sh in self._shapes]) if self._shapes else np.zeros(0, dtype=object)
        owners = [self._route_index[k] for k in self._space_owner_index.tolist()]
        return polys, owners, STRtree(polys)

    def inner_area(self) -> Polygon:
        ph = self.board.physical
        m = ph.margin_mm
        return box(m, m, ph.width_mm - m, ph.height_mm - m)

    # ------------------------------------------------------------ findings

    def station_overlaps(self) -> list[tuple[str, str, float]]:
        """Pairs of stations whose markers are closer than two radii plus 3 mm, with the distance."""
        r = self.board.physical.station_radius_mm
        ids = list(self.positions)
        xy = np.array([self.positions[i] for i in ids], dtype=float).reshape(-1, 2)
        if _no_pair_within(xy, 2 * r + 3):
            return []   # what the tree query below finds then (the layout's boards: nearly always)
        pts = shapely.points(xy)
        tree = STRtree(pts)
        found = []
        for i, j in zip(*tree.query(pts, predicate="dwithin", distance=2 * r + 3).tolist()):
            if j > i:
                found.append((ids[i], ids[j], math.dist(self.positions[ids[i]], self.positions[ids[j]])))
        return found

    def _inside(self, shapes: np.ndarray) -> np.ndarray:
        """shapely.contains(self.inner_area(), shapes) without making the rectangle: a polygon with
        an area lies in a rectangle exactly when its bounds do (a polygon is inside the convex hull
        of its vertices, and GEOS's own rectangle test compares the envelopes in the same floats);
        a polygon with no area (none is made here, but a board could) gets GEOS's answer."""
        if not len(shapes):
            return np.zeros(0, dtype=bool)
        ph = self.board.physical
        m = ph.margin_mm
        b = shapely.bounds(shapes)
        # box(m, m, W - m, H - m) has these coordinates, computed the same way
        lo_x, lo_y, hi_x, hi_y = float(m), float(m), float(ph.width_mm - m), float(ph.height_mm - m)
        inside = (b[:, 0] >= lo_x) & (b[:, 1] >= lo_y) & (b[:, 2] <= hi_x) & (b[:, 3] <= hi_y)
        flat = inside & ~(shapely.area(shapes) > 0.0)
        if flat.any():
            inside[flat] = shapely.contains(self.inner_area(), shapes[flat])
        return inside

    def _area_key(self) -> tuple:
        ph = self.board.physical
        return (ph.margin_mm, ph.width_mm, ph.height_mm)

    def stations_off_board(self) -> list[str]:
        # _inside of each marker (a function of its polygon, which is one of its key in _DISCS,
        # and of the playing area) remembered under both: the repair's parts move one point
        # (one dict a playing area, keyed like _DISCS: the keys _discs made, without a nested
        # tuple to hash a station)
        keys, area = self._disc_keys, self._area_key()
        known = _INSIDE.get(area)
        if known is None:
            if len(_INSIDE) >= 64:
                _INSIDE.clear()
            known = _INSIDE[area] = {}
        inside = [known.get(key) for key in keys]
        todo = [n for n, v in enumerate(inside) if v is None]
        if todo:
            got = self._inside(self._discs[1][todo]).tolist()   # (the markers made only now)
            _remember(known, {keys[n]: v for n, v in zip(todo, got)})
            for n, v in zip(todo, got):
                inside[n] = v
        return [sid for sid, ok in zip(self.positions, inside) if not ok]

    def routes_off_board(self) -> list[str]:
        # _inside of each route's spaces (a function of its shape and the playing area) remembered
        # with the shape (its entry 8, under the area's key)
        area, off, todo = ("inside", *self._area_key()), set(), []
        for k, sh in enumerate(self._shapes):
            ok = sh[8].get(area)
            if ok is None:
                todo.append(k)
            elif not ok:
                off.add(self._route_index[k])
        if todo:
            got = self._inside(np.concatenate([self._shapes[k][5] for k in todo])).tolist()
            j = 0
            for k in todo:
                sh = self._shapes[k]
                n = len(sh[5])
                ok = sh[8][area] = all(got[j:j + n])
                j += n
                if not ok:
                    off.add(self._route_index[k])
        return sorted(off)

    def space_overlaps(self) -> list[tuple[str, str, float]]:
        """Pairs of routes whose spaces overlap, with the overlapping area in mm²."""
        polys, owners, tree = self._space_index
        ii, jj = tree.query(polys)
        own = self._space_owner_index
        keep = (jj > ii) & (own[ii] != own[jj])
        ii, jj = ii[keep], jj[keep]
        sk = self._space_serials
        ii, jj = ii.tolist(), jj.tolist()
        # (each pair's key made once, for both caches)
        ii, jj, keys = _meeting_kept([(sk[i], sk[j]) for i, j in zip(ii, jj)], polys, ii, polys, jj)
        areas = _shared_areas(keys, polys, ii, polys, jj)
        area: dict[tuple[str, str], float] = {}
        for i, j, a in zip(ii, jj, areas):
            if a > MIN_AREA_MM2:
                key = tuple(sorted((owners[i], owners[j])))
                area[key] = area.get(key, 0.0) + a
        return [(a, b, v) for (a, b), v in sorted(area.items())]

    def spaces_on_stations(self) -> list[tuple[str, str, float]]:
        """(route id, station id, area) where a space covers a station marker."""
        polys, owners, tree = self._space_index
        ids, discs = self._discs
        ii, jj = tree.query(discs)
        sk, r = self._space_serials, self.board.physical.station_radius_mm
        ii, jj = ii.tolist(), jj.tolist()
        ii, jj, keys = _meeting_kept([((*self.positions[ids[i]], r), sk[j]) for i, j in zip(ii, jj)], discs, ii, polys, jj)
        areas = _shared_areas(keys, discs, ii, polys, jj)
        found: dict[tuple[str, str], float] = {}
        for i, j, a in zip(ii, jj, areas):
            if a > MIN_AREA_MM2:
                found[(owners[j], ids[i])] = found.get((owners[j], ids[i]), 0.0) + a
        return [(rid, sid, v) for (rid, sid), v in sorted(found.items())]

    def crossings(self) -> list[tuple[str, str, XY]]:
        """Pairs of routes whose centrelines cross outside station markers (overpasses excepted)."""
        by_id = {r.id: r for r in self.board.routes}
        which = [k for k, rid in enumerate(self._route_index) if not by_id[rid].overpass]
        rts = [by_id[self._route_index[k]] for k in which]
        # an unmoved route between unmoved stations was clipped before: the same two differences
        # (a route's shape is named by its serial, which stands for its key in _SHAPES)
        positions, shapes = self.positions, self._shapes
        keys = [(shapes[k][6], positions[r.a], positions[r.b]) for k, r in zip(which, rts)]
        got = [_CLIPPED.get(key) for key in keys]
        todo = [n for n, v in enumerate(got) if v is None]
        if todo:
            disc = self.station_discs
            ks, rs = [which[n] for n in todo], [rts[n] for n in todo]
            built = _clip([keys[n] for n in todo], self._lines[ks], [disc[r.a] for r in rs], [disc[r.b] for r in rs])
            for n in todo:
                got[n] = built[keys[n]]   # (a key met twice: both take the entry kept, as before)
        kept = [n for n, (_, _, e) in enumerate(got) if not e]
        lines = np.array([got[n][0] for n in kept], dtype=object)
        serials = [got[n][1] for n in kept]
        ids = [rts[n].id for n in kept]
        tree = STRtree(lines)
        ph = self.board.physical
        near = ph.station_radius_mm + ph.space_gap_mm + ph.space_width_mm
        # the tree's pairs in its order, each once (j > i), less a double's two tracks
        ii, jj = tree.query(lines)
        up = jj > ii
        dbl = [by_id[rid].double for rid in ids]
        pairs = [(i, j) for i, j in zip(ii[up].tolist(), jj[up].tolist()) if not (dbl[i] and dbl[i] == dbl[j])]
        if not pairs:
            return []
        # the envelope query then the test is the query with predicate="intersects" (see _meeting)
        keys = [(serials[i], serials[j]) for i, j in pairs]
        pi, pj, keys = _meeting_kept(keys, lines, [i for i, _ in pairs], lines, [j for _, j in pairs])
        if not pi:
            return []
        pairs = list(zip(pi, pj))
        where = [_CROSSED.get(key) for key in keys]
        todo = [n for n, v in enumerate(where) if v is None]
        if todo:
            at = shapely.point_on_surface(shapely.intersection(lines[[pi[n] for n in todo]], lines[[pj[n] for n in todo]]))
            got = list(zip(shapely.get_x(at).tolist(), shapely.get_y(at).tolist()))
            _remember(_CROSSED, {keys[n]: v for n, v in zip(todo, got)}, PAIR_CACHE_SIZE)
            for n, v in zip(todo, got):
                where[n] = v
        found = []
        for (i, j), (x, y) in zip(pairs, where):
            ri, rj = by_id[ids[i]], by_id[ids[j]]
            # offset tracks of a double leave their station beside its centre and may touch a
            # neighbour's line within the first space's reach; the space checks judge that
            # (the stations both routes end at: ri.ends & rj.ends, without the two frozensets)
            if any(math.dist((x, y), positions[st]) <= near for st in (rj.a, rj.b) if st == ri.a or st == ri.b):
                continue
            found.append((ids[i], ids[j], (round(x, 1), round(y, 1))))
        return found


# Shapes already built, shared by every Layout of this process: each value is a pure function of
# its key (GEOS is deterministic), so a Layout that finds its route here gets the very numbers it
# would have computed. Emptied when full, which bounds the memory.
CACHE_SIZE = 20_000
PAIR_CACHE_SIZE = 100_000   # _MEETS, _AREAS, _CROSSED: a part of a board has hundreds of pairs (about 20 MB full)
_SHAPES: dict = {}   # (points, offset, length, sizes, end needs) -> (line, total, corners, coords, spaces, space polygons, serial,
#                      spaces' names, {route id: RouteShape, ("inside", playing area): whether all its spaces are in it})
_NEEDS: dict = {}    # (angle, half-width, half-width, radius, smallest gap) -> the gap two bands' first spaces need
_DISCS: dict = {}    # (x, y, radius) -> station marker polygon
_CLIPPED: dict = {}  # (route shape's serial, end a, end b) -> (centreline less its end stations' markers, serial, is empty)
_MEETS: dict = {}    # the keys of _AREAS or two clipped lines' serials -> whether the two shapes intersect
_CROSSED: dict = {}  # two clipped lines' serials -> the point_on_surface of their intersection
_INSIDE: dict = {}   # (margin, width, height) -> {(x, y, radius): whether that station marker is in that playing area}
_AREAS: dict = {}    # (space, space) or (marker, space) -> the area they share, a space named by its number (_SHAPES' entry 7)
_SERIAL = itertools.count()  # a new number for each shape built, so a rebuilt shape is never taken for an old one


def layouts_of(boards, needs: list | None = None, clip: bool = True, even: bool = False) -> list[Layout]:
    """Layout(board) of each board, the route shapes, station markers and clipped lines none of
    them finds in the caches built first for all of them, in one array call each: the repair judges
    a hundred boards that each differ from the one before in a point, and one call per board cost
    several times a route's own share (about 0.4 ms a call against 0.1 ms a route). The shapes are
    the ones each Layout would build (the same keys, the same functions), so what the checks find
    is unchanged. needs: each board's Layout needs (or None); clip: False to leave the clipped
    lines to each Layout's crossings (the repair stops judging most of its moves before those);
    even: Layout's even, for every board."""
    # each key looked up once (hashing the keys' nested tuples is a good part of a warm Layout's
    # time): its entry kept with the board, the keys not found built and then given to theirs
    shapes, discs, made = {}, {}, []
    for n, board in enumerate(boards):
        lay = Layout.__new__(Layout)
        lay.board = board
        todo, keys = lay._route_keys(None if needs is None else needs[n], even)
        found = [_SHAPES.get(key) for key in keys]
        made.append((lay, todo, keys, found))
        for key, sh in zip(keys, found):
            if sh is None:
                shapes.setdefault(key[3], {})[key] = None
        r = board.physical.station_radius_mm
        for key in lay._disc_keys:   # (kept by the Layout for its own markers)
            if _DISCS.get(key) is None:
                discs.setdefault(r, {})[key] = None
    built = {}
    for keys in shapes.values():   # _build_shapes takes one board's sizes a call
        built.update(_build_shapes(list(keys)))
    if built:
        for _, _, keys, found in made:
            for k, sh in enumerate(found):
                if sh is None:
                    found[k] = built.get(keys[k])
    for r, keys in discs.items():
        todo = list(keys)
        pts = shapely.points(np.array([key[:2] for key in todo], dtype=float).reshape(-1, 2))
        _remember(_DISCS, dict(zip(todo, shapely.buffer(pts, r, quad_segs=16))))
    # and the crossing test's clipped lines (Layout.crossings) of their routes that are not overpasses
    clip = {} if clip else None
    for lay, todo, keys, found in made if clip is not None else ():
        r = lay.board.physical.station_radius_mm
        for route, sh in zip(todo, found):
            if route.overpass or sh is None:
                continue
            a, b = lay.positions[route.a], lay.positions[route.b]
            ckey = (sh[6], a, b)
            if ckey not in clip and _CLIPPED.get(ckey) is None:
                da, db = _DISCS.get((*a, r)), _DISCS.get((*b, r))
                if da is not None and db is not None:
                    clip[ckey] = (sh[0], da, db)
    if clip:
        got = list(clip.values())
        _clip(list(clip), np.array([g[0] for g in got], dtype=object), [g[1] for g in got], [g[2] for g in got])
    for lay, todo, keys, found in made:
        lay._finish(todo, keys, found)
    return [lay for lay, _, _, _ in made]


def _clip(keys: list, lines, at_a: list, at_b: list) -> dict:
    """Each route line less its end stations' markers, with a serial number (its name in _MEETS
    and _CROSSED) and whether it is empty, remembered in _CLIPPED under its key."""
    cut = shapely.difference(shapely.difference(lines, np.array(at_a, dtype=object)), np.array(at_b, dtype=object))
    empty = shapely.is_empty(cut).tolist()
    built = {key: (c, next(_SERIAL), e) for key, c, e in zip(keys, cut, empty)}
    _remember(_CLIPPED, built)
    return built


def _no_pair_within(xy: np.ndarray, distance: float) -> bool:
    """Whether no two of these points are within `distance` of each other by a clear margin, so
    that STRtree's dwithin query (GEOS: sqrt(dx² + dy²) <= distance) finds no pair either: squared
    distances compared with (distance + 1e-6)², a margin some ten million times the rounding of
    these sums at board sizes. A pair within the margin, or a point not finite, is left to GEOS
    (False). Its tree and its prepared queries were about a tenth of the repair's part checks,
    which almost never find two stations that close."""
    n = len(xy)
    if n < 2:
        return True
    x, y = xy[:, 0], xy[:, 1]
    dx, dy = np.subtract.outer(x, x), np.subtract.outer(y, y)
    d2 = dx * dx
    d2 += dy * dy
    d2.flat[::n + 1] = np.inf   # no point with itself (a pair's two entries are equal: (-a)² = a²)
    # a coordinate not finite makes a NaN, which min passes on and the comparison rejects
    return bool(d2.min() > (distance + 1e-6) ** 2)


def _remember(cache: dict, items, size: int | None = None) -> None:
    if len(cache) >= (CACHE_SIZE if size is None else size):
        cache.clear()
    cache.update(items)


def _meeting(keys: list, a, ii: list, b, jj: list) -> tuple[list, list]:
    """The pairs (ii, jj) whose shapes a[i] and b[j] intersect, in their order: an STRtree query
    with predicate="intersects" is the envelope query with this test on its pairs, in its order
    (tests/test_geometry_speed.py); the answers for pairs met before come from _MEETS."""
    ii, jj, _ = _meeting_kept(keys, a, ii, b, jj)
    return ii, jj


def _meeting_kept(keys: list, a, ii: list, b, jj: list) -> tuple[list, list, list]:
    """_meeting, with the kept pairs' keys (the callers' next cache is keyed alike: made once)."""
    meets = [_MEETS.get(key) for key in keys]
    todo = [n for n, v in enumerate(meets) if v is None]
    if todo:
        left = a[[ii[n] for n in todo]]
        # prepared, as the tree query prepares its input shapes: the same test, and one preparation
        # a shape (kept with it in the caches) instead of one each query
        shapely.prepare(left)
        got = shapely.intersects(left, b[[jj[n] for n in todo]]).tolist()
        _remember(_MEETS, {keys[n]: v for n, v in zip(todo, got)}, PAIR_CACHE_SIZE)
        for n, v in zip(todo, got):
            meets[n] = v
    kept = [n for n, ok in enumerate(meets) if ok]
    return [ii[n] for n in kept], [jj[n] for n in kept], [keys[n] for n in kept]


def _shared_areas(keys: list, a, ii: list, b, jj: list) -> list[float]:
    """area(a[i] ∩ b[j]) for each pair, those of pairs met before from _AREAS, the others in one call."""
    areas = [_AREAS.get(key) for key in keys]
    todo = [n for n, v in enumerate(areas) if v is None]
    if todo:
        got = shapely.area(shapely.intersection(a[[ii[n] for n in todo]], b[[jj[n] for n in todo]])).tolist()
        _remember(_AREAS, {keys[n]: v for n, v in zip(todo, got)}, PAIR_CACHE_SIZE)
        for n, v in zip(todo, got):
            areas[n] = v
    return areas


def _build_shapes(keys: list) -> dict:
    """The shapes of routes not built before, with one array call each for all of them."""
    if not keys:
        return {}
    counts = [len(pts) for pts, *_ in keys]
    lines = shapely.linestrings(np.array([xy for pts, *_ in keys for xy in pts], dtype=float),
                                indices=np.repeat(np.arange(len(keys)), counts))
    dist = np.array([key[1] for key in keys])
    moved = np.flatnonzero(dist != 0.0)
    if len(moved):
        shifted = shapely.offset_curve(lines[moved], dist[moved], quad_segs=16, join_style="mitre", mitre_limit=3.0)
        for i, s in zip(moved, shifted):
            if isinstance(s, LineString) and not s.is_empty:
                lines[i] = s
    totals = shapely.length(lines).tolist()
    own, at = [], []   # per space: its route's index in keys, its centre's arc length
    for k, ((_, _, n, (radius, length, gap, _), need), total) in enumerate(zip(keys, totals)):
        usable = max(0.0, total - 2 * radius)
        own.extend([k] * n)
        at.extend(space_centres(usable, n, radius, length, gap, *need))
    # the sizes are one board's, the same in every key of one call
    _, _, _, (_, length, _, width), _ = keys[0]
    corners = _rectangles(lines[own] if own else lines[:0], np.array(at), np.array(totals)[own] if own else np.zeros(0),
                          length, width)
    corners.setflags(write=False)
    # each space's corners as a tuple of (x, y) tuples: the same floats as nested tuple() calls on
    # corners.tolist(), made with one tuple per point and one zip for the four corners
    xy = list(map(tuple, corners.reshape(-1, 2).tolist()))
    quads = list(zip(xy[0::4], xy[1::4], xy[2::4], xy[3::4]))
    polys = shapely.polygons(corners) if len(corners) else np.zeros(0, dtype=object)
    # every line's coordinates in one call, each line's the same tuples as tuple(line.coords)
    pts = list(map(tuple, shapely.get_coordinates(lines).tolist()))
    ends = np.cumsum(shapely.get_num_coordinates(lines)).tolist()
    built, j = {}, 0
    for key, line, total, stop, start in zip(keys, lines, totals, ends, [0] + ends[:-1]):
        n = key[2]
        spaces = tuple(quads[j:j + n])
        serial = next(_SERIAL)
        # (7: the spaces' names in the pair caches, numbers of their own from _SERIAL, so that no
        # two spaces and no space and clipped line share one: a flat pair of ints is a cheaper key
        # than ((serial, i), (serial, j)); 8: the RouteShape made of it for each route id, Layout._finish)
        built[key] = (line, total, corners[j:j + n], tuple(pts[start:stop]), spaces, polys[j:j + n], serial,
                      tuple(next(_SERIAL) for _ in range(n)), {})
        j += n
    _remember(_SHAPES, built)
    return built


def space_placement(usable: float, n: int, length: float, gap: float, need_a: float = 0.0,
                    need_b: float = 0.0) -> tuple[float, float, float]:
    """(gap at end a, gap between spaces, gap at end b) of a route of n spaces on `usable` mm (its
    centreline less a station radius at each end).

    The even spread (every one of the n+1 gaps alike) where it gives each end what it needs (need_a,
    need_b: how far from the station's rim its first space must start to clear the bands next to it
    there, end_needs); otherwise an end that needs more gets its need, an end that does not keeps
    its even gap (so nothing round its station changes) and the gaps between spaces share what is
    left, alike, none below the board's smallest gap (`gap`); where that is impossible, and on a
    route of one space (no gap between spaces to take it from), the even spread. Surplus is never
    pushed into the ends: a route longer than its spaces need has all its gaps wide."""
    even = (usable - n * length) / (n + 1)
    if (need_a <= even and need_b <= even) or n < 2:
        return even, even, even
    end_a, end_b = max(need_a, even), max(need_b, even)
    inner = (usable - n * length - end_a - end_b) / (n - 1)
    if inner < gap:
        return even, even, even
    return end_a, inner, end_b


def space_placement_arrays(usable, n, length: float, gap: float, na, nb):
    """space_placement on arrays (the layout's tightening rates many routes at once): (gap at end a, gap between spaces, gap at end b)."""
    even = (usable - n * length) / (n + 1)
    moved = ((na > even) | (nb > even)) & (n >= 2)
    ea, eb = np.maximum(na, even), np.maximum(nb, even)
    inner = (usable - n * length - ea - eb) / np.maximum(n - 1, 1)
    moved &= ~(inner < gap)
    return np.where(moved, ea, even), np.where(moved, inner, even), np.where(moved, eb, even)


def space_centres(usable: float, n: int, radius: float, length: float, gap: float, need_a: float = 0.0,
                  need_b: float = 0.0) -> list[float]:
    """The arc lengths along a route's line (from end a's station centre) of its n spaces' centres,
    placed as space_placement says (the even spread's arithmetic unchanged where it is kept)."""
    end_a, inner, end_b = space_placement(usable, n, length, gap, need_a, need_b)
    if end_a == inner == end_b:
        return [radius + inner * (i + 1) + length * (i + 0.5) for i in range(n)]
    return [radius + end_a + inner * i + length * (i + 0.5) for i in range(n)]


def end_needs(routes, points, offsets: dict, ph) -> list[tuple[float, float]]:
    """(need at end a, need at end b) of each route (routes, their points from a to b, the double
    tracks' offsets): how far from its station's rim a first space must start so that it clears
    the bands next to it round the station, both starting there (need_of's corner geometry,
    with this module's margins). A band is a route, or the two tracks of a double (half-width
    space width + 1 mm); its direction is its first segment's. 0 where the board's smallest gap is
    enough (so that a wide fan's keys do not change with its angles)."""
    w = ph.space_width_mm
    radius, smallest = ph.station_radius_mm, ph.space_gap_mm
    bands: dict = {}   # station -> {band: [angle, half-width, [(route index, end)], even gap]}
    for k, (r, pts) in enumerate(zip(routes, points)):
        band = (r.double, frozenset((r.a, r.b))) if r.id in offsets else k
        half = w + 1.0 if r.id in offsets else w / 2
        total = sum(math.dist(p, q) for p, q in zip(pts[:-1], pts[1:]))
        even = (total - 2 * radius - r.length * ph.space_length_mm) / (r.length + 1)
        for end, st, here, nxt in ((0, r.a, pts[0], pts[1]), (1, r.b, pts[-1], pts[-2])):
            at = bands.setdefault(st, {})
            item = at.get(band)
            if item is None:
                at[band] = [math.atan2(nxt[1] - here[1], nxt[0] - here[0]), half, [(k, end)], even]
            else:
                item[2].append((k, end))
                item[3] = min(item[3], even)
    return fan_needs(bands, len(routes), radius, smallest)


def fan_needs(bands: dict, count: int, radius: float, smallest: float) -> list[tuple[float, float]]:
    """end_needs from the bands round each station ({station: {band: [angle, half-width, [(item,
    end)], its even gap]}}, end 0 or 1 of items 0..count-1): each end's need, the largest of the
    pairs it is in with its neighbours round the station whose first spaces overlap at their even
    gaps (a pair that clears as the routes are drawn asks for nothing: nothing changes there), both
    given the gap at which they clear starting alike (also the layout's own, tighten.py, repair.py)."""
    out = [[0.0, 0.0] for _ in range(count)]
    todo, asks = {}, []   # pair key -> the ends it names
    for at in bands.values():
        if len(at) < 2:
            continue
        items = sorted(at.values(), key=lambda t: t[0])
        m = len(items)
        for i in range(m):
            a, b = items[i], items[(i + 1) % m]
            theta = (b[0] - a[0]) % (2 * math.pi)
            h1, h2 = (a[1], b[1]) if a[1] <= b[1] else (b[1], a[1])
            ha, hb = a[1] + END_HALF_EXTRA_MM, b[1] + END_HALF_EXTRA_MM
            if _clear(radius + max(a[3], 0.0), radius + max(b[3], 0.0), ha, hb, theta):
                continue
            key = (theta, h1, h2, radius, smallest)
            asks.append((key, a[2] + b[2]))
            if key not in _NEEDS:
                todo[key] = None
    if todo:
        _remember(_NEEDS, _pair_needs(list(todo)), PAIR_CACHE_SIZE)
    for key, ends in asks:
        v = _NEEDS.get(key)
        if v is None:
            v = _pair_needs([key])[key]
        if v > 0.0:
            for k, end in ends:
                if v > out[k][end]:
                    out[k][end] = v
    return [tuple(v) for v in out]


def station_fan(bands: list, radius: float, smallest: float) -> list[float]:
    """fan_needs round one station whose bands each have one end there: bands [(angle, half-width,
    even gap)] in the order the whole board's loop meets them (fan_needs sorts them by angle, a tie
    kept in that order), each band's need. The layout's repair (PartBoards.whole_needs, positions
    as written) and tightening (Tighten._fresh_needs, positions as drawn) make their stations' fans
    this way, each only round the stations whose bands moved; end_needs makes every station's at once."""
    at = {j: [angle, half, [(j, 0)], even] for j, (angle, half, even) in enumerate(bands)}
    return [v[0] for v in fan_needs({0: at}, len(bands), radius, smallest)]


def alpha(rho, s_, h_, corner):
    """The angle a first space occupies at distance rho from the station centre (arrays): 0 before
    the space starts (s), acos(s / rho) up to its near corner (at hypot(s, h)), asin(h / rho) beyond;
    each only where it is the one taken."""
    out = np.zeros_like(rho)
    on = ~(rho < s_)
    inside = on & (rho <= corner)
    beyond = on & ~(rho <= corner)
    out[inside] = np.arccos(np.clip(s_[inside] / rho[inside], -1, 1))
    out[beyond] = np.arcsin(np.clip(h_[beyond] / rho[beyond], -1, 1))
    return out


def need_of(s1, s2, h1, h2):
    """The angle between two bands leaving a station whose first spaces start at s1, s2 from its
    centre with half-widths h1, h2 (arrays): the sum of what each takes, at the nearer corner where
    both exist (the sum peaks at one of the two near corners). The layout's optimizer and
    tightening use it on arrays; `pair_angle` is the same on one pair, for the checks' placement."""
    r1, r2 = np.hypot(s1, h1), np.hypot(s2, h2)
    both1 = (r1 >= s1) & (r1 >= s2)
    both2 = (r2 >= s1) & (r2 >= s2)
    shape = np.shape(r1)
    if all(np.shape(v) == shape for v in (s1, s2, h1, h2, r2)) and len(shape) == 1:
        # the four alpha of the return below in one call on their arguments laid end to end: each
        # element goes through the same operations (elementwise, on contiguous arrays), and the
        # tighten and the optimizer ask this on small arrays thousands of times
        n = shape[0]
        a = alpha(np.concatenate([r1, r1, r2, r2]), np.concatenate([s1, s2, s1, s2]),
                  np.concatenate([h1, h2, h1, h2]), np.concatenate([r1, r2, r1, r2]))
        return np.maximum(np.where(both1, a[:n] + a[n:2 * n], 0.0), np.where(both2, a[2 * n:3 * n] + a[3 * n:], 0.0))
    return np.maximum(np.where(both1, alpha(r1, s1, h1, r1) + alpha(r1, s2, h2, r2), 0.0),
                      np.where(both2, alpha(r2, s1, h1, r1) + alpha(r2, s2, h2, r2), 0.0))


def _alpha1(rho: float, s_: float, h_: float, corner: float) -> float:
    if rho < s_:
        return 0.0
    if rho <= corner:
        return math.acos(max(-1.0, min(1.0, s_ / rho)))
    return math.asin(max(-1.0, min(1.0, h_ / rho)))


def pair_angle(s1: float, s2: float, h1: float, h2: float) -> float:
    """need_of for one pair, in scalar code (a numpy call per pair would cost more than the
    arithmetic; end_needs asks it for every neighbouring pair of every station of a board)."""
    r1, r2 = math.hypot(s1, h1), math.hypot(s2, h2)
    need = 0.0
    if r1 >= s1 and r1 >= s2:
        need = _alpha1(r1, s1, h1, r1) + _alpha1(r1, s2, h2, r2)
    if r2 >= s1 and r2 >= s2:
        need = max(need, _alpha1(r2, s1, h1, r1) + _alpha1(r2, s2, h2, r2))
    return need


def _clear(s1: float, s2: float, h1: float, h2: float, theta: float) -> bool:
    """Whether two first spaces starting s1, s2 from the station's centre (half-widths h1, h2, with
    the margins) clear at the angle theta between their bands."""
    return pair_angle(s1, s2, h1, h2) + END_ANGLE_CLEAR <= theta


def symmetric_need(s: float, h1: float, h2: float) -> float:
    """need_of(s, s, h1, h2) for two first spaces starting at the same distance s from the
    station's centre, h1 <= h2, in closed form: at the narrower band's near corner each takes
    atan(h1 / s); at the wider one's, the narrower takes asin(h1 / hypot(s, h2)) and the wider
    atan(h2 / s) (tests/test_space_placement.py checks it against need_of)."""
    return max(2 * math.atan(h1 / s), math.asin(min(1.0, h1 / math.hypot(s, h2))) + math.atan(h2 / s))


def _pair_needs(keys: list) -> dict:
    """The gap from the rim at which two bands (angle theta between them, half-widths h1 <= h2) have
    first spaces that clear, both starting there; 0 where the smallest gap is enough, and where none
    up to WIDEST_END_GAP_MM is (two bands leaving almost together: no placement of the spaces clears
    them, the even spread stays). Bisection (the need falls as the gap grows) to under 0.01 mm,
    rounded up to NEED_STEP_MM."""
    out = {}
    for key in keys:
        theta, h1, h2, radius, smallest = key
        h1, h2, room = h1 + END_HALF_EXTRA_MM, h2 + END_HALF_EXTRA_MM, theta - END_ANGLE_CLEAR

        def fits(g):
            return symmetric_need(radius + g, h1, h2) <= room

        if fits(smallest):
            out[key] = 0.0
        elif not fits(WIDEST_END_GAP_MM):
            out[key] = 0.0
        else:
            lo, hi = smallest, WIDEST_END_GAP_MM
            for _ in range(12):   # 30 mm / 2**12: under 0.01 mm
                mid = (lo + hi) / 2
                if fits(mid):
                    hi = mid
                else:
                    lo = mid
            out[key] = math.ceil(hi / NEED_STEP_MM) * NEED_STEP_MM
    return out


def _track_offsets(board: Board, distance: float) -> dict[str, float]:
    """Lateral offset of each track of a double route: the first to one side, the second to the other."""
    groups: dict[str, list[str]] = {}
    for r in board.routes:
        if r.double:
            groups.setdefault(r.double, []).append(r.id)
    offsets = {}
    for members in groups.values():
        if len(members) == 2:
            offsets[members[0]], offsets[members[1]] = distance, -distance
    return offsets


def _dedupe(points: list[XY]) -> list[XY]:
    out = [points[0]]
    for p in points[1:]:
        if math.dist(p, out[-1]) > 1e-9:
            out.append(p)
    if len(out) == 1:  # both ends at one spot: keep a degenerate but valid line
        out.append((out[0][0] + 1e-6, out[0][1]))
    return out


def _rectangles(lines, s, totals, length: float, width: float) -> np.ndarray:
    """Corners (N, 4, 2) of spaces of the given size centred at arc lengths s along lines, turned
    along them: _rectangle's arithmetic on arrays, operation for operation (the same numbers)."""
    if not len(s):
        return np.zeros((0, 4, 2))
    s = np.minimum(np.maximum(s, 0.0), totals)
    c = shapely.get_coordinates(shapely.line_interpolate_point(lines, s))
    p0 = shapely.get_coordinates(shapely.line_interpolate_point(lines, np.maximum(0.0, s - 0.5)))
    p1 = shapely.get_coordinates(shapely.line_interpolate_point(lines, np.minimum(totals, s + 0.5)))
    dx, dy = p1[:, 0] - p0[:, 0], p1[:, 1] - p0[:, 1]
    norm = np.array([math.hypot(a, b) or 1.0 for a, b in zip(dx.tolist(), dy.tolist())])
    ux, uy = dx / norm, dy / norm
    vx, vy = -uy, ux
    hl, hw = length / 2, width / 2
    out = np.empty((len(s), 4, 2))
    for k, (a, b) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
        out[:, k, 0] = c[:, 0] + ux * a * hl + vx * b * hw
        out[:, k, 1] = c[:, 1] + uy * a * hl + vy * b * hw
    return out
