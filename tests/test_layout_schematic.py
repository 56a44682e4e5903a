"""`--style schematic` draws a transit diagram: most route segments (station to bend, bend to bend)
on multiples of 45°, with every geometry check still passing; the geographic style is left alone."""

from __future__ import annotations

import pytest

from mapkit.boardfile import build_board
from mapkit.checks import check_geometry
from mapkit.layout import layout_board
from mapkit.layout.octilinear import octilinear_share, segments
from mapkit.layout.synthetic import layout_board_data

SHARE = 0.8   # the share of segments within 5° of a multiple of 45° asked of a schematic layout


@pytest.fixture(scope="module")
def network():
    data = layout_board_data(14, seed=2)
    return data, layout_board(data, style="schematic", seed=0), layout_board(data, style="geographic", seed=0)


def test_schematic_segments_are_octilinear_and_the_board_strict_clean(network):
    _, schematic, _ = network
    found = list(check_geometry(build_board(schematic.data)))
    assert found == [], [p.format() for p in found]
    assert octilinear_share(schematic.data) >= SHARE, schematic.figures.get("octilinear")


def test_the_geographic_style_is_not_made_octilinear(network):
    _, schematic, geographic = network
    assert "octilinear" not in geographic.figures
    assert octilinear_share(geographic.data) < octilinear_share(schematic.data)


def test_every_route_keeps_its_stations_and_lengths(network):
    data, schematic, _ = network
    assert [(r["from"], r["to"], r["length"]) for r in schematic.data["routes"]] == \
        [(r["from"], r["to"], r["length"]) for r in data["routes"]]


def test_segments_split_at_bends_and_a_double_counts_once():
    data = {"stations": [{"id": "a", "board": {"x": 0, "y": 0}}, {"id": "b", "board": {"x": 100, "y": 100}},
                         {"id": "c", "board": {"x": 100, "y": 0}}],
            "routes": [{"from": "a", "to": "b", "waypoints": [{"x": 60, "y": 0}], "double": "ab"},
                       {"from": "a", "to": "b", "waypoints": [{"x": 60, "y": 0}], "double": "ab"},
                       {"from": "a", "to": "c"}, {"from": "c", "to": "b"},
                       {"from": "b", "to": "a"}]}
    assert len(segments(data)) == 5
    # a-(60,0) at 0°, (60,0)-b at about 68°, a-c 0°, c-b 90°, b-a 225°: four of five within 5°
    assert octilinear_share(data) == pytest.approx(4 / 5)
    assert octilinear_share({"stations": [], "routes": []}) == 1.0
