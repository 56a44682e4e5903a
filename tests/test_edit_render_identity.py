"""The editor's speed-ups of the print's drawing give the same drawing as the plain code.

`labels.place` measures the area a candidate box covers only for the labels that find no free
box (the editor needs the print drawing within a second of a drag); `plain_place` below is the
code it replaced, kept here as the yardstick: every cost computed, then the same choices. The
two must agree on every label of the three bundled boards and on a crowded board where labels
fall back to their least-bad box.
"""

import math

import numpy as np
import pytest
import shapely
from shapely import STRtree
from shapely.geometry import Point, box

from mapkit.render import labels


def plain_static_costs(boxes, obstacles, bounds):
    geoms = labels._as_geoms(boxes)
    cost = shapely.area(geoms) - shapely.area(shapely.intersection(geoms, bounds))
    cost[np.abs(cost) < 1e-9] = 0.0
    if obstacles:
        src_i, obs_i = STRtree(obstacles).query(geoms, predicate="intersects")
        areas = shapely.area(shapely.intersection(geoms[src_i], np.asarray(obstacles, dtype=object)[obs_i]))
        np.add.at(cost, src_i, np.maximum(areas, 1e-3))
    return cost


def plain_place(requests, obstacles, bounds, clearance=labels.CLEARANCE_MM):
    """labels.place as it was before the editor's speed-up (every box's cost computed)."""
    all_boxes = [c.box for req in requests for c in req.candidates]
    tight = clearance * labels.TIGHT
    costs = plain_static_costs(all_boxes, [g.buffer(clearance, quad_segs=2) if clearance else g for g in obstacles],
                               bounds)
    tight_costs = plain_static_costs(all_boxes, [g.buffer(tight, quad_segs=2) if tight else g for g in obstacles],
                                     bounds)
    scored, k = [], 0
    for order, req in enumerate(requests):
        n = len(req.candidates)
        hits = list(tight_costs[k:k + n])
        free = [c for c, h in zip(req.candidates, costs[k:k + n]) if h == 0]
        nearly = [c for c, h in zip(req.candidates, hits) if h == 0]
        k += n
        scored.append((len(free) if free else len(nearly) + 1000 if nearly else math.inf, order, req, free, nearly,
                       hits))
    scored.sort(key=lambda t: (t[0], t[1]))
    result = labels.Placement()
    placed_boxes = []
    for _, _, req, free, nearly, hits in scored:
        choice = next((c for c in free if not labels._hits_any(c.box, placed_boxes, clearance)), None)
        if choice is None:
            choice = next((c for c in nearly if not labels._hits_any(c.box, placed_boxes, tight)), None)
        if choice is None:
            choice = labels._least_bad(req, hits, placed_boxes)
            result.unplaced.append(req.key)
        result.placed[req.key] = choice
        placed_boxes.append(choice.box)
    rank = {r.key: i for i, r in enumerate(requests)}
    result.unplaced.sort(key=rank.__getitem__)
    result.placed = dict(sorted(result.placed.items(), key=lambda kv: rank[kv[0]]))
    return result


def scene_place_arguments(name):
    """What build_scene hands to labels.place for a bundled board."""
    from mapkit.geometry import Layout
    from mapkit.render import scene
    from mapkit.resources import boards_dir
    from mapkit.validate import load_valid_board

    board = load_valid_board(boards_dir() / f"{name}.json")
    seen = []
    real = scene.labels.place

    def spy(requests, obstacles, bounds, clearance=labels.CLEARANCE_MM):
        seen.append((requests, obstacles, bounds, clearance))
        return real(requests, obstacles, bounds, clearance)

    scene.labels.place = spy
    try:
        scene.build_scene(board, Layout(board), "00000000")
    finally:
        scene.labels.place = real
    assert len(seen) == 1
    return seen[0]


@pytest.mark.parametrize("name", ["portland", pytest.param("seattle", marks=pytest.mark.slow),
                                  pytest.param("north-america", marks=pytest.mark.slow)])
def test_render_label_placement_is_the_plain_one_on_bundled_boards(name):
    requests, obstacles, bounds, clearance = scene_place_arguments(name)
    fast = labels.place(requests, obstacles, bounds, clearance)
    plain = plain_place(requests, obstacles, bounds, clearance)
    assert len(fast.placed) == len(requests) > 10
    assert fast.placed == plain.placed
    assert fast.unplaced == plain.unplaced


def test_render_label_placement_is_the_plain_one_on_a_crowded_board():
    """Stations packed so close that labels fall back to the tight clearance and to their
    least-bad box: the lazily measured costs must choose as the plain ones do."""
    rng = np.random.default_rng(7)
    xy = rng.uniform(8, 28, size=(12, 2))
    requests = [labels.LabelRequest(f"s{i}", labels.station_candidates(f"Stop {i}", tuple(p), 2.5,
                                                                        hub=i % 7 == 0))
                for i, p in enumerate(xy)]
    obstacles = [Point(p).buffer(2.5, quad_segs=8) for p in xy]
    bounds = box(2, 2, 36, 36)
    fast = labels.place(requests, obstacles, bounds)
    plain = plain_place(requests, obstacles, bounds)
    assert len(plain.unplaced) >= 5  # the case under test: labels with no free box
    assert fast.placed == plain.placed
    assert fast.unplaced == plain.unplaced
