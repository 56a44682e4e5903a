import math

import pytest

from mapkit.boardfile import build_board
from mapkit.geometry import Layout, projector


def two_stations(distance, length, tiny_data):
    data = dict(tiny_data)
    data["stations"] = [
        {"id": "a", "name": "A", "lat": 45.5, "lon": -122.6, "board": {"x": 100, "y": 150}},
        {"id": "b", "name": "B", "lat": 45.5, "lon": -122.5, "board": {"x": 100 + distance, "y": 150}},
    ]
    data["routes"] = [{"from": "a", "to": "b", "color": "red", "length": length}]
    return build_board(data)


@pytest.mark.parametrize("length, shortest, longest", [
    (1, 39.0, 59.0), (2, 62.5, 101.3), (3, 86.0, 143.6), (4, 109.5, 185.9), (6, 156.5, 270.5)])
def test_documented_distance_table(tiny_data, length, shortest, longest):
    """docs/board-format.md promises these centre distances for straight routes."""
    ok = two_stations(shortest, length, tiny_data)
    shape = Layout(ok).routes["a-b"]
    assert shape.usable_mm >= shape.needed_mm
    short = Layout(two_stations(shortest - 0.2, length, tiny_data)).routes["a-b"]
    assert short.usable_mm < short.needed_mm
    far = Layout(two_stations(longest + 0.5, length, tiny_data)).routes["a-b"]
    assert far.stretch > ok.physical.max_stretch
    near = Layout(two_stations(longest - 0.5, length, tiny_data)).routes["a-b"]
    assert near.stretch <= ok.physical.max_stretch


def test_spaces_have_the_board_size_and_do_not_touch_stations(tiny_data):
    board = build_board(tiny_data)
    layout = Layout(board)
    ph = board.physical
    for route in board.routes:
        shape = layout.routes[route.id]
        assert len(shape.spaces) == route.length
        for corners in shape.spaces:
            sides = [math.dist(corners[i], corners[(i + 1) % 4]) for i in range(4)]
            assert sides[0] == pytest.approx(ph.space_length_mm) and sides[1] == pytest.approx(ph.space_width_mm)
    assert layout.spaces_on_stations() == [] and layout.space_overlaps() == []


def test_double_tracks_sit_on_opposite_sides(tiny_data):
    board = build_board(tiny_data)
    layout = Layout(board)
    one, two = layout.routes["alder-birch#1"], layout.routes["alder-birch#2"]
    # alder-birch runs along y = 80: one track above, one below, each offset by half a space + 1 mm
    ys = sorted({round(p[1], 6) for p in one.centerline} | {round(p[1], 6) for p in two.centerline})
    assert ys == [80 - 6, 80 + 6]


def test_double_track_written_backwards_still_takes_the_other_side(tiny_data):
    tiny_data["routes"][1] = {**tiny_data["routes"][1], "from": "birch", "to": "alder"}
    layout = Layout(build_board(tiny_data))
    y1 = layout.routes["alder-birch#1"].centerline[0][1]
    y2 = layout.routes["birch-alder#2"].centerline[0][1]
    assert {y1, y2} == {74, 86}


def test_projection_fills_inner_area_and_keeps_aspect(tiny_data):
    for s in tiny_data["stations"]:
        del s["board"]
    board = build_board(tiny_data)
    project = projector(board)
    pts = [project(s.lat, s.lon) for s in board.stations]
    ph = board.physical
    pad = ph.margin_mm + ph.station_radius_mm
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    assert min(xs) >= pad - 1e-6 and max(xs) <= ph.width_mm - pad + 1e-6
    assert min(ys) >= pad - 1e-6 and max(ys) <= ph.height_mm - pad + 1e-6
    # one axis is filled exactly
    assert math.isclose(max(xs) - min(xs), ph.width_mm - 2 * pad) or math.isclose(max(ys) - min(ys), ph.height_mm - 2 * pad)
    # north is up: alder (45.52) is above dogwood (45.45)
    by_id = dict(zip([s.id for s in board.stations], pts))
    assert by_id["alder"][1] < by_id["dogwood"][1]
    # equal scale on both axes: ratio of projected distances equals ratio of local km
    k = math.cos(math.radians(sum(s.lat for s in board.stations) / 6))
    a, c = board.station("alder"), board.station("cedar")
    dx_deg, dy_deg = (c.lon - a.lon) * k, (c.lat - a.lat)
    assert (by_id["cedar"][0] - by_id["alder"][0]) / dx_deg == pytest.approx(-(by_id["cedar"][1] - by_id["alder"][1]) / dy_deg)


def test_crossing_found_and_overpass_silences_it(tiny_data):
    tiny_data["routes"].append({"from": "alder", "to": "elm", "color": "gray", "length": 6})
    tiny_data["routes"].append({"from": "birch", "to": "dogwood", "color": "gray", "length": 6})
    crossings = Layout(build_board(tiny_data)).crossings()
    assert ("alder-elm", "birch-dogwood", (140.0, 150.0)) in crossings
    tiny_data["routes"][-1]["overpass"] = True
    assert all("birch-dogwood" not in c[:2] for c in Layout(build_board(tiny_data)).crossings())
