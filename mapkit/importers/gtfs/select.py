"""Which lines go on the board: modes from route_type, --route, --agency, and junk routes left out.

route_type is either one of the basic GTFS types (0-7, 11, 12) or an extended (Google / HVT)
type (100-1700); both map to a mode a designer asks for (`--modes subway,tram`) and to the board's
route kind (how it is drawn). Junk routes are the ones that are on no rider's map: no trips on the
service day, charters, tests, "on break", demand-responsive taxis; they are left out unless named
with --route, and listed in the summary either way.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from mapkit.errors import UsageError, did_you_mean
from mapkit.importers.gtfs.read import Column, Feed, FeedError, as_int

MODES = ("rail", "subway", "tram", "light-rail", "commuter-rail", "monorail", "cable", "ferry", "bus", "trolleybus")
BUS_MODES = ("bus", "trolleybus")

# basic route types: (modes it answers to, board kind)
BASIC_TYPES = {
    0: (("tram", "light-rail"), "light-rail"),
    1: (("subway", "rail"), "rail"),
    2: (("rail",), "rail"),
    3: (("bus",), "bus"),
    4: (("ferry",), "ferry"),
    5: (("cable", "tram"), "streetcar"),   # cable tram (San Francisco cable cars)
    6: (("cable",), "aerial-tram"),        # aerial lift, gondola
    7: (("cable",), "aerial-tram"),        # funicular
    11: (("trolleybus", "bus"), "bus"),
    12: (("monorail",), "monorail"),
}


def mode_of(route_type: int) -> tuple[tuple[str, ...], str] | None:
    """(modes, board kind) of a route_type, basic or extended; None for types that are no line
    (taxis, 'miscellaneous', unknown numbers)."""
    if route_type in BASIC_TYPES:
        return BASIC_TYPES[route_type]
    t = route_type
    if t in (106, 109):                       # regional, suburban railway
        return ("commuter-rail", "rail"), "commuter-rail"
    if 100 <= t <= 117:                       # railway services
        return ("rail",), "rail"
    if 200 <= t <= 209:                       # coach
        return ("bus",), "bus"
    if t == 405:                              # monorail
        return ("monorail",), "monorail"
    if 400 <= t <= 404:                       # urban railway, metro, underground
        return ("subway", "rail"), "rail"
    if 700 <= t <= 714 or t == 716:           # bus services (715: demand and response)
        return ("bus",), "bus"
    if t == 800:                              # trolleybus
        return ("trolleybus", "bus"), "bus"
    if 900 <= t <= 906:                       # tram
        return ("tram", "light-rail"), "streetcar"
    if t in (1000, 1200):                     # water transport, ferry
        return ("ferry",), "ferry"
    if 1300 <= t <= 1307 or t == 1400:        # aerial lift, funicular
        return ("cable",), "aerial-tram"
    return None


JUNK_WORDS = re.compile(r"\b(charter|test|testing|on break|not in service|out of service|training|dummy|"
                        r"do not use|deadhead|private hire|rail replacement|replacement bus)\b", re.IGNORECASE)


@dataclass
class Line:
    """One GTFS route: a line of the network."""

    route_id: str
    agency_id: str
    short_name: str
    long_name: str
    desc: str
    route_type: int
    color: str | None         # #rrggbb from route_color, None when absent or malformed
    line: int                 # its line in routes.txt
    modes: tuple[str, ...] = ()
    kind: str = "bus"
    trips: int = 0            # trips on the service day
    trip_ids: list = field(default_factory=list)

    @property
    def name(self) -> str:
        """How riders call it: 'Red Line', '110 City - Palm Cove'."""
        if self.short_name and self.long_name:
            if self.short_name.lower() in self.long_name.lower():
                return self.long_name
            return f"{self.short_name} {self.long_name}"
        return self.short_name or self.long_name or self.route_id

    @property
    def label(self) -> str:
        """Short label for lists: the short name, else the long name, else the id."""
        return self.short_name or self.long_name or self.route_id


_HEX = re.compile(r"^#?[0-9a-fA-F]{6}$")


def read_lines(feed: Feed) -> list[Line]:
    lines = []
    for n, row in feed.rows("routes.txt", [Column("route_id"), Column("agency_id", required=False),
                                           Column("route_short_name", required=False),
                                           Column("route_long_name", required=False),
                                           Column("route_desc", required=False),
                                           Column("route_type", check=as_int),
                                           Column("route_color", required=False)]):
        color = row["route_color"]
        hexval = ("#" + color.lstrip("#").lower()) if color and _HEX.match(color) else None
        t = int(row["route_type"])
        mode = mode_of(t)
        line = Line(row["route_id"], row["agency_id"], row["route_short_name"], row["route_long_name"],
                    row["route_desc"], t, hexval, n)
        if mode:
            line.modes, line.kind = mode
        lines.append(line)
    if not lines:
        raise FeedError([f"{feed.where('routes.txt')}: no routes"])
    return lines


def read_agencies(feed: Feed) -> list[dict]:
    return [row for _, row in feed.rows("agency.txt", [Column("agency_id", required=False),
                                                       Column("agency_name"), Column("agency_url", required=False)])]


def read_feed_info(feed: Feed) -> dict:
    cols = [Column(c, required=False) for c in ("feed_publisher_name", "feed_publisher_url", "feed_version",
                                                "feed_start_date", "feed_end_date", "feed_lang")]
    for _, row in feed.rows("feed_info.txt", cols):
        return row
    return {}


_TIME = re.compile(r"^(\d{1,3}):([0-5]\d):([0-5]\d)$")


def _time(value: str) -> str | None:
    return None if _TIME.match(value) else f"{value!r} is not a time (HH:MM:SS)"


def _seconds(value: str) -> int:
    h, m, s = map(int, _TIME.match(value).groups())
    return 3600 * h + 60 * m + s


def frequency_runs(feed: Feed) -> dict[str, int]:
    """trip_id → how many times it runs, for the trips frequencies.txt repeats: one run every
    headway_secs from start_time until before end_time, summed over the trip's rows. A trip the
    file does not name runs once."""
    runs: Counter = Counter()
    for _, row in feed.rows("frequencies.txt", [Column("trip_id"), Column("start_time", check=_time),
                                                Column("end_time", check=_time),
                                                Column("headway_secs", check=as_int)]):
        span = _seconds(row["end_time"]) - _seconds(row["start_time"])
        headway = int(row["headway_secs"])
        runs[row["trip_id"]] += max(1, -(-span // headway)) if headway > 0 and span > 0 else 1
    return dict(runs)


def count_trips(feed: Feed, lines: list[Line], services: frozenset[str],
                runs: dict[str, int] | None = None) -> list[str]:
    """Give each line its trips on the service day, a trip that frequencies.txt repeats counted
    once per run (`runs`, frequency_runs); returns notes about trips of unknown routes."""
    by_id = {ln.route_id: ln for ln in lines}
    runs = runs or {}
    unknown = Counter()
    for _, row in feed.rows("trips.txt", [Column("route_id"), Column("service_id"), Column("trip_id")]):
        ln = by_id.get(row["route_id"])
        if ln is None:
            unknown[row["route_id"]] += 1
            continue
        if row["service_id"] in services:
            ln.trips += runs.get(row["trip_id"], 1)
            ln.trip_ids.append(row["trip_id"])
    return [f"trips.txt: {n} trips of route '{r}', which routes.txt does not have, were left out"
            for r, n in sorted(unknown.items())]


def parse_modes(text: str | None) -> tuple[str, ...] | None:
    if not text:
        return None
    modes = tuple(m.strip().lower() for m in text.split(",") if m.strip())
    for m in modes:
        if m not in MODES:
            raise UsageError(f"--modes: unknown mode '{m}'{did_you_mean(m, MODES)}; modes: {', '.join(MODES)}")
    return modes


@dataclass
class Selection:
    lines: list[Line]
    modes: tuple[str, ...]
    dropped: list[tuple[str, str]]     # (line label, why)
    notes: list[str]


def junk_reason(line: Line) -> str | None:
    if line.trips == 0:
        return "no trips on the service day"
    if not line.modes:
        return f"route_type {line.route_type} is no line riders take (taxi, demand-responsive or unknown)"
    text = " ".join((line.short_name, line.long_name, line.desc))
    m = JUNK_WORDS.search(text)
    if m:
        return f"its name says '{m.group(0)}'"
    return None


def select_lines(lines: list[Line], modes: tuple[str, ...] | None, routes: tuple[str, ...] | None,
                 agency: str | None, agencies: list[dict]) -> Selection:
    """The lines to import. Unknown --route or --agency values are UsageErrors with a did-you-mean."""
    notes, dropped = [], []
    pool = lines
    if agency:
        ids = {a.get("agency_id", "") for a in agencies}
        names = {a["agency_name"].lower(): a.get("agency_id", "") for a in agencies}
        if agency in ids:
            wanted = agency
        elif agency.lower() in names:
            wanted = names[agency.lower()]
        else:
            raise UsageError(f"--agency: the feed has no agency '{agency}'"
                             f"{did_you_mean(agency, [*ids, *(a['agency_name'] for a in agencies)])}; agencies: "
                             + ", ".join(f"{a.get('agency_id') or '-'} ({a['agency_name']})" for a in agencies))
        # a feed with one agency may leave routes' agency_id empty
        pool = [ln for ln in lines if ln.agency_id == wanted or (not ln.agency_id and len(agencies) == 1)]
    if routes:
        chosen = []
        by_id = {ln.route_id: ln for ln in pool}
        by_short = {}
        for ln in pool:
            if ln.short_name:
                by_short.setdefault(ln.short_name.lower(), []).append(ln)
        for r in routes:
            found = [by_id[r]] if r in by_id else by_short.get(r.lower(), [])
            if not found:
                names = [*by_id, *(ln.short_name for ln in pool if ln.short_name)]
                raise UsageError(f"--route: the feed has no route '{r}' (by route_id or short name)"
                                 f"{did_you_mean(r, names)}")
            for ln in found:
                if ln not in chosen:
                    chosen.append(ln)
        for ln in chosen:
            if ln.trips == 0:
                dropped.append((ln.label, "no trips on the service day"))
        picked = [ln for ln in chosen if ln.trips > 0]
        modes_used = tuple(sorted({m for ln in picked for m in ln.modes[:1]}))
        return Selection(picked, modes_used, dropped, notes)
    if modes is None:
        # the default: the rail-like lines when the feed has any (a city's rail map), else every line
        rail = [ln for ln in pool if ln.modes and not set(ln.modes) & set(BUS_MODES) and ln.trips > 0]
        if rail:
            modes = tuple(sorted({ln.modes[0] for ln in rail}))
            buses = sum(1 for ln in pool if set(ln.modes) & set(BUS_MODES) and ln.trips > 0)
            if buses:
                notes.append(f"modes {', '.join(modes)} (the default when a feed has rail-like lines); "
                             f"{buses} bus lines left out: add --modes {','.join(modes)},bus to take them")
        else:
            modes = tuple(sorted({ln.modes[0] for ln in pool if ln.modes})) or ("bus",)
    picked = []
    for ln in pool:
        if not set(ln.modes) & set(modes):
            if ln.modes:
                continue
        why = junk_reason(ln)
        if why:
            dropped.append((ln.label, why))
        else:
            picked.append(ln)
    return Selection(picked, modes, dropped, notes)
