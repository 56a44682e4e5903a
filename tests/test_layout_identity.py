"""The layout's speed-ups give the same numbers as the plain code they replace (docs/design/speed.md):
the polish's route costs, the label-room test and its candidate boxes, the repair's replay of a
problem tried before, and the optimizer's Jacobian and angle need. Each is compared here with a
plain version, on real boards and on synthetic ones."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import shapely
from scipy.sparse import coo_matrix
from shapely import STRtree
from shapely.geometry import Polygon

from layoutgen import layout_board_data
from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.layout import layout_board
from mapkit.layout import optimize as O
from mapkit.layout.labelboxes import candidate_boxes
from mapkit.layout.labelroom import LABEL_PT, label_bounds, without_room
from mapkit.layout.network import build_network
from mapkit.layout.judge import geometry_problems
from mapkit.layout.bearings import POLISH_STEPS_MM, Costs, _cost
from mapkit.layout.repair import Repair
from mapkit.layout.result import build_result
from mapkit.render import labels as render_labels

BOARDS = Path(__file__).resolve().parent.parent / "boards"


def _touching(net):
    out: dict[int, list[int]] = {}
    for k, b in enumerate(net.bundles):
        out.setdefault(b.a, []).append(k)
        out.setdefault(b.b, []).append(k)
    return out


def test_polish_costs_are_the_plain_costs():
    # The same arithmetic element for element, but not always the same last bit: numpy's SIMD
    # kernels (AVX-512's arctan2 on some hosts) may round an element by an ulp depending on the
    # array's shape, so the batched costs are held to 1e-12 of the plain ones, not to equality.
    net = build_network(layout_board_data(40, seed=1), frozenset())
    touching = _touching(net)
    rng = np.random.default_rng(0)
    bent = set(rng.choice(len(net.bundles), 4).tolist())
    costs = Costs(net, touching, bent)
    dirs = [np.array([np.cos(t), np.sin(t)]) for t in np.arange(8) * np.pi / 4]
    for _ in range(3):
        pos = rng.uniform(0, 900, (net.n, 2))
        for s, ks in touching.items():
            assert costs.of(pos, s) == pytest.approx(_cost(net, pos, ks, bent), rel=1e-12, abs=1e-12)
            xys = np.array([pos[s] + step * d for step in POLISH_STEPS_MM for d in dirs])
            for xy, got in zip(xys, costs.moved(pos, s, xys)):
                moved = pos.copy()
                moved[s] = xy
                assert got == pytest.approx(_cost(net, moved, ks, bent), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", ["A", "Station 12", "Portland International Airport", "Gresham-Ruby Junction / East"])
def test_candidate_boxes_are_the_renderers_in_its_order(name):
    rng = np.random.default_rng(len(name))
    for k in range(24):
        xy = (float(rng.uniform(0, 1200)), float(rng.uniform(0, 900)))
        preferred, hub, need = [None, "n", "sw", "e"][k % 4], k % 3 == 0, [LABEL_PT, 11.0, 7.0, 12.5][k % 4]
        want = [c.box for c in render_labels.station_candidates(name, xy, 7.0, preferred, hub) if c.size >= need]
        got = [tuple(b) for b in candidate_boxes(name, xy, 7.0, preferred, hub, need).tolist()]
        assert got == want


def _plain_without_room(data, only=None, size=LABEL_PT):
    """The label-room test one shapely object and one candidate at a time (the code it replaced)."""
    board = build_board(data)
    layout = Layout(board)
    ph = board.physical
    markers = [shapely.Point(xy).buffer(ph.station_radius_mm, quad_segs=8) for xy in layout.positions.values()]
    spaces = [Polygon(c) for shape in layout.routes.values() for c in shape.spaces]
    tree = STRtree(markers + spaces)
    bounds = label_bounds(ph)
    out = []
    for s in board.stations:
        if only is not None and s.id not in only:
            continue
        need = size + (1.0 if s.hub else 0.0)
        boxes = [shapely.box(*c.box) for c in render_labels.station_candidates(
            s.name, layout.positions[s.id], ph.station_radius_mm, s.label, s.hub) if c.size >= need]
        if not any(bounds.contains(b) and not len(tree.query(b, predicate="dwithin", distance=render_labels.CLEARANCE_MM))
                   for b in boxes):
            out.append(s.id)
    return out


@pytest.mark.parametrize("board", ["portland.json", "north-america.json"])
def test_label_room_is_the_plain_tests(board):
    data = json.loads((BOARDS / board).read_text())
    rng = np.random.default_rng(3)
    ids = [s["id"] for s in data["stations"]]
    lacking = 0
    for k in range(4):
        shaken = copy.deepcopy(data)
        for s in shaken["stations"]:
            if "board" in s and rng.random() < 0.5:
                s["board"] = {"x": s["board"]["x"] + float(rng.normal(0, 15)), "y": s["board"]["y"] + float(rng.normal(0, 15))}
        only = set(rng.choice(ids, 12).tolist()) if k % 2 else None
        want = _plain_without_room(shaken, only)
        assert without_room(shaken, only=only) == want
        lacking += len(want)
    assert lacking > 0   # the shaking left some stations without room: the test compares both answers


@pytest.fixture(scope="module")
def tangled():
    """A small clean layout with one station put on a neighbour's route: problems the repair tries."""
    res = layout_board(layout_board_data(12, seed=5), seed=0)
    data = copy.deepcopy(res.data)
    pos = {s["id"]: np.array([s["board"]["x"], s["board"]["y"]]) for s in data["stations"]}
    r = next(r for r in data["routes"] if not r.get("waypoints") and not r.get("double"))
    other = next(s for s in data["stations"] if s["id"] not in (r["from"], r["to"]))
    mid = (pos[r["from"]] + pos[r["to"]]) / 2
    other["board"] = {"x": round(float(mid[0]), 1), "y": round(float(mid[1]), 1)}
    for s in data["stations"]:
        s["pinned"] = False
    net = build_network(data, frozenset())
    given = np.array([[s["board"]["x"], s["board"]["y"]] for s in data["stations"]])
    return net, given


def _repair(net, given, max_tries):
    dr = O.Drawing(given.copy(), net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool))
    rp = Repair(net, dr, None, geometry_problems)
    rp.max_tries = max_tries
    return rp, dr


def _attempt(rp, dr, p):
    """try_problem once, the drawing put back after it: (moved, tries it took, positions, lines)."""
    saved = (dr.pos.copy(), dr.free.copy(), [list(line) for line in dr.lines])
    start = rp.tries
    moved = rp.try_problem(p)
    out = (moved, rp.tries - start, dr.pos.copy(), [list(line) for line in dr.lines])
    dr.pos, dr.free, dr.lines = saved
    return out


# (tries the first time, tries the second): the same budget; a record cut short by a smaller
# budget the second time; a record cut short the first time, then judged further
@pytest.mark.parametrize("first, second", [(1000, 1000), (1000, 25), (20, 1000)])
def test_a_problem_tried_again_replays_the_same_verdicts(tangled, first, second):
    net, given = tangled
    rp, dr = _repair(net, given, first)
    calls = []
    rp.check = lambda data: calls.append(1) or geometry_problems(data)
    found = rp.full()
    assert found
    p = found[0]
    once = _attempt(rp, dr, p)
    rp.tries, rp.max_tries = 0, second
    calls.clear()
    again = _attempt(rp, dr, p)
    assert bool(calls) == (second > first)   # replayed without a check, unless it had to go further
    fresh, fdr = _repair(net, given, second)   # a repair that never saw it, with the same budget
    plain = _attempt(fresh, fdr, p)
    assert again[:2] == plain[:2] and np.array_equal(again[2], plain[2]) and again[3] == plain[3]
    assert 1 < again[1] <= second
    if first == second:
        assert once[0] and once[:2] == again[:2] and np.array_equal(once[2], again[2])


def test_the_whole_board_check_is_the_check(tangled):
    net, given = tangled
    rp, dr = _repair(net, given, 100)
    first = rp.full()
    assert first == geometry_problems(build_result(net, dr, None)[0])
    dr.pos[0] += 40.0   # another board: checked again, not taken from the first
    assert rp.full() == geometry_problems(build_result(net, dr, None)[0])
    dr.pos[0] -= 40.0
    assert rp.full() == first


def _plain_angle_need(prob, L):
    """Problem._angle_need(L, grad=True) as it was: five need_of calls, both branches everywhere."""
    net = prob.net
    raw = (L - 2 * net.radius - prob.nsp * net.space_len) / (prob.nsp + 1)
    spread = np.maximum(raw, net.space_gap)
    dspread = np.where(raw > net.space_gap, 1.0 / (prob.nsp + 1), 0.0)
    start, h = net.radius + spread, prob.half + 0.5
    s1, h1, s2, h2 = start[prob.an_b1], h[prob.an_b1], start[prob.an_b2], h[prob.an_b2]

    def alpha(rho, s_, h_):
        corner = np.hypot(s_, h_)
        inside = np.arccos(np.clip(s_ / rho, -1, 1))
        beyond = np.arcsin(np.clip(h_ / rho, -1, 1))
        return np.where(rho < s_, 0.0, np.where(rho <= corner, inside, beyond))

    def need_of(s1, s2):
        r1, r2 = np.hypot(s1, h1), np.hypot(s2, h2)
        both1, both2 = (r1 >= s1) & (r1 >= s2), (r2 >= s1) & (r2 >= s2)
        return np.maximum(np.where(both1, alpha(r1, s1, h1) + alpha(r1, s2, h2), 0.0),
                          np.where(both2, alpha(r2, s1, h1) + alpha(r2, s2, h2), 0.0))

    e = 1e-4
    return (need_of(s1, s2) + O.ANGLE_CLEAR + prob.an_extra,
            (need_of(s1 + e, s2) - need_of(s1 - e, s2)) / (2 * e) * dspread[prob.an_b1],
            (need_of(s1, s2 + e) - need_of(s1, s2 - e)) / (2 * e) * dspread[prob.an_b2])


def test_jacobian_and_angle_need_are_the_plain_ones():
    net = build_network(layout_board_data(30, seed=2), frozenset())
    rng = np.random.default_rng(1)
    pos = rng.uniform(100, 700, (net.n, 2))
    dr = O.Drawing(pos, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool),
                   bounds=(50, 50, 750, 750), anchor=pos.copy(), fill_box=(600, 600))
    dr.add_waypoint(0, (pos[net.bundles[0].a] + pos[net.bundles[0].b]) / 2 + 5.0)
    dr.free[3] = False
    prob = O.Problem(net, dr, O.Weights(), "geographic")
    x0 = dr.pos[prob.free_idx].ravel()
    for x in (x0, x0 + rng.normal(0, 3, x0.shape), x0):
        _, ents, m = prob.evaluate(x)
        rows, cols, vals = [], [], []
        for rr, pts, g in ents:   # the plain assembly, every block's mask found again
            var = prob.var_of[pts]
            keep = var >= 0
            rows += [rr[keep]] * 2
            cols += [2 * var[keep], 2 * var[keep] + 1]
            vals += [g[keep][:, 0], g[keep][:, 1]]
        plain = coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                           shape=(m, 2 * len(prob.free_idx))).tocsr()
        got = prob.jacobian(x)
        assert (got != plain).nnz == 0 and got.shape == plain.shape
        L = prob.bundle_lengths(prob.positions(x))
        for a, b in zip(prob._angle_need(L, grad=True), _plain_angle_need(prob, L)):
            assert np.array_equal(a, b)
        assert len(prob.an_s) > 0 and np.array_equal(prob._angle_need(L), _plain_angle_need(prob, L)[0])


def test_score_remembers_sizes_it_read_the_same_as_reading_them():
    """judge.score keeps each message's size (_SIZES): the same pair as reading every message, in
    the same order of the additions, on problems of every code the checks make."""
    from mapkit.errors import Problem
    from mapkit.layout import judge as J

    found = [Problem("error", "space-overlap", "spaces overlap route 'a-b' (14 mm²)", subject="route c-d"),
             Problem("error", "space-on-station", "a space covers station 's1' (3 mm²)", subject="route a-b"),
             Problem("error", "route-too-short", "2 spaces need 48 mm but the route is drawn 41 mm long", subject="route a-b"),
             Problem("error", "route-too-short", "2 spaces need 48 mm but the route is drawn 48 mm long", subject="route a-c"),
             Problem("error", "station-overlap", "marker overlaps station 's2' (9.5 mm apart; keep at least 25 mm)"),
             Problem("warning", "crossing", "crosses route 'x-y' at (10, 20) mm", subject="route a-b")]
    plain = (len(found), sum(J._size(p.code, p.message) for p in found))
    J._SIZES.clear()
    assert J.score(found) == plain == J.score(found) == (6, 14.0 + 3.0 + 70.0 + 5.0 + 20.0 + 10.0)
    assert J._SIZES


def test_a_part_of_the_board_is_checked_on_the_size_the_layout_chose():
    """Repair.part_data carries the board size the layout chose (as the whole board's check does),
    not the file's: on the file's smaller size every station past it was off the board in every
    part of the board a move was judged on."""
    data = layout_board_data(12, seed=5)
    res = layout_board(data, seed=0, size=(1189, 841))
    net = build_network(res.data, frozenset())
    given = np.array([[s["board"]["x"], s["board"]["y"]] for s in res.data["stations"]])
    far = int(np.argmax(given[:, 0]))
    given[far] = (1000.0, 700.0)   # inside 1189 x 841 mm, outside the file's 800 x 530
    dr = O.Drawing(given, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool))
    rp = Repair(net, dr, (1189, 841), geometry_problems)
    part = rp.select(given[far][None], 40.0)
    sub = rp.part_data(part)
    assert sub["physical"] == build_result(net, dr, (1189, 841))[0]["physical"]
    assert (sub["physical"]["width_mm"], sub["physical"]["height_mm"]) == (1189, 841)
    assert not [p for p in geometry_problems(sub) if p.code == "off-board"]
    assert not rp.full() or not [p for p in rp.full() if p.code == "off-board"]


def test_a_part_board_is_build_board_of_its_dict():
    """Repair.view builds a part of the board from model objects it made before (PartBoards): the
    Board is build_board(part_data(part)) field for field, and its checks and label room (on one
    Layout) are the dict's, on parts of a synthetic board and of Portland, with stations and bends
    moving in between (the objects of unmoved ones reused, of moved ones made anew)."""
    for data in (layout_board_data(30, seed=3), json.loads((BOARDS / "portland.json").read_text())):
        net = build_network(data, frozenset())
        rng = np.random.default_rng(0)
        pos = np.array([[s["board"]["x"], s["board"]["y"]] if "board" in s else rng.uniform(50, 700, 2)
                        for s in data["stations"]], dtype=float) + rng.normal(0, 8, (net.n, 2))
        # drawn 15 % tighter than shipped, so that some labels lose their room whatever layout the
        # board file ships (the comparison below needs stations without room)
        pos = pos.mean(0) + 0.85 * (pos - pos.mean(0))
        dr = O.Drawing(pos, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool))
        dr.add_waypoint(0, pos[net.bundles[0].a] + 3.3)
        rp = Repair(net, dr, (900, 600), geometry_problems)
        found = lacking = 0
        for t in range(20):
            part = rp.select(dr.pos[rng.integers(net.n)][None], 90.0)
            view, sub = rp.view(part), rp.part_data(part)
            assert view.board is not None and view.board == build_board(sub)
            # (with the end needs the whole board gives the part's routes: a part's station missing
            # some of its routes would place the others' spaces differently, mapkit.geometry.end_needs)
            from mapkit.checks import check_geometry
            from mapkit.geometry import Layout

            assert view.problems() == list(check_geometry(build_board(sub), Layout(build_board(sub), view._needs)))
            assert view.without_room() == _plain_without_room(sub)
            found += len(view.problems())
            lacking += len(view.without_room())
            dr.pos[rng.integers(len(dr.pos))] += rng.normal(0, 6, 2)
        assert found and lacking   # the parts had problems and stations without room to compare
        rp.check = lambda d: geometry_problems(d)   # any other check: the dict, as before
        assert rp.view(part).board is None and rp.view(part).problems() == geometry_problems(rp.part_data(part))


def test_the_repair_on_part_boards_is_the_repair_on_dicts(tangled):
    """The repair with its part boards and prepared shapes (Repair.view, Repair._prepare) makes the
    same moves, tries and findings as with the checks on part_data dicts (any check other than the
    pipeline's takes that path)."""
    net, given = tangled
    rp, dr = _repair(net, given, 300)
    fast = rp.run()
    plain, pdr = _repair(net, given, 300)
    plain.check = lambda data: geometry_problems(data)
    assert plain.run() == fast
    assert plain.tries == rp.tries > 10 and np.array_equal(pdr.pos, dr.pos) and pdr.lines == dr.lines
    assert rp._boards is not None and plain._boards is None


@pytest.mark.parametrize("name", ["synthetic", "portland.json"])
def test_the_whole_board_as_a_part_is_build_board_of_build_result(name):
    """Repair.full checks the whole board as a part (PartBoards, no deep copy of the file): the
    Board equal to build_board of build_result's dict, its problems the dict's, as stations move
    and bends come and go; a network with a bundle keeping the file's waypoints takes the dict."""
    data = layout_board_data(30, seed=3) if name == "synthetic" else json.loads((BOARDS / name).read_text())
    net = build_network(data, frozenset())
    rng = np.random.default_rng(1)
    pos = np.array([[s["board"]["x"], s["board"]["y"]] if "board" in s else rng.uniform(50, 700, 2)
                    for s in data["stations"]], dtype=float) + rng.normal(0, 8, (net.n, 2))
    dr = O.Drawing(pos, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool))
    rp = Repair(net, dr, (1000, 700), geometry_problems)
    whole = rp._whole()
    assert (whole is None) == any(b.fixed_waypoints for b in net.bundles)
    found = 0
    for t in range(6):
        want = geometry_problems(build_result(net, dr, (1000, 700))[0])
        assert rp.full() == want
        if whole is not None:
            assert rp._boards.board(whole) == build_board(build_result(net, dr, (1000, 700))[0])
        found += len(want)
        dr.pos[rng.integers(net.n)] += rng.normal(0, 15, 2)
        if t == 2:
            dr.add_waypoint(1, dr.pos[net.bundles[1].a] + 7.0)
    assert found
