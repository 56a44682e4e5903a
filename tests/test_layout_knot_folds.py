"""The unfolding after the untangling (mapkit/layout/knots/folds.py) and an overpass's crossings in the
optimizer (mapkit/layout/optimize.py), on a small hand-made drawing: a station the first drawing
put on the wrong side of a bent route goes back to the real map's side, a bend over a station is
put on the chord's other side, and an overpass may cross only where a step asks for it."""
from __future__ import annotations

import numpy as np

from mapkit.layout.network import build_network
from mapkit.layout.optimize import Drawing, Problem, Weights
from mapkit.layout.knots.folds import _across, _flip, _loop_stations
from conftest import red_blue_board


def _board() -> dict:
    """a-b a route bent north round c; c south of a-b on the real map; d-e an overpass crossing a-b."""
    st = [("a", 45.0, -122.0), ("b", 45.0, -121.9), ("c", 44.99, -121.95), ("d", 45.03, -121.96), ("e", 44.97, -121.94)]
    return red_blue_board(
        stations=[{"id": i, "name": i.upper(), "lat": la, "lon": lo} for i, la, lo in st],
        routes=[{"from": "a", "to": "b", "color": "red", "length": 4},
                   {"from": "a", "to": "c", "color": "red", "length": 1},
                   {"from": "c", "to": "b", "color": "red", "length": 2},
                   {"from": "d", "to": "e", "color": "blue", "length": 3, "overpass": True}])


def _drawing(net, pos, bend=None) -> Drawing:
    dr = Drawing(np.array(pos, dtype=float), net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool))
    if bend is not None:
        dr.add_waypoint(0, bend)
    return dr


def test_a_station_inside_a_bent_routes_loop_goes_to_the_real_maps_side():
    net = build_network(_board())
    # c drawn north of a-b (y down: smaller y), a-b bent further north round it
    dr = _drawing(net, [(100, 200), (300, 200), (200, 180), (200, 100), (200, 300)], bend=(200, 120))
    loop = _loop_stations(net, dr, 0)
    assert loop == [2]                       # c, not the overpass's ends
    (s, xy), = _across(net, dr, 0, loop)
    assert s == 2 and xy[1] > 200            # now south of the chord, where the real map has it
    assert abs(xy[0] - 200) < 1e-9
    assert xy[1] - 200 >= net.radius + net.bundles[0].half_width  # clear of the route's band
    # drawn south already (the real map's side): nothing to put across
    dr2 = _drawing(net, [(100, 200), (300, 200), (200, 230), (200, 100), (200, 300)], bend=(200, 260))
    assert _across(net, dr2, 0, _loop_stations(net, dr2, 0)) == []


def test_a_bend_is_put_on_the_other_side_of_its_chord():
    net = build_network(_board())
    dr = _drawing(net, [(100, 200), (300, 200), (200, 215), (200, 100), (200, 300)], bend=(180, 230))
    (i, xy), = _flip(dr, 0)
    assert i == net.n and np.allclose(xy, (180, 170))
    assert _flip(_drawing(net, [(100, 200), (300, 200), (200, 215), (200, 100), (200, 300)]), 0) == []


def test_an_overpass_crossing_is_pushed_apart_unless_a_step_asks():
    net = build_network(_board())
    over = next(k for k, b in enumerate(net.bundles) if b.overpass)
    pos = [(100, 200), (300, 200), (200, 260), (200, 150), (200, 250)]   # d-e crosses a-b at (200, 200)

    def crossing_pairs(extra):
        dr = _drawing(net, pos)
        dr.extra.update(extra)
        pb = Problem(net, dr, Weights(), "geographic")
        owners = {(int(pb.sown[i]), int(pb.sown[j])) for i, j in zip(pb.cc_1, pb.cc_2)}
        return {p for p in owners if over in p and 0 in p}

    assert crossing_pairs({})                       # the rule: lines kept apart
    assert crossing_pairs({"overpass_crossings": True}) == set()
