"""A network around ±180° (Fiji, Chukotka, the Chatham Islands) is one piece: the projection, the
layout and its bearings read longitudes on one continuous scale."""

import json

import numpy as np

from mapkit.boardfile import build_board
from mapkit.geometry import continuous_lon, projector
from mapkit.layout.synthetic import layout_board_data


def _around_the_antimeridian(n: int, seed: int) -> dict:
    data = layout_board_data(n, seed=seed)
    lons = [s["lon"] for s in data["stations"]]
    mid = (max(lons) + min(lons)) / 2
    for s in data["stations"]:
        lon = s["lon"] - mid + 180.0
        s["lon"] = round(lon - 360.0 if lon >= 180.0 else lon, 5)
    assert min(s["lon"] for s in data["stations"]) < -170 and max(s["lon"] for s in data["stations"]) > 170
    return data


def test_continuous_lon_leaves_other_networks_to_the_last_bit():
    lons = [-122.68, -122.4, -121.9]
    east = continuous_lon(lons)
    assert [east(x) for x in lons] == lons
    world = [-120.0, -10.0, 10.0, 140.0]       # a world map spans more than 180° either way
    assert [continuous_lon(world)(x) for x in world] == world
    fiji = [177.5, 179.9, -179.8, -178.5]
    assert [continuous_lon(fiji)(x) for x in fiji] == [177.5, 179.9, 180.2, 181.5]


def test_the_projection_keeps_the_network_in_one_piece():
    data = _around_the_antimeridian(14, 3)
    board = build_board(data)
    project = projector(board)
    xs = {s.id: project(s.lat, s.lon)[0] for s in board.stations}
    east = continuous_lon(s.lon for s in board.stations)
    order = sorted(board.stations, key=lambda s: east(s.lon))
    assert [xs[s.id] for s in order] == sorted(xs.values())
    span = max(xs.values()) - min(xs.values())
    assert span <= board.physical.width_mm   # not two halves at opposite edges of 360°


def test_mapkit_layout_draws_it_clean_and_as_the_real_map(cli, tmp_path):
    data = _around_the_antimeridian(14, 3)
    src = tmp_path / "fiji.json"
    src.write_text(json.dumps(data))
    res = cli("layout", src, "--out", tmp_path / "out.json", "--format", "json")
    out = json.loads(res.output)
    assert res.exit_code == 0 and out["passes_strict"], out["remaining"]
    assert not out["routes_across"]
    laid = json.loads((tmp_path / "out.json").read_text())
    east = continuous_lon(s["lon"] for s in data["stations"])
    x = np.array([s["board"]["x"] for s in laid["stations"]])
    lon = np.array([east(s["lon"]) for s in laid["stations"]])
    assert np.corrcoef(x, lon)[0, 1] > 0.9     # east on the board is east on the map
