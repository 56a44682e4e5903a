"""The editor's speed-ups of the print's drawing give the same drawing as the plain code.

`labels.place` measures the area a candidate box covers only for the labels that find no free
box (the editor needs the print drawing within a second of a drag); `plain_place` below is the
code it replaced, kept here as the yardstick: every cost computed, then the same choices. The
two must agree on every label of the three bundled boards, on a crowded board where labels fall
back to their least-bad box, and on hand-made cases at the edges of the rules; the lazily
measured costs must equal the plain ones. (Checked by breaking the fast code three ways: the
tight-clearance fallback, the 1e-3 a touch, the boxes asked at the tight clearance; each failed.)
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
        if choice is None:   # (the nudge is the same code: what is compared here is the costs)
            grown = {g: [o.buffer(g, quad_segs=2) if g else o for o in obstacles] for g in (clearance, tight)}
            choice = labels._nudged(req, grown, bounds, placed_boxes)
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


def test_render_label_placement_is_the_plain_one_on_a_crowded_board(monkeypatch):
    """Stations packed so close that labels fall back to the tight clearance and to their
    least-bad box: the lazily measured costs must choose as the plain ones do. (Without the
    nudge, which would find a spot for three of them: tests/test_render_labels_nudge.py.)"""
    monkeypatch.setattr(labels, "NUDGE_MM", 0.0)
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


def _cand(name, b):
    return labels.Candidate(name, (name,), 10.0, False, ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2), b)


def test_render_label_placement_is_the_plain_one_at_the_edges_of_its_rules(monkeypatch):
    """Hand-made cases for the two fallbacks, which a random board rarely reaches exactly: a
    label whose only box is free at the tight clearance, and a least-bad choice between a box
    touching an obstacle along an edge (area 0, counted as 1e-3) and one covering less than 1e-3."""
    wall = box(30, 0, 40, 100)
    tight_only = labels.LabelRequest("a", (_cand("a1", (10, 10, 29.8, 20)),     # 0.2 mm from the wall
                                           _cand("a2", (35, 10, 45, 20))))      # over it
    bounds = box(0, 0, 100, 100)
    fast, plain = labels.place([tight_only], [wall], bounds), plain_place([tight_only], [wall], bounds)
    assert plain.placed["a"].position == "a1" and plain.unplaced == []
    assert fast.placed == plain.placed and fast.unplaced == plain.unplaced
    monkeypatch.setattr(labels, "NUDGE_MM", 0.0)   # the least-bad choice itself: no nudged box first
    block = box(50, 50, 60, 60)
    least_bad = labels.LabelRequest("c", (_cand("c1", (59.99995, 50, 70, 60)),  # covers 0.0005 mm²
                                          _cand("c2", (60, 50, 70, 60))))        # touches an edge
    fast, plain = labels.place([least_bad], [block], bounds, clearance=0), plain_place([least_bad], [block], bounds,
                                                                                      clearance=0)
    assert plain.placed["c"].position == "c1" and plain.unplaced == ["c"]  # both count 1e-3: the first wins
    assert fast.placed == plain.placed and fast.unplaced == plain.unplaced


def test_render_lazy_costs_are_the_plain_costs():
    """The covered areas the fast placement measures on demand are the plain costs, value for value."""
    rng = np.random.default_rng(3)
    xy = rng.uniform(8, 28, size=(10, 2))
    requests = [labels.LabelRequest(f"s{i}", labels.station_candidates(f"Stop {i}", tuple(p), 2.5))
                for i, p in enumerate(xy)]
    obstacles = [Point(p).buffer(2.5, quad_segs=8) for p in xy] + [box(20, 20, 20.5, 40)]
    bounds = box(2, 2, 36, 36)
    boxes = [c.box for r in requests for c in r.candidates]
    tight = labels.CLEARANCE_MM * labels.TIGHT
    plain = plain_static_costs(boxes, [g.buffer(tight, quad_segs=2) for g in obstacles], bounds)
    geoms = labels._as_geoms(boxes)
    outside = labels._outside_costs(geoms, bounds)
    lazy = labels._LazyCosts(geoms, outside, labels._buffered(obstacles, tight), np.ones(len(boxes), dtype=bool))
    assert np.array_equal(lazy.free, plain == 0)
    k = 0
    for r in requests:
        n = len(r.candidates)
        assert np.array_equal(lazy.of(k, k + n), plain[k:k + n])
        k += n


def test_render_scene_kept_between_drawings_is_the_scene_drawn_afresh():
    """The route items, candidate boxes and station candidates kept from one drawing to the next
    (`mapkit edit` draws again after every drag) give the scene a fresh process would draw."""
    import json
    from pathlib import Path

    from mapkit.boardfile import build_board, whole_numbers
    from mapkit.edit import svg as edit_svg
    from mapkit.geometry import Layout
    from mapkit.render import scene

    data = json.loads((Path(__file__).parent / "fixtures" / "tiny.json").read_text())
    board = build_board(whole_numbers(data), "tiny")
    scene.build_scene(board, Layout(board), "00000000")  # warms what is kept
    data["stations"][0]["board"] = {"x": data["stations"][0]["board"]["x"] + 7, "y": data["stations"][0]["board"]["y"] + 3}
    moved = build_board(whole_numbers(data), "tiny")
    warm = scene.build_scene(moved, Layout(moved), "00000000")
    warm_svg = edit_svg.print_svg(moved, "00000000")
    scene._ROUTE_MEMO.clear()
    labels._GEOMS.clear()
    labels._station_candidates.cache_clear()
    edit_svg._ELEMENTS.clear()
    cold = scene.build_scene(moved, Layout(moved), "00000000")
    assert warm.items == cold.items and warm.placement == cold.placement
    assert warm_svg == edit_svg.print_svg(moved, "00000000")
