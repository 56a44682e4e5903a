"""A designer's journey on a city the importer was not tuned on: São Paulo's metro and CPTM lines
(tests/data/gtfs/sao-paulo.zip, see its README), and synthetic feeds for each thing that feed
showed: lines' colors as riders know them, ASCII ids from accented names, service run by
frequencies.txt, the gray routes' name, and stop_times read in bounded memory."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("partridge", reason="the GTFS extra (pip install -e '.[gtfs]' or '.[test]') is not installed")

from test_import_gtfs import FeedBuilder, _line_points  # noqa: E402

from mapkit.colors import GRAY_DISPLAY_HEX, MIN_COLOR_DELTA_E, color_distance  # noqa: E402
from mapkit.importers.gtfs import import_feed  # noqa: E402

SAO_PAULO = Path(__file__).parent / "data" / "gtfs" / "sao-paulo.zip"


def crossing_feed(color_a: str, color_b: str, short_b: str = "B", long_b: str = "Beta Line",
                  trips_b: int = 10) -> FeedBuilder:
    """Two subway lines of 14 stations crossing at a shared one (line A: 10 trips a way)."""
    f = FeedBuilder()
    a = [f.stop(f"A{i}", f"Alpha {i}", *p) for i, p in enumerate(_line_points((40.0, -74.30), (40.0, -73.90), 14))]
    b = [f.stop(f"B{i}", f"Beta {i}", *p) for i, p in enumerate(_line_points((40.20, -74.10), (39.80, -74.10), 14))]
    b[7] = "A7"
    f.stops = [r for r in f.stops if r[0] != "B7"]
    f.route("A", "A", "Alpha Line", 1, color_a)
    f.trips_of("A", a, 10)
    f.route("B", short_b, long_b, 1, color_b)
    f.trips_of("B", b, trips_b)
    return f


def _own_color(r, line: str) -> str:
    cid = next(x["color"] for x in r.data["routes"] if x["line"] == line and x["color"] != "gray")
    return next(c["hex"] for c in r.data["palette"] if c["id"] == cid)


def test_a_line_whose_color_clashes_keeps_a_shade_of_it(tmp_path):
    # São Paulo: Metrô line 1 is blue (#0455A1), CPTM line 12 navy (#133C8D), 9 apart; line 1 was
    # printed bright green, the color farthest from every other, which no rider calls line 1
    r = import_feed(crossing_feed("133C8D", "0455A1").folder(tmp_path / "feed"), stations=20)
    a, b = _own_color(r, "A").lower(), _own_color(r, "B").lower()
    assert "#133c8d" in (a, b) or "#0455a1" in (a, b)    # one keeps its own color
    assert color_distance(a, "#133c8d") < 15, a          # the other a shade of its own
    assert color_distance(b, "#0455a1") < 15, b
    assert color_distance(a, b) >= MIN_COLOR_DELTA_E     # told apart
    hexes = [c["hex"] for c in r.data["palette"]] + [GRAY_DISPLAY_HEX]
    assert all(color_distance(x, y) >= MIN_COLOR_DELTA_E for i, x in enumerate(hexes) for y in hexes[i + 1:])


def test_of_two_clashing_lines_the_more_frequent_keeps_its_own_color(tmp_path):
    # São Paulo: metro line 1 (1420 runs a day) took a shade while CPTM line 10 (364 runs), which
    # has more spaces on the board, kept its own color
    f = FeedBuilder()
    a = [f.stop(f"A{i}", f"Alpha {i}", *p) for i, p in enumerate(_line_points((40.0, -74.60), (40.0, -73.60), 24))]
    b = [f.stop(f"B{i}", f"Beta {i}", *p) for i, p in enumerate(_line_points((40.10, -74.10), (39.90, -74.10), 9))]
    f.route("A", "A", "Alpha Line", 2, "133C8D")        # long, 10 trips a way
    f.trips_of("A", a, 10)
    f.route("B", "B", "Beta Line", 1, "0455A1")         # short, 30 trips a way
    f.trips_of("B", [*b[:4], "A12", *b[5:]], 30)
    r = import_feed(f.folder(tmp_path / "feed"), stations=30)
    assert _own_color(r, "B").lower() == "#0455a1"
    assert color_distance(_own_color(r, "A"), "#133c8d") < 15


def test_color_ids_from_accented_line_names_keep_their_letters(tmp_path):
    r = import_feed(crossing_feed("E32017", "0455A1", "METRÔ L1", "Tucuruvi - Jabaquara").folder(tmp_path / "feed"),
                    stations=20)
    ids = {c["id"] for c in r.data["palette"]}
    assert "metro-l1" in ids, ids


def frequency_feed(headway_a: str = "300") -> FeedBuilder:
    """Line A: one trip each way that frequencies.txt repeats every `headway_a` seconds from 06:00
    to 08:00 and 16:00 to 18:00 (48 runs a way at 5 minutes); line B: 10 timetabled trips a way."""
    f = crossing_feed("E32017", "0019A8")
    f.trips = [r for r in f.trips if r[0] != "A"]
    f.trips_of("A", [f"A{i}" for i in range(14)], 1)
    ids = [r[2] for r in f.trips if r[0] == "A"]
    f.stop_times = [r for r in f.stop_times if not r[0].startswith("A-") or r[0] in ids]
    f.extra["frequencies.txt"] = "trip_id,start_time,end_time,headway_secs\r\n" + "".join(
        f"{t},{a},{b},{headway_a}\r\n" for t in ids for a, b in (("06:00:00", "08:00:00"), ("16:00:00", "18:00:00")))
    return f


def test_trips_repeated_by_frequencies_count_once_per_run(tmp_path):
    # São Paulo's feed gives every line one trip a way and its service in frequencies.txt: every
    # line read as 2 trips, so the most frequent lines could not be told from the rest
    r = import_feed(frequency_feed().folder(tmp_path / "feed"), stations=20)
    trips = {ln["route_id"]: ln["trips"] for ln in r.summary["lines"]}
    assert trips["A"] == 2 * 48 and trips["B"] == 20


def test_a_broken_frequencies_row_is_named_with_its_line(tmp_path):
    from mapkit.importers.gtfs.read import FeedError
    with pytest.raises(FeedError, match=r"frequencies\.txt:3: .*'five'"):
        import_feed(frequency_feed("five").folder(tmp_path / "feed"), stations=20)


def test_stop_times_are_read_in_memory_that_follows_the_patterns_not_the_trips(tmp_path):
    import tracemalloc

    from mapkit.importers.gtfs.read import Feed
    from mapkit.importers.gtfs.stations import read_stops, read_trip_stops

    def peak(trips: int) -> int:
        f = FeedBuilder()
        ids = [f.stop(f"S{i}", f"Stop {i}", *p) for i, p in enumerate(_line_points((40.0, -74.3), (40.0, -73.9), 20))]
        f.route("A", "A", "Alpha", 1, "E32017")
        f.trips_of("A", ids, trips // 2)
        feed = Feed(f.folder(tmp_path / f"feed{trips}"))
        try:
            stops, selected = read_stops(feed), {r[2] for r in f.trips[1:]}
            read_trip_stops(feed, selected, stops)      # the interpreter's string tables grow once
            tracemalloc.start()
            got = read_trip_stops(feed, selected, stops)
            top = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        finally:
            feed.close()
        assert len(got) == trips and len(set(got.values())) == 2
        return top

    small, big = peak(200), peak(2000)
    # stored whole, a trip of 20 stops costs some 2 KB; shared, a reference: under 300 bytes
    assert (big - small) / 1800 < 300, (small, big)


def test_a_trips_rows_spread_over_stop_times_are_put_together_in_order(tmp_path):
    from mapkit.importers.gtfs.read import Feed
    from mapkit.importers.gtfs.stations import read_stops, read_trip_stops
    f = FeedBuilder()
    ids = [f.stop(f"S{i}", f"Stop {i}", *p) for i, p in enumerate(_line_points((40.0, -74.3), (40.0, -73.9), 6))]
    f.route("A", "A", "Alpha", 1, "E32017")
    f.trips_of("A", ids, 2)
    rows = f.stop_times[1:]
    f.stop_times[1:] = rows[1::2][::-1] + rows[::2]      # interleaved, and partly in reverse order
    feed = Feed(f.folder(tmp_path / "feed"))
    try:
        got = read_trip_stops(feed, {r[2] for r in f.trips[1:]}, read_stops(feed))
    finally:
        feed.close()
    for r in f.trips[1:]:
        want = tuple(s for _, s in sorted((int(x[4]), x[3]) for x in rows if x[0] == r[2]))
        assert got[r[2]] == want


def test_gray_routes_of_rail_lines_are_not_called_buses(tmp_path):
    # São Paulo: the two-station airport line and the monorail are gray, and the legend read
    # "Bus (any one color) — Rail" on a board without a bus
    f = crossing_feed("E32017", "0019A8")
    f.stop("S1", "Shuttle End", 40.05, -74.20)
    f.route("S", "S", "Shuttle", 1, "00A0E0")
    f.trips_of("S", ["A2", "S1"], 4)
    r = import_feed(f.folder(tmp_path / "feed"), stations=22)
    gray = [x for x in r.data["routes"] if x["color"] == "gray"]
    assert gray and all(x.get("kind", r.data["gray"]["kind"]) == "rail" for x in gray)
    assert r.data["gray"]["kind"] == "rail" and "bus" not in r.data["gray"]["name"].lower()


def test_a_stop_named_for_its_mode_joins_the_station_of_its_place(tmp_path):
    # São Paulo: CPTM line 9's "Pinheiros" and metro line 4's "Pinheiros Metrô", 137 m apart, are
    # one interchange; as two stations line 4 lost its only link to line 9
    f = crossing_feed("E32017", "0019A8")
    f.stops = [r if r[0] != "A7" else [r[0], "Pinheiros", r[2], r[3], r[4], r[5]] for r in f.stops]
    f.stop("P4", "Pinheiros Metrô", 40.0012, -74.084615)      # 133 m north of A7
    f.stop_times = [r if not (r[0].startswith("B-") and r[3] == "A7") else [*r[:3], "P4", r[4]]
                    for r in f.stop_times]
    r = import_feed(f.folder(tmp_path / "feed"), stations=20)
    assert r.summary["stations"]["merged_stations"] == 27
    names = [s["name"] for s in r.data["stations"]]
    assert names.count("Pinheiros") == 1 and "Pinheiros Metrô" not in names


def test_two_metro_stations_of_one_interchange_merge_where_their_lines_cross():
    # São Paulo: line 4's Paulista and line 2's Consolação, 389 m apart, are one interchange; left
    # apart, line 4's central route was dropped for crossing line 2 away from a stop
    from mapkit.importers.gtfs.planar import make_drawable
    from mapkit.importers.gtfs.stations import Station
    km = 1 / 111.0
    where = {"w": (-5, 0), "e": (5, 0), "s": (0.3, -5), "n": (0.3, 5), "xa": (0.0, 0.0), "xb": (0.3, 0.25)}
    st = {k: Station(k, k.upper(), y * km, x * km, [k]) for k, (x, y) in where.items()}
    patterns = {"A": ("w", "xa", "e"), "B": ("s", "xb", "n")}
    _, kept, _, d = make_drawable(patterns, {"w", "e", "s", "n"}, st, {"A": 10, "B": 5}, lambda k: k,
                                  frozenset(st))
    assert len(d["merged_at_crossing"]) == 1 and 350 < d["merged_at_crossing"][0]["metres"] <= 400
    assert not d["dropped"] and not d["overpass"]
    # two bus stops as far apart are two places: the crossing is settled another way
    _, _, _, d = make_drawable(patterns, {"w", "e", "s", "n"}, st, {"A": 10, "B": 5}, lambda k: k)
    assert not d["merged_at_crossing"]


def test_sao_paulo_imports_to_a_strictly_valid_board_that_plays(cli, tmp_path):
    """The whole journey on São Paulo's rail and metro (about 10 s of CPU): import, `validate
    --strict` clean, interchanges as one station each, the metro's colors as riders know them, a
    table-sized board, and a short playtest where tickets get done and the rules never stall."""
    import networkx as nx

    out = tmp_path / "sp.json"
    started = time.process_time()
    r = cli("import", "gtfs", SAO_PAULO, "--out", out, "--stations", "35", "--games", "30", "--format", "json")
    summary = json.loads(r.output)
    assert r.exit_code == 0, (summary["problems"][:5], summary["attempts"])
    assert time.process_time() - started < 30
    v = cli("validate", out, "--strict", "--format", "json")
    assert v.exit_code == 0, v.output
    data = json.loads(out.read_text())
    assert (tmp_path / "sp.png").stat().st_size > 0
    # the 13 rail and metro lines, each with its day's runs from frequencies.txt
    assert len(summary["lines"]) == 13 and all(ln["trips"] > 50 for ln in summary["lines"])
    # one station a place: the interchanges of different stops are single stations
    names = [s["name"] for s in data["stations"]]
    assert len(set(names)) == len(names) and not any("Metrô" in n for n in names)
    assert {"Pinheiros", "Luz", "Sé", "República", "Brás", "Tatuapé"} <= set(names)
    g = nx.Graph((x["from"], x["to"]) for x in data["routes"])
    assert nx.is_connected(g) and len(g) == len(data["stations"])
    # the metro's own colors (line 1 blue, line 2 green, line 3 red), or a shade of them
    palette = {c["id"]: c["hex"] for c in data["palette"]}
    own = {"METRÔ L1": "#0455A1", "METRÔ L2": "#007E5E", "METRÔ L3": "#EE372F"}
    for line, hexval in own.items():
        colors = {x["color"] for x in data["routes"] if x["line"] == line} - {"gray"}
        assert any(color_distance(palette[c], hexval) < 20 for c in colors), (line, colors)
    assert data["gray"]["kind"] == "rail"
    # every line's end station is a destination on some ticket (Estudantes, Rio Grande da Serra)
    on_tickets = {e for t in data["ticket_decks"]["standard"] for e in (t["from"], t["to"])}
    assert {v for v in g if g.degree(v) == 1} <= on_tickets
    # a board that fits a table, and a game that plays
    w, h = summary["board"]["size_mm"]
    assert max(w, h) <= 1189 and min(w, h) <= 841
    assert 2 <= summary["players"][0] and summary["players"][-1] >= 4 and summary["trains"] >= 15
    for n, p in summary["playtest"]["by_players"].items():
        assert not p["gaps"], (n, p["gaps"])
        assert 0.5 <= p["completion"] <= 0.98, (n, p["completion"])


def test_one_line_dealt_into_colors_names_every_color_by_its_hue(tmp_path):
    # São Paulo's line 1 alone: five colors dealt along it, one of them named "#117711" on its cards
    f = FeedBuilder()
    ids = [f.stop(f"S{i}", f"Stop {i}", *p) for i, p in enumerate(_line_points((-23.45, -46.61), (-23.65, -46.64), 23))]
    f.route("L1", "METRÔ L1", "Tucuruvi - Jabaquara", 1, "0455A1")
    f.trips_of("L1", ids, 10)
    r = import_feed(f.folder(tmp_path / "feed"), stations=23)
    names = [c["name"] for c in r.data["palette"]]
    assert len(names) >= 5 and len(set(names)) == len(names)
    assert not any(n.startswith("#") or n[0].isdigit() for n in names), names
    assert not any(c["id"][0].isdigit() for c in r.data["palette"])
    assert not any("2-2 players" in n for n in r.notes)


def test_when_no_layout_passes_the_message_names_the_one_lenient_would_write():
    # São Paulo's rail and buses: the first layout had one warning (a stretched route), the last one
    # an error, and after 4 minutes the command said only that the last board had an error
    from mapkit.cli.importing import lenient_hint
    attempts = [{"board_mm": [800.0, 530.0], "stations": 44, "errors": 0, "warnings": 1},
                {"board_mm": [594.0, 841.0], "stations": 39, "errors": 1, "warnings": 0}]
    hint = lenient_hint(attempts)
    assert "800 x 530 mm with 44 stations" in hint and "--lenient" in hint
    assert lenient_hint(attempts[1:]) == ""


def test_names_whose_exporter_capitalised_every_word_print_as_riders_write_them():
    from mapkit.importers.gtfs.names import board_name
    # São Paulo's feed: "Franco Da Rocha", "Rio Grande Da Serra", "Corinthians-itaquera"
    assert board_name("Franco Da Rocha") == "Franco da Rocha"
    assert board_name("Rio Grande Da Serra") == "Rio Grande da Serra"
    assert board_name("Corinthians-itaquera") == "Corinthians-Itaquera"
    # the first word, a name in capitals and one already written with care are the publisher's
    assert board_name("Da Nang") == "Da Nang"
    assert board_name("RIO GRANDE DA SERRA") == "RIO GRANDE DA SERRA"
    assert board_name("Hoek van Holland") == "Hoek van Holland"


def test_stop_times_in_two_passes_over_every_trip_read_whole(tmp_path):
    # every trip's first stops, then every trip's last ones: each of 1200 trips comes back once,
    # past the bound where the sequences no trip holds any longer are let go
    from mapkit.importers.gtfs.read import Feed
    from mapkit.importers.gtfs.stations import read_stops, read_trip_stops
    f = FeedBuilder()
    ids = [f.stop(f"S{i}", f"Stop {i}", *p) for i, p in enumerate(_line_points((40.0, -74.3), (40.0, -73.9), 4))]
    f.route("A", "A", "Alpha", 1, "E32017")
    f.trips_of("A", ids, 600)
    rows = f.stop_times[1:]
    f.stop_times[1:] = [r for r in rows if int(r[4]) <= 2] + [r for r in rows if int(r[4]) > 2]
    feed = Feed(f.folder(tmp_path / "feed"))
    try:
        got = read_trip_stops(feed, {r[2] for r in f.trips[1:]}, read_stops(feed))
    finally:
        feed.close()
    assert len(got) == 1200 and set(got.values()) == {tuple(ids), tuple(ids[::-1])}

