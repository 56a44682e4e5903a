"""Where a flight is drawn: a path that crosses no other route's spaces and no station.

A flight is not track on the ground, so its drawn path is free: the board's own path (straight or
through its waypoints) and arcs between the two ends, bulging to either side by growing amounts,
are tried in turn; the first whose spaces cover nothing wins (crossing as few other spaces as
possible), else the one covering least, with a warning. The flight's spaces are laid along the
chosen path the way `mapkit.geometry` lays any route's. On a board a flight spans, some route lies
across every path, so the dashed line itself is then broken where it would pass over another
route's space or a station (with a little room), and passes them through the gaps. Pure geometry.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from shapely import STRtree
from shapely.geometry import LineString, Point, Polygon
from shapely.ops import unary_union

from mapkit.geometry import Layout, RouteShape
from mapkit.model import Board

BULGES = (0.12, -0.12, 0.2, -0.2, 0.28, -0.28, 0.36, -0.36, 0.45, -0.45, 0.55, -0.55)
LINE_CLEAR_MM = 1.5   # the dashed path keeps this far from other spaces and stations


def arc(a, b, bulge: float, n: int = 48) -> list[tuple[float, float]]:
    """A quadratic Bézier from a to b whose control point sits bulge × |ab| off the middle."""
    (ax, ay), (bx, by) = a, b
    d = math.dist(a, b) or 1.0
    nx, ny = -(by - ay) / d, (bx - ax) / d
    cx, cy = (ax + bx) / 2 + nx * bulge * d * 2, (ay + by) / 2 + ny * bulge * d * 2
    out = []
    for i in range(n + 1):
        t = i / n
        u = 1 - t
        out.append((u * u * ax + 2 * u * t * cx + t * t * bx, u * u * ay + 2 * u * t * cy + t * t * by))
    return out


def spaces_along(coords, n: int, length: float, width: float, radius: float) -> tuple:
    """n spaces spread evenly along the line between the end stations' markers (as geometry does)."""
    line = LineString(coords)
    total = line.length
    usable = max(0.0, total - 2 * radius)
    spread = (usable - n * length) / (n + 1)
    at = [min(max(radius + spread * (i + 1) + length * (i + 0.5), 0.0), total) for i in range(n)]
    # each space's centre and the points 0.5 mm either side of it, all in one call
    pts = shapely.get_coordinates(shapely.line_interpolate_point(
        line, [x for s in at for x in (s, max(0.0, s - 0.5), min(total, s + 0.5))])).tolist()
    hl, hw = length / 2, width / 2
    out = []
    for i in range(n):
        (cx, cy), (x0, y0), (x1, y1) = pts[3 * i:3 * i + 3]
        dx, dy = x1 - x0, y1 - y0
        norm = math.hypot(dx, dy) or 1.0
        ux, uy, vx, vy = dx / norm, dy / norm, -dy / norm, dx / norm
        out.append(tuple((cx + ux * a * hl + vx * b * hw, cy + uy * a * hl + vy * b * hw)
                         for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))))
    return tuple(out)


class Blockers:
    """What a flight's path should keep off: the polygons in groups that touch (the connected parts
    of their union), each group's union made of its own polygons in their given order, so that a
    group's shape depends on its polygons alone; held in a tree, to measure what one shape covers
    of the union from the few groups near it, summed in the groups' order (that of their first
    polygon). keys: each polygon's exact identity (default its WKB); a group's key is its
    polygons' keys in order."""

    def __init__(self, polys, keys=None):
        polys = list(polys)
        if keys is None:
            keys = shapely.to_wkb(np.asarray(polys, dtype=object)).tolist() if polys else []
        groups = []
        if polys:
            arr = np.asarray(polys, dtype=object)
            a, b = STRtree(arr).query(arr, predicate="intersects")
            n = len(polys)
            _, label = connected_components(coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n)), directed=False)
            members: dict = {}
            for i, g in enumerate(label.tolist()):
                members.setdefault(g, []).append(i)
            groups = sorted(members.values(), key=lambda m: m[0])
        self.parts = np.asarray([unary_union([polys[i] for i in m]) for m in groups], dtype=object)
        self.keys = [tuple(keys[i] for i in m) for m in groups]
        self.rank = {k: j for j, k in enumerate(self.keys)}
        self.tree = STRtree(self.parts)

    def hits(self, geom) -> list[int]:
        """The groups geom touches, in the groups' order."""
        return sorted(self.tree.query(geom, predicate="intersects").tolist())

    def area_under(self, geom, hits: list[int] | None = None, bound: tuple | None = None) -> float | None:
        """The area of geom ∩ the union of the polygons (hits: `hits(geom)`, when known), summed
        group by group in the groups' order. bound: (base, scale, stop): None as soon as
        base + scale × the sum so far reaches stop (the areas are not negative, so the whole sum
        would too; the groups after are not measured)."""
        hits = self.hits(geom) if hits is None else hits
        total = 0.0
        if not hits:
            return total
        if bound is None:
            for a in shapely.area(shapely.intersection(self.parts[hits], geom)).tolist():
                total += a
            return total
        base, scale, stop = bound
        for j in hits:
            total += float(shapely.area(shapely.intersection(self.parts[j], geom)))
            if base + scale * total >= stop:
                return None
        return total

    def areas_under(self, geoms) -> list[float]:
        """The area of each geometry ∩ the union of the polygons."""
        return [self.area_under(g) for g in geoms]


def _cost(coords, spaces, spaces_b: Blockers, stations_b: Blockers, inner: Polygon, ends_cut,
          beat=None, seen: dict | None = None) -> tuple[float, float]:
    """(area of other spaces and stations under the flight's spaces plus what leaves the playing
    area, the same under its path buffered, stations counting 5 times: a line through a station
    reads as a stop); (0, 0) means clear. ends_cut: what of the path is not counted (the end
    stations' markers, grown a little). beat: a cost to compare with; when the spaces alone show
    that this path is not `_better`, the line is not measured and counts as infinite, and so when
    the part of the line measured so far shows it (`Blockers.area_under`'s bound). seen: given,
    gets the groups of each Blockers the measure read ({Blockers: set of group indexes}) and, when
    the line's measure stopped so, what it measures at least ("least")."""
    own = unary_union([Polygon(c) for c in spaces])
    hs, ht = spaces_b.hits(own), stations_b.hits(own)
    if seen is not None:
        seen.setdefault(spaces_b, set()).update(hs)
        seen.setdefault(stations_b, set()).update(ht)
    under = own.difference(inner).area + spaces_b.area_under(own, hs) + stations_b.area_under(own, ht)
    if beat is not None and under > 1e-6 and (beat[0] <= 1e-6 or under > beat[0]):
        return under, math.inf
    line = LineString(coords).difference(ends_cut).buffer(LINE_CLEAR_MM, quad_segs=2)
    hs, ht = spaces_b.hits(line), stations_b.hits(line)
    if seen is not None:
        seen[spaces_b].update(hs)
        seen[stations_b].update(ht)
    outside = line.difference(inner).area
    if beat is not None and under <= 1e-6 and beat[0] <= 1e-6:
        # both clear under their spaces: this path is `_better` only if its line measures less than
        # beat's by 1e-6, so measuring stops once the part summed reaches that (as with the spaces)
        stop = beat[1] - 1e-6
        on_spaces = on_stations = None
        if outside < stop:
            on_spaces = spaces_b.area_under(line, hs, (outside, 1.0, stop))
        if on_spaces is not None:
            on_stations = stations_b.area_under(line, ht, (outside + on_spaces, 5.0, stop))
        if on_stations is None:
            if seen is not None:
                seen["least"] = stop   # the line measures at least this much
            return under, math.inf
        return under, outside + on_spaces + 5 * on_stations
    over = outside + spaces_b.area_under(line, hs) + 5 * stations_b.area_under(line, ht)
    return under, over


class Trials:
    """A flight search's path costs, remembered from one search to the next (`mapkit edit` draws
    the board again after every drag, and most paths the search tries lie nowhere near the move).

    A path's cost is a function of its corners, the flight's length and ends, the board's sizes and
    the groups of `Blockers` it touches. A cost is handed back when every group it read is still
    there (the same polygons, in the same order) and no group that is new since lies within
    `reach` of the path (every point of its spaces and of its buffered line is nearer than that);
    then the path touches exactly the groups it touched, of the same shapes, and the cost is the
    one measuring it again gives, bit for bit."""

    def __init__(self):
        self.last: dict = {}   # flight key → (spaces group keys, stations group keys, {corners: entry})

    def begin(self, key, spaces_b: Blockers, stations_b: Blockers, reach: float) -> "_TrialsView":
        before = self.last.get(key)
        view = _TrialsView(key, spaces_b, stations_b, reach, before[2] if before else {})
        if before is not None:
            fresh = [p for k, p in zip(spaces_b.keys, spaces_b.parts) if k not in before[0]]
            fresh += [p for k, p in zip(stations_b.keys, stations_b.parts) if k not in before[1]]
            view.fresh = STRtree(fresh) if fresh else None
        return view

    def end(self, views: list) -> None:
        self.last = {v.key: (set(v.spaces_b.keys), set(v.stations_b.keys), v.now) for v in views}


class _TrialsView:
    """One flight's search of one drawing: the costs kept from the last and those measured now."""

    def __init__(self, key, spaces_b, stations_b, reach, before):
        self.key, self.spaces_b, self.stations_b, self.reach = key, spaces_b, stations_b, reach
        self.before, self.now, self.fresh = before, {}, None

    def _valid(self, coords, entry) -> bool:
        for b, keys in ((self.spaces_b, entry[3]), (self.stations_b, entry[4])):
            ranks = [b.rank.get(k, -1) for k in keys]
            if any(r < 0 for r in ranks) or any(x >= y for x, y in zip(ranks, ranks[1:])):
                return False
        return self.fresh is None or not len(self.fresh.query(LineString(coords), predicate="dwithin",
                                                              distance=self.reach))

    def cost(self, coords, beat):
        """The kept cost of these corners (as `_cost` with beat gives it), or None."""
        entry = self.now.get(coords)
        if entry is None:
            entry = self.before.get(coords)
            if entry is None or not self._valid(coords, entry):
                return None
            self.now[coords] = entry
        under, over, least = entry[0], entry[1], entry[2]
        if beat is not None and under > 1e-6 and (beat[0] <= 1e-6 or under > beat[0]):
            return under, math.inf
        if beat is not None and under <= 1e-6 and beat[0] <= 1e-6 and (least if over is None else over) >= beat[1] - 1e-6:
            return under, math.inf   # `_cost` stops measuring such a line
        return None if over is None else (under, over)

    def keep(self, coords, cost, seen: dict) -> None:
        def keys(b):
            return tuple(b.keys[j] for j in sorted(seen.get(b, ())))
        self.now[coords] = (cost[0], None if cost[1] == math.inf else cost[1], seen.get("least", 0.0),
                            keys(self.spaces_b), keys(self.stations_b))


def _better(a, b) -> bool:
    return (a[0] > 1e-6, a[0] if a[0] > 1e-6 else 0.0, a[1]) < (b[0] > 1e-6, b[0] if b[0] > 1e-6 else 0.0, b[1] - 1e-6)


def _nudged(coords, score, rounds: int = 3, steps=(12.0, 6.0, 3.0)):
    """The path with its inner corners moved, one at a time, to wherever (on a small grid around
    it) the score improves most; a few rounds. Routes the line around what lies on it while its
    shape stays the board's. score(coords, beat): the path's cost (`_cost`, beat its bound)."""
    best = list(coords)
    best_score = score(best)
    for _ in range(rounds):
        improved = False
        for i in range(1, len(best) - 1):
            for step in steps:
                for dx in (-step, 0.0, step):
                    for dy in (-step, 0.0, step):
                        if not dx and not dy:
                            continue
                        trial = list(best)
                        trial[i] = (best[i][0] + dx, best[i][1] + dy)
                        sc = score(trial, best_score)
                        if _better(sc, best_score):
                            best, best_score, improved = trial, sc, True
        if not improved or best_score[1] <= 1e-6:
            break
    return best, best_score


def pieces(coords, spaces, blockers, radius: float, ends) -> tuple:
    """The parts of the path to draw: not inside the end markers, nor over anything in blockers
    (kept LINE_CLEAR_MM away), nor under the flight's own spaces."""
    path = LineString(coords)
    cut = unary_union([Point(e).buffer(radius) for e in ends] + [Polygon(c) for c in spaces]
                      + [g.buffer(LINE_CLEAR_MM, quad_segs=2) for g in blockers if g.distance(path) < LINE_CLEAR_MM])
    rest = path.difference(cut)
    parts = list(getattr(rest, "geoms", [rest]))
    return tuple(tuple(p.coords) for p in parts if not p.is_empty and p.length > 1.0)


def reroute(board: Board, layout: Layout, routes: dict[str, RouteShape] | None = None,
            trials: Trials | None = None) -> tuple[dict[str, RouteShape], dict[str, tuple], list[str]]:
    """The route shapes to draw (routes, default the layout's, with flights moved clear where they
    can be), each flight's line as the pieces to draw, and a warning for each flight whose spaces
    still cover something. trials: path costs kept from the last search (`Trials`); the result is
    the same with or without."""
    ph = board.physical
    routes = dict(layout.routes if routes is None else routes)
    drawn: dict[str, tuple] = {}
    warnings = []
    flights = [r for r in board.routes if r.kind == "flight" and r.id in routes]
    if not flights:
        return routes, drawn, warnings
    m = ph.margin_mm
    inner = Polygon([(m, m), (ph.width_mm - m, m), (ph.width_mm - m, ph.height_mm - m), (m, ph.height_mm - m)])
    views = []
    # every point of a path's spaces and of its buffered line lies within this of the path
    reach = max(math.hypot(ph.space_length_mm / 2, ph.space_width_mm / 2), LINE_CLEAR_MM) + 1.0
    for r in flights:
        ends = (layout.positions[r.a], layout.positions[r.b])
        space_keys = [c for rid, s in routes.items() if rid != r.id for c in s.spaces]
        polys = [Polygon(c) for c in space_keys]
        disc_keys = [(xy, ph.station_radius_mm + 1.0) for sid, xy in layout.positions.items() if sid not in (r.a, r.b)]
        discs = [Point(xy).buffer(radius) for xy, radius in disc_keys]
        spaces_b, stations_b = Blockers(polys, space_keys), Blockers(discs, disc_keys)
        ends_cut = unary_union([Point(e).buffer(ph.station_radius_mm + 0.5) for e in ends])
        view = None
        if trials is not None:
            view = trials.begin((r.id, r.length, ends, ph.width_mm, ph.height_mm, m, ph.space_length_mm,
                                 ph.space_width_mm, ph.station_radius_mm), spaces_b, stations_b, reach)
            views.append(view)

        def score(coords, beat=None, r=r, spaces_b=spaces_b, stations_b=stations_b, ends_cut=ends_cut, view=view):
            if view is not None:
                coords = tuple(coords)
                kept = view.cost(coords, beat)
                if kept is not None:
                    return kept
            spaces = spaces_along(coords, r.length, ph.space_length_mm, ph.space_width_mm, ph.station_radius_mm)
            if view is None:
                return _cost(coords, spaces, spaces_b, stations_b, inner, ends_cut, beat)
            seen: dict = {}
            cost = _cost(coords, spaces, spaces_b, stations_b, inner, ends_cut, beat, seen)
            view.keep(coords, cost, seen)
            return cost

        own = routes[r.id]
        best = None
        for coords in [tuple(own.centerline)] + [tuple(arc(*ends, k)) for k in BULGES]:
            cost = score(coords)
            if best is None or _better(cost, best[0]):
                best = (cost, coords)
            if cost[1] <= 1e-6:
                break
        if best[0][1] > 1e-6:
            start = list(best[1])
            if len(start) > 8:  # an arc: its shape by a few corners
                start = start[::len(start) // 6] + [start[-1]] if start[::len(start) // 6][-1] != start[-1] else start[::len(start) // 6]
            elif len(start) == 2:
                start = [start[0], tuple((a + b) / 2 for a, b in zip(*start)), start[1]]
            coords, cost = _nudged(start, score)
            if _better(cost, best[0]):
                best = (cost, tuple(coords))
        (cost, over), coords = best
        spaces = spaces_along(coords, r.length, ph.space_length_mm, ph.space_width_mm, ph.station_radius_mm)
        line = LineString(coords)
        usable = max(0.0, line.length - 2 * ph.station_radius_mm)
        needed = r.length * ph.space_length_mm + (r.length + 1) * ph.space_gap_mm
        routes[r.id] = RouteShape(r.id, tuple(coords), usable, needed, spaces)
        drawn[r.id] = pieces(coords, spaces, polys + discs, ph.station_radius_mm, ends)
        if cost > 1e-6:
            warnings.append(f"the flight '{r.id}' has spaces over other routes' spaces or stations ({cost:.0f} mm²) "
                            "on every path tried; move its stations or give it waypoints around them")
        elif over > 1e-6:
            near = [sid for sid, xy in layout.positions.items() if sid not in (r.a, r.b)
                    and LineString(coords).distance(Point(xy)) < ph.station_radius_mm + LINE_CLEAR_MM]
            if near:
                warnings.append(f"the flight '{r.id}' passes over station{'s' if len(near) > 1 else ''} "
                                f"{', '.join(near)} on every path tried; its line is broken there, but give it "
                                "waypoints around them")
    if trials is not None:
        trials.end(views)
    return routes, drawn, warnings
