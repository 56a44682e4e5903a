"""mapkit/geometry.py builds and compares shapes with shapely's array functions (speed for the
layout's repair step); what it finds must be exactly what the plain one-shape-at-a-time version
(tests/geometry_plain.py) finds, on the bundled boards, on boards with their stations shaken into
many problems, and on synthetic networks at their projected positions."""

import json
import random
from pathlib import Path

import pytest

import mapkit.geometry as fast
from mapkit.boardfile import build_board
from mapkit.checks import check_geometry
from mapkit.layout.synthetic import layout_board_data
from mapkit.resources import boards_dir, bundled_boards
import geometry_plain as plain


def bundled(name):
    return json.loads((boards_dir() / f"{name}.json").read_text())


def shaken(data, seed, mm):
    """Every board position moved up to mm at random: overlaps, crossings, short routes galore."""
    rng = random.Random(seed)
    out = json.loads(json.dumps(data))
    for s in out["stations"]:
        if "board" in s:
            s["board"] = {"x": s["board"]["x"] + rng.uniform(-mm, mm), "y": s["board"]["y"] + rng.uniform(-mm, mm)}
    return out


def one_spot():
    """Every station of the tiny board at one point: zero-length routes, everything on everything."""
    data = json.loads((Path(__file__).parent / "fixtures" / "tiny.json").read_text())
    for s in data["stations"]:
        s["board"] = {"x": 100, "y": 100}
    return data


CASES = ([("tiny-one-spot", one_spot)] + [(n, lambda n=n: bundled(n)) for n in bundled_boards()]
         + [(f"{n}-shaken-{mm}", lambda n=n, mm=mm: shaken(bundled(n), 7, mm)) for n in bundled_boards() for mm in (15, 40)]
         + [(f"synthetic-{k}", lambda k=k: layout_board_data(k, seed=k)) for k in (20, 60)])


def findings(layout):
    return {
        "positions": layout.positions,
        "routes": {rid: (s.centerline, s.usable_mm, s.needed_mm, s.spaces) for rid, s in layout.routes.items()},
        "station_overlaps": layout.station_overlaps(),
        "stations_off_board": layout.stations_off_board(),
        "routes_off_board": layout.routes_off_board(),
        "space_overlaps": layout.space_overlaps(),
        "spaces_on_stations": layout.spaces_on_stations(),
        "crossings": layout.crossings(),
    }


@pytest.mark.parametrize("name, make", CASES, ids=[c[0] for c in CASES])
def test_fast_geometry_finds_exactly_what_the_plain_one_does(name, make, monkeypatch):
    board = build_board(make())
    want = findings(plain.Layout(board))
    got = findings(fast.Layout(board))
    for key in want:
        assert got[key] == want[key], f"{name}: {key} differs"
    problems = list(check_geometry(board))
    monkeypatch.setattr(fast, "Layout", plain.Layout)  # check_geometry imports it at call time
    assert problems == list(check_geometry(board))
    if "shaken" in name or "synthetic" in name or "spot" in name:
        assert len(problems) > 5  # the comparison had something to compare
