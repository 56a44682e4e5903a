"""Stops → stations as riders know them, and their printed names (importers/gtfs/stations.py and
names.py): synthetic feeds with a stop on each side of a street, a transit centre's lettered bays,
Inbound/Outbound pairs, a parent station with an entrance, and the designer's --names file."""

from __future__ import annotations

import pytest

pytest.importorskip("partridge", reason="the GTFS extra (pip install -e '.[gtfs]' or '.[test]') is not installed")

from mapkit.importers.gtfs import import_feed  # noqa: E402
from mapkit.importers.gtfs.names import (NamesFileError, base_name, board_name, merge_key,  # noqa: E402
                                         read_names_file, unique_names)
from mapkit.importers.gtfs.read import Feed  # noqa: E402
from mapkit.importers.gtfs.stations import (SAME_NAME_M, merge_stations, read_stops,  # noqa: E402
                                            read_trip_stops)
from test_import_gtfs import FeedBuilder  # noqa: E402

# about 1e-5 degree of latitude is 1.1 m
M = 1 / 110540.0


def campus_feed() -> FeedBuilder:
    """A university bus network: FXB Inbound/Outbound 14 m apart, Cancer Center Inbound/Outbound
    60 m apart, a transit centre's bays A and B 80 m apart, Fuller Rd at a lot with '(1)', two
    stops of one long street 2 km apart, and a rail station with a parent, two platforms and an
    entrance (location_type 2)."""
    f = FeedBuilder()
    lat, lon = 42.28, -83.74
    f.stop("FXB-IN", "FXB Inbound", lat, lon)
    f.stop("FXB-OUT", "FXB Outbound", lat + 14 * M, lon)
    f.stop("CC-IN", "Cancer Center Inbound", lat + 0.01, lon)
    f.stop("CC-OUT", "Cancer Center Outbound", lat + 0.01 + 60 * M, lon)
    f.stop("CCTC-A", "Central Campus Transit Center Bay A", lat + 0.02, lon)
    f.stop("CCTC-B", "Central Campus Transit Center Bay B", lat + 0.02 + 80 * M, lon)
    f.stop("FUL1", "Fuller Rd at Lot NC-78 Mitchell Field (1)", lat + 0.03, lon)
    f.stop("PLY-N", "Plymouth Rd", lat + 0.04, lon)
    f.stop("PLY-S", "Plymouth Rd", lat + 0.04 + 2000 * M, lon)
    f.stop("STN", "Union Station", lat + 0.06, lon, location_type=1)
    f.stop("STN-1", "Union Station Platform 1", lat + 0.06, lon + 0.0002, parent="STN")
    f.stop("STN-2", "Union Station Platform 2", lat + 0.06, lon - 0.0002, parent="STN")
    f.stop("STN-E", "Union Station Entrance", lat + 0.06, lon + 0.0005, location_type=2, parent="STN")
    f.stop("FAR", "Far End", lat + 0.08, lon)
    f.route("A", "A", "Campus North", 3, "FFCB05")
    f.trips_of("A", ["FXB-OUT", "CC-OUT", "CCTC-A", "FUL1", "PLY-N", "PLY-S", "STN-1", "FAR"], 6, both_ways=False)
    f.trips_of("A", ["FAR", "STN-2", "PLY-S", "PLY-N", "FUL1", "CCTC-B", "CC-IN", "FXB-IN"], 6, both_ways=False)
    return f


def campus_network() -> FeedBuilder:
    """campus_feed with a longer line east from Far End: enough track for a board."""
    f = campus_feed()
    east = [f.stop(f"E{i}", f"East Town {chr(65 + i)}", 42.36 + 0.01 * (i % 2), -83.74 + 0.05 * (i + 1)) for i in range(8)]
    f.route("B", "B", "East Express", 3, "00274C")
    f.trips_of("B", ["FAR", *east], 6)
    return f


def _merged(tmp_path, f):
    feed = Feed(f.folder(tmp_path / "feed"))
    stops = read_stops(feed)
    trips = {r[2] for r in f.trips[1:]}
    used = {s for seq in read_trip_stops(feed, trips, stops).values() for s in seq}
    return merge_stations(used, stops, feed)


def test_two_sides_of_a_street_bays_and_parents_are_one_station(tmp_path):
    stop_station, stations, figures = _merged(tmp_path, campus_feed())
    one = [("FXB-IN", "FXB-OUT"), ("CC-IN", "CC-OUT"), ("CCTC-A", "CCTC-B"), ("STN-1", "STN-2")]
    for a, b in one:
        assert stop_station[a] == stop_station[b], (a, b)
    # one street's stops 2 km apart stay two stations; no stop of another name joins them
    assert stop_station["PLY-N"] != stop_station["PLY-S"]
    assert len(set(stop_station.values())) == len(stations) == 8
    assert figures["by_parent"] == 2 and figures["by_same_name_nearby"] == 3
    assert figures["stops"] == 12 and figures["stations"] == 8


def test_entrances_are_not_stations_even_when_a_trip_names_one(tmp_path):
    f = campus_feed()
    f.trips_of("A", ["FXB-IN", "STN-E", "FAR"], 1, both_ways=False)
    stop_station, _, _ = _merged(tmp_path, f)
    assert "STN-E" not in stop_station


def test_same_name_stops_are_merged_only_within_the_distance(tmp_path):
    f = FeedBuilder()
    f.stop("X1", "Main St", 40.0, -75.0)
    f.stop("X2", "Main St", 40.0 + (SAME_NAME_M + 30) * M, -75.0)
    f.stop("Y", "Elm St", 40.01, -75.0)
    f.route("R", "1", "One", 3, "")
    f.trips_of("R", ["X1", "X2", "Y"], 2)
    stop_station, _, figures = _merged(tmp_path, f)
    assert stop_station["X1"] != stop_station["X2"]
    assert figures["by_same_name_nearby"] == 0


def test_stop_names_cleaned_for_a_board():
    assert base_name("FXB Inbound") == base_name("FXB Outbound") == "FXB"
    assert base_name("Cancer Center Outbound") == "Cancer Center"
    assert base_name("Central Campus Transit Center Bay A") == "Central Campus Transit Center"
    assert base_name("Fuller Rd at Lot NC-78 Mitchell Field (1)") == "Fuller Rd"
    assert base_name("Main St N/B") == base_name("Main St - Northbound") == "Main St"
    assert base_name("Union Station Platform 2") == "Union Station"
    assert base_name("Sheridan St - Hail and Ride Location (CSHS)") == "Sheridan St (CSHS)"
    assert base_name("Mulgrave Rd f/side Creedy St") == "Mulgrave Rd" and base_name("Spence St N") == "Spence St"
    assert merge_key("Spence Street - Temporary Stop") == merge_key("Spence St S") == "spence st"
    # a compass word that is part of a place's name stays
    assert base_name("Sydney North") == "Sydney North"
    assert len(board_name("Cairns Central Shopping Centre Bus Interchange")) <= 24
    assert board_name("Smithfield Shopping Centre") == "Smithfield Shops"


def test_two_stations_never_share_a_printed_name_and_never_get_a_number():
    names = unique_names([
        {"key": "a", "name": "96 St", "stop_names": ["96 St at Broadway"], "lines": ["1"], "lat": 40.79, "lon": -73.97},
        {"key": "b", "name": "96 St", "stop_names": ["96 St at Lexington Ave"], "lines": ["6"], "lat": 40.78, "lon": -73.95},
        {"key": "c", "name": "Varley St", "stop_names": ["Varley St"], "lines": ["1"], "lat": 40.80, "lon": -73.9},
        {"key": "d", "name": "Varley St", "stop_names": ["Varley St"], "lines": ["1"], "lat": 40.70, "lon": -73.9},
    ])
    assert len({v.lower() for v in names.values()}) == 4
    assert names["a"] == "96 St at Broadway" and names["b"] == "96 St at Lexington Ave"
    assert names["c"] == "Varley St (north)" and names["d"] == "Varley St (south)"
    assert not any(v.rstrip().endswith(" 2") for v in names.values())


def test_import_summary_says_how_stops_merged(tmp_path):
    r = import_feed(campus_network().folder(tmp_path / "feed"), stations=16)
    merge = r.summary["stations"]["merge"]
    assert merge["by_parent"] == 2 and merge["by_same_name_nearby"] == 3
    shown = {s["name"] for s in r.data["stations"]}
    assert "FXB" in shown and "Central Campus TC" in shown and "Fuller Rd" in shown
    assert len(shown) == len(r.data["stations"])


def test_names_file_overrides_by_stop_id_or_station_name(tmp_path):
    csv_path = tmp_path / "names.csv"
    csv_path.write_text("stop,name\nFXB-IN,François-Xavier Bagnoud\nCentral Campus Transit Center,CCTC\nNope,Nothing\n"
                        "STN-2,Union Stn\n", encoding="utf-8")
    names = read_names_file(csv_path)
    r = import_feed(campus_network().folder(tmp_path / "feed"), stations=16, names=names)
    shown = {s["name"] for s in r.data["stations"]}
    # by a stop's id (a platform's too) or by the station's name
    assert {"François-Xavier Bagnoud", "CCTC", "Union Stn"} <= shown
    assert any("Nope (line 4)" in n for n in r.notes)


@pytest.mark.parametrize("text, says", [
    ("stop;name\nA;B\n", ":1: the header is"),
    ("stop,name\nA,\n", ":2: name is empty"),
    ("stop,name\nA,B\nA,C\n", ":3: 'A' was named 'B' on line 2"),
    ("stop,name\nA,B\nC\n", ":3: 1 value(s)"),
    ("stop,name\nA," + "x" * 70 + "\n", ":2: the name"),
    ("", "is empty"),
])
def test_names_file_problems_name_their_line(tmp_path, text, says):
    p = tmp_path / "names.csv"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(NamesFileError) as e:
        read_names_file(p)
    assert says in str(e.value)


def test_names_file_is_read_with_a_bound(tmp_path):
    p = tmp_path / "names.csv"
    p.write_bytes(b"stop,name\n" + b"a,b\n" * 300_000)
    with pytest.raises(NamesFileError, match="larger than"):
        read_names_file(p)
    with pytest.raises(NamesFileError, match="not a file"):
        read_names_file(tmp_path)


def test_names_file_giving_two_stations_one_name_is_refused(tmp_path):
    from mapkit.errors import UsageError

    csv_path = tmp_path / "names.csv"
    csv_path.write_text("\ufeffstop,name\nFXB-IN,Campus\nFar End,Campus\n", encoding="utf-8")
    with pytest.raises(UsageError, match="two stations would be printed 'campus'"):
        import_feed(campus_network().folder(tmp_path / "feed"), stations=16, names=read_names_file(csv_path))
