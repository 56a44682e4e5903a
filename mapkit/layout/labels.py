"""Station labels as obstacles of the layout: every station keeps room for its name.

The print places labels last (mapkit.render.labels), so a layout that passes every geometry check
can still leave a station no free spot for its name, and the renderer shrinks it to 7 pt or draws
it over a route. Here a label is the renderer's own candidate boxes for that station (the same
compass positions, line breaks, slides and far rings, measured with the same fonts) at sizes of at
least LABEL_PT: a station has room when one of them stays inside the print's label bounds and
clear of every station marker and space. Other labels are not counted (the print's placement
sorts those out among themselves; the figures measure the result).

`label_repair` runs after the geometry repair on a board with no errors: for each station without room, a
few short moves of that station, each kept only when the checks find nothing more near it and the
stations around it have room for more labels than before. Bounded tries, so a seed gives one result.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import Polygon, box

from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.layout.labelboxes import candidate_boxes
from mapkit.layout.repair import score
from mapkit.render import labels as render_labels
from mapkit.render import shapes

LABEL_PT = 10.0          # the size every station label should find room at (hubs one point more)
LABEL_STEPS_MM = (3.0, 6.0, 10.0)
LABEL_TRIES = 240        # candidate moves judged at most over one label repair
LABEL_REACH_MM = 45.0    # stations this close to a moved one can gain or lose room
FIRST_BOXES = 16         # candidate boxes of each station tested before the rest (without_room)


def label_bounds(ph) -> Polygon:
    """Where the print lets labels go (inside the scoring track), as mapkit.render.scene does."""
    inset = shapes.track_band(ph.margin_mm).inner + 1.0
    return box(inset, inset, ph.width_mm - inset, ph.height_mm - inset)


def without_room(data: dict, only=None, size: float = LABEL_PT) -> list[str]:
    """Ids of the stations (of `only`, or all) with no label candidate of `size` pt or more that is
    clear of markers and spaces and inside the label bounds."""
    board = build_board(data)
    return board_without_room(board, Layout(board), only, size)


def board_without_room(board, layout: Layout, only=None, size: float = LABEL_PT) -> list[str]:
    """without_room of a built board and its Layout (mapkit.layout.repair.Part: the one its checks used)."""
    ph = board.physical
    markers = _markers(list(layout.positions.values()), ph.station_radius_mm)
    if len(layout.routes) == len(layout._shapes):
        # the Layout's own space polygons (its checks made them): shapely.polygons of the same
        # corners, route by route in the same order (a board with a repeated route id has fewer
        # entries in layout.routes: its spaces are made from those, as before)
        spaces = layout.space_polygons
    else:
        corners = [c for shape in layout.routes.values() for c in shape.spaces]
        spaces = shapely.polygons(np.asarray(corners, dtype=float).reshape(-1, 4, 2))   # the same rings, in one call
    tree = STRtree(np.concatenate([np.asarray(markers, dtype=object), spaces]))
    bounds = label_bounds(ph)
    shapely.prepare(bounds)   # the same answers, for hundreds of boxes at a time
    # every candidate box of every station asked about, made and tested in one array call each
    # (one shapely object at a time, this was most of a layout's polish step)
    # (the renderer's boxes, from mapkit.layout.labelboxes: the same numbers without a Candidate each)
    ids, owner, coords = [], [], []
    for s in board.stations:
        if only is not None and s.id not in only:
            continue
        need = size + (1.0 if s.hub else 0.0)
        boxes = _boxes(s.name, layout.positions[s.id], ph.station_radius_mm, s.label, s.hub, need)
        owner.append(np.full(len(boxes), len(ids), dtype=int))
        coords.append(boxes)
        ids.append(s.id)
    if not ids:
        return []
    has_room = np.zeros(len(ids), dtype=bool)
    owner_a = np.concatenate(owner)
    if len(owner_a):
        xy = np.concatenate(coords)
        # a station has room when any one box is free, and most find it among their first few
        # (the renderer's preferred positions): those are tested first, the rest only for the
        # stations still without room (the same answer, a fraction of the tree queries)
        first = np.searchsorted(owner_a, owner_a, side="left")
        rank = np.arange(len(owner_a)) - first
        for stage in (rank < FIRST_BOXES, rank >= FIRST_BOXES):
            pick = stage & ~has_room[owner_a]
            if not pick.any():
                continue
            b, o = xy[pick], owner_a[pick]
            boxes = shapely.box(b[:, 0], b[:, 1], b[:, 2], b[:, 3])
            inside = shapely.contains(bounds, boxes)
            boxes, o = boxes[inside], o[inside]
            hit = tree.query(boxes, predicate="dwithin", distance=render_labels.CLEARANCE_MM)
            free = np.ones(len(boxes), dtype=bool)
            free[hit[0]] = False
            has_room[o[free]] = True
    out = [sid for sid, ok in zip(ids, has_room) if not ok]
    return out


# A station's boxes and marker depend only on what they are made from: the polish asks about the
# same few unmoved stations around each move hundreds of times. Emptied when full (bounded memory).
_BOXES: dict = {}     # candidate_boxes arguments -> its (read-only) array
_MARKERS: dict = {}   # (x, y, radius) -> the marker polygon (quad_segs=8, as the renderer's test uses)
CACHE_SIZE = 20_000


def _boxes(name, xy, radius, preferred, hub, need) -> np.ndarray:
    key = (name, xy, radius, preferred, hub, need)
    out = _BOXES.get(key)
    if out is None:
        out = candidate_boxes(name, xy, radius, preferred, hub, need)
        out.setflags(write=False)
        if len(_BOXES) >= CACHE_SIZE:
            _BOXES.clear()
        _BOXES[key] = out
    return out


def _markers(centres: list, radius: float) -> np.ndarray:
    """shapely.buffer of the points at these centres, quad_segs=8: the ones made before reused
    (GEOS's buffer of the same point is the same polygon)."""
    got = [_MARKERS.get((*c, radius)) for c in centres]
    todo = [n for n, g in enumerate(got) if g is None]
    if todo:
        made = shapely.buffer(shapely.points(np.asarray([centres[n] for n in todo], dtype=float).reshape(-1, 2)),
                              radius, quad_segs=8)
        if len(_MARKERS) >= CACHE_SIZE:
            _MARKERS.clear()
        for n, m in zip(todo, made):
            got[n] = _MARKERS[(*centres[n], radius)] = m
    return np.array(got, dtype=object)


def label_repair(rp, max_tries: int = LABEL_TRIES) -> list[str]:
    """Move stations without label room a little where the checks allow (see the module); `rp` is
    the geometry repair (mapkit.layout.repair.Repair) of a board it left clean. Returns the
    stations still without room."""
    net, dr = rp.net, rp.dr
    data = rp.full_data()
    lacking = without_room(data)
    tries = 0
    for sid in list(lacking):
        s = rp.station_of[sid]
        if not dr.free[s] or tries >= max_tries:
            continue
        moves = [dr.pos[s] + step * d for step in LABEL_STEPS_MM for d in _directions()]
        centres = rp._centres([s])
        part = rp.select(centres, 25.0 + max(LABEL_STEPS_MM))
        near = _near(net, dr, s)
        before = rp.view(part)
        base = len(before.without_room(only=near))
        checks = score(before.problems())
        span = station_span(dr)
        for xy in moves:
            if tries >= max_tries:
                break
            if not rp._inside(xy):
                continue
            tries += 1
            old = dr.pos[s].copy()
            dr.pos[s] = xy
            sub = rp.view(part)
            ok = fill_kept(dr, span) and score(sub.problems()) <= checks and len(sub.without_room(only=near)) < base
            if ok and rp.no_worse():
                break                       # kept
            dr.pos[s] = old
    return without_room(rp.full_data())


def fill_kept(dr, span_before) -> bool:
    """The stations' bounding box still spans what the board asks (dr.fill_box), or no less than it
    did: a local move must not undo the fill the optimization reached."""
    if dr.fill_box is None:
        return True
    st = dr.pos[: dr.n_stations]
    span = st.max(0) - st.min(0)
    return bool((span >= np.minimum(span_before, np.asarray(dr.fill_box, dtype=float)) - 1e-9).all())


def station_span(dr) -> np.ndarray:
    st = dr.pos[: dr.n_stations]
    return st.max(0) - st.min(0)


def _directions():
    return [np.array([np.cos(a), np.sin(a)]) for a in np.arange(8) * np.pi / 4]


def _near(net, dr, s) -> set[str]:
    d = np.linalg.norm(dr.pos[: net.n] - dr.pos[s], axis=1)
    return {net.ids[i] for i in np.nonzero(d < LABEL_REACH_MM)[0]}
