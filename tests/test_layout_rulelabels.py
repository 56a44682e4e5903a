"""The label step's slides (mapkit/layout/labels.py, slide_repair) and the label-room test's sizes and
drawn lines, on small hand-made drawings: a station boxed in by the spaces of two routes passing
above and below it, its own routes at each side, has no room for its name anywhere round its
marker; a slide of the board's upper part away from it gives it room, the board stays clean and no
route gets longer. The room is counted at 7, 8 and 10 pt (room_counts), a move that takes a label's
room at any of them is worse (worse_room), and the ferries' drawn waves count as obstacles as the
renderer counts them."""
from __future__ import annotations

import numpy as np

from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.layout import labelroom
from mapkit.layout.figures import gap_figures
from mapkit.layout.labelroom import room_counts, without_room, worse_room
from mapkit.layout.labels import room_key, slide_repair
from mapkit.layout.network import build_network
from mapkit.layout.optimize import Drawing
from mapkit.layout.judge import geometry_problems
from mapkit.layout.judge import score
from mapkit.layout.repair import Repair
from conftest import red_blue_board

# S on a line P - S - T, boxed in by A - B above and C - D below (13 mm away: their spaces clear S's)
BOXED = {"p": (300.0, 265.0), "s": (400.0, 265.0), "t": (500.0, 265.0),
         "a": (220.0, 252.0), "b": (580.0, 252.0), "c": (220.0, 278.0), "d": (580.0, 278.0)}
BOXED_ROUTES = [("p", "s", "red", 3), ("s", "t", "red", 3), ("a", "b", "blue", 14), ("c", "d", "blue", 14)]


def _board(stations, routes) -> dict:
    return red_blue_board(
        stations=[{"id": i, "name": f"Station {i.upper()}", "lat": 45.0 - y / 5000, "lon": -122.0 + x / 5000}
                  for i, (x, y) in stations.items()],
        routes=[{"from": a, "to": b, "color": c, "length": n} for a, b, c, n in routes])


def _repair(stations, routes):
    net = build_network(_board(stations, routes))
    pos = np.array(list(stations.values()), dtype=float)
    dr = Drawing(pos, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool),
                 bounds=(40.0, 40.0, 760.0, 490.0))
    rp = Repair(net, dr, None, geometry_problems)
    assert geometry_problems(rp.full_data()) == []
    rp.baseline = score([])
    return net, dr, rp


def test_boxed_station_has_no_room_and_a_slide_gives_it_room():
    net, dr, rp = _repair(BOXED, BOXED_ROUTES)
    assert "s" in without_room(rp.full_data(), size=7.0)   # no room even at the smallest size
    before = room_key(rp)
    lengths = [np.linalg.norm(np.diff(dr.pos[line], axis=0), axis=1).sum() for line in dr.lines]
    over = gap_figures(rp.full_data())["routes_over_gap"]
    assert slide_repair(rp) >= 1
    data = rp.full_data()
    assert "s" not in without_room(data, size=8.0)          # room at 8 pt at least
    assert room_key(rp) < before
    assert geometry_problems(data) == []                     # clean still
    # the slide's line runs along P - S - T: A - B moved away whole, no route drawn longer
    after = [np.linalg.norm(np.diff(dr.pos[line], axis=0), axis=1).sum() for line in dr.lines]
    assert np.allclose(after, lengths)
    assert gap_figures(data)["routes_over_gap"] <= over


def test_slides_leave_a_board_with_room_as_it_is():
    stations = {k: v for k, v in BOXED.items() if k in "pst"}
    net, dr, rp = _repair(stations, BOXED_ROUTES[:2])
    assert without_room(rp.full_data()) == []
    start = dr.pos.copy()
    assert slide_repair(rp) == 0
    assert np.array_equal(dr.pos, start)


def test_room_counts_are_by_size_and_monotone():
    net, dr, rp = _repair(BOXED, BOXED_ROUTES)
    counts = room_counts(None, data=rp.full_data())
    assert len(counts) == len(labelroom.ROOM_SIZES)
    assert list(counts) == sorted(counts)                    # room at a size means room at every smaller one
    assert counts[-1] == len(without_room(rp.full_data(), size=labelroom.LABEL_PT))
    assert worse_room((0, 1, 2), (0, 0, 3))                  # a label's 8 pt room is not paid for at 10 pt
    assert not worse_room((0, 0, 2), (0, 0, 3))


def test_ferry_wave_is_a_label_obstacle():
    data = _board({"s": (300.0, 265.0), "t": (420.0, 265.0)}, [("s", "t", "red", 2)])
    data["palette"].append({"id": "sea", "name": "Sea", "hex": "#2ca02c", "kind": "ferry"})
    data["routes"][0]["color"] = "sea"
    for s, (x, y) in zip(data["stations"], [(300.0, 265.0), (420.0, 265.0)]):
        s["board"] = {"x": x, "y": y}
    board = build_board(data)
    layout = Layout(board)
    lines = labelroom._drawn_lines(board, layout)
    assert len(lines) == 1
    shape = next(iter(layout.routes.values()))
    mid = np.mean(np.asarray(shape.centerline, dtype=float), axis=0)
    from shapely.geometry import Point

    assert lines[0].distance(Point(*mid)) < 2.0              # the wave along the route's centreline
    rail = build_board(_board({"s": (300.0, 265.0), "t": (420.0, 265.0)}, [("s", "t", "red", 2)]))
    assert labelroom._drawn_lines(rail, Layout(rail)) == []
