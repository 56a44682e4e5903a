"""`mapkit layout`: a synthetic board laid out from lat/lon alone passes the geometry checks; pinned
stations stay; the result is the same for a seed; bad input is refused with a clear message."""

from __future__ import annotations

import json

import pytest

from layoutgen import layout_board_data
from mapkit.boardfile import build_board
from mapkit.checks import check_geometry
from mapkit.layout import LayoutError, layout_board
from mapkit.layout.fit import parse_size, pick_size
from mapkit.textpatch import DELETE


@pytest.fixture(scope="module")
def small():
    data = layout_board_data(14, seed=3)
    data["routes"][0]["waypoints"] = [{"lat": 45.0, "lon": -122.0}]  # stale: drawn for other positions
    return data, layout_board(data, seed=0)


def test_small_board_passes_the_geometry_checks(small):
    _, res = small
    found = list(check_geometry(build_board(res.data)))
    assert found == [], [p.format() for p in found]
    assert res.problems == []
    assert all("board" in s for s in res.data["stations"])


def test_changes_are_positions_waypoints_and_size_only(small):
    data, res = small
    assert res.changes
    for path, value in res.changes.items():
        assert path[0] in ("stations", "routes", "physical"), path
        if path[0] == "stations":
            assert path[2] == "board" and set(value) == {"x", "y"}
        if path[0] == "routes":
            assert path[2] == "waypoints"
    # everything else of the board is as it was
    for key in data:
        if key not in ("stations", "routes", "physical"):  # (routes: waypoints only, below)
            assert res.data[key] == data[key]
    for a, b in zip(data["routes"], res.data["routes"]):  # the fixture's stale waypoint goes, nothing else
        assert {k: v for k, v in a.items() if k != "waypoints"} == {k: v for k, v in b.items() if k != "waypoints"}


def test_figures_meet_the_issue_where_measured(small):
    _, res = small
    f = res.figures
    assert f["errors"] == 0 and f["warnings"] == 0
    assert f["fill_w"] >= 0.8 or f["fill_h"] >= 0.8
    assert f["within_45deg"] >= 0.7


def test_same_seed_same_layout_and_pins_stay(small):
    data, res = small
    again = layout_board(data, seed=0)
    assert again.changes == res.changes
    pinned = json.loads(json.dumps(res.data))
    pinned["stations"][0]["pinned"] = True
    pinned["stations"][0]["board"] = {"x": 100.0, "y": 100.0}
    out = layout_board(pinned, size=(res.data["physical"]["width_mm"], res.data["physical"]["height_mm"]), keep={"s1"})
    assert out.data["stations"][0]["board"] == {"x": 100.0, "y": 100.0}
    assert out.data["stations"][1]["board"] == res.data["stations"][1]["board"]
    assert ("stations", 0, "board") not in out.changes


def test_a_board_too_small_says_what_does_not_fit():
    data = layout_board_data(8, seed=3)
    res = layout_board(data, size=(200, 150))
    assert res.problems
    assert any("shrink" in p for p in res.problems)
    assert any("short by" in p or "overlap" in p or "covers" in p for p in res.problems)


def test_stale_waypoints_are_removed(small):
    _, res = small
    change = res.changes[("routes", 0, "waypoints")]
    assert change is DELETE or change == res.data["routes"][0]["waypoints"]
    assert res.data["routes"][0].get("waypoints") != [{"lat": 45.0, "lon": -122.0}]


def test_bad_input_is_refused():
    data = layout_board_data(6, seed=1)
    with pytest.raises(LayoutError, match="unknown station 'nope'"):
        layout_board(data, keep={"nope"})
    with pytest.raises(LayoutError, match="no \"board\" position"):
        layout_board(data, keep={"s0"})
    with pytest.raises(LayoutError, match="unknown style"):
        layout_board(data, style="octo")
    with pytest.raises(ValueError, match="WIDTHxHEIGHT"):
        parse_size("big")
    with pytest.raises(ValueError, match="100 to 5000"):
        parse_size("50x50")
    assert parse_size("800x530") == (800.0, 530.0) and parse_size("AUTO") == "auto"


def test_size_auto_is_the_smallest_standard_size_that_holds_it():
    assert pick_size(700, 400, 25) == (800, 530)
    assert pick_size(400, 700, 25) == (530, 800)
    assert pick_size(5000, 5000, 25) == (1682, 1189)  # nothing holds it: the largest, and the report says


def _off_octilinear(data) -> float:
    """Mean degrees off 45° of the routes' segments (station to bend, bend to bend, bend to station)."""
    from mapkit.layout.octilinear import off_45, segments
    offs = [off_45(p, q) for p, q in segments(data)]
    return sum(offs) / len(offs)


def test_schematic_is_closer_to_octilinear_and_still_valid(small):
    data, geographic = small
    schematic = layout_board(data, style="schematic")
    assert schematic.figures["errors"] == 0 and schematic.figures["warnings"] == 0
    assert _off_octilinear(schematic.data) < _off_octilinear(geographic.data) - 1.0
