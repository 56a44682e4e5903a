"""`mapkit layout`'s geography figures and terms: the cyclic order of routes around a station, the
order term's exact gradient, and the side a shared trunk's lines keep along a run of doubles."""

from __future__ import annotations

import copy

import numpy as np

from layoutgen import layout_board_data
from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.layout.figures import trunk_swaps
from mapkit.layout.order import cyclic_order, order_terms
from mapkit.render.sides import keep_sides


def _star() -> dict:
    """A hub with four neighbours north, east, south and west, drawn where they really are."""
    where = {"hub": (45.0, -122.0, 400, 260), "n": (45.1, -122.0, 400, 110), "e": (45.0, -121.86, 550, 260),
             "s": (44.9, -122.0, 400, 410), "w": (45.0, -122.14, 250, 260)}
    data = layout_board_data(6, seed=1)   # the synthetic boards' palette, rules and points
    data["stations"] = [{"id": k, "name": k.upper(), "lat": la, "lon": lo, "board": {"x": x, "y": y}}
                        for k, (la, lo, x, y) in where.items()]
    data["routes"] = [{"from": "hub", "to": k, "color": "red", "length": 4} for k in ("n", "e", "s", "w")]
    return data


def test_cyclic_order_kept_and_broken():
    data = _star()
    assert cyclic_order(data) == {"stations": 1, "kept": 1, "broken": []}
    swapped = copy.deepcopy(data)
    st = {s["id"]: s for s in swapped["stations"]}
    st["n"]["board"], st["e"]["board"] = st["e"]["board"], st["n"]["board"]   # north and east trade places
    assert cyclic_order(swapped) == {"stations": 1, "kept": 0, "broken": ["hub"]}
    # a waypoint decides where a route leaves: north's route leaving east-north-east reads as before
    bent = copy.deepcopy(data)
    bent["routes"][0]["waypoints"] = [{"x": 470, "y": 200}]
    assert cyclic_order(bent)["kept"] == 1


def test_order_term_gradient_is_exact():
    rng = np.random.default_rng(4)
    pos = rng.normal(0.0, 10.0, (6, 2))
    s, p1, p2 = np.array([0, 0, 1, 2]), np.array([1, 2, 3, 5]), np.array([2, 3, 4, 1])
    v, blocks = order_terms(pos, s, p1, p2, 3.0)
    assert (v > 0).any() and (v == 0).any()   # both sides of the hinge are exercised
    jac = np.zeros((len(s), pos.size))
    for rows, pts, g in blocks:
        for r, p, gg in zip(rows, pts, g):
            jac[r, 2 * p: 2 * p + 2] += gg
    num = np.zeros_like(jac)
    for i in range(pos.size):
        d = np.zeros(pos.size)
        d[i] = 1e-6
        up = order_terms(pos + d.reshape(pos.shape), s, p1, p2, 3.0)[0]
        down = order_terms(pos - d.reshape(pos.shape), s, p1, p2, 3.0)[0]
        num[:, i] = (up - down) / 2e-6
    assert np.abs(jac - num).max() < 1e-6


def _trunk(reverse_second: bool) -> dict:
    """Red and Blue side by side over two doubles in a row, w - hub - e; the second double's tracks
    listed the other way round when asked (so the checks' geometry puts the lines on swapped sides)."""
    data = _star()
    data["routes"] = []
    for k, (a, b) in enumerate((("w", "hub"), ("hub", "e"))):
        pair = [{"from": a, "to": b, "color": c, "length": 4, "double": f"{a}-{b}"} for c in ("red", "blue")]
        if reverse_second and k == 1:
            pair.reverse()
        data["routes"] += pair
    return data


def test_trunk_sides_counted_raw_and_as_drawn():
    straight = build_board(_trunk(False))
    lay = Layout(straight)
    assert trunk_swaps(straight, lay.positions, lay.routes) == 0
    swapped = build_board(_trunk(True))
    lay = Layout(swapped)
    assert trunk_swaps(swapped, lay.positions, lay.routes) == 1
    assert trunk_swaps(swapped, lay.positions, keep_sides(swapped, lay.positions, lay.routes)) == 0


def test_label_room_agrees_with_the_print():
    """A station the layout finds no room for at 12 pt is one the renderer could not give 12 pt
    (it places among more obstacles: drawn lines, other labels); and some have room."""
    import json

    from mapkit.layout.labelroom import without_room
    from mapkit.render.scene import build_scene
    from mapkit.resources import boards_dir

    data = json.loads((boards_dir() / "portland.json").read_text(encoding="utf-8"))
    lacking = without_room(data, size=12.0)
    assert lacking and len(lacking) < len(data["stations"])
    board = build_board(data)
    scene = build_scene(board, Layout(board), "0" * 8)
    for sid in lacking:
        # (a box nudged off its spot, "^", is one the layout's room model does not have)
        placed = scene.placement.placed[sid]
        assert sid in scene.unplaced or placed.size < 12.0 or placed.position.endswith("^"), sid


def test_polish_turns_routes_towards_their_bearings_and_keeps_the_board_clean():
    from mapkit.layout import layout_board
    from mapkit.layout.fit import inner_box
    from mapkit.layout.network import build_network
    from mapkit.layout.optimize import Drawing
    from mapkit.layout.judge import geometry_problems
    from mapkit.layout.bearings import _cost, polish
    from mapkit.layout.repair import Repair
    from mapkit.layout.result import station_positions

    res = layout_board(layout_board_data(8, seed=1), seed=0)
    assert not geometry_problems(res.data)
    net = build_network(res.data)
    dr = Drawing(station_positions(res.data), net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, bool))
    for k, b in enumerate(net.bundles):
        for w in res.data["routes"][b.routes[0]].get("waypoints", []):
            dr.add_waypoint(k, (w["x"], w["y"]))
    ph = res.data["physical"]
    dr.bounds = inner_box(ph["width_mm"], ph["height_mm"], net.margin)
    every = range(len(net.bundles))
    bent = {k for k, line in enumerate(dr.lines) if len(line) > 2}
    rp = Repair(net, dr, None, geometry_problems)
    before = _cost(net, dr.pos, every, bent)
    kept = polish(rp)
    after = _cost(net, dr.pos, every, bent)
    assert after <= before + 1e-9
    assert (kept > 0) == (after < before - 1e-9)
    assert not geometry_problems(rp.full_data())
