"""`mapkit import gtfs`: synthetic feeds built here (a metro with a shared trunk, express and local
patterns, a loop line, parent stations, a ferry, junk routes, broken rows); the real feeds of
../shared/data/gtfs/ are in test_import_gtfs_real.py, the drawing decisions in
test_import_gtfs_drawable.py.

The fast tests run the importer without the layout (import_feed) or stop before it (bad input);
the whole command, with the layout and the decks, runs on a small feed (and, marked slow, on the
full synthetic metro).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import zipfile
from pathlib import Path

import pytest

from mapkit.colors import GRAY_DISPLAY_HEX, MIN_COLOR_DELTA_E, color_distance

REPO = Path(__file__).resolve().parent.parent
# CI has shared/ beside the clone; a checkout elsewhere may say where with
# MAPKIT_GTFS_FEEDS
SHARED = Path(os.environ.get("MAPKIT_GTFS_FEEDS") or REPO.parent / "shared" / "data" / "gtfs")

pytest.importorskip("partridge", reason="the GTFS extra (pip install -e '.[gtfs]' or '.[test]') is not installed")

from mapkit.importers.gtfs import import_feed  # noqa: E402
from mapkit.importers.gtfs import lines as L  # noqa: E402
from mapkit.importers.gtfs.read import FeedError  # noqa: E402


# ---------------------------------------------------------------- a synthetic feed

def _line_points(start, end, n):
    (la, lo), (lb, lob) = start, end
    return [(la + (lb - la) * i / (n - 1), lo + (lob - lo) * i / (n - 1)) for i in range(n)]


class FeedBuilder:
    """A GTFS feed in memory: add stops, routes and trips, then write a folder or a zip."""

    def __init__(self):
        self.agency = [["agency_id", "agency_name", "agency_url", "agency_timezone"],
                       ["MT", "Metro Test Transit", "https://transit.example", "America/New_York"]]
        self.stops = [["stop_id", "stop_name", "stop_lat", "stop_lon", "location_type", "parent_station"]]
        self.routes = [["route_id", "agency_id", "route_short_name", "route_long_name", "route_type", "route_color"]]
        self.trips = [["route_id", "service_id", "trip_id", "direction_id"]]
        self.stop_times = [["trip_id", "arrival_time", "departure_time", "stop_id", "stop_sequence"]]
        self.calendar = [["service_id", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
                          "start_date", "end_date"],
                         ["WK", "1", "1", "1", "1", "1", "0", "0", "20260105", "20260630"],
                         ["SUN", "0", "0", "0", "0", "0", "0", "1", "20260105", "20260630"]]
        self.feed_info = [["feed_publisher_name", "feed_publisher_url", "feed_lang", "feed_version"],
                          ["Metro Test Open Data", "https://data.example/license", "en", "2026-01"]]
        self.extra: dict[str, str] = {}
        self._trip = 0

    def stop(self, sid, name, lat, lon, location_type="", parent=""):
        self.stops.append([sid, name, f"{lat:.6f}", f"{lon:.6f}", str(location_type), parent])
        return sid

    def route(self, rid, short, long, rtype, color=""):
        self.routes.append([rid, "MT", short, long, str(rtype), color])

    def trips_of(self, rid, stops, count, service="WK", both_ways=True):
        for k in range(count):
            for seq in ([stops, stops[::-1]] if both_ways else [stops]):
                self._trip += 1
                tid = f"{rid}-{self._trip}"
                self.trips.append([rid, service, tid, "0"])
                for i, s in enumerate(seq):
                    t = f"{6 + k // 4:02d}:{(k * 15 + i) % 60:02d}:00"
                    self.stop_times.append([tid, t, t, s, str(i + 1)])

    def files(self) -> dict[str, str]:
        out = {}
        for name in ("agency", "stops", "routes", "trips", "stop_times", "calendar", "feed_info"):
            buf = io.StringIO()
            csv.writer(buf, lineterminator="\r\n").writerows(getattr(self, name))
            out[f"{name}.txt"] = buf.getvalue()
        out.update(self.extra)
        return out

    def folder(self, path: Path, bom=False) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        for name, text in self.files().items():
            (path / name).write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
        return path

    def zip(self, path: Path, subfolder="") -> Path:
        with zipfile.ZipFile(path, "w") as z:
            for name, text in self.files().items():
                z.writestr(subfolder + name, text)
        return path


def metro_feed(size=1.0) -> FeedBuilder:
    """A metro: Red (local 20 stops + an express pattern), Blue sharing Red's trunk for 4 stations,
    Green a tram loop, Orange nearly Red's color, Yellow commuter rail in white, a ferry without a
    color, one parent station with two platforms, a bus line, and junk routes."""
    f = FeedBuilder()
    n = max(4, round(20 * size))
    red = [f.stop(f"R{i}", f"Red {i}", *p) for i, p in enumerate(_line_points((40.00, -75.30), (40.00, -75.00), n))]
    # Central: a parent station with a Red platform and a Blue platform
    mid = n // 2
    lat, lon = 40.0, -75.30 + 0.30 * mid / (n - 1)
    f.stop("CEN", "Central", lat, lon, location_type=1)
    f.stops = [r for r in f.stops if r[0] != red[mid]]
    f.stop("CEN-R", "Central Platform 1", lat, lon + 0.0004, parent="CEN")
    f.stop("CEN-B", "Central Platform 2", lat + 0.0004, lon, parent="CEN")
    red[mid] = "CEN-R"
    red_stops = list(red)
    f.route("RED", "R", "Red Line", 1, "E32017")
    f.trips_of("RED", red_stops, 12)
    f.trips_of("RED", [red_stops[0], red_stops[mid], red_stops[-1]], 4)          # express pattern
    # Blue: north to south through Central, sharing the trunk Red mid-2 .. mid+1
    m = max(3, round(8 * size))
    north = [f.stop(f"BN{i}", f"Blue North {i}", *p) for i, p in enumerate(_line_points((40.20, lon - 0.05), (40.03, lon - 0.02), m))]
    south = [f.stop(f"BS{i}", f"Blue South {i}", *p) for i, p in enumerate(_line_points((39.97, lon + 0.02), (39.80, lon + 0.05), m))]
    trunk = [red_stops[mid - 2], red_stops[mid - 1], "CEN-B", red_stops[mid + 1]]
    f.route("BLUE", "B", "Blue Line", 1, "0019A8")
    f.trips_of("BLUE", north + trunk + south, 10)
    # Green: a tram loop through Red's station mid+4
    k = max(4, round(8 * size))
    hub = red_stops[min(n - 2, mid + 4)]
    hub_lat, hub_lon = 40.0, -75.30 + 0.30 * min(n - 2, mid + 4) / (n - 1)
    loop = [f.stop(f"G{i}", f"Green {i}", hub_lat + 0.05 * (1 - math.cos(2 * math.pi * i / (k + 1))),
                   hub_lon + 0.05 * math.sin(2 * math.pi * i / (k + 1))) for i in range(1, k + 1)]
    f.route("GREEN", "G", "Green Loop", 0, "00782A")
    f.trips_of("GREEN", [hub, *loop, hub], 8, both_ways=False)
    # Orange: nearly Red's color, a branch from Red 1
    o = max(3, round(8 * size))
    orange = [f.stop(f"O{i}", f"Orange {i}", *p) for i, p in enumerate(_line_points((39.97, -75.27), (39.85, -75.20), o))]
    f.route("ORANGE", "O", "Orange Line", 1, "E4201A")
    f.trips_of("ORANGE", [red_stops[1], *orange], 6)
    # Yellow: commuter rail in white from Red's east end
    y = max(3, round(6 * size))
    yellow = [f.stop(f"Y{i}", f"Yellow {i}", *p) for i, p in enumerate(_line_points((40.05, -74.95), (40.30, -74.60), y))]
    f.route("YELLOW", "Y", "Yellow Commuter", 2, "FFFFFF")
    f.trips_of("YELLOW", [red_stops[-1], *yellow], 3)
    # a ferry without a color from Red 3 across the water
    ferry = [f.stop("F1", "Island Pier", 39.90, -75.22), f.stop("F2", "Far Island", 39.86, -75.12)]
    f.route("FERRY", "F", "Island Ferry", 4, "")
    f.trips_of("FERRY", [red_stops[3], *ferry], 4)
    # a bus line (not taken by default), and junk
    f.route("BUS9", "9", "Crosstown", 3, "")
    f.trips_of("BUS9", [red_stops[2], north[-1]], 20)
    f.route("CHARTER", "C1", "Charter service", 1, "")
    f.trips_of("CHARTER", [red_stops[0], yellow[-1]], 1)
    f.route("TEST", "T", "Test train", 1, "123456")
    f.trips_of("TEST", [red_stops[0], red_stops[-1]], 1)
    f.route("GHOST", "X", "Never runs", 1, "")
    f.route("SUNDAY", "S", "Sunday shuttle", 1, "")
    f.trips_of("SUNDAY", [red_stops[0], red_stops[4]], 5, service="SUN")
    return f


@pytest.fixture(scope="module")
def metro_result(tmp_path_factory):
    path = metro_feed().folder(tmp_path_factory.mktemp("metro") / "feed")
    return import_feed(path)


# ---------------------------------------------------------------- what the importer decides

def test_metro_lines_kept_and_junk_left_out(metro_result):
    s = metro_result.summary
    kept = {ln["route_id"] for ln in s["lines"]}
    assert kept == {"RED", "BLUE", "GREEN", "ORANGE", "YELLOW", "FERRY"}
    why = {d["line"]: d["why"] for d in s["dropped"]}
    assert "no trips" in why["X"]            # a route without trips
    assert "charter" in why["C1"].lower()
    assert "test" in why["T"].lower()
    assert "no trips" in why["S"]            # runs on Sundays only, not on the busiest day
    assert "9" not in kept and any("bus lines left out" in n for n in s["notes"])
    red = next(ln for ln in s["lines"] if ln["route_id"] == "RED")
    assert red["patterns"] == 2 and red["trips"] == 32 and red["pattern_trips"] == 24 and red["other_pattern_trips"] == 8


def test_metro_parent_station_merges_platforms(metro_result, tmp_path):
    st = metro_result.summary["stations"]
    assert st["merged_stations"] == st["stops_used"] - 1      # Central's two platforms: one station
    names = [s["name"] for s in import_feed(metro_feed(0.5).folder(tmp_path / "f"), stations=31).data["stations"]]
    assert names.count("Central") == 1
    assert not any("Platform" in n for n in names)


def test_metro_terminals_and_junctions_kept(metro_result):
    names = {st["name"] for st in metro_result.data["stations"]}
    n = 20
    for terminal in ("Red 0", f"Red {n - 1}", "Blue North 0", "Blue South 7", "Orange 7", "Yellow 5", "Far Island"):
        assert terminal in names
    # where lines part or join: Blue meets Red two stations west of Central and leaves one east of it
    for junction in ("Red 8", "Red 11", "Red 1", "Red 3"):
        assert junction in names


def test_metro_shared_trunk_is_double(metro_result):
    data = metro_result.data
    by_id = {s["id"]: s["name"] for s in data["stations"]}
    doubles = {}
    for r in data["routes"]:
        if "double" in r:
            doubles.setdefault(r["double"], []).append(r)
    assert doubles, "the shared Red/Blue trunk should be double routes"
    for tracks in doubles.values():
        assert len(tracks) == 2
        # the two tracks of a double never share a card color
        assert len({t["color"] for t in tracks}) == 2
        assert tracks[0]["length"] == tracks[1]["length"]
        ends = {by_id[tracks[0]["from"]], by_id[tracks[0]["to"]]}
        assert ends <= {"Red 8", "Red 9", "Central", "Red 11"}
    # nowhere else do two routes join the same stations
    pairs = [frozenset((r["from"], r["to"])) for r in data["routes"] if "double" not in r]
    assert len(pairs) == len(set(pairs))


def test_metro_loop_stays_a_loop(metro_result):
    data = metro_result.data
    green = next(c["id"] for c in data["palette"] if c["name"] == "Green Loop")
    routes = [r for r in data["routes"] if r["color"] == green]
    assert len(routes) >= 3
    degree = {}
    for r in routes:
        for s in (r["from"], r["to"]):
            degree[s] = degree.get(s, 0) + 1
    assert set(degree.values()) == {2}, "every station of a loop has two loop routes"


def test_metro_palette(metro_result):
    data, s = metro_result.data, metro_result.summary
    palette = data["palette"]
    hexes = [c["hex"] for c in palette]
    for i, a in enumerate(hexes):
        assert color_distance(a, GRAY_DISPLAY_HEX) >= MIN_COLOR_DELTA_E
        for b in hexes[i + 1:]:
            assert color_distance(a, b) >= MIN_COLOR_DELTA_E
    by_name = {c["name"]: c for c in palette}
    # Red and Orange are nearly the same color: one card color for both
    merged = [c for c in s["colors"] if set(c["lines"]) == {"R", "O"}]
    assert merged and merged[0]["hex"] == "#E32017"
    assert [g["colors"] for g in s["color_groups"] if set(g["lines"]) == {"R", "O"}] == [[c["id"] for c in merged]]
    # white commuter rail and the colorless ferry got distinct colors, with the kind of their mode
    yellow = next(c for c in s["colors"] if c["lines"] == ["Y"])
    assert yellow["source"].startswith("replaced") and yellow["hex"] != "#FFFFFF"
    assert yellow["kind"] == "rail"
    # the two-route ferry is a gray route, not a card color of its own
    assert "F" in s["gray_lines"] and not any("F" in c["lines"] for c in s["colors"])
    assert any("made gray" in n and "Island Ferry" in n for n in s["notes"])
    assert by_name["Green Loop"]["kind"] == "light-rail"


def test_metro_lengths_scaled_to_five_players(metro_result):
    data, s = metro_result.data, metro_result.summary
    spaces = sum(r["length"] for r in data["routes"])
    assert spaces == s["lengths"]["spaces"]
    trains = data.get("rules", {}).get("overrides", {}).get("trains", 45)
    players = data.get("rules", {}).get("overrides", {}).get("max_players", 5)
    assert spaces >= L.ROOM * players * trains and s["players"] == [2, players]
    longest = max(r["length"] for r in data["routes"])
    assert len(data["route_points"]) >= max(6, longest)
    assert data["route_points"][:6] == [1, 2, 4, 7, 10, 15]
    # longer segments get longer routes: lengths follow distance
    assert s["lengths"]["spaces_per_km"] > 0


def test_metro_station_target_and_even_spread(tmp_path):
    path = metro_feed().folder(tmp_path / "feed")
    few = import_feed(path, stations=25)
    many = import_feed(path, stations=45)
    assert few.summary["stations"]["kept"] == len(few.data["stations"]) == 25
    assert many.summary["stations"]["kept"] == 45
    # more stations: routes between kept stations get shorter
    assert _mean_stretch(many) < _mean_stretch(few)
    # one straight line of 20 stations thinned to 7: its stretches are alike (within a factor of two)
    from mapkit.importers.gtfs.stations import Station, keep_stations

    stations = {f"s{i}": Station(f"s{i}", f"S {i}", 40.0, -75.0 + 0.01 * i, []) for i in range(20)}
    kept, figures = keep_stations({"L": tuple(stations)}, stations, 7)
    index = sorted(int(k[1:]) for k in kept)
    assert len(index) == 7 and index[0] == 0 and index[-1] == 19 and figures["terminals"] == 2
    gaps = [b - a for a, b in zip(index, index[1:])]
    assert max(gaps) <= 2 * min(gaps) + 1, gaps


def _stop_name(sid):
    return "Central" if sid == "CEN-R" else f"Red {sid[1:]}"


def _mean_stretch(result):
    from mapkit.importers.gtfs.stations import haversine_m

    pos = {s["id"]: (s["lat"], s["lon"]) for s in result.data["stations"]}
    d = [haversine_m(pos[r["from"]], pos[r["to"]]) for r in result.data["routes"]]
    return sum(d) / len(d)


def test_credits_name_agency_and_publisher(metro_result):
    credits = metro_result.data["credits"]
    assert "Metro Test Transit" in credits and "Metro Test Open Data" in credits
    assert "https://data.example/license" in credits


def test_select_by_route_short_name_and_mode(tmp_path):
    path = metro_feed(0.5).folder(tmp_path / "feed")
    r = import_feed(path, routes=("R", "GREEN"))
    assert {ln["route_id"] for ln in r.summary["lines"]} == {"RED", "GREEN"}
    r = import_feed(path, modes=("ferry", "rail"))
    assert {ln["mode"] for ln in r.summary["lines"]} <= {"ferry", "rail", "subway", "commuter-rail"}
    from mapkit.errors import MapkitError
    with pytest.raises(MapkitError, match="2 stations and 1 routes"):   # the one bus line alone
        import_feed(path, modes=("bus",))


def test_zip_with_subfolder_bom_and_crlf(tmp_path):
    f = metro_feed(0.5)
    a = import_feed(f.zip(tmp_path / "feed.zip", subfolder="gtfs/"))
    b = import_feed(f.folder(tmp_path / "bom", bom=True))
    assert a.data["stations"] == b.data["stations"] and a.data["routes"] == b.data["routes"]


# ---------------------------------------------------------------- bad feeds

def test_broken_row_names_file_and_line(tmp_path):
    f = metro_feed(0.5)
    f.stop_times.insert(5, ["RED-1", "06:00:00", "06:00:00", "R1"])           # a value short
    f.stop_times.insert(9, ["RED-1", "06:00:00", "06:00:00", "R2", "two"])    # not a number
    path = f.folder(tmp_path / "feed")
    with pytest.raises(FeedError) as e:
        import_feed(path)
    text = str(e.value)
    assert "stop_times.txt:6: 4 values, but the header names 5 columns" in text
    assert "stop_times.txt:10: stop_sequence 'two' is not a whole number" in text


def test_missing_file_and_column(tmp_path):
    f = metro_feed(0.5)
    path = f.folder(tmp_path / "feed")
    (path / "stops.txt").unlink()
    with pytest.raises(FeedError, match="missing stops.txt"):
        import_feed(path)
    f.routes = [["route_id", "route_short_name", "route_color"]] + [[r[0], r[2], r[5]] for r in f.routes[1:]]
    path = f.folder(tmp_path / "feed2")
    with pytest.raises(FeedError, match=r"routes.txt:1: no column 'route_type'"):
        import_feed(path)


def test_stop_without_coordinates(tmp_path):
    f = metro_feed(0.5)
    for row in f.stops:
        if row[0] == "R1":
            row[2] = row[3] = ""
    path = f.folder(tmp_path / "feed")
    with pytest.raises(FeedError, match=r"stops.txt:\d+: stop 'R1' \(Red 1\) is used by trips but has no stop_lat/stop_lon"):
        import_feed(path)


def test_unknown_route_did_you_mean_and_empty_selection(tmp_path):
    from mapkit.errors import MapkitError, UsageError

    path = metro_feed(0.5).folder(tmp_path / "feed")
    with pytest.raises(UsageError, match=r"no route 'GREN'.*did you mean 'GREEN'"):
        import_feed(path, routes=("GREN",))
    with pytest.raises(MapkitError, match="has no trips on 2026-01-05"):
        import_feed(path, modes=("monorail",))
    with pytest.raises(UsageError, match=r"no agency 'MTT' \(did you mean 'MT'\?\); agencies: MT \(Metro Test Transit\)"):
        import_feed(path, agency="MTT")
    assert {ln["route_id"] for ln in import_feed(path, agency="Metro Test Transit").summary["lines"]} >= {"RED", "BLUE"}


# ---------------------------------------------------------------- the command

@pytest.fixture
def small_feed(tmp_path):
    """A metro of 22 stations: quick to lay out."""
    f = metro_feed(0.35)
    return f.zip(tmp_path / "small.zip")


def test_cli_writes_a_strictly_valid_board(cli, small_feed, tmp_path):
    out = tmp_path / "board.json"
    r = cli("import", "gtfs", small_feed, "--out", out, "--format", "json")
    summary = json.loads(r.output)
    assert r.exit_code == 0, (summary["problems"], summary["layout"])
    assert summary["written"] and out.exists()
    v = cli("validate", out, "--strict")
    assert v.exit_code == 0, v.output
    data = json.loads(out.read_text())
    assert sum(data["deck"]["counts"].values()) + data["deck"]["wild"] == data["deck"]["total"]
    assert data["ticket_decks"]["standard"]
    assert all("board" in s for s in data["stations"])
    # the layout's figures, the playtest and the preview beside the board
    b = summary["board"]
    physical = data.get("physical", {})
    assert b["size_mm"] == [physical.get("width_mm", 800), physical.get("height_mm", 530)]
    assert 0 <= b["empty_share"] <= 1 and b["routes_over_90deg"] >= 0 and b["largest_gap_mm"] > 0
    pt = summary["playtest"]
    lo, hi = summary["players"]
    assert sorted(pt["by_players"]) == [str(p) for p in range(lo, hi + 1)] or sorted(pt["by_players"]) == list(range(lo, hi + 1))
    assert all(r["games"] == 200 for r in pt["by_players"].values())
    png = out.with_suffix(".png")
    assert summary["preview"] == str(png) and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # never overwritten without --force: neither the board nor its preview
    before = out.read_bytes()
    r = cli("import", "gtfs", small_feed, "--out", out)
    assert r.exit_code == 2 and "--force" in r.output and out.read_bytes() == before
    other = tmp_path / "other.json"
    (tmp_path / "other.png").write_bytes(b"mine")
    r = cli("import", "gtfs", small_feed, "--out", other)
    assert r.exit_code == 2 and "other.png exists" in r.output and not other.exists()
    assert (tmp_path / "other.png").read_bytes() == b"mine"


def test_cli_bad_input_exit_codes(cli, small_feed, tmp_path):
    out = tmp_path / "x.json"
    r = cli("import", "gtfs", small_feed, "--out", out, "--route", "Q")
    assert r.exit_code == 2 and "no route 'Q'" in r.output
    r = cli("import", "gtfs", small_feed, "--out", out, "--modes", "subwy")
    assert r.exit_code == 2 and "did you mean 'subway'" in r.output
    r = cli("import", "gtfs", tmp_path / "nope.zip", "--out", out)
    assert r.exit_code == 1 and "no such file" in r.output
    r = cli("import", "gtfs", small_feed, "--out", small_feed, "--force")
    assert r.exit_code == 2 and "overwrite the input" in r.output
    assert not out.exists()


def test_cli_names_file_problems_exit_2_before_any_work(cli, small_feed, tmp_path):
    out = tmp_path / "x.json"
    names = tmp_path / "names.csv"
    names.write_text("stop,name\nR1,\n", encoding="utf-8")
    r = cli("import", "gtfs", small_feed, "--out", out, "--names", names)
    assert r.exit_code == 2 and "names.csv:2: name is empty" in r.output and "Traceback" not in r.output
    r = cli("import", "gtfs", small_feed, "--out", out, "--names", tmp_path / "none.csv")
    assert r.exit_code == 2 and "is not a file" in r.output
    r = cli("import", "gtfs", small_feed, "--out", out, "--size", "80x53")
    assert r.exit_code == 2 and "from 100 to 5000 mm" in r.output
    assert not out.exists() and not out.with_suffix(".png").exists()


def test_cli_without_the_extra(cli, small_feed, tmp_path, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_partridge(name, *a, **k):
        if name == "partridge" or name.startswith("partridge."):
            raise ImportError("No module named 'partridge'")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_partridge)
    r = cli("import", "gtfs", small_feed, "--out", tmp_path / "x.json")
    assert r.exit_code == 2 and "pip install 'mapkit[gtfs]'" in r.output


def test_route_types_basic_and_extended():
    from mapkit.importers.gtfs.select import mode_of

    assert mode_of(1) == (("subway", "rail"), "rail")
    assert mode_of(0)[1] == "light-rail" and "tram" in mode_of(0)[0]
    assert mode_of(109) == (("commuter-rail", "rail"), "commuter-rail")
    assert mode_of(401)[1] == "rail" and mode_of(405)[1] == "monorail"
    assert mode_of(900)[1] == "streetcar" and mode_of(1200)[1] == "ferry" and mode_of(1300)[1] == "aerial-tram"
    assert mode_of(800) == (("trolleybus", "bus"), "bus") and mode_of(11)[0][0] == "trolleybus"
    assert mode_of(715) is None and mode_of(1500) is None and mode_of(99) is None   # demand-responsive, taxi, unknown


def test_station_names_from_stop_names():
    from mapkit.importers.gtfs.names import base_name, merge_key as _key

    assert base_name("Central - Platform 2") == "Central"
    assert base_name("Anderson St C227 (Cemetery)") == "Anderson St (Cemetery)"
    assert base_name("Cedar Rd (Palm Cove) - Hail and Ride Location") == "Cedar Rd (Palm Cove)"
    assert base_name("Red 3") == "Red 3" and base_name("Terminal 2") == "Terminal 2"
    assert _key("Anderson St C228") == _key("Anderson St C227 (Cemetery)") == "anderson st"


def test_broken_trips_and_calendar_rows_and_no_service(tmp_path):
    f = metro_feed(0.5)
    f.trips.insert(3, ["RED", "WK"])
    f.calendar.append(["XX", "1", "1", "1", "1", "1", "0", "yes", "20260105", "20261340"])
    with pytest.raises(FeedError) as e:
        import_feed(f.folder(tmp_path / "a"))
    assert "calendar.txt:4: sunday 'yes' is not 0 or 1" in str(e.value)
    assert "calendar.txt:4: end_date '20261340' is not a real date" in str(e.value)
    f = metro_feed(0.5)
    f.trips.insert(3, ["RED", "WK"])
    with pytest.raises(FeedError, match=r"trips.txt:4: 2 values, but the header names 4 columns"):
        import_feed(f.folder(tmp_path / "b"))
    f = metro_feed(0.5)
    f.calendar = f.calendar[:1]
    with pytest.raises(FeedError, match="no trip runs on any day"):
        import_feed(f.folder(tmp_path / "c"))


def test_cli_lays_out_again_with_shorter_lengths_while_the_board_fails(cli, small_feed, tmp_path, monkeypatch):
    """The drafts are laid out board size by board size, from the smallest that holds four players
    up, on each the most spaces first (lengths for more board than the estimate says fits, then
    less; without --stations each station target too); while the layout leaves problems the next
    one is laid out, at most MAX_LAYOUTS, and nothing is written until one is valid."""
    import mapkit.importers.gtfs.board as B
    from mapkit.cli.importing import MAX_LAYOUTS
    from mapkit.errors import ERROR, Problem, Report

    laid = []

    def failing_layout(data, **k):
        laid.append(data)
        bad = Report("x", [Problem(ERROR, "space-overlap", "spaces overlap route 'a-b' (4 mm²)")])
        return B.Finished(data, "{}", bad, {"figures": {}, "problems": ["spaces overlap"]}, {"total": 110, "wild": 14}, 30)

    monkeypatch.setattr(B, "finish_board", failing_layout)
    out = tmp_path / "b.json"
    r = cli("import", "gtfs", small_feed, "--out", out, "--format", "json")
    summary, _ = json.JSONDecoder().raw_decode(r.output)      # then the "not written" message
    assert r.exit_code == 1 and not out.exists() and not summary["written"] and "was not written" in r.output
    attempts = summary["attempts"]
    assert 2 <= len(attempts) == len(laid) <= MAX_LAYOUTS
    assert all(a["errors"] == 1 and not a["valid"] and a["first_problems"] for a in attempts)
    # on each board size the most spaces first, at most MAX_PER_BOARD; then the next size up
    from mapkit.cli.importing import MAX_PER_BOARD
    boards = [tuple(a["board_mm"]) for a in attempts]
    areas = [w * h for w, h in dict.fromkeys(boards)]
    assert areas[1:] == sorted(areas[1:]) and len(areas) >= 2 and areas[0] <= areas[1]
    for b in set(boards):
        spaces = [a["spaces"] for a in attempts if tuple(a["board_mm"]) == b]
        assert spaces == sorted(spaces, reverse=True) and len(spaces) <= MAX_PER_BOARD
    # no board is laid out twice
    assert all(x != y for i, x in enumerate(laid) for y in laid[i + 1:])
    # the first valid draft is the one written
    calls = []

    def second_is_valid(data, **k):
        calls.append(data)
        return failing_layout(data) if len(calls) == 1 else B.Finished(data, json.dumps(data), Report("x", []), {}, {"total": 110, "wild": 14}, 30)

    monkeypatch.setattr(B, "finish_board", second_is_valid)
    r = cli("import", "gtfs", small_feed, "--out", out, "--format", "json", "--games", "0")
    summary = json.loads(r.output)
    assert r.exit_code == 0 and [a["valid"] for a in summary["attempts"]] == [False, True]
    assert json.loads(out.read_text()) == calls[1]


@pytest.mark.slow
def test_cli_synthetic_metro_full_size_is_written_valid(cli, tmp_path):
    """The synthetic metro at full size (60 stations on its lines): written valid, with the trains
    per player lowered to what the largest board holds (the summary says so)."""
    out = tmp_path / "metro.json"
    r = cli("import", "gtfs", metro_feed(1.0).zip(tmp_path / "metro.zip"), "--out", out, "--format", "json")
    summary = json.loads(r.output)
    assert r.exit_code == 0, (summary["problems"][:5], summary["attempts"])
    assert cli("validate", out, "--strict").exit_code == 0
    assert summary["trains"] < 45 and any("scaled down" in n for n in summary["notes"])


def test_text_summary_prints_merges_board_players_and_playtest(metro_result):
    from mapkit.cli.importing import format_summary

    s = dict(metro_result.summary)
    s.update(board={"size_mm": [800, 530], "empty_share": 0.31, "routes_over_90deg": 2, "largest_gap_mm": 6.4},
             players=[2, 4], deck={"total": 110, "wild": 14}, tickets=30, written=True, out="x.json", seconds=1.0,
             preview="x.png",
             playtest={"games": 200, "agent": "route-focus", "seconds": 3.0,
                       "by_players": {2: {"games": 200, "gaps": {}, "completion": 0.8},
                                      4: {"games": 200, "gaps": {"endless_wipes": 3}, "completion": 0.6}},
                       "fixes": ["4 players: 12 more train cards (110 -> 122)"],
                       "left": ["4 players: endless_wipes in 3 of 200 games: fewer wild cards"]})
    text = format_summary(s)
    m = s["stations"]["merge"]
    assert f"stations: {m['stops']} stops merged into {m['stations']} stations ({m['by_parent']} by parent station" in text
    assert "board: 800 x 530 mm, 31 % empty, 2 route(s) drawn more than 90 degrees off the real map, largest gap " \
           "between spaces 6.4 mm" in text
    assert f"players: 2-4 with {s['trains']} trains each" in text
    assert "  4 players: endless_wipes in 3 games; tickets completed 60 %" in text
    assert "  fixed: 4 players: 12 more train cards" in text and "  to do: 4 players: endless_wipes" in text
    assert "preview: x.png" in text and "card colors from" in text


def test_text_summary_tables_keep_their_columns_with_long_ids(metro_result):
    """The lines' and the colors' tables are as wide as their widest cell: a long color id keeps
    the hex, name and kind columns lined up."""
    from mapkit.cli.importing import format_summary

    s = dict(metro_result.summary)
    s["colors"] = [dict(c) for c in s["colors"]]
    s["colors"][0]["id"] = "central-campus-shuttle-inbound-express-line"
    s.update(board={"size_mm": [800, 530], "empty_share": 0.31, "routes_over_90deg": 0, "largest_gap_mm": 6.0},
             players=[2, 4], deck={"total": 110, "wild": 14}, tickets=30, written=True, out="x.json", seconds=1.0)
    lines = format_summary(s).splitlines()
    rows = [ln for ln in lines if any(ln.lstrip().startswith(c["id"] + " ") for c in s["colors"])]
    assert len(rows) == len(s["colors"])
    starts = {ln.index(c["hex"]) for c in s["colors"] for ln in rows if c["hex"] in ln and ln.lstrip().startswith(c["id"] + " ")}
    assert len(starts) == 1   # every hex starts in the same column
