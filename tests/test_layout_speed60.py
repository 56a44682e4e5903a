"""The layout's caches and shortcuts (docs/design/speed.md,
"Layout") give what the code without them gives: a Layout's findings with the caches warm from
earlier boards equal the plain geometry's (tests/geometry_plain.py) as stations move, off the board
and onto each other; Repair.select's remembered distances and PartBoards.whole_needs' remembered fan
points follow the drawing as points move and bends come and go; need_of's one alpha call is the
four calls it replaces, bit for bit; the garbage collector's threshold is put back after a layout."""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest
import shapely

import geometry_plain as plain
from test_geometry_fast import findings   # (what a Layout finds, as a comparable dict)
import mapkit.geometry as fast
from mapkit.boardfile import build_board
from mapkit.checks import check_geometry
from mapkit.geometry import alpha, need_of
from mapkit.layout import fewer_collections, layout_board
from mapkit.layout import optimize as O
from mapkit.layout.network import build_network
from mapkit.layout.pipeline import geometry_problems
from mapkit.layout.repair import PartBoards, Repair
from mapkit.layout.synthetic import layout_board_data
from mapkit.resources import boards_dir


def _boards():
    yield "synthetic-40", layout_board_data(40, seed=1)
    yield "portland", json.loads((boards_dir() / "portland.json").read_text())


@pytest.mark.parametrize("name, data", list(_boards()), ids=[n for n, _ in _boards()])
def test_warm_caches_follow_moved_stations(name, data):
    """The same board drawn again and again with one station moved (next to another, past the
    playing area's edge, back): the fast Layout, its shapes, RouteShapes, off-board answers and
    clipped lines taken from the caches where unmoved, finds exactly what the plain one finds."""
    data = json.loads(json.dumps(data))
    stations = [s for s in data["stations"] if "board" in s]
    if not stations:   # (the synthetic board: its stations at their projected positions)
        board = build_board(data)
        for s, (x, y) in zip(data["stations"], fast.Layout(board).positions.values()):
            s["board"] = {"x": x, "y": y}
        stations = data["stations"]
    rng = np.random.default_rng(5)
    ph = build_board(data).physical
    seen = set()
    for t in range(24):
        s = stations[int(rng.integers(len(stations)))]
        other = stations[int(rng.integers(len(stations)))]
        if t % 4 == 0:      # onto (near) another station: station_overlaps must go to GEOS
            s["board"] = {"x": other["board"]["x"] + 2.0, "y": other["board"]["y"]}
        elif t % 4 == 1:    # past the edge of the playing area, then back later
            s["board"] = {"x": ph.width_mm - 1.0, "y": s["board"]["y"]}
        else:
            s["board"] = {"x": s["board"]["x"] + float(rng.normal(0, 20)), "y": s["board"]["y"] + float(rng.normal(0, 20))}
        board = build_board(data)
        got, want = findings(fast.Layout(board)), findings(plain.Layout(board))
        for key in want:
            assert got[key] == want[key], f"{name}, step {t}: {key} differs"
        seen.update(key for key in want if want[key] and key != "routes")
        assert list(check_geometry(board)) == list(check_geometry(board, plain.Layout(board)))
    assert {"station_overlaps", "stations_off_board", "routes_off_board", "space_overlaps"} <= seen


def test_no_pair_within_is_the_tree_query():
    rng = np.random.default_rng(2)
    for t in range(300):
        xy = rng.uniform(0, 200, (int(rng.integers(0, 30)), 2))
        if t % 3 == 0 and len(xy) > 1:
            xy[1] = xy[0] + rng.normal(0, 12, 2)   # a pair about the distance apart
        none_near = fast._no_pair_within(xy, 23.0)
        pts = shapely.points(xy.reshape(-1, 2))
        i, j = shapely.STRtree(pts).query(pts, predicate="dwithin", distance=23.0)
        if none_near:   # (otherwise the tree is asked: nothing to compare)
            assert not (j > i).any()
    assert not fast._no_pair_within(np.array([[0.0, 0.0], [np.nan, 1.0]]), 23.0)   # left to GEOS


def test_need_of_is_its_four_alpha_calls():
    def plain_need(s1, s2, h1, h2):
        r1, r2 = np.hypot(s1, h1), np.hypot(s2, h2)
        both1 = (r1 >= s1) & (r1 >= s2)
        both2 = (r2 >= s1) & (r2 >= s2)
        return np.maximum(np.where(both1, alpha(r1, s1, h1, r1) + alpha(r1, s2, h2, r2), 0.0),
                          np.where(both2, alpha(r2, s1, h1, r1) + alpha(r2, s2, h2, r2), 0.0))

    rng = np.random.default_rng(0)
    for t in range(2000):
        n = int(rng.integers(1, 70))
        s1, s2 = rng.uniform(5, 40, n), rng.uniform(5, 40, n)
        if t % 3 == 0:
            s2 = s1.copy()
        h1, h2 = rng.uniform(0.5, 12, n), rng.uniform(0.5, 12, n)
        if t % 5 == 0:
            s1, s2, h1, h2 = s1[::2], s2[::2], h1[::2], h2[::2]   # strided views
        assert need_of(s1, s2, h1, h2).tobytes() == plain_need(s1, s2, h1, h2).tobytes()


def _drawing(n_stations=30, seed=3):
    data = layout_board_data(n_stations, seed=seed)
    net = build_network(data, frozenset())
    board = build_board(data)
    pos = np.array(list(fast.Layout(board).positions.values()), dtype=float)
    dr = O.Drawing(pos, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool))
    return net, dr


def test_select_follows_the_drawing():
    """Repair.select's distances remembered for the last points and drawing: the same parts as a
    fresh Repair's as points move, the same points are asked again, and bends come and go."""
    net, dr = _drawing()
    rp = Repair(net, dr, (1000, 700), geometry_problems)
    rng = np.random.default_rng(4)
    for t in range(12):
        centres = dr.pos[rng.integers(net.n, size=3)] + rng.normal(0, 5, (3, 2))
        for reach in (29.0, 34.0, 43.0, 57.0):
            fresh = Repair(net, dr, (1000, 700), geometry_problems)
            assert rp.select(centres, reach) == fresh.select(centres, reach)
        dr.pos[rng.integers(net.n)] += rng.normal(0, 25, 2)
        if t == 4:
            dr.add_waypoint(2, (dr.pos[net.bundles[2].a] + dr.pos[net.bundles[2].b]) / 2 + 9.0)
        if t == 8:
            rp._drop_last_waypoint(2)


def test_whole_needs_follow_the_drawing():
    """PartBoards.whole_needs with its fans' point indices remembered per drawing of their lines:
    the needs a fresh PartBoards gives, as points move and a bend comes and goes."""
    net, dr = _drawing(40, seed=1)
    rp = Repair(net, dr, (1000, 700), geometry_problems)
    boards = PartBoards(rp)
    order = sorted(ri for b in net.bundles for ri in b.routes)
    rng = np.random.default_rng(6)
    for t in range(10):
        assert boards.whole_needs(order) == PartBoards(rp).whole_needs(order)
        dr.pos[rng.integers(net.n)] += rng.normal(0, 12, 2)
        if t == 3:
            dr.add_waypoint(0, (dr.pos[net.bundles[0].a] + dr.pos[net.bundles[0].b]) / 2 + 6.0)
        if t == 6:
            rp._drop_last_waypoint(0)


def test_fewer_collections_puts_the_threshold_back():
    was = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with fewer_collections():
            assert gc.get_threshold()[0] == 10_000
            with fewer_collections():
                assert gc.get_threshold()[0] == 10_000
            assert gc.get_threshold()[0] == 10_000
        assert gc.get_threshold() == (700, 10, 10)
        with pytest.raises(ValueError):
            with fewer_collections():
                raise ValueError
        assert gc.get_threshold() == (700, 10, 10)
        layout_board(layout_board_data(8, seed=0), seed=0)
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*was)
