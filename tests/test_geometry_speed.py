"""mapkit/geometry.py keeps the shapes it built (route lines and spaces, station markers, clipped
centrelines) and reuses them for a route or station that did not move, as the layout's repair and
polish judge board after board that differ in one point. A reused shape must give exactly what the
plain one-shape-at-a-time version (tests/geometry_plain.py) finds from scratch: on a board moved one
station at a time (most shapes reused, some new), after the caches were emptied, and with caches so
small they are emptied in the middle of a Layout."""

import json
import random

import numpy as np
import pytest
import shapely

import mapkit.geometry as fast
from mapkit.boardfile import build_board
from mapkit.checks import check_geometry
import geometry_plain as plain
from test_geometry_fast import bundled, findings, shaken


def walk(data, seed, steps, mm=12.0):
    """The board, then `steps` boards each with one more station (or waypoint) moved: what the repair judges."""
    rng = random.Random(seed)
    cur = json.loads(json.dumps(data))
    yield cur
    for _ in range(steps):
        cur = json.loads(json.dumps(cur))
        movable = [s for s in cur["stations"] if "board" in s]
        s = rng.choice(movable)
        s["board"] = {"x": s["board"]["x"] + rng.uniform(-mm, mm), "y": s["board"]["y"] + rng.uniform(-mm, mm)}
        if rng.random() < 0.3:  # now and then back to where another board had it: an old shape again
            s["board"] = dict(rng.choice(movable)["board"])
        yield cur


def same(board, name):
    want = findings(plain.Layout(board))
    got = findings(fast.Layout(board))
    for key in want:
        assert got[key] == want[key], f"{name}: {key} differs"
    return sum(len(v) for k, v in want.items() if k not in ("positions", "routes"))


CACHES = ("_SHAPES", "_DISCS", "_CLIPPED", "_AREAS", "_MEETS", "_CROSSED")


def clear():
    for name in CACHES:
        getattr(fast, name).clear()


@pytest.mark.parametrize("board_name", ["portland", "seattle"])
def test_reused_shapes_find_what_fresh_ones_do_one_move_at_a_time(board_name):
    clear()
    found = 0
    for k, data in enumerate(walk(shaken(bundled(board_name), 3, 25), seed=5, steps=25)):
        found += same(build_board(data), f"{board_name} step {k}")
    assert fast._SHAPES and fast._CLIPPED and fast._DISCS  # the walk did reuse shapes
    assert found > 50  # the shaken boards had findings to compare


def test_reused_shapes_give_the_same_problems_as_cold_ones(monkeypatch):
    boards = [build_board(d) for d in walk(shaken(bundled("portland"), 11, 40), seed=2, steps=10)]
    clear()
    warm = [list(check_geometry(b)) for b in boards]  # the caches fill along the way
    cold = []
    for b in boards:
        clear()
        cold.append(list(check_geometry(b)))
    assert warm == cold
    monkeypatch.setattr(fast, "Layout", plain.Layout)
    assert warm == [list(check_geometry(b)) for b in boards]
    assert sum(map(len, warm)) > 20


def test_caches_stay_bounded_and_right_when_emptied_mid_layout(monkeypatch):
    monkeypatch.setattr(fast, "CACHE_SIZE", 7)  # fewer than one board's routes: emptied inside one Layout
    monkeypatch.setattr(fast, "PAIR_CACHE_SIZE", 7)
    clear()
    for k, data in enumerate(walk(shaken(bundled("portland"), 4, 30), seed=9, steps=6)):
        same(build_board(data), f"small cache step {k}")
        for cache in (fast._SHAPES, fast._DISCS, fast._CLIPPED, fast._AREAS):
            assert len(cache) <= 7 + len(data["routes"]) + len(data["stations"])
        # the pair caches get one board's pairs at a time at most
        spaces = sum(r["length"] for r in data["routes"]) + len(data["stations"])
        assert len(fast._MEETS) <= 7 + spaces * spaces and len(fast._CROSSED) <= 7 + len(data["routes"]) ** 2
    clear()


def test_an_envelope_query_then_intersects_is_the_predicate_query():
    """Layout's pair tests (_meeting) rest on this: STRtree.query with predicate="intersects" gives
    the pairs of the plain (envelope) query whose shapes intersect, in the same order, so the
    findings and the order of the area sums are unchanged when the test is made (or remembered) apart."""
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(5, 120))
        discs = shapely.buffer(shapely.points(rng.uniform(0, 100, (n, 2))), rng.uniform(1, 8, n), quad_segs=4)
        lines = shapely.linestrings(rng.uniform(0, 100, (n, 3, 2)))
        for shapes in (discs, lines):
            tree = shapely.STRtree(shapes)
            want = tree.query(shapes, predicate="intersects")
            ii, jj = tree.query(shapes)
            fast._MEETS.clear()   # the keys here are only indices
            got = fast._meeting(list(zip(ii.tolist(), jj.tolist())), shapes, ii.tolist(), shapes, jj.tolist())
            assert got == (want[0].tolist(), want[1].tolist())
    fast._MEETS.clear()


@pytest.mark.parametrize("board_name", ["portland", "north-america"])
def test_containment_by_bounds_is_shapelys_contains(board_name):
    """stations_off_board and routes_off_board compare bounds with the inner area's instead of
    calling shapely.contains: the same answer, on boards shaken far over their edges, and for a
    polygon with no area (GEOS decides that one)."""
    clear()
    for seed in (1, 2, 3):
        board = build_board(shaken(bundled(board_name), seed, 60))
        layout = fast.Layout(board)
        discs = layout._discs[1]
        polys = layout.space_polygons
        inner = layout.inner_area()
        assert layout._inside(discs).tolist() == shapely.contains(inner, discs).tolist()
        assert layout._inside(polys).tolist() == shapely.contains(inner, polys).tolist()
        assert not all(shapely.contains(inner, discs).tolist())   # some did go over the edge
    flat = shapely.polygons(np.array([[[100.0, 100.0], [120.0, 100.0], [140.0, 100.0], [100.0, 100.0]]]))
    assert layout._inside(flat).tolist() == shapely.contains(inner, flat).tolist()


@pytest.mark.parametrize("board_name", ["portland", "north-america"])
def test_layouts_made_together_are_what_each_layout_builds(board_name, monkeypatch):
    """geometry.layouts_of builds the route shapes, markers and clipped lines of many boards in
    one call each (the repair's next moves): its Layouts find what the plain one-shape-at-a-time
    version finds on each board, and a Layout made afterwards finds every shape made already."""
    boards = [build_board(d) for d in walk(bundled(board_name), 23, 12, mm=20.0)]
    clear()
    calls = []
    build, clip = fast._build_shapes, fast._clip
    monkeypatch.setattr(fast, "_build_shapes", lambda keys: calls.append("shapes") or build(keys))
    monkeypatch.setattr(fast, "_clip", lambda *a: calls.append("clip") or clip(*a))
    layouts = fast.layouts_of(boards)
    assert calls == ["shapes", "clip"]   # one call each for all the boards
    problems = 0
    for n, (board, layout) in enumerate(zip(boards, layouts)):
        want = findings(plain.Layout(board))
        got = findings(layout)
        for key in want:
            assert got[key] == want[key], f"{board_name} board {n}: {key} differs"
        problems += sum(len(v) for k, v in want.items() if k not in ("positions", "routes"))
        assert findings(fast.Layout(board)) == got
    assert problems > 0 and calls == ["shapes", "clip"]   # the later Layouts built nothing
