"""The turning back on a clean board (mapkit/layout/turnback.py), on a small hand-made drawing: a
route drawn the other way from its real bearing gets its one-route station turned back about its
neighbour, the board staying clean; a board with every route within 90° is left as it is."""
from __future__ import annotations

import numpy as np

from mapkit.layout.network import build_network
from mapkit.layout.optimize import Drawing, Weights
from mapkit.layout.pipeline import geometry_problems
from mapkit.layout.repair import Repair
from mapkit.layout.turnback import off_bearing, turn_back


def _board() -> dict:
    """a - b - c west to east on the real map, d north of b; d's only route is b-d."""
    st = [("a", 45.0, -122.0), ("b", 45.0, -121.95), ("c", 45.0, -121.9), ("d", 45.03, -121.95)]
    return {
        "schema_version": 1, "id": "t", "name": "T", "version": "1", "rules": {"preset": "standard"},
        "route_points": [1, 2, 4, 7, 10, 15],
        "palette": [{"id": "red", "name": "Red", "hex": "#d62728", "kind": "rail"}],
        "wild": {"name": "Locomotive", "hex": "#cccccc"}, "gray": {"name": "Gray", "kind": "rail"},
        "stations": [{"id": i, "name": i.upper(), "lat": la, "lon": lo} for i, la, lo in st],
        "routes": [{"from": "a", "to": "b", "color": "red", "length": 3},
                   {"from": "b", "to": "c", "color": "red", "length": 3},
                   {"from": "b", "to": "d", "color": "red", "length": 2}],
    }


def _drawing(net, pos) -> Drawing:
    return Drawing(np.array(pos, dtype=float), net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool),
                   bounds=(30.0, 30.0, 770.0, 500.0), anchor=np.array(pos, dtype=float))


def test_a_station_drawn_on_the_wrong_side_of_its_neighbour_is_turned_back():
    net = build_network(_board())
    dr = _drawing(net, [(200, 250), (290, 250), (380, 250), (290, 320)])   # d drawn south of b (y down)
    rp = Repair(net, dr, None, geometry_problems)
    assert rp.full() == []                                   # clean, but b-d points the other way
    assert [k for _, k in off_bearing(net, dr.pos)] == [2]
    assert turn_back(net, dr, None, geometry_problems, Weights(), "geographic") == 1
    assert off_bearing(net, dr.pos) == []
    assert dr.pos[3][1] < dr.pos[1][1]                       # d north of b, as on the real map
    assert rp.full() == []


def test_a_board_within_90_degrees_is_left_as_it_is():
    net = build_network(_board())
    pos = [(200, 250), (290, 250), (380, 250), (290, 180)]
    dr = _drawing(net, pos)
    assert off_bearing(net, dr.pos) == []
    assert turn_back(net, dr, None, geometry_problems, Weights(), "geographic") == 0
    assert np.array_equal(dr.pos, np.array(pos, dtype=float))
