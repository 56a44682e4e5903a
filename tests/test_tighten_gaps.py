"""The tightening's model of a route's gaps against the geometry's (a double's tracks), and its
pull moves (tighten.py, docs/design/layout.md, "Tightening")."""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import LineString

from mapkit.layout.network import MAX_GAP_MM
from mapkit.layout.judge import geometry_problems
from mapkit.layout.repair import Repair
from mapkit.layout.result import build_result
from mapkit.layout.tighten import Tighten, tighten, track_extras
from conftest import red_blue_board
from test_layout_tighten import drawing_of


def _drawing(stations, routes, bends=None):
    data = red_blue_board(
        stations=[{"id": i, "name": i.upper(), "lat": 45.0 - y / 5000, "lon": -122.0 + x / 5000}
                  for i, (x, y) in stations.items()],
        routes=[{"from": a, "to": b, "color": c, "length": n, **({"double": d} if d else {})}
                for a, b, c, n, d in routes])
    return drawing_of(data, stations, bends)


def _gaps(net, dr) -> dict[str, float]:
    """Each route's (each track's) gap between spaces as mapkit.geometry places them."""
    from mapkit.boardfile import build_board
    from mapkit.geometry import Layout

    board = build_board(build_result(net, dr, None)[0])
    return {rid: s.gaps[1] for rid, s in Layout(board).routes.items()}


def test_track_extras_are_the_offset_tracks_lengths():
    # the geometry draws a double's tracks as shapely's mitred offset curves of its centreline
    pts = np.array([[0.0, 0.0], [60.0, 0.0], [100.0, 35.0], [160.0, 20.0]])
    line = LineString(pts)
    for d in (4.0, 6.0):
        left, right = (shapely.offset_curve(line, s * d, join_style="mitre", mitre_limit=3.0).length - line.length
                       for s in (1, -1))
        assert np.allclose(track_extras(pts, d), (left, right), atol=1e-6)
        assert max(left, right) > 1.0   # the bends make one track longer: not a trivial case
    # a sharp turn: the mitre limit clips the outer track
    sharp = np.array([[0.0, 0.0], [80.0, 0.0], [10.0, 30.0]])
    out = shapely.offset_curve(LineString(sharp), -5.0, join_style="mitre", mitre_limit=3.0).length
    assert abs(track_extras(sharp, 5.0)[1] - (out - LineString(sharp).length)) < 1e-6
    assert track_extras(pts[:2], 5.0) == (0.0, 0.0)


# a double of 4 spaces bent once by 40 degrees, its centreline 130 mm (gaps of 5.6 mm): its outer
# track is 2 x 6 x tan 20 = 4.4 mm longer (gaps of 6.5 mm), its inner one as much shorter
BENT = {"a": (200.0, 250.0), "b": (322.16, 250.0)}
BEND = {0: (261.08, 272.23)}


def test_a_bent_double_is_read_on_its_wider_track():
    net, dr = _drawing(BENT, [("a", "b", "red", 4, "ab"), ("a", "b", "blue", 4, "ab")], bends=BEND)
    tg = Tighten(Repair(net, dr, None, geometry_problems))
    gaps = _gaps(net, dr)
    widest = max(gaps.values())
    assert widest - min(gaps.values()) > 0.5        # the two tracks' gaps differ
    assert abs(tg.widest(0) - widest) < 0.01         # the model reads the wider one
    assert tg.gap(0, tg.centreline(0)) < widest - 0.25   # (the centreline alone: narrower)


def test_a_bent_double_over_6_mm_on_its_outer_track_is_drawn_in():
    # the centreline's gaps are inside the aim, the outer track's over 6 mm: the step sees it and
    # draws it in (before, the centreline's gaps alone were read and nothing was done)
    net, dr = _drawing(BENT, [("a", "b", "red", 4, "ab"), ("a", "b", "blue", 4, "ab")], bends=BEND)
    tg = Tighten(Repair(net, dr, None, geometry_problems))
    assert tg.gap(0, tg.centreline(0)) <= MAX_GAP_MM
    assert max(_gaps(net, dr).values()) > MAX_GAP_MM + 0.1
    assert geometry_problems(build_result(net, dr, None)[0]) == []
    did = tighten(Repair(net, dr, None, geometry_problems))
    assert did["moves"] >= 1 or did["shrunk"] is not None
    assert geometry_problems(build_result(net, dr, None)[0]) == []
    assert round(max(_gaps(net, dr).values()), 1) <= MAX_GAP_MM


def test_a_pull_moves_a_station_along_its_route_over_by_its_excess():
    net, dr = _drawing({"a": (300.0, 250.0), "b": (420.0, 250.0)}, [("a", "b", "red", 3, None)])
    tg = Tighten(Repair(net, dr, None, geometry_problems))
    k = 0
    g = tg.widest(k)
    assert g > MAX_GAP_MM
    (target,) = tg._pulls(net.bundles[k].b, [k])
    # towards a, along the route, by as much as the even spread's excess over its 4 gaps
    assert abs(target[1] - 250.0) < 1e-9
    assert abs((420.0 - target[0]) - (g - tg.aim[k]) * 4) < 1e-6
    # a route inside its aim asks for no pull
    net, dr = _drawing({"a": (300.0, 250.0), "b": (380.0, 250.0)}, [("a", "b", "red", 3, None)])
    tg = Tighten(Repair(net, dr, None, geometry_problems))
    assert tg._pulls(1, [0]) == []


def test_a_sweep_the_whole_board_refuses_keeps_its_moves_before_the_refused_one(monkeypatch):
    # two routes far over 6 mm, apart; the whole board (a stand-in for a problem the part-board
    # judge cannot see) refuses any move of c or d. The sweep that moved a and c is not all undone:
    # a's move is kept, c and d are not moved again, and a-b ends inside 6 mm.
    stations = {"a": (150.0, 150.0), "b": (250.0, 150.0), "c": (150.0, 400.0), "d": (250.0, 400.0)}
    net, dr = _drawing(stations, [("a", "b", "red", 2, None), ("c", "d", "blue", 2, None)])
    start = dr.pos[: net.n].copy()
    cd = [net.ids.index("c"), net.ids.index("d")]
    confirmed = Tighten._confirmed
    monkeypatch.setattr(Tighten, "_confirmed", lambda self, base, room: confirmed(self, base, room)
                        and np.array_equal(self.dr.pos[cd], start[cd]))
    did = tighten(Repair(net, dr, None, geometry_problems), cuts=False, shrink=())
    gaps = _gaps(net, dr)
    assert did["undone"] >= 1
    assert np.array_equal(dr.pos[cd], start[cd])
    assert round(gaps["a-b"], 1) <= MAX_GAP_MM < gaps["c-d"]
    # without the bisection the first sweep is undone whole and the step stops there
    net, dr = _drawing(stations, [("a", "b", "red", 2, None), ("c", "d", "blue", 2, None)])
    tighten(Repair(net, dr, None, geometry_problems), cuts=False, shrink=(), bisect=False)
    assert _gaps(net, dr)["a-b"] > MAX_GAP_MM


# s-t far over 6 mm (t pinned); s-u inside its aim, bent at w just west of s, then north to u:
# every move of s alone towards t lengthens s-u (its first segment runs the other way) and takes it
# over 6 mm before s-t comes inside; s moved with its bend w (a group move) keeps s-u's length
GROUP_BOARD = {"s": (300.0, 250.0), "t": (437.0, 250.0), "u": (280.0, 305.2)}


def _group_case():
    net, dr = _drawing(GROUP_BOARD, [("s", "t", "red", 4, None), ("s", "u", "blue", 2, None)],
                       bends={1: (280.0, 250.0)})
    dr.free[net.ids.index("t")] = False
    return net, dr


def test_a_group_move_draws_in_a_route_no_single_move_can():
    net, dr = _group_case()
    assert geometry_problems(build_result(net, dr, None)[0]) == []
    assert _gaps(net, dr)["s-t"] > MAX_GAP_MM + 0.5
    did = tighten(Repair(net, dr, None, geometry_problems), group=False)
    assert did["kinds"]["group"] == 0
    assert round(_gaps(net, dr)["s-t"], 1) > MAX_GAP_MM      # single moves alone leave it over
    runs = []
    for _ in range(2):
        net, dr = _group_case()
        did = tighten(Repair(net, dr, None, geometry_problems))
        gaps = _gaps(net, dr)
        assert did["kinds"]["group"] >= 1
        assert round(gaps["s-t"], 1) <= MAX_GAP_MM and round(gaps["s-u"], 1) <= MAX_GAP_MM
        assert geometry_problems(build_result(net, dr, None)[0]) == []
        runs.append(dr.pos.copy())
    assert np.array_equal(runs[0], runs[1])   # deterministic
