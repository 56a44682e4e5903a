"""Stops → stations, and which stations a board keeps.

- Only stops a trip of the selected lines serves are stations; entrances, generic nodes and
  boarding areas (location_type 2, 3, 4) never are.
- A stop belongs to its parent station (location_type 1) when it has one; the rest are merged by
  name within SAME_NAME_M (SAME_NAME_RAIL_M for rail platforms) and by proximity alone within
  PROXIMITY_M (merge_stations), and the summary counts the stops merged for each reason.
- Each line's representative pattern is its most frequent stop sequence on the service day (a
  pattern and its reverse are one pattern: the two directions of a line).
- Kept: every line's terminals, and every junction (three or more neighbours in the network of
  all patterns: where lines meet, part or cross, the transfer stations that shape the map) when
  the target leaves room for them all; a bus network has more junctions than a board has
  stations, and then the target's worth of them is chosen by even spread. The rest of the target
  goes where a line has its longest stretch between kept stations, at the station nearest that
  stretch's middle, again and again: an even spread along each line.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial import cKDTree

from mapkit.importers.gtfs.names import base_name, is_street, merge_key
from mapkit.importers.gtfs.read import Column, Feed, FeedError, as_float, as_int

# merging stops into stations (merge_stations), distances between stops in metres
SAME_NAME_M = 150.0        # stops of one name: the two sides of a street, the bays of a bus interchange
SAME_NAME_RAIL_M = 400.0   # rail platforms of one name, and the stops of one named place that is no
                           # street (a shopping centre, a campus, a transit centre's bays)
PROXIMITY_M = 40.0         # any two stops this close are one place to a rider (corners of one crossing)


def haversine_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371000.0 * math.asin(min(1.0, math.sqrt(h)))


@dataclass
class Stop:
    id: str
    name: str
    lat: float | None
    lon: float | None
    location_type: int
    parent: str
    line: int


def _lat(v: str) -> str | None:
    err = as_float(v)
    return err or (None if -90 <= float(v) <= 90 else f"{v} is not a latitude (-90 to 90)")


def _lon(v: str) -> str | None:
    err = as_float(v)
    return err or (None if -180 <= float(v) <= 180 else f"{v} is not a longitude (-180 to 180)")


def read_stops(feed: Feed) -> dict[str, Stop]:
    stops = {}
    for n, row in feed.rows("stops.txt", [Column("stop_id"), Column("stop_name", required=False),
                                          Column("stop_lat", required=False, check=_lat),
                                          Column("stop_lon", required=False, check=_lon),
                                          Column("location_type", required=False, check=as_int),
                                          Column("parent_station", required=False)]):
        lat = float(row["stop_lat"]) if row["stop_lat"] else None
        lon = float(row["stop_lon"]) if row["stop_lon"] else None
        stops[row["stop_id"]] = Stop(row["stop_id"], row["stop_name"], lat, lon,
                                     int(row["location_type"] or 0), row["parent_station"], n)
    return stops


def read_trip_stops(feed: Feed, trip_ids: set[str], stops: dict[str, Stop]) -> dict[str, tuple[str, ...]]:
    """Each selected trip's stops in stop_sequence order. Streams stop_times.txt; a trip's rows
    are gathered while they come (a feed lists a trip's rows together) and then stored as one
    sequence shared by every trip of that stopping pattern, so memory follows the selection's
    patterns and a reference a trip, not its stop times. Rows of one trip spread over the file
    are still put together in order."""
    patterns: dict[tuple, tuple] = {}     # one stored sequence per stopping pattern
    done: dict[str, tuple] = {}           # trip → its (sequence, stop) pairs, shared
    open_trip, rows = None, []
    unknown = []
    stale = 0                             # patterns left behind by trips whose rows came back

    def close():
        nonlocal patterns, stale
        if open_trip is None:
            return
        before = done.get(open_trip)
        pairs = tuple(sorted([*(before or ()), *rows]))
        done[open_trip] = patterns.setdefault(pairs, pairs)
        if before is not None:
            stale += 1
            if stale > 1000 + len(patterns) // 2:   # keep only the sequences a trip still holds
                patterns, stale = {v: v for v in done.values()}, 0

    for n, row in feed.rows("stop_times.txt", [Column("trip_id"), Column("stop_id", nonempty=False),
                                               Column("stop_sequence", check=as_int)]):
        t = row["trip_id"]
        if t not in trip_ids:
            continue
        s = row["stop_id"]
        if not s:
            continue  # GTFS-Flex rows name a location group instead: not a place on a map
        if s not in stops:
            unknown.append(f"{feed.where('stop_times.txt')}:{n}: stop_id '{s}' is not in stops.txt")
            continue
        if stops[s].location_type in FACILITIES:
            continue  # an entrance or a boarding area named by mistake: no rider boards there
        if t != open_trip:
            close()
            open_trip, rows = t, []
        rows.append((int(row["stop_sequence"]), s))
    close()
    if unknown:
        raise FeedError(unknown)
    seqs: dict[tuple, tuple] = {}
    for pairs in patterns.values():
        seqs[pairs] = tuple(s for _, s in pairs)
    return {t: seqs[pairs] for t, pairs in done.items()}


FACILITIES = (2, 3, 4)    # entrance, generic node, boarding area: no passenger boards a train there


@dataclass
class Station:
    key: str                      # the root stop id standing for the station
    name: str
    lat: float
    lon: float
    stops: list                   # the root stops (parents, or stops without one) merged into it
    stop_names: list = field(default_factory=list)   # every served stop's own name
    stop_ids: list = field(default_factory=list)     # every served stop's id (platforms and bays too)


def _metres(coords: dict[str, tuple[float, float]], keys: list[str]) -> np.ndarray:
    lat0 = sum(coords[k][0] for k in keys) / max(1, len(keys))
    k = math.cos(math.radians(lat0))
    return np.array([(coords[r][1] * 111320.0 * k, coords[r][0] * 110540.0) for r in keys], dtype=float).reshape(-1, 2)


def merge_stations(used: set[str], stops: dict[str, Stop], feed: Feed,
                   rail: frozenset = frozenset()) -> tuple[dict[str, str], dict[str, Station], dict]:
    """(stop id → station key, station key → Station, figures) for the stops that trips use.

    A stop goes to its parent station first. The roots left (parents, and stops without one) are
    merged, as gtfstools' combine_nearby_stops does, only within a bounded distance: pairs closer
    than SAME_NAME_M (SAME_NAME_RAIL_M when both are served by rail-like lines, the platforms of
    one name, or when the name is a place and not a street, names.is_street) whose names agree once direction, bay, platform and stop codes are taken off
    (names.merge_key), and pairs closer than PROXIMITY_M whatever their names (the corners of one
    crossing); the pairs are found with a k-d tree, joined as a graph's connected components and
    each component cut by complete linkage at its distance, so that no station spans more than
    that (a long street of same-named stops is not one station). `rail`: the stops served by
    rail-like lines."""
    root = {}
    for s in used:
        p = stops[s].parent
        root[s] = p if p and p in stops and p != s else s
    roots = sorted(set(root.values()))
    coords = {}
    missing = []
    for r in roots:
        st = stops[r]
        if st.lat is None or st.lon is None:
            # a parent without coordinates takes its children's mean
            kids = [stops[s] for s, rr in root.items() if rr == r and stops[s].lat is not None and stops[s].lon is not None]
            if not kids:
                missing.append(f"{feed.where('stops.txt')}:{st.line}: stop '{r}' ({st.name or 'no name'}) is used by "
                               "trips but has no stop_lat/stop_lon")
                continue
            coords[r] = (sum(k.lat for k in kids) / len(kids), sum(k.lon for k in kids) / len(kids))
        else:
            coords[r] = (st.lat, st.lon)
    if missing:
        raise FeedError(missing)
    rail_roots = {root[s] for s in used if s in rail}
    keys = {r: merge_key(stops[r].name) or r for r in roots}
    xy = _metres(coords, roots)
    graph = nx.Graph()
    graph.add_nodes_from(range(len(roots)))
    reason = {}
    if len(roots) > 1:
        for i, j in sorted(cKDTree(xy).query_pairs(SAME_NAME_RAIL_M)):
            a, b = roots[i], roots[j]
            d = float(np.hypot(*(xy[i] - xy[j])))
            place = not is_street(keys[a])
            limit = SAME_NAME_RAIL_M if (a in rail_roots and b in rail_roots) or place else SAME_NAME_M
            if keys[a] == keys[b] and d <= limit:
                graph.add_edge(i, j, limit=limit)
                reason[(i, j)] = "same name nearby"
            elif d <= PROXIMITY_M:
                graph.add_edge(i, j, limit=PROXIMITY_M)
                reason[(i, j)] = "proximity"
    members: list[list[str]] = []
    figures = Counter()
    for comp in sorted(nx.connected_components(graph), key=min):
        comp = sorted(comp)
        if len(comp) == 1:
            members.append([roots[comp[0]]])
            continue
        limit = max(d["limit"] for _, _, d in graph.subgraph(comp).edges(data=True))
        labels = fcluster(linkage(xy[comp], method="complete"), t=limit, criterion="distance")
        for lab in sorted(set(labels)):
            part = [comp[i] for i in range(len(comp)) if labels[i] == lab]
            members.append([roots[i] for i in part])
            if len(part) > 1:
                why = {reason.get((min(i, j), max(i, j))) for i in part for j in part if i < j} - {None}
                figures["same name nearby" if why == {"same name nearby"} else "proximity"] += len(part) - 1
    figures["parent"] = sum(1 for s in used if root[s] != s)
    served_names, served_ids = defaultdict(list), defaultdict(list)
    for s in sorted(used):
        served_names[root[s]].append(stops[s].name)
        served_ids[root[s]].append(s)
    stations, stop_station = {}, {}
    for group in members:
        key = min(group)
        names = Counter(base_name(stops[r].name) or stops[r].name or r for r in group)
        # a parent station's own name wins; else the commonest base name
        parents = [r for r in group if stops[r].location_type == 1 and stops[r].name]
        name = base_name(stops[parents[0]].name) if parents else sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        lat = sum(coords[r][0] for r in group) / len(group)
        lon = sum(coords[r][1] for r in group) / len(group)
        stations[key] = Station(key, name, lat, lon, sorted(group), [n for r in group for n in served_names[r]],
                                [x for r in group for x in served_ids[r]])
        for r in group:
            stop_station[r] = key
    stop_station = {s: stop_station[root[s]] for s in used}
    figures = {"stops": len(used), "stations": len(stations), "by_parent": figures["parent"],
               "by_same_name_nearby": figures["same name nearby"], "by_proximity": figures["proximity"],
               "same_name_m": SAME_NAME_M, "same_name_rail_m": SAME_NAME_RAIL_M, "proximity_m": PROXIMITY_M}
    return stop_station, stations, figures


def station_pattern(stops_seq: tuple[str, ...], stop_station: dict[str, str]) -> tuple[str, ...]:
    out = []
    for s in stops_seq:
        st = stop_station[s]
        if not out or out[-1] != st:
            out.append(st)
    return tuple(out)


def representative(patterns: Counter) -> tuple[tuple[str, ...], int, int]:
    """(pattern, its trips, trips of the other patterns): the most frequent pattern, the two
    directions counted together; ties go to the longer pattern, then the first in order."""
    merged = Counter()
    for p, n in patterns.items():
        if len(p) < 2:
            continue
        merged[min(p, p[::-1])] += n
    if not merged:
        return (), 0, sum(patterns.values())
    best = sorted(merged.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))[0]
    return best[0], best[1], sum(merged.values()) - best[1]


def keep_stations(patterns: dict[str, tuple[str, ...]], stations: dict[str, Station], target: int) -> tuple[set, dict]:
    """(kept station keys, figures). patterns: line → its representative station pattern.

    Terminals are always kept. Junctions (three or more neighbours in the network of all
    patterns: where lines meet, part or cross) are all kept when the target leaves room for them;
    else the target's worth of them, chosen by the same even spread. The rest of the target is
    filled by splitting, again and again, the longest stretch of any line between two kept
    stations at the station nearest its middle (a loop line first gets two, so that it stays a
    loop).
    """
    adj = defaultdict(set)
    for p in patterns.values():
        for a, b in zip(p, p[1:]):
            adj[a].add(b)
            adj[b].add(a)
    terminals = {p[0] for p in patterns.values()} | {p[-1] for p in patterns.values()}
    junctions = {s for s, n in adj.items() if len(n) > 2} - terminals
    served = Counter(s for p in patterns.values() for s in set(p))
    kept = set(terminals)
    all_junctions = len(kept) + len(junctions) <= target
    if all_junctions:
        kept |= junctions
    cums = {ln: _cumulative(p, stations) for ln, p in patterns.items()}
    order = sorted(patterns)
    for ln in order:                       # a loop line keeps two stations besides its terminal
        p = patterns[ln]
        if p[0] == p[-1] and len(p) > 3 and not any(s in kept for s in p[1:-1]):
            kept.add(_nearest(p, cums[ln], 1, len(p) - 2, cums[ln][-1] / 3, None))
            kept.add(_nearest(p, cums[ln], 1, len(p) - 2, 2 * cums[ln][-1] / 3, None, exclude=kept))
    if not all_junctions:
        _split(patterns, cums, order, kept, len(kept) + max(0, target - len(kept)), only=junctions)
    _split(patterns, cums, order, kept, max(target, len(kept)), only=None)
    figures = {"network_stations": len(adj), "terminals": len(terminals), "junctions": len(junctions),
               "junctions_kept": len(junctions & kept), "served_by_several_lines": sum(1 for n in served.values() if n > 1),
               "kept": len(kept), "target": target}
    return kept, figures


def _cumulative(p: tuple[str, ...], stations: dict[str, Station]) -> list[float]:
    cum = [0.0]
    for a, b in zip(p, p[1:]):
        cum.append(cum[-1] + haversine_m((stations[a].lat, stations[a].lon), (stations[b].lat, stations[b].lon)))
    return cum


def _nearest(p, cum, lo, hi, goal, only, exclude=frozenset()):
    best = None
    for i in range(lo, hi + 1):
        if p[i] in exclude or (only is not None and p[i] not in only):
            continue
        key = (abs(cum[i] - goal), i)
        if best is None or key < best[0]:
            best = (key, p[i])
    return None if best is None else best[1]


def _split(patterns, cums, order, kept: set, target: int, only) -> None:
    """Add stations to `kept` (in place) until it has `target`, each time at the middle of the
    longest stretch of a line between kept stations that has a candidate in it."""
    while len(kept) < target:
        best = None
        for ln in order:
            p, cum = patterns[ln], cums[ln]
            last = 0
            for i in range(1, len(p)):
                if p[i] not in kept:
                    continue
                if i - last > 1:
                    gap = cum[i] - cum[last]
                    if best is None or gap > best[0]:
                        pick = _nearest(p, cum, last + 1, i - 1, (cum[last] + cum[i]) / 2, only, kept)
                        if pick is not None:
                            best = (gap, pick)
                last = i
        if best is None:
            return
        kept.add(best[1])
