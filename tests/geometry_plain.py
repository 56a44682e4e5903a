"""The plain (one shape at a time) geometry of mapkit/geometry.py as it was before its vectorized rewrite,
kept only as the reference that tests/test_geometry_fast.py compares the fast path with: the problems
`mapkit validate` finds must not change."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from shapely import STRtree
from shapely.geometry import LineString, Point, Polygon, box

from mapkit.model import Board, Route

XY = tuple[float, float]
MIN_AREA_MM2 = 0.5  # overlaps smaller than this are rounding, not a printing problem


def projector(board: Board):
    """A function (lat, lon) → (x, y) mm fitting every station into the board's inner area.

    Equirectangular at the stations' mean latitude, uniform scale, centred (docs/board-format.md).
    """
    ph = board.physical
    lat0 = sum(s.lat for s in board.stations) / len(board.stations)
    k = math.cos(math.radians(lat0))
    xs = [s.lon * k for s in board.stations]
    ys = [s.lat for s in board.stations]
    pad = ph.margin_mm + ph.station_radius_mm
    avail_w, avail_h = ph.width_mm - 2 * pad, ph.height_mm - 2 * pad
    span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
    scale = min(avail_w / span_x if span_x else math.inf, avail_h / span_y if span_y else math.inf)
    if not math.isfinite(scale):
        scale = 1.0
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2

    def project(lat: float, lon: float) -> XY:
        return (ph.width_mm / 2 + (lon * k - cx) * scale, ph.height_mm / 2 - (lat - cy) * scale)

    return project


@dataclass(frozen=True)
class RouteShape:
    """Where one route is drawn: its track's centreline and its spaces."""

    route_id: str
    centerline: tuple[XY, ...]
    usable_mm: float      # centreline length less one station radius at each end
    needed_mm: float      # what its spaces need with the smallest gaps
    spaces: tuple[tuple[XY, XY, XY, XY], ...]  # rectangle corners, in order

    @property
    def stretch(self) -> float:
        return self.usable_mm / self.needed_mm if self.needed_mm else 1.0


class Layout:
    """The geometry of a whole board, computed once and queried by checks and the renderer."""

    def __init__(self, board: Board):
        self.board = board
        ph = board.physical
        project = projector(board)
        self._project = project
        self.positions: dict[str, XY] = {
            s.id: (s.board.x, s.board.y) if s.board is not None else project(s.lat, s.lon)
            for s in board.stations
        }
        self.routes: dict[str, RouteShape] = {}
        offsets = _track_offsets(board, ph.space_width_mm / 2 + 1)
        # where a route end's first space must start (the fast geometry's own functions: the
        # placement is not what this reference is for)
        from mapkit.geometry import end_needs

        todo = [r for r in board.routes if r.a in self.positions and r.b in self.positions and r.a != r.b]
        pts = [tuple(_dedupe([self.positions[r.a], *(self.point(w) for w in r.waypoints), self.positions[r.b]]))
               for r in todo]
        for r, need in zip(todo, end_needs(todo, pts, offsets, ph)):
            self.routes[r.id] = self._shape(r, offsets.get(r.id, 0.0), need)

    def point(self, p) -> XY:
        return (p.x, p.y) if p.is_board else self._project(p.lat, p.lon)

    def _shape(self, r: Route, offset: float, need: tuple[float, float] = (0.0, 0.0)) -> RouteShape:
        ph = self.board.physical
        pts = [self.positions[r.a], *(self.point(w) for w in r.waypoints), self.positions[r.b]]
        line = LineString(_dedupe(pts))
        if offset:
            # offset relative to the route's canonical direction, so that a track written b→a
            # still lands on its own side
            sign = 1 if r.a <= r.b else -1
            shifted = line.offset_curve(sign * offset, join_style="mitre", mitre_limit=3.0)
            if isinstance(shifted, LineString) and not shifted.is_empty:
                line = shifted
        total = line.length
        radius = ph.station_radius_mm
        usable = max(0.0, total - 2 * radius)
        n, length, gap = r.length, ph.space_length_mm, ph.space_gap_mm
        needed = n * length + (n + 1) * gap
        from mapkit.geometry import space_centres

        spaces = []
        for s in space_centres(usable, n, radius, length, gap, *need):
            spaces.append(_rectangle(line, s, length, ph.space_width_mm))
        return RouteShape(r.id, tuple(line.coords), usable, needed, tuple(spaces))

    # ------------------------------------------------------------ shapely views, built once

    @cached_property
    def station_discs(self) -> dict[str, Polygon]:
        r = self.board.physical.station_radius_mm
        return {sid: Point(xy).buffer(r, quad_segs=16) for sid, xy in self.positions.items()}

    @cached_property
    def _space_index(self):
        polys, owners = [], []
        for rid, shape in self.routes.items():
            for corners in shape.spaces:
                polys.append(Polygon(corners))
                owners.append(rid)
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
        tree = STRtree([Point(self.positions[i]) for i in ids])
        found = []
        for i, sid in enumerate(ids):
            for j in tree.query(Point(self.positions[sid]), predicate="dwithin", distance=2 * r + 3):
                if j > i:
                    found.append((sid, ids[j], math.dist(self.positions[sid], self.positions[ids[j]])))
        return found

    def stations_off_board(self) -> list[str]:
        area = self.inner_area()
        return [sid for sid, disc in self.station_discs.items() if not area.contains(disc)]

    def routes_off_board(self) -> list[str]:
        area = self.inner_area()
        polys, owners, _ = self._space_index
        return sorted({owners[i] for i, p in enumerate(polys) if not area.contains(p)})

    def space_overlaps(self) -> list[tuple[str, str, float]]:
        """Pairs of routes whose spaces overlap, with the overlapping area in mm²."""
        polys, owners, tree = self._space_index
        area: dict[tuple[str, str], float] = {}
        for i, poly in enumerate(polys):
            for j in tree.query(poly, predicate="intersects"):
                if j <= i or owners[i] == owners[j]:
                    continue
                a = poly.intersection(polys[j]).area
                if a > MIN_AREA_MM2:
                    key = tuple(sorted((owners[i], owners[j])))
                    area[key] = area.get(key, 0.0) + a
        return [(a, b, v) for (a, b), v in sorted(area.items())]

    def spaces_on_stations(self) -> list[tuple[str, str, float]]:
        """(route id, station id, area) where a space covers a station marker."""
        polys, owners, tree = self._space_index
        found: dict[tuple[str, str], float] = {}
        for sid, disc in self.station_discs.items():
            for j in tree.query(disc, predicate="intersects"):
                a = disc.intersection(polys[j]).area
                if a > MIN_AREA_MM2:
                    found[(owners[j], sid)] = found.get((owners[j], sid), 0.0) + a
        return [(rid, sid, v) for (rid, sid), v in sorted(found.items())]

    def crossings(self) -> list[tuple[str, str, XY]]:
        """Pairs of routes whose centrelines cross outside station markers (overpasses excepted)."""
        by_id = {r.id: r for r in self.board.routes}
        lines, ids = [], []
        for rid, shape in self.routes.items():
            r = by_id[rid]
            if r.overpass:
                continue
            clipped = LineString(shape.centerline).difference(self.station_discs[r.a]).difference(self.station_discs[r.b])
            if not clipped.is_empty:
                lines.append(clipped)
                ids.append(rid)
        tree = STRtree(lines)
        ph = self.board.physical
        near = ph.station_radius_mm + ph.space_gap_mm + ph.space_width_mm
        found = []
        for i, line in enumerate(lines):
            for j in tree.query(line, predicate="intersects"):
                if j <= i:
                    continue
                ri, rj = by_id[ids[i]], by_id[ids[j]]
                if ri.double and ri.double == rj.double:
                    continue
                where = line.intersection(lines[j]).representative_point()
                # offset tracks of a double leave their station beside its centre and may touch a
                # neighbour's line within the first space's reach; the space checks judge that
                shared = ri.ends & rj.ends
                if any(math.dist((where.x, where.y), self.positions[st]) <= near for st in shared):
                    continue
                found.append((ids[i], ids[j], (round(where.x, 1), round(where.y, 1))))
        return found


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


def _rectangle(line: LineString, s: float, length: float, width: float) -> tuple[XY, XY, XY, XY]:
    """Corners of a space of the given size centred at arc length s, turned along the line."""
    s = min(max(s, 0.0), line.length)
    c = line.interpolate(s)
    p0 = line.interpolate(max(0.0, s - 0.5))
    p1 = line.interpolate(min(line.length, s + 0.5))
    dx, dy = p1.x - p0.x, p1.y - p0.y
    norm = math.hypot(dx, dy) or 1.0
    ux, uy = dx / norm, dy / norm
    vx, vy = -uy, ux
    hl, hw = length / 2, width / 2
    return tuple(
        (c.x + ux * a * hl + vx * b * hw, c.y + uy * a * hl + vy * b * hw)
        for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))
    )
