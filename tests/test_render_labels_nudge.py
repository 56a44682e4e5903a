"""A label none of whose candidate boxes is free is nudged: its boxes moved by up to
labels.NUDGE_MM either way, and the first clear one taken, before it falls back to its least-bad
box over something (then reported unplaced). Seattle's SeaTac/Airport missed every spot by
0.45 mm² of a space; a millimetre lower was clear."""

import numpy as np
import pytest
from shapely.geometry import Point, box

from mapkit.render import labels


def crowded():
    rng = np.random.default_rng(7)
    xy = rng.uniform(8, 28, size=(12, 2))
    requests = [labels.LabelRequest(f"s{i}", labels.station_candidates(f"Stop {i}", tuple(p), 2.5, hub=i % 7 == 0))
                for i, p in enumerate(xy)]
    return requests, [Point(p).buffer(2.5, quad_segs=8) for p in xy], box(2, 2, 36, 36)


def test_labels_with_no_free_box_are_nudged_clear(monkeypatch):
    requests, obstacles, bounds = crowded()
    nudged, reach = labels.place(requests, obstacles, bounds), labels.NUDGE_MM
    monkeypatch.setattr(labels, "NUDGE_MM", 0.0)
    before = labels.place(requests, obstacles, bounds)
    assert len(before.unplaced) >= 5
    assert len(nudged.unplaced) < len(before.unplaced)
    moved = [k for k, c in nudged.placed.items() if c.position.endswith("^")]
    # (a nudged label placed before another may take that one's box: the other is then nudged too)
    assert moved and set(moved) & set(before.unplaced)
    # an independent check of each box (labels.collisions) on the labels drawn clear: the ones still
    # unplaced are drawn at their least-bad box, over whatever is there, and are left out
    clear = labels.Placement({k: c for k, c in nudged.placed.items() if k not in nudged.unplaced})
    bad = set(labels.collisions(clear, obstacles, bounds))
    by_key = {r.key: r for r in requests}
    for k in moved:
        c = nudged.placed[k]
        assert k not in bad and k not in nudged.unplaced
        # within NUDGE_MM each way of one of its own candidates of the same size and lines
        assert any(o.size == c.size and o.lines == c.lines
                   and all(abs(a - b) <= reach + 1e-9 for a, b in zip(o.box, c.box))
                   and np.allclose(np.subtract(c.box[2:], c.box[:2]), np.subtract(o.box[2:], o.box[:2]))
                   for o in by_key[k].candidates)
    assert bad == set()


def test_a_sliver_is_nudged_off():
    """A label whose every spot touches an obstacle by a sliver: the wall covers 0.2 mm of each
    box's right edge; 1 mm left is clear."""
    c1 = labels.Candidate("e", ("A",), 10.0, False, (15, 15), (10, 10, 20.2, 20))
    wall = box(20, 0, 40, 40)
    got = labels.place([labels.LabelRequest("a", (c1,))], [wall], box(0, 0, 40, 40))
    assert got.unplaced == []
    b = got.placed["a"].box
    assert b[2] <= 20 - labels.CLEARANCE_MM + 1e-9 and b[0] >= 10 - labels.NUDGE_MM
    assert got.placed["a"].position == "e^"


def test_no_room_within_the_nudge_is_still_unplaced():
    c1 = labels.Candidate("e", ("A",), 10.0, False, (15, 15), (10, 10, 20, 20))
    block = box(5, 5, 25, 25)   # covers the box and every nudge of it
    got = labels.place([labels.LabelRequest("a", (c1,))], [block], box(0, 0, 40, 40))
    assert got.unplaced == ["a"] and got.placed["a"] == c1


@pytest.mark.parametrize("name", ["portland", "north-america"])
def test_the_bundled_boards_place_every_label_clear(name):
    """Every label of the bundled boards has a box clear of everything, as placed or nudged (the
    lines drawn across wide route-end gaps take some of the room round their stations)."""
    from test_edit_render_identity import scene_place_arguments

    requests, obstacles, bounds, clearance = scene_place_arguments(name)
    got = labels.place(requests, obstacles, bounds, clearance)
    assert got.unplaced == []
    assert labels.collisions(got, obstacles, bounds) == []
