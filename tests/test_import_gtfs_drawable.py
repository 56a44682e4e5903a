"""`mapkit import gtfs`: what the importer does so that a draft can be drawn (planar.py, fit.py,
the doubles rule, station ids). Small hand-made networks with known geometry, and the Cairns bus
feed (when ../shared/data/gtfs is there) checked without running the layout."""

from __future__ import annotations


import pytest
from shapely.geometry import LineString

from mapkit.importers.gtfs import fit
from mapkit.importers.gtfs import lines as L
from mapkit.importers.gtfs.board import slug
from mapkit.importers.gtfs.planar import make_drawable, merge_side_by_side, project
from mapkit.importers.gtfs.stations import Station

pytest.importorskip("partridge", reason="the GTFS extra (pip install -e '.[gtfs]' or '.[test]') is not installed")

KM = 1 / 111.0   # about a kilometre in degrees of latitude (and of longitude at the equator)


def _st(**where):
    """Stations at (x km east, y km north) of (0, 0)."""
    return {k: Station(k, k.upper(), y * KM, x * KM, [k]) for k, (x, y) in where.items()}


def _crossing_count(segs, st):
    xy = project(st)
    lines = [(s, LineString([xy[s.a], xy[s.b]])) for s in segs]
    n = 0
    for i, (s, g) in enumerate(lines):
        for t, h in lines[i + 1:]:
            if not {s.a, s.b} & {t.a, t.b} and g.intersects(h):
                n += 1
    return n


def test_crossing_keeps_the_stop_both_lines_serve():
    # A runs west-east, B south-north; both stop at X in the middle, which thinning took away
    st = _st(w=(-5, 0), e=(5, 0), s=(0, -5), n=(0, 5), x=(0.1, 0.1), a1=(-2.5, 0), b1=(0, 2.5))
    patterns = {"A": ("w", "a1", "x", "e"), "B": ("s", "x", "b1", "n")}
    kept = {"w", "e", "s", "n"}
    assert _crossing_count(L.segments(patterns, kept, st, {"A": 10, "B": 5}), st) == 1
    pats, kept2, segs, d = make_drawable(patterns, kept, st, {"A": 10, "B": 5}, lambda k: k)
    assert "x" in kept2 and [e["station"] for e in d["kept_at_crossing"]] == ["x"]
    assert _crossing_count(segs, st) == 0 and d["crossings_left"] == 0 and not d["dropped"]


def test_crossing_merges_two_near_stops_into_one_station():
    # the lines cross at an intersection where each has its own stop, 140 m apart
    st = _st(w=(-5, 0), e=(5, 0), s=(0.3, -5), n=(0.3, 5), xa=(0.1, 0.0), xb=(0.25, 0.05))
    patterns = {"A": ("w", "xa", "e"), "B": ("s", "xb", "n")}
    pats, kept, segs, d = make_drawable(patterns, {"w", "e", "s", "n"}, st, {"A": 10, "B": 5}, lambda k: k)
    assert len(d["merged_at_crossing"]) == 1
    m = d["merged_at_crossing"][0]
    assert {m["station"], m["merged"]} == {"xa", "xb"} and 100 <= m["metres"] <= 200
    assert m["station"] in kept and m["merged"] not in kept
    assert all(m["merged"] not in p for p in pats.values())
    assert _crossing_count(segs, st) == 0


def test_crossing_without_any_stop_drops_the_weaker_route_or_flags_overpass():
    # a square w-e-n-s ring plus two diagonals that cross in the middle with no stop there: the
    # ring keeps the network connected, so the less frequent diagonal is dropped
    st = _st(w=(-5, 0), e=(5, 0), s=(0, -5), n=(0, 5))
    patterns = {"RING": ("w", "n", "e", "s", "w"), "A": ("w", "e"), "B": ("s", "n")}
    trips = {"RING": 20, "A": 10, "B": 3}
    pats, kept, segs, d = make_drawable(patterns, set(st), st, trips, lambda k: k)
    assert [x["lines"] for x in d["dropped"]] == [["B"]] and not d["overpass"]
    assert {frozenset((s.a, s.b)) for s in segs} == {frozenset(p) for p in
                                                     [("w", "n"), ("n", "e"), ("e", "s"), ("s", "w"), ("w", "e")]}
    # without the ring, dropping either diagonal would cut the network: the weaker is an overpass
    patterns = {"A": ("w", "e"), "B": ("s", "n"), "C": ("e", "n")}
    pats, kept, segs, d = make_drawable(patterns, set(st), st, {"A": 10, "B": 3, "C": 4}, lambda k: k)
    assert not d["dropped"] and [x["lines"] for x in d["overpass"]] == [["B"]]
    assert d["overpass_pairs"] == {frozenset(("s", "n"))}


def test_side_by_side_routes_merge_through_the_nearer_station():
    # from a, line A goes to b (2 km) and line B to c (5 km) in nearly the same direction
    st = _st(a=(0, 0), b=(2, 0.1), c=(5, 0.4))
    segs = [L.Segment("a", "b", ["A"], 2000.0), L.Segment("a", "c", ["B"], 5000.0)]
    out, merged = merge_side_by_side(segs, project(st), {"A": 10, "B": 4}, st)
    pairs = {frozenset((s.a, s.b)): s for s in out}
    assert set(pairs) == {frozenset("ab"), frozenset("bc")}
    assert pairs[frozenset("ab")].lines == ["A", "B"] and pairs[frozenset("bc")].lines == ["B"]
    assert merged == [{"route": ["a", "c"], "through": "b", "lines": ["B"]}]
    # at a wide angle nothing is merged
    st = _st(a=(0, 0), b=(2, 0), c=(3, 4))
    out, merged = merge_side_by_side(segs, project(st), {"A": 10, "B": 4}, st)
    assert not merged and len(out) == 2


def test_doubles_only_beside_frequent_lines_and_capped():
    color = {f"L{i}": f"c{i}" for i in range(6)}
    color["L4"] = "gray"      # (a card color of its own would get a track anyway: the next test)
    trips = {"L0": 100, "L1": 90, "L2": 80, "L3": 70, "L4": 5, "L5": 4}
    segs = [L.Segment(f"s{k}", f"s{k + 1}", ["L0", "L1"], 1000.0) for k in range(3)]
    segs += [L.Segment(f"t{k}", f"t{k + 1}", ["L2", "L4"], 1000.0) for k in range(3)]   # L4 rare
    segs += [L.Segment(f"u{k}", f"u{k + 1}", ["L3"], 1000.0) for k in range(9)]
    plans, crowded, single = L.plan_tracks(segs, color, trips)
    doubled = [sg for sg, t in plans if len(t) == 2]
    assert len(doubled) == round(L.DOUBLE_SHARE * len(segs)) == 3
    assert all(sg.lines == ["L0", "L1"] for sg in doubled)
    assert len(single) == 3 and all(c["lines"] == ["L2", "L4"] and c["drawn"] == ["L2"] for c in single)


def test_station_ids_cut_at_a_word_boundary():
    assert slug("Mother of Good Counsel School") == "mother-of-good-counsel"
    assert slug("Park of the Kings and Queens of Old Town") == "park-of-the-kings-and-queens"
    assert slug("Café Zürich Hauptbahnhof") == "cafe-zurich-hauptbahnhof"
    assert slug("Mulgrave Rd (F-side Creedy St)") == "mulgrave-rd-f-side-creedy-st"
    assert len(slug("Supercalifragilisticexpialidocious Street")) == 28   # one word past the limit
    assert slug("!!!") == "station"


def test_span_estimate_follows_route_lengths():
    # a straight line of 5 routes east-west: width ≈ the routes' drawn lengths, height 0
    st = _st(**{f"s{i}": (3 * i, 0) for i in range(6)})
    ends = [(f"s{i}", f"s{i + 1}") for i in range(5)]
    w, h = fit.span_mm(project(st), ends, [3] * 5)
    assert w == pytest.approx(5 * fit.route_mm(3) * fit.GROWTH) and h == pytest.approx(0, abs=1e-6)
    assert fit.fits((w, h))
    assert not fit.fits((fit.FIT_BOARD[0] + 1, 10))


def test_summary_names_every_drawing_decision():
    from mapkit.cli.importing import drawable_lines

    d = {"kept_at_crossing": [{"station": "x", "routes": ["W – E", "S – N"]}],
         "merged_at_crossing": [{"station": "xa", "merged": "Xb St", "metres": 140, "routes": ["W – E", "S – N"]}],
         "kept_to_uncross": [{"station": "k", "routes": ["A – B", "C – D"]}],
         "dropped": [{"route": ["s", "n"], "lines": ["B"], "crosses": "W – E"}],
         "overpass": [{"route": ["e", "n"], "lines": ["C"], "crosses": "W – E"}],
         "merged_side_by_side": [{"route": ["a", "c"], "through": "b", "lines": ["B"]}], "crossings_left": 1}
    text = "\n".join(drawable_lines(d))
    for part in ("kept x where W – E crossed S – N", "merged stop Xb St into xa (140 m apart)", "kept k so that",
                 "dropped route s - n (B)", "route e - n (C) flagged overpass", "a - c through b (B)",
                 "1 crossing(s) left unresolved"):
        assert part in text, part
    assert drawable_lines({}) == []


def test_a_color_that_only_runs_beside_others_still_gets_a_track():
    color = {"A": "a", "B": "b", "C": "c"}
    trips = {"A": 100, "B": 90, "C": 80}
    segs = [L.Segment("s0", "s1", ["A", "B"], 1000.0), L.Segment("s1", "s2", ["A", "C"], 3000.0),
            L.Segment("s2", "s3", ["A", "C"], 2000.0)] + [L.Segment(f"u{k}", f"u{k + 1}", ["A"], 500.0) for k in range(2)]
    plans, _, _ = L.plan_tracks(segs, color, trips)
    drawn = {color[x] for _, t in plans for x in t}
    assert drawn == {"a", "b", "c"}
    # C's track goes on its longest segment
    assert [t for sg, t in plans if sg.a == "s1"] == [["A", "C"]]


def test_long_station_names_cut_after_a_whole_word():
    from mapkit.importers.gtfs.names import cut_words as _cut_words

    assert _cut_words("Cairns Central Shopping Centre Bus Interchange (McLeod Street side) Stop D", 56) == \
        "Cairns Central Shopping Centre Bus Interchange"
    assert _cut_words("Short name", 56) == "Short name"
    assert len(_cut_words("x" * 70, 56)) == 56
