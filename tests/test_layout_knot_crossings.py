"""The uncrossing after the unfolding (mapkit/layout/knots/crossings.py), on a small hand-made drawing: a
route bent round the wrong side of a station, so that the station's own route crosses it, gets its
bend flipped; a station on the wrong side of a route it crosses is a move to try early."""
from __future__ import annotations

import numpy as np

from mapkit.layout.network import build_network
from mapkit.layout.optimize import Drawing, Weights
from mapkit.layout.overpass import rank
from mapkit.layout.judge import geometry_problems
from mapkit.layout.repair import Repair
from mapkit.layout.knots.crossings import _end_moves, _moves, uncross
from conftest import red_blue_board


def _board() -> dict:
    """a-b a long route; c south of it on the real map, f further south, c-f a route."""
    st = [("a", 45.0, -122.0), ("b", 45.0, -121.9), ("c", 44.99, -121.95), ("f", 44.975, -121.95)]
    return red_blue_board(
        stations=[{"id": i, "name": i.upper(), "lat": la, "lon": lo} for i, la, lo in st],
        routes=[{"from": "a", "to": "b", "color": "red", "length": 6},
                   {"from": "c", "to": "f", "color": "blue", "length": 2},
                   {"from": "a", "to": "c", "color": "blue", "length": 3},
                   {"from": "c", "to": "b", "color": "blue", "length": 3}])


def _drawing(net, pos, bend) -> Drawing:
    dr = Drawing(np.array(pos, dtype=float), net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool),
                 bounds=(30.0, 30.0, 770.0, 500.0))
    dr.add_waypoint(0, bend)
    return dr


# a-b bent south between c and f (y down): c-f crosses it
POS = [(150, 150), (350, 150), (250, 200), (250, 280)]
BEND = (250, 240)


def test_a_route_bent_round_the_wrong_side_of_a_station_gets_its_bend_flipped():
    net = build_network(_board())
    dr = _drawing(net, POS, BEND)
    found = geometry_problems(Repair(net, dr, None, geometry_problems).full_data())
    assert any(p.code == "crossing" for p in found), [p.format() for p in found]
    left = uncross(net, dr, None, geometry_problems, found, Weights(), "geographic")
    assert not any(p.code == "crossing" for p in left), [p.format() for p in left]
    assert rank(left) < rank(found)
    bend, c = dr.pos[dr.lines[0][1]], dr.pos[2]
    assert bend[1] < c[1] - net.radius             # the route now runs north of c, as the real map has it


def test_the_moves_of_a_crossing_flip_first_then_the_station_on_the_wrong_side():
    net = build_network(_board())
    dr = _drawing(net, POS, BEND)
    rp = Repair(net, dr, None, geometry_problems)
    cross = next(p for p in geometry_problems(rp.full_data()) if p.code == "crossing")
    whats = [what for what, _ in _moves(rp, cross)]
    assert whats[0] == "flip 0", whats
    # the bend's first segment (a to the bend) runs south of c, which the real map has south of a-b:
    # c is on the wrong side of it, and its moves come before f's (drawn south, the right side)
    ends = [(what, wrong) for wrong, what, _ in _end_moves(net, dr, 0, 1)]
    assert ends == [("across 2 0", True), ("around 0 2", True), ("around 0 2 far", True),
                    ("across 3 0", False), ("around 0 3", False), ("around 0 3 far", False)], ends
    assert whats[1:3] == ["across 2 0", "around 0 2"], whats   # then the others, a and b across c-f among them
