"""The label-room test's numpy shortcuts (docs/design/speed.md, "Layout") give
GEOS's answers: mapkit.layout.labelroom.Obstacles.free against contains(bounds, box) and the
STRtree dwithin query it replaces, on random boxes round markers, rotated spaces and drawn lines
(touching, overlapping, at the clearance to the last bit, on the label bounds' edges), and
board_without_room against the plain test on boards whose stations are moved onto each other and
off the board."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import shapely
from shapely import STRtree
from shapely.geometry import box

from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.layout import labelroom as L
from mapkit.layout.labelroom import Obstacles
from mapkit.render import labels as render_labels
from mapkit.resources import boards_dir

C = render_labels.CLEARANCE_MM


def plain_free(b, markers, spaces, lines, bounds):
    """What board_without_room asked of GEOS before: inside the bounds, nothing within C."""
    boxes = shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3])
    shapely.prepare(bounds)
    inside = shapely.contains(bounds, boxes)
    tree = STRtree(np.concatenate([np.asarray(markers, dtype=object), spaces, np.asarray(lines, dtype=object)]))
    idx = np.flatnonzero(inside)
    hit = tree.query(boxes[idx], predicate="dwithin", distance=C)
    free = np.zeros(len(b), dtype=bool)
    ok = np.ones(len(idx), dtype=bool)
    ok[hit[0]] = False
    free[idx] = ok
    return free


def _rects(rng, n, lo=20.0, hi=180.0, degenerate=False):
    """n rotated rectangles (degenerate ones too: segments, points), as board spaces are made: (n, 4, 2) corners."""
    c = rng.uniform(lo, hi, (n, 2))
    a = rng.uniform(0, 2 * np.pi, n)
    if degenerate:
        L_, W = rng.choice([0.0, 1.0, 8.0, 20.0], n), rng.choice([0.0, 3.0, 6.0], n)
    else:
        L_, W = rng.choice([0.5, 8.0, 20.0], n), rng.choice([0.2, 3.0, 6.0], n)
    u = np.stack([np.cos(a), np.sin(a)], 1)
    v = np.stack([-np.sin(a), np.cos(a)], 1)
    out = []
    for k in range(n):
        h, w = u[k] * L_[k] / 2, v[k] * W[k] / 2
        out.append([c[k] - h - w, c[k] + h - w, c[k] + h + w, c[k] - h + w])
    return np.array(out)


def _boxes_near(rng, targets, n):
    """Boxes placed at random and at exactly the clearance (and a hair either side) from targets."""
    out = []
    for _ in range(n):
        x, y = targets[rng.integers(len(targets))]
        w, h = rng.choice([0.5, 4.0, 15.0]), rng.choice([0.5, 3.0, 6.0])
        mode = rng.integers(4)
        if mode == 0:
            x0, y0 = x + rng.uniform(-20, 5), y + rng.uniform(-10, 5)
        elif mode == 1:   # a side at the clearance from the point, to the last bit or a hair off
            d = C + rng.choice([0.0, 1e-12, -1e-12, 1e-7, -1e-7, 1e-5])
            x0, y0 = x + d, y - h / 2
        elif mode == 2:   # a corner diagonally at the clearance
            d = C / math.sqrt(2) + rng.choice([0.0, 1e-9, -1e-9])
            x0, y0 = x + d, y + d
        else:             # touching
            x0, y0 = x, y - rng.uniform(0, h)
        out.append([x0, y0, x0 + w, y0 + h])
    return np.array(out)


@pytest.mark.parametrize("seed", range(12))
def test_free_boxes_match_geos(seed):
    rng = np.random.default_rng(seed)
    radius = float(rng.choice([2.0, 3.5, 5.0]))
    centres = [tuple(p) for p in rng.uniform(10, 190, (rng.integers(1, 12), 2)).tolist()]
    if seed % 3 == 0:
        centres.append(centres[0])                               # two stations on one spot
    if seed % 4 == 1:
        centres.append((-30.0, 250.0))                           # one off the board
    quads = _rects(rng, int(rng.integers(0, 15)), degenerate=seed % 4 == 3)
    spaces = shapely.polygons(quads) if len(quads) else np.zeros(0, dtype=object)
    if seed % 4 != 3 and len(quads):
        assert Obstacles(centres, radius, spaces, []).nq == len(quads)   # (decided in numpy, not left to GEOS)
    lines = []
    if seed % 2:
        pts = rng.uniform(20, 180, (3, 2))
        lines.append(shapely.LineString(pts).buffer(0.7, quad_segs=2))
    markers = L._markers(centres, radius)
    targets = np.concatenate([np.asarray(centres), np.asarray(centres) + [radius, 0], np.asarray(centres) + [0, -radius]]
                             + ([quads.reshape(-1, 2)] if len(quads) else []))
    b = np.concatenate([_boxes_near(rng, targets, 600), np.tile(rng.uniform(0, 200, (100, 2)), 2) + [0, 0, 5, 3]])
    b = b[np.argsort(rng.integers(0, 7, len(b)), kind="stable")]
    o = np.sort(rng.integers(0, 7, len(b)))
    bounds = box(5.0, 5.0, 195.0, 195.0)
    # boxes on the bounds' edges, in and out by a hair
    edge = np.array([[5.0, 50, 10, 55], [5.0 - 1e-12, 50, 10, 55], [190, 190, 195.0, 195.0], [190, 190, 195.0 + 1e-12, 195]])
    b = np.concatenate([b, edge])
    o = np.concatenate([o, np.full(len(edge), o[-1] + 1)])
    got = Obstacles(centres, radius, spaces, lines).free(b, o, bounds)
    want = plain_free(b, markers, spaces, lines, bounds)
    assert (got == want).all(), np.flatnonzero(got != want)
    assert want.any() and not want.all()


def test_free_boxes_nonconvex_spaces_asked_of_geos():
    """A space that is not a convex quadrilateral (a bow tie, a pentagon) is left to GEOS."""
    rng = np.random.default_rng(5)
    bow = shapely.Polygon([(50, 50), (70, 60), (70, 50), (50, 60)])
    pent = shapely.Polygon([(100, 100), (110, 100), (115, 108), (105, 115), (98, 108)])
    for spaces in (np.array([bow], dtype=object), np.array([pent, bow], dtype=object)):
        b = _boxes_near(rng, [(50, 50), (70, 60), (60, 55), (105, 115), (98, 108)], 500)
        o = np.zeros(len(b), dtype=int)
        bounds = box(0, 0, 200, 200)
        got = Obstacles([(20.0, 20.0)], 3.0, spaces, []).free(b, o, bounds)
        assert (got == plain_free(b, L._markers([(20.0, 20.0)], 3.0), spaces, [], bounds)).all()


def _plain_without_room(board, layout, only=None, size=L.LABEL_PT):
    """board_without_room as it was (every box asked of GEOS)."""
    ph = board.physical
    centres = list(layout.positions.values())
    markers = L._markers(centres, ph.station_radius_mm)
    spaces = layout.space_polygons
    lines = L._drawn_lines(board, layout)
    bounds = L.label_bounds(ph)
    out = []
    for s in board.stations:
        if only is not None and s.id not in only:
            continue
        need = size + (1.0 if s.hub else 0.0)
        b = L._boxes(s.name, layout.positions[s.id], ph.station_radius_mm, s.label, s.hub, need)
        if not plain_free(b, markers, spaces, lines, bounds).any():
            out.append(s.id)
    return out


@pytest.mark.parametrize("name", ["portland", "seattle"])
def test_board_without_room_matches_plain(name):
    data = json.loads((boards_dir() / f"{name}.json").read_text())
    # a few routes drawn with a line beside their spaces (ferries, an aerial tram): obstacles too
    for r in data["routes"][::9]:
        r["kind"] = "ferry"
    data["routes"][4]["kind"] = "aerial-tram"
    rng = np.random.default_rng(len(name))
    st = data["stations"]
    for step in range(7):
        board = build_board(data)
        layout = Layout(board)
        for size in (7.0, 8.0, 10.0):
            only = None if step % 2 else {s["id"] for s in st[::3]}
            assert L.board_without_room(board, layout, only, size) == _plain_without_room(board, layout, only, size)
        # move stations onto each other, off the board, next to each other
        a, b = rng.choice(len(st), 2, replace=False)
        pa, pb = st[a]["board"], st[b]["board"]
        if step % 3 == 0:
            pa["x"], pa["y"] = pb["x"], pb["y"]
        elif step % 3 == 1:
            pa["x"] = -40.0
        else:
            pa["x"], pa["y"] = pb["x"] + 9.0, pb["y"] + 1e-9


@pytest.mark.parametrize("hub", [False, True])
def test_smaller_size_boxes_begin_with_the_larger(hub):
    """board_without_room(..., after=): a station's boxes at a smaller size begin with its boxes at
    the larger one, bit for bit (what lets room_counts skip them)."""
    from mapkit.layout.labelboxes import candidate_boxes

    rng = np.random.default_rng(int(hub))
    for name in ("A", "Station 12", "Saint-Jean-sur-Richelieu Nord", "Long Name With Many Words Here"):
        for _ in range(5):
            xy = tuple(rng.uniform(-50, 900, 2).tolist())
            r = float(rng.choice([2.5, 3.5]))
            pref = rng.choice([None, "n", "sw", "e"])
            sizes = [7.0, 8.0, 9.0, 10.0, 11.0] if not hub else [8.0, 9.0, 11.0]
            for small, large in zip(sizes, sizes[1:]):
                a = candidate_boxes(name, xy, r, pref, hub, small)
                b = candidate_boxes(name, xy, r, pref, hub, large)
                assert len(a) >= len(b)
                assert a[:len(b)].tobytes() == b.tobytes()


def test_room_counts_skip_matches_plain():
    """room_counts (its smaller sizes asked without the boxes of the larger, the obstacles made
    once a Layout) against the plain test at every size, on a part as the layout asks it."""
    data = json.loads((boards_dir() / "seattle.json").read_text())
    for r in data["routes"][::7]:
        r["kind"] = "ferry"
    rng = np.random.default_rng(3)
    st = data["stations"]
    for s in st:   # crowded: a few labels without room at each size
        s["board"] = {"x": 300 + 0.55 * (s["board"]["x"] - 300), "y": 200 + 0.55 * (s["board"]["y"] - 200)}
    seen = set()
    for step in range(5):
        board = build_board(data)
        layout = Layout(board)

        class Part:   # what room_counts asks of a mapkit.layout.repair.Part
            pass
        part = Part()
        part.board, part.data = board, None
        part.layout = lambda: layout
        only = {s["id"] for s in st[step % 2::2]}
        got = L.room_counts(part, only)
        want = tuple(len(_plain_without_room(board, layout, only, pt)) for pt in L.ROOM_SIZES)
        assert got == want
        seen.update(n for n, v in enumerate(want) if v)
        for k in rng.choice(len(st), 4, replace=False):
            b = st[(k + 1) % len(st)]["board"]
            st[k]["board"] = {"x": b["x"] + float(rng.uniform(-12, 12)), "y": b["y"] + float(rng.uniform(-8, 8))}
    assert seen == {0, 1, 2}   # stations without room at every size (the skipped boxes asked of)


def test_candidate_boxes_the_renderers_bit_for_bit():
    """labelboxes.candidate_boxes (both coordinates in one array expression, the slides from masks)
    against the renderer's own candidates, bytes compared, at many points (on the axes, negative)."""
    from mapkit.layout.labelboxes import candidate_boxes

    rng = np.random.default_rng(61)
    for k in range(300):
        name = ["A", "Station 12", "Portland International Airport", "Gresham-Ruby Junction / East"][k % 4]
        xy = (float(rng.uniform(-300, 1500)), float(rng.uniform(-300, 1100))) if k % 5 else (0.0, -0.0)
        radius = float(rng.choice([2.5, 3.5, 7.0]))
        preferred, hub = [None, "n", "sw", "e", "nw", "s"][k % 6], k % 3 == 0
        need = float(rng.choice([7.0, 8.0, 10.0, 11.0, 12.5]))
        want = np.array([c.box for c in render_labels.station_candidates(name, xy, radius, preferred, hub)
                         if c.size >= need], dtype=float).reshape(-1, 4)
        got = candidate_boxes(name, xy, radius, preferred, hub, need)
        assert got.shape == want.shape and got.tobytes() == want.tobytes()


def test_remembered_room_follows_moves():
    """board_without_room's remembered answers (labels._ROOM: a station's boxes, the label bounds
    and the markers and spaces near them) against the test without them, as stations move onto
    and next to each other and back, at each size, with and without skipped boxes; and they are used."""
    data = json.loads((boards_dir() / "portland.json").read_text())
    st = data["stations"]
    for s in st:   # crowded: stations without room at each size
        s["board"] = {"x": 300 + 0.6 * (s["board"]["x"] - 300), "y": 200 + 0.6 * (s["board"]["y"] - 200)}
    rng = np.random.default_rng(8)
    L._ROOM.clear()
    home = [dict(s["board"]) for s in st]
    used = 0
    for step in range(12):
        board = build_board(data)
        layout = Layout(board)
        for size, after in ((10.0, None), (8.0, 10.0), (7.0, 8.0)):
            only = None
            if after is not None:   # (room_counts asks a smaller size of the stations without room at the larger)
                only = set(L.board_without_room(board, layout, None, after))
            before = len(L._ROOM)
            want = L.board_without_room(board, Layout(board), only, size, after, memo=False)
            got = L.board_without_room(board, layout, only, size, after)
            used += len(L._ROOM) == before
            assert got == want == _plain_without_room(board, layout, only, size)
        k = int(rng.integers(len(st)))
        if step % 3 == 0:
            st[k]["board"] = dict(st[(k + 1) % len(st)]["board"])            # onto another
        elif step % 3 == 1:
            b = st[(k + 2) % len(st)]["board"]
            st[k]["board"] = {"x": b["x"] + 8.5, "y": b["y"] - 2.0}          # next to another
        else:
            for s, h in zip(st, home):                                        # all back
                s["board"] = dict(h)
    assert used   # answers remembered were given again


@pytest.mark.parametrize("seed", range(6))
def test_near_key_decides_the_answer(seed):
    """Obstacles.near (what board_without_room remembers a station's answer under): two obstacle
    sets with the same key for an envelope give the same answers for boxes in it; moving one
    marker or replacing one space (a new number) near the boxes changes the key."""
    rng = np.random.default_rng(100 + seed)
    radius = 3.5
    centres = [tuple(p) for p in rng.uniform(40, 160, (8, 2)).tolist()]
    quads = _rects(rng, 12, 40, 160)
    serials = list(range(1000 * seed, 1000 * seed + len(quads)))
    bounds = box(5.0, 5.0, 195.0, 195.0)
    changed = keyed = 0
    for trial in range(60):
        x, y = rng.uniform(60, 140, 2)
        b = np.tile([x, y], 2) + np.column_stack([rng.uniform(-12, 0, 40), rng.uniform(-6, 0, 40),
                                                  rng.uniform(0, 12, 40), rng.uniform(0, 6, 40)])
        env = (float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max()))
        o = np.zeros(len(b), dtype=int)
        one = Obstacles(centres, radius, shapely.polygons(quads), [], serials)
        k1, f1 = one.near(env), one.free(b, o, bounds)
        c2, q2, s2 = list(centres), quads.copy(), list(serials)
        if trial % 2:
            n = int(rng.integers(len(c2)))
            c2[n] = (x + float(rng.uniform(-8, 8)), y + float(rng.uniform(-5, 5)))     # a marker moved in
        else:
            n = int(rng.integers(len(q2)))
            q2[n] = _rects(rng, 1, x - 10, x + 10)[0]                                  # a space replaced
            s2[n] = 10 ** 6 + trial
        two = Obstacles(c2, radius, shapely.polygons(q2), [], s2)
        k2, f2 = two.near(env), two.free(b, o, bounds)
        keyed += k1 is not None
        if k1 is not None and k1 == k2:   # (None: not remembered)
            assert (f1 == f2).all()
        elif (f1 != f2).any():
            changed += 1
        centres, quads, serials = c2, q2, s2
    assert changed and keyed > 40
