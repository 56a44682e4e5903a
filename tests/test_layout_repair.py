"""The repair step of `mapkit layout`: a station left on a neighbour's route (a local minimum the
smooth optimization cannot leave) is moved off it by local moves judged by the real checks."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from layoutgen import layout_board_data
from mapkit.layout import fit, layout_board
from mapkit.layout.network import build_network
from mapkit.layout.optimize import Drawing
from mapkit.layout.judge import geometry_problems
from mapkit.layout.judge import score
from mapkit.layout.repair import repair
from mapkit.layout.result import build_result


@pytest.fixture(scope="module")
def tangled():
    """A clean layout, then one station put on the middle of a route it is not on."""
    res = layout_board(layout_board_data(10, seed=5), seed=0)
    data = res.data
    assert geometry_problems(data) == []
    ids = [s["id"] for s in data["stations"]]
    pos = {s["id"]: np.array([s["board"]["x"], s["board"]["y"]]) for s in data["stations"]}
    best = None  # the station nearest a straight route it is not on: put it on that route
    for r in data["routes"]:
        if r.get("waypoints") or r.get("double"):
            continue
        a, b = pos[r["from"]], pos[r["to"]]
        for sid in ids:
            if sid in (r["from"], r["to"]):
                continue
            t = np.clip(np.dot(pos[sid] - a, b - a) / np.dot(b - a, b - a), 0.3, 0.7)
            foot = a + t * (b - a)
            d = float(np.linalg.norm(pos[sid] - foot))
            if best is None or d < best[0]:
                best = (d, sid, foot)
    _, sid, foot = best
    s = next(s for s in data["stations"] if s["id"] == sid)
    s["board"] = {"x": round(float(foot[0]), 1), "y": round(float(foot[1]), 1)}
    return data, sid


def _drawing(data):
    net = build_network(data)
    pos = np.array([[s["board"]["x"], s["board"]["y"]] for s in data["stations"]], dtype=float)
    dr = Drawing(pos, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool))
    for k, b in enumerate(net.bundles):
        for wp in data["routes"][b.routes[0]].get("waypoints", []):
            dr.add_waypoint(k, (wp["x"], wp["y"]))
    ph = net.board.physical
    dr.bounds = fit.inner_box(ph.width_mm, ph.height_mm, ph.margin_mm)
    return net, dr


def test_a_station_on_a_neighbours_route_is_moved_off_it(tangled):
    data, sid = copy.deepcopy(tangled)
    before = geometry_problems(data)
    assert any(p.code == "space-on-station" and sid in p.message for p in before), [p.format() for p in before]
    net, dr = _drawing(data)
    left = repair(net, dr, None, geometry_problems)
    assert left == [], [p.format() for p in left]
    new, changes = build_result(net, dr, None)
    assert geometry_problems(new) == []
    assert any(path[0] == "stations" for path in changes)  # something moved to get there


def test_repair_is_deterministic_and_never_makes_it_worse(tangled):
    data, _ = copy.deepcopy(tangled)
    start = score(geometry_problems(data))
    outs = []
    for _ in range(2):
        net, dr = _drawing(data)
        left = repair(net, dr, None, geometry_problems, max_tries=30)  # cut short: still no worse
        assert score(left) <= start
        outs.append((dr.pos.copy(), [list(line) for line in dr.lines]))
    assert np.array_equal(outs[0][0], outs[1][0]) and outs[0][1] == outs[1][1]
