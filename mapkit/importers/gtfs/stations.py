"""Stops → stations, and which stations a board keeps.

- A stop belongs to its parent station (location_type 1) when it has one; stops left without one
  are merged when their names match once platform, bay and direction words are taken off and
  they are within MERGE_DISTANCE_M of each other (the two sides of a street, the bays of a bus
  interchange).
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
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass

from mapkit.importers.gtfs.read import Column, Feed, FeedError, as_float, as_int

MERGE_DISTANCE_M = 400.0


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
    """Each selected trip's stops in stop_sequence order. Streams stop_times.txt and keeps only
    the selected trips' (sequence, stop) pairs: memory follows the selection, not the feed."""
    seqs: dict[str, list] = defaultdict(list)
    unknown = []
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
        seqs[t].append((int(row["stop_sequence"]), s))
    if unknown:
        raise FeedError(unknown)
    return {t: tuple(s for _, s in sorted(v)) for t, v in seqs.items()}


# what follows a station's name in a stop's name: a platform, bay or stand; a direction; "hail and
# ride"; and stop codes like Cairns's "C227" (a capital letter and digits, as agencies print them)
_SUFFIX = re.compile(
    r"(\s*[-–,/]\s*|\s+)(platform|plat|bay|stand|stop|gate|track|quay)\s*[a-z0-9]{0,3}$"
    r"|\s*\((platform|bay|stand|stop|track|[nsew]b|north|south|east|west)[^)]*\)$"
    r"|\s*[-–]\s*hail and ride( location)?$"
    r"|\s+(north|south|east|west)bound$|\s+\[?[nsew]b\]?$",
    re.IGNORECASE)
_CODE = re.compile(r"\s*[-–]?\s*\b[A-Z]{1,2}\d{1,4}\b")
_PARENS = re.compile(r"\s*\([^)]*\)")


def base_name(name: str) -> str:
    """The station name in a stop's name: 'Central - Platform 2' → 'Central',
    'Anderson St C227 (Cemetery)' → 'Anderson St (Cemetery)'."""
    out = _CODE.sub("", name.strip()).strip()
    for _ in range(3):
        new = _SUFFIX.sub("", out).strip()
        if new == out or not new:
            break
        out = new
    return re.sub(r"\s{2,}", " ", out) or name.strip()


def _key(name: str) -> str:
    """What stops must share to merge by name: the base name without any parenthesis."""
    text = _PARENS.sub("", base_name(name)) or base_name(name)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9]+", " ", text).strip()


@dataclass
class Station:
    key: str                      # the root stop id standing for the station
    name: str
    lat: float
    lon: float
    stops: list


def merge_stations(used: set[str], stops: dict[str, Stop], feed: Feed) -> tuple[dict[str, str], dict[str, Station]]:
    """(stop id → station key, station key → Station) for the stops that trips use."""
    root = {}
    for s in used:
        p = stops[s].parent
        root[s] = p if p and p in stops else s
    # union-find over roots with the same base name close together
    parent = {r: r for r in set(root.values())}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    coords = {}
    missing = []
    for r in parent:
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
    by_name = defaultdict(list)
    for r in sorted(parent):
        by_name[_key(stops[r].name) or r].append(r)
    for group in by_name.values():
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if haversine_m(coords[a], coords[b]) <= MERGE_DISTANCE_M:
                    ra, rb = find(a), find(b)
                    if ra != rb:
                        parent[max(ra, rb)] = min(ra, rb)
    members = defaultdict(list)
    for r in parent:
        members[find(r)].append(r)
    stations = {}
    for key, roots in members.items():
        names = Counter(base_name(stops[r].name) or stops[r].name or r for r in roots)
        # a parent station's own name wins; else the commonest base name
        parents = [r for r in roots if stops[r].location_type == 1 and stops[r].name]
        name = stops[parents[0]].name if parents else sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        lat = sum(coords[r][0] for r in roots) / len(roots)
        lon = sum(coords[r][1] for r in roots) / len(roots)
        stations[key] = Station(key, name, lat, lon, sorted(roots))
    stop_station = {s: find(root[s]) for s in used}
    return stop_station, stations


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
