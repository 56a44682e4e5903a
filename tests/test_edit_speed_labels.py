"""The label placement remembered between the editor's drawings is the placement made afresh.

`labels.place` remembers, from its last call, which candidate boxes touch an obstacle
(`labels._Touches`): after a drag only the boxes of the moved station and the boxes near an
obstacle that changed are asked again. Here a sequence of changes (a station moved, an obstacle
gone, one added, a station's candidates replaced) is checked step by step against asking every
box, and a drag on Portland against the placement made with nothing remembered.
"""

import numpy as np
import pytest
from shapely import STRtree
from shapely.geometry import Point, box

from mapkit.render import labels


def plain_touching(geoms, obstacles, clearance):
    """Every box asked against every obstacle grown by clearance."""
    grown = [g.buffer(clearance, quad_segs=2) for g in obstacles]
    out = np.zeros(len(geoms), dtype=bool)
    if grown:
        out[STRtree(grown).query(geoms, predicate="intersects")[0]] = True
    return out


def _station(i, xy):
    return labels.station_candidates(f"Stop {i}", (float(xy[0]), float(xy[1])), 2.5, hub=i % 5 == 0)


def test_touches_remembered_across_changes_are_the_plain_answers():
    rng = np.random.default_rng(11)
    xy = [tuple(p) for p in rng.uniform(10, 90, size=(14, 2))]
    groups = [_station(i, p) for i, p in enumerate(xy)]
    obstacles = [Point(p).buffer(2.5, quad_segs=8) for p in xy] + [box(40, 0, 41, 100)]
    memo = labels._Touches()
    asked = []
    for step in range(12):
        if step:
            i = int(rng.integers(len(xy)))
            what = step % 4
            if what == 0:     # a station dragged: its candidates and its marker change
                xy[i] = (xy[i][0] + float(rng.uniform(-6, 6)), xy[i][1] + float(rng.uniform(-6, 6)))
                groups[i] = _station(i, xy[i])
                obstacles[i] = Point(xy[i]).buffer(2.5, quad_segs=8)
            elif what == 1:   # an obstacle gone (a route deleted)
                obstacles.pop()
            elif what == 2:   # an obstacle added over many boxes
                x = float(rng.uniform(10, 90))
                obstacles.append(box(x, 0, x + 0.8, 100))
            else:             # the same candidates as a new tuple (a renamed station back to its name)
                groups[i] = tuple(groups[i])
        geoms = np.concatenate([labels._geoms_of(g) for g in groups])
        keys = labels._keys(obstacles)
        for clearance in (labels.CLEARANCE_MM, labels.CLEARANCE_MM * labels.TIGHT):
            ask = rng.uniform(size=len(geoms)) < (1.0 if clearance == labels.CLEARANCE_MM else 0.5)
            grown = labels._grown(obstacles, keys, clearance)
            got = memo.touching([(g, len(g)) for g in groups], geoms, keys, grown, clearance, ask)
            want = plain_touching(geoms, obstacles, clearance) & ask
            assert np.array_equal(got, want), f"step {step}: {np.flatnonzero(got != want)[:5]}"
        asked.append(len(geoms))
    assert asked[0] > 5000


@pytest.fixture
def portland_place_arguments(monkeypatch):
    """What build_scene hands to labels.place for Portland, and for Portland with one station moved."""
    import json

    from mapkit.boardfile import build_board, whole_numbers
    from mapkit.geometry import Layout
    from mapkit.render import scene
    from mapkit.resources import boards_dir

    data = json.loads((boards_dir() / "portland.json").read_text(encoding="utf-8"))
    seen = []
    real = labels.place
    monkeypatch.setattr(scene.labels, "place", lambda *a: seen.append(a) or real(*a))
    out = []
    for dx in (0.0, 6.0, -9.0):
        i = next(i for i, s in enumerate(data["stations"]) if s["id"] == "pioneer-square")
        board = build_board(whole_numbers(data), "portland.json")
        layout = Layout(board)
        x, y = layout.positions["pioneer-square"]
        data["stations"][i]["board"] = {"x": round(x + dx, 1), "y": round(y + dx / 2, 1)}
        board = build_board(whole_numbers(data), "portland.json")
        seen.clear()
        scene.build_scene(board, Layout(board), "00000000")
        out.append(seen[0])
    return out


def test_a_drag_places_the_labels_as_a_fresh_placement(portland_place_arguments, monkeypatch):
    calls = []
    pairs = labels._touch_pairs
    monkeypatch.setattr(labels, "_touch_pairs", lambda g, o: calls.append(len(g) * len(o)) or pairs(g, o))
    for args in portland_place_arguments:
        monkeypatch.setattr(labels, "_TOUCHES", labels._Touches())   # nothing remembered
        calls.clear()
        fresh = labels.place(*args)
        asked_fresh = sum(calls)
        labels.place(*portland_place_arguments[0])       # remembered: the board before the drag
        calls.clear()
        kept = labels.place(*args)
        assert kept.placed == fresh.placed and kept.unplaced == fresh.unplaced
        if args is not portland_place_arguments[0]:
            assert sum(calls) < asked_fresh / 4   # most boxes kept their answer


def plain_first_free(boxes, obstacles, bounds, clearance=labels.CLEARANCE_MM):
    """labels.first_free asking every box at once."""
    geoms = labels._as_geoms(boxes)
    free = np.array([bounds.contains(g) for g in geoms], dtype=bool)
    free &= ~plain_touching(geoms, obstacles, clearance) if obstacles else True
    idx = np.flatnonzero(free)
    return tuple(boxes[idx[0]]) if len(idx) else None


@pytest.mark.parametrize("clearance", [labels.CLEARANCE_MM, 0.0])
def test_first_free_asked_a_chunk_at_a_time_is_the_plain_answer(clearance):
    rng = np.random.default_rng(5)
    bounds = box(0, 0, 200, 120)
    obstacles = [Point(p).buffer(rng.uniform(3, 9), quad_segs=8) for p in rng.uniform(0, 200, size=(60, 2))]
    found = set()
    for w, h in ((20, 10), (60, 40), (90, 70), (150, 100), (199.5, 119.5)):
        boxes = labels.scan_boxes(w, h, (0.5, 0.5, 199.5, 119.5), step=3.0)
        frame = box(0, 0, 200, 120).difference(box(30, 30, 170, 90))   # the board's edges taken
        for obs in (obstacles, obstacles[:10], [], obstacles[:5] + [frame]):
            got = labels.first_free(boxes, obs, bounds, clearance)
            assert got == plain_first_free(boxes, obs, bounds, clearance)
            found.add(None if got is None else boxes.index(got) > 64)
    assert found == {None, True, False}   # none free, found in the first chunk, found later
