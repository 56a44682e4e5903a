"""The finishing step (mapkit/layout/knots/leftovers.py) on small hand-made drawings, one per kind of
leftover the earlier steps leave by the luck of the floating point: a route about 1 mm too short,
a space over the edge of a station, two routes' first spaces overlapping at the station they
leave. Each drawing is built so that the real checks find exactly that problem; the step must
leave the board clean, moving only the points of the problem, and by a few millimetres."""
from __future__ import annotations

import re

import numpy as np

from mapkit.layout.knots.leftovers import finish
from mapkit.layout.network import build_network
from mapkit.layout.optimize import Drawing
from mapkit.layout.judge import geometry_problems
from mapkit.layout.result import build_result
from conftest import red_blue_board


def _board(stations, routes) -> dict:
    return red_blue_board(
        # lat/lon only for the network's bearings; the drawing is given in millimetres
        stations=[{"id": i, "name": i.upper(), "lat": 45.0 - y / 5000, "lon": -122.0 + x / 5000}
                     for i, (x, y) in stations.items()],
        routes=[{"from": a, "to": b, "color": c, "length": n} for a, b, c, n in routes])


def _drawing(stations, routes):
    data = _board(stations, routes)
    net = build_network(data)
    pos = np.array(list(stations.values()), dtype=float)
    dr = Drawing(pos, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool),
                 bounds=(20.0, 20.0, 780.0, 510.0))
    return net, dr


def _found(net, dr):
    return geometry_problems(build_result(net, dr, None)[0])


def _finished(net, dr):
    """The step on what the checks find; (before, after, how far each point moved)."""
    before = _found(net, dr)
    start = dr.pos.copy()
    left = finish(net, dr, None, geometry_problems, before)
    assert left == _found(net, dr) == [], [p.format() for p in left]
    moved = np.linalg.norm(dr.pos[: len(start)] - start, axis=1)
    return before, moved


def _need(net, dr, route: str) -> float:
    """The millimetres the checks ask of that route (from their message when it is too short)."""
    p = next(p for p in _found(net, dr) if p.code == "route-too-short" and p.subject == f"route {route}")
    return float(re.search(r"need (\d+) mm", p.message).group(1))


def test_a_route_a_millimetre_too_short_is_lengthened_by_about_that():
    # a-b, 4 spaces, along the x axis; c and d hang off b and a far from it
    stations = {"a": (200.0, 250.0), "b": (260.0, 250.0), "c": (360.0, 340.0), "d": (130.0, 170.0)}
    routes = [("a", "b", "red", 4), ("b", "c", "blue", 3), ("a", "d", "blue", 3)]
    net, dr = _drawing(stations, routes)
    need = _need(net, dr, "a-b")
    # b put so that a-b's line is 1 mm shorter than its spaces need: the drawn length the check
    # measures differs from the centres' distance by the stations' radius, so that is read back
    dr.pos[1] = dr.pos[0] + [need, 0.0]
    drawn = next(float(re.search(r"drawn (\d+) mm", p.message).group(1)) for p in _found(net, dr)
                 if p.code == "route-too-short") if any(p.code == "route-too-short" for p in _found(net, dr)) else need
    dr.pos[1] = dr.pos[0] + [need + (need - drawn) - 1.0, 0.0]
    before = _found(net, dr)
    assert [p.code for p in before] == ["route-too-short"], [p.format() for p in before]
    assert re.search(r"need (\d+) mm but the route is drawn (\d+) mm", before[0].message)
    _, moved = _finished(net, dr)
    assert moved[2] == 0.0 and moved[3] == 0.0     # c and d stay where they were
    assert 0.0 < moved[:2].max() <= 4.0            # a or b moved, by what was missing (1 mm) and at most 3 mm more
    assert np.linalg.norm(dr.pos[1] - dr.pos[0]) > need + (need - drawn) - 1.0   # longer, not bent round


def test_a_space_over_a_station_is_cleared_by_a_small_move():
    # a-b a long straight route; c just under it, its own route c-d going away south
    stations = {"a": (150.0, 200.0), "b": (290.0, 200.0), "c": (220.0, 211.0), "d": (220.0, 320.0)}
    routes = [("a", "b", "red", 5), ("c", "d", "blue", 3)]
    net, dr = _drawing(stations, routes)
    before = _found(net, dr)
    assert [p.code for p in before] == ["space-on-station"], [p.format() for p in before]
    assert "'c'" in before[0].message and before[0].subject == "route a-b"
    _, moved = _finished(net, dr)
    assert moved[3] == 0.0                          # d, far from it, stays
    assert 0.0 < moved[:3].max() <= 5.0             # c off the route or the route off c: the 1 mm missing and a margin
    # c is still on its own side of a-b (south, y down), not put across
    assert dr.pos[2][1] > (dr.pos[0][1] + dr.pos[1][1]) / 2


def test_two_first_spaces_overlapping_at_their_station_are_turned_apart():
    # s with two routes leaving it 20 degrees apart (their first spaces overlap), a third one
    # the other way; the fan has room to open
    s = np.array([300.0, 260.0])
    ang = np.radians([-10.0, 10.0, 180.0])
    far = [s + 100.0 * np.array([np.cos(t), np.sin(t)]) for t in ang]
    stations = {"s": tuple(s), "a": tuple(far[0]), "b": tuple(far[1]), "c": tuple(far[2])}
    routes = [("s", "a", "red", 3), ("s", "b", "blue", 3), ("s", "c", "blue", 3)]
    net, dr = _drawing(stations, routes)
    before = _found(net, dr)
    assert [p.code for p in before] == ["space-overlap"], [p.format() for p in before]
    lines_before = [list(line) for line in dr.lines]
    _, moved = _finished(net, dr)
    assert moved[3] == 0.0 and dr.lines[2] == lines_before[2]   # the route the other way untouched
    assert moved[:3].max() <= 10.0                 # a far end turned a few degrees, or a bend added
    bends = len(dr.pos) - 4
    assert moved[:3].max() > 0.0 or bends > 0


def test_a_clean_board_is_left_as_it_is():
    stations = {"a": (200.0, 250.0), "b": (330.0, 250.0)}
    net, dr = _drawing(stations, [("a", "b", "red", 4)])
    assert _found(net, dr) == []
    start = dr.pos.copy()
    assert finish(net, dr, None, geometry_problems, []) == []
    assert np.array_equal(dr.pos, start)
