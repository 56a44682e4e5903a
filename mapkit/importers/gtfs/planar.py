"""Make the draft drawable: a network a board can show without routes crossing or running side by side.

A bus network overlaps itself (many lines share streets, cross at intersections, fork at small
angles), and a board cannot: spaces of two routes may not overlap, so two routes that cross on
the map cannot both be drawn. Working on the straight routes between kept stations, in metres:

1. **Side by side.** Where two routes leave a station within PARALLEL_DEG of each other and one
   ends well before the other (a-b and a-c, b nearer), the longer one is *merged*: its lines run
   a-b-c instead (they pass b on the street anyway), so the board shows one route where the map
   would show two overlapping ones.
2. **Crossings.** Where two routes cross away from a station, in this order:
   a. a stop both lines serve near there becomes a kept station (the real transfer point);
   b. else a stop of each line, at most CROSS_MERGE_M apart (CROSS_MERGE_RAIL_M for two rail
      stations: an interchange's passage), are merged into one station (the two lines cross at an
      intersection, each with its own stop: one station for the board);
   c. else a thinned-away stop of either line is kept when that uncrosses the pair (the straight
      route had cut a corner the street does not);
   d. else the less frequent route is *dropped* when the network stays connected without it,
      and otherwise *flagged overpass* (the schema's `overpass`: drawn over on purpose).
Every decision is returned for the summary: a designer may well want another.
"""

from __future__ import annotations

import math
from collections import defaultdict

from shapely import STRtree
from shapely.geometry import LineString

from mapkit.importers.gtfs import lines as L
from mapkit.importers.gtfs.read import FeedError
from mapkit.importers.gtfs.stations import Station, haversine_m

PARALLEL_DEG = 14.0     # routes leaving a station closer in direction than this run side by side
NEAR_RATIO = 0.85       # ... when the shorter ends before this share of the longer one
CROSS_MERGE_M = 350.0   # two lines' stops this close at a crossing are one station for the board
CROSS_MERGE_RAIL_M = 400.0   # ... two rail stations (a metro interchange's passage: Paulista–Consolação 389 m)
MAX_FIXES = 400         # bound on the repair loop (each fix removes a crossing or a route)
ONE_PLACE_M = 10.0      # stations all closer than this make no map


def project(stations: dict[str, Station]) -> dict[str, tuple[float, float]]:
    """Metres east and north. A network across the antimeridian (longitudes 179.9 and -179.9, more
    than 180 degrees apart) is counted east of it, so it stays in one piece; any other is projected
    from its longitudes as they are."""
    lat0 = sum(s.lat for s in stations.values()) / max(1, len(stations))
    k = math.cos(math.radians(lat0))
    lons = [s.lon for s in stations.values()]
    across = bool(lons) and max(lons) - min(lons) > 180.0
    return {key: ((s.lon + 360.0 if across and s.lon < 0 else s.lon) * 111320.0 * k, s.lat * 110540.0)
            for key, s in stations.items()}


def _angle(xy, a, b, c) -> float:
    ax, ay = xy[a]
    u = (xy[b][0] - ax, xy[b][1] - ay)
    v = (xy[c][0] - ax, xy[c][1] - ay)
    nu, nv = math.hypot(*u), math.hypot(*v)
    if nu == 0 or nv == 0:
        return 180.0
    cos = max(-1.0, min(1.0, (u[0] * v[0] + u[1] * v[1]) / (nu * nv)))
    return math.degrees(math.acos(cos))


def _rank(lines, trips):
    return sorted(set(lines), key=lambda ln: (-trips.get(ln, 0), ln))


def merge_side_by_side(segs: list[L.Segment], xy, trips, st) -> tuple[list[L.Segment], list[dict]]:
    """Step 1 on a list of segments: (new segments, what was merged)."""
    by_pair = {frozenset((s.a, s.b)): s for s in segs}
    merged = []
    for _ in range(len(segs) + 1):
        inc = defaultdict(list)
        for pair in by_pair:
            a, b = sorted(pair)
            inc[a].append(b)
            inc[b].append(a)
        found = None
        for a in sorted(inc):
            nb = sorted(inc[a])
            for i, b in enumerate(nb):
                for c in nb[i + 1:]:
                    if _angle(xy, a, b, c) >= PARALLEL_DEG:
                        continue
                    db, dc = math.dist(xy[a], xy[b]), math.dist(xy[a], xy[c])
                    near, far = (b, c) if db <= dc else (c, b)
                    if min(db, dc) < NEAR_RATIO * max(db, dc):
                        found = (a, near, far)
                        break
                if found:
                    break
            if found:
                break
        if not found:
            break
        a, near, far = found
        long_seg = by_pair.pop(frozenset((a, far)))
        short = by_pair[frozenset((a, near))]
        by_pair[frozenset((a, near))] = L.Segment(short.a, short.b, _rank(short.lines + long_seg.lines, trips),
                                                  short.distance_m, short.via)
        rest = frozenset((near, far))
        tail = max(1.0, long_seg.distance_m - short.distance_m,
                   haversine_m((st[near].lat, st[near].lon), (st[far].lat, st[far].lon)))
        if rest in by_pair:
            old = by_pair[rest]
            by_pair[rest] = L.Segment(old.a, old.b, _rank(old.lines + long_seg.lines, trips), old.distance_m, old.via)
        else:
            x, y = sorted(rest)
            by_pair[rest] = L.Segment(x, y, _rank(long_seg.lines, trips), tail, frozenset())
        merged.append({"route": [a, far], "through": near, "lines": list(long_seg.lines)})
    order = {frozenset((s.a, s.b)): i for i, s in enumerate(segs)}
    out = sorted(by_pair.values(), key=lambda s: (order.get(frozenset((s.a, s.b)), len(order)), s.a, s.b))
    return out, merged


def _crossings(segs, xy, skip: set) -> list[tuple[int, int, tuple[float, float]]]:
    # a route whose ends are at one point (stops that share coordinates) crosses nothing
    live = [i for i, s in enumerate(segs) if frozenset((s.a, s.b)) not in skip and xy[s.a] != xy[s.b]]
    geoms = [LineString([xy[segs[i].a], xy[segs[i].b]]) for i in live]
    tree = STRtree(geoms)
    out = []
    for k, g in enumerate(geoms):
        si = segs[live[k]]
        for j in tree.query(g, predicate="intersects"):
            if j <= k:
                continue
            sj = segs[live[j]]
            if {si.a, si.b} & {sj.a, sj.b}:
                continue
            where = g.intersection(geoms[j])
            if where.is_empty:
                continue  # touching only within the geometry library's rounding
            p = where.representative_point()
            out.append((live[k], live[j], (p.x, p.y)))
    return out


def check_stop_spread(used, stops) -> None:
    """FeedError when every stop the selected lines serve is at one place (within ONE_PLACE_M), before
    stops are merged into stations: merged, they would be one station and say nothing."""
    pts = [(stops[s].lat, stops[s].lon) for s in used if s in stops and stops[s].lat is not None
           and stops[s].lon is not None]
    if len(pts) < 2:
        return
    lats, lons = [p[0] for p in pts], [p[1] for p in pts]
    north = (max(lats) - min(lats)) * 111_320.0
    east = (max(lons) - min(lons)) * 111_320.0 * math.cos(math.radians(sum(lats) / len(lats)))
    if max(north, east) < ONE_PLACE_M:
        raise FeedError([f"all {len(pts)} stops of the selected lines are within {ONE_PLACE_M:.0f} m of "
                         f"{lats[0]:.5f}, {lons[0]:.5f}: their coordinates are missing or wrong in stops.txt "
                         "(0, 0 is where an export puts a stop it has no position for)"])


def _check_spread(xy, st: dict[str, Station]) -> None:
    """FeedError when every station is at one place: no map can be drawn of that."""
    xs, ys = [p[0] for p in xy.values()], [p[1] for p in xy.values()]
    if xs and max(max(xs) - min(xs), max(ys) - min(ys)) < ONE_PLACE_M:
        s = st[min(st)]
        raise FeedError([f"all {len(st)} stations of the selected lines are within {ONE_PLACE_M:.0f} m of "
                         f"{s.lat:.5f}, {s.lon:.5f}: their stops' coordinates are missing or wrong in stops.txt "
                         "(0, 0 is where an export puts a stop it has no position for)"])


def _connected_without(segs, drop: int) -> bool:
    adj = defaultdict(set)
    for i, s in enumerate(segs):
        if i != drop:
            adj[s.a].add(s.b)
            adj[s.b].add(s.a)
    nodes = {s.a for s in segs} | {s.b for s in segs}
    if set(adj) != nodes:
        return False
    start = next(iter(sorted(nodes)))
    seen, todo = {start}, [start]
    while todo:
        x = todo.pop()
        for y in adj[x] - seen:
            seen.add(y)
            todo.append(y)
    return seen == nodes


def _remap(patterns, old: str, new: str):
    out = {}
    for ln, p in patterns.items():
        q = []
        for s in p:
            s = new if s == old else s
            if not q or q[-1] != s:
                q.append(s)
        out[ln] = tuple(q)
    return out


def make_drawable(patterns: dict[str, tuple], kept: set, st: dict[str, Station], trips: dict[str, int],
                  names, rail: frozenset = frozenset()) -> tuple[dict, set, list[L.Segment], dict]:
    """(patterns, kept, segments, decisions): steps 1-2 of the module docstring, repeated until no
    two routes cross (or MAX_FIXES). `names(key)` gives a station's name for the decisions; `rail`:
    the stations rail-like lines serve."""
    patterns, kept = dict(patterns), set(kept)
    xy = project(st)
    _check_spread(xy, st)
    dropped, overpass = set(), set()
    decisions = {"kept_at_crossing": [], "merged_at_crossing": [], "kept_to_uncross": [],
                 "dropped": [], "overpass": [], "merged_side_by_side": []}

    def current():
        segs = L.segments(patterns, kept, st, trips)
        segs, merged = merge_side_by_side(segs, xy, trips, st)
        return [s for s in segs if frozenset((s.a, s.b)) not in dropped], merged

    def label(sg):
        return f"{names(sg.a)} – {names(sg.b)}"

    merged = []
    for _ in range(MAX_FIXES):
        segs, merged = current()
        found = _crossings(segs, xy, overpass)
        if not found:
            break
        i, j, x = found[0]
        s1, s2 = segs[i], segs[j]
        common = (s1.via & s2.via) - kept
        if common:
            pick = min(sorted(common), key=lambda s: math.dist(xy[s], x))
            kept.add(pick)
            decisions["kept_at_crossing"].append({"station": pick, "routes": [label(s1), label(s2)]})
            continue
        pairs = [(math.dist(xy[u], x) + math.dist(xy[v], x), u, v) for u in sorted(s1.via | {s1.a, s1.b})
                 for v in sorted(s2.via | {s2.a, s2.b})
                 if u != v and haversine_m((st[u].lat, st[u].lon), (st[v].lat, st[v].lon))
                 <= (CROSS_MERGE_RAIL_M if u in rail and v in rail else CROSS_MERGE_M)
                 and not (u in kept and v in kept)]
        if pairs:
            _, u, v = min(pairs)
            keep, gone = (v, u) if (u not in kept and v in kept) else (u, v)
            patterns = _remap(patterns, gone, keep)
            kept.discard(gone)
            kept.add(keep)
            d = round(haversine_m((st[u].lat, st[u].lon), (st[v].lat, st[v].lon)))
            decisions["merged_at_crossing"].append({"station": keep, "merged": gone, "metres": d,
                                                    "routes": [label(s1), label(s2)]})
            continue
        before = len(found)
        fixed = False
        for cand in sorted(s1.via | s2.via, key=lambda s: (math.dist(xy[s], x), s)):
            kept.add(cand)
            trial, _ = current()
            if len(_crossings(trial, xy, overpass)) < before:
                decisions["kept_to_uncross"].append({"station": cand, "routes": [label(s1), label(s2)]})
                fixed = True
                break
            kept.discard(cand)
        if fixed:
            continue
        # the less frequent route gives way: dropped when the network stays connected
        weaker = min((i, j), key=lambda k: (sum(trips.get(ln, 0) for ln in segs[k].lines), k))
        other = j if weaker == i else i
        w = segs[weaker]
        if _connected_without(segs, weaker):
            dropped.add(frozenset((w.a, w.b)))
            decisions["dropped"].append({"route": [w.a, w.b], "lines": list(w.lines), "crosses": label(segs[other])})
        else:
            overpass.add(frozenset((w.a, w.b)))
            decisions["overpass"].append({"route": [w.a, w.b], "lines": list(w.lines), "crosses": label(segs[other])})
    segs, merged = current()
    decisions["merged_side_by_side"] = merged
    decisions["crossings_left"] = len(_crossings(segs, xy, overpass))
    decisions["overpass_pairs"] = overpass
    return patterns, kept, segs, decisions

