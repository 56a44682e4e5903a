"""Station labels as obstacles of the layout: every station keeps room for its name.

The print places labels last (mapkit.render.labels), so a layout that passes every geometry check
can still leave a station no free spot for its name, and the renderer shrinks it to 7 pt or draws
it over a route. Here a label is the renderer's own candidate boxes for that station (the same
compass positions, line breaks, slides and far rings, measured with the same fonts) at sizes of at
least LABEL_PT: a station has room when one of them stays inside the print's label bounds and
clear of every station marker, space and drawn line (the renderer's ferry waves and aerial-tram
lines, _drawn_lines). Other labels are not counted (the print's placement sorts those out among
themselves; the figures measure the result).

`label_repair` runs after the geometry repair on a board with no errors: for each station without room, a
few short moves of that station, each kept only when the checks find nothing more near it and the
stations around it have room for more labels than before; then, for the labels still without room
at 8 pt, slides of one side of the board away from the station (slide_repair, below), each pass
followed by the tightening once more. With --refine (sides=False) no slides: the same short moves
of the bends beside the station instead. Bounded tries, so a seed gives one result.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon, box

from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.layout.labelboxes import candidate_boxes
from mapkit.layout.labelroom import Obstacles
from mapkit.layout.repair import score
from mapkit.render import scene
from mapkit.render import shapes

LABEL_PT = 10.0          # the size every station label should find room at (hubs one point more)
LABEL_STEPS_MM = (3.0, 6.0, 10.0)
LABEL_TRIES = 240        # candidate moves judged at most over one label repair
LABEL_REACH_MM = 45.0    # stations this close to a moved one can gain or lose room
FIRST_BOXES = 16         # candidate boxes of each station tested before the rest (without_room)


def label_bounds(ph) -> Polygon:
    """Where the print lets labels go (inside the scoring track), as mapkit.render.scene does.
    Made once a board size and margin (the tightening and the polish ask it for every part judged)."""
    key = (ph.margin_mm, ph.width_mm, ph.height_mm)
    got = _BOUNDS.get(key)
    if got is None:
        inset = shapes.track_band(ph.margin_mm).inner + 1.0
        if len(_BOUNDS) >= 64:
            _BOUNDS.clear()
        got = _BOUNDS[key] = box(inset, inset, ph.width_mm - inset, ph.height_mm - inset)
    return got


_BOUNDS: dict = {}   # (margin, width, height) -> label_bounds (a shapely polygon: immutable)


def without_room(data: dict, only=None, size: float = LABEL_PT) -> list[str]:
    """Ids of the stations (of `only`, or all) with no label candidate of `size` pt or more that is
    clear of markers and spaces and inside the label bounds."""
    board = build_board(data)
    return board_without_room(board, Layout(board), only, size)


def board_without_room(board, layout: Layout, only=None, size: float = LABEL_PT, after: float | None = None) -> list[str]:
    """without_room of a built board and its Layout (mapkit.layout.repair.Part: the one its checks used).
    after: a larger size at which every station asked about was found without room on this very
    board and Layout (room_counts): the boxes of that size, the first of this size's, are not asked again."""
    ph = board.physical
    obstacles = _obstacles(board, layout)
    bounds = label_bounds(ph)
    where = (bounds.bounds, ph.station_radius_mm)
    # every candidate box of every station asked about, made and tested in one array call each
    # (one shapely object at a time, this was most of a layout's polish step)
    # (the renderer's boxes, from mapkit.layout.labelboxes: the same numbers without a Candidate each)
    # A station's answer is remembered (_ROOM) under everything it depends on: its boxes (their
    # arguments, and how many are skipped), the label bounds, and the obstacles that come within
    # the clearance of the envelope of all its boxes (markers by centre, spaces by their numbers;
    # a station with a drawn line there is not remembered): the polish and the tightening ask
    # the same unmoved stations round a move again and again.
    ids, owner, coords, known, keys = [], [], [], [], []
    for s in board.stations:
        if only is not None and s.id not in only:
            continue
        need = size + (1.0 if s.hub else 0.0)
        xy = layout.positions[s.id]
        boxes, env = _boxes_env(s.name, xy, ph.station_radius_mm, s.label, s.hub, need)
        skip = 0
        if after is not None:
            # a station's boxes at a smaller size begin with those of the larger one (labelboxes:
            # the sizes largest first, the same numbers), all of them blocked there
            skip = len(_boxes(s.name, xy, ph.station_radius_mm, s.label, s.hub, after + (1.0 if s.hub else 0.0)))
            boxes = boxes[skip:]
        near = obstacles.near(env) if ROOM_MEMO else None
        key = None if near is None else ((s.name, xy, s.label, s.hub, need), skip, where, near)
        got = None if key is None else _ROOM.get(key)
        known.append(got)
        keys.append(key)
        if got is None:
            owner.append(np.full(len(boxes), len(ids), dtype=int))
            coords.append(boxes)
        ids.append(s.id)
    if not ids:
        return []
    has_room = np.array([bool(v) for v in known], dtype=bool)
    owner_a = np.concatenate(owner) if owner else np.zeros(0, dtype=int)
    if len(owner_a):
        xy = np.concatenate(coords)
        # a station has room when any one box is free, and most find it among their first few
        # (the renderer's preferred positions): those are tested first, the rest only for the
        # stations still without room (the same answer, a fraction of the tests)
        first = np.searchsorted(owner_a, owner_a, side="left")
        rank = np.arange(len(owner_a)) - first
        for stage in (rank < FIRST_BOXES, rank >= FIRST_BOXES):
            pick = stage & ~has_room[owner_a]
            if not pick.any():
                continue
            b, o = xy[pick], owner_a[pick]
            free = obstacles.free(b, o, bounds)
            has_room[o[free]] = True
    if len(_ROOM) >= CACHE_SIZE:
        _ROOM.clear()
    for n, (got, key) in enumerate(zip(known, keys)):
        if got is None and key is not None:
            _ROOM[key] = bool(has_room[n])
    out = [sid for sid, ok in zip(ids, has_room) if not ok]
    return out


def _obstacles(board, layout) -> Obstacles:
    """The markers, spaces and drawn lines labels must keep clear of (labelroom.Obstacles), made
    once a Layout (room_counts asks its board at up to three sizes)."""
    got = layout.__dict__.get("_label_obstacles")
    if got is not None and got[0] is board and got[1] == DRAWN_LINES:
        return got[2]
    ph = board.physical
    centres = list(layout.positions.values())
    if len(layout.routes) == len(layout._shapes):
        # the Layout's own space polygons (its checks made them): shapely.polygons of the same
        # corners, route by route in the same order (a board with a repeated route id has fewer
        # entries in layout.routes: its spaces are made from those, as before)
        spaces = layout.space_polygons
    else:
        corners = [c for shape in layout.routes.values() for c in shape.spaces]
        spaces = shapely.polygons(np.asarray(corners, dtype=float).reshape(-1, 4, 2))   # the same rings, in one call
    lines = _drawn_lines(board, layout) if DRAWN_LINES else []
    serials = layout._space_serials if len(layout.routes) == len(layout._shapes) else None
    out = Obstacles(centres, ph.station_radius_mm, spaces, lines, serials)
    layout.__dict__["_label_obstacles"] = (board, DRAWN_LINES, out)
    return out


DRAWN_LINES = True   # the lines the renderer draws for ferries and aerial trams count as obstacles too


def _drawn_lines(board, layout) -> list:
    """The outlines of the lines the renderer draws beside the spaces of ferry and water-taxi routes
    (a wave) and aerial trams (its cable): mapkit.render.scene.guide_line and line_outline, as
    scene.build_scene counts them for its labels. A label over one has no room in the print.
    Flights are left out: the renderer draws their line along a path of its own."""
    ph = board.physical
    out = []
    kinds = {r.id: r.kind for r in board.routes}
    for rid, shape in layout.routes.items():
        kind = kinds.get(rid)
        if kind not in scene.GUIDE_KINDS:
            continue
        key = (kind, tuple(shape.centerline), ph.station_radius_mm)
        got = _LINES.get(key)
        if got is None:
            guide = scene.guide_line(ph, kind, shape.centerline)
            got = scene.line_outline(guide[0], guide[2])
            if len(_LINES) >= CACHE_SIZE:
                _LINES.clear()
            _LINES[key] = got
        out.append(got)
    return out


_LINES: dict = {}     # (kind, centreline, radius) -> the drawn line's outline


# A station's boxes and marker depend only on what they are made from: the polish asks about the
# same few unmoved stations around each move hundreds of times. Emptied when full (bounded memory).
_BOXES: dict = {}     # candidate_boxes arguments -> its (read-only) array
_MARKERS: dict = {}   # (x, y, radius) -> the marker polygon (quad_segs=8, as the renderer's test uses)
CACHE_SIZE = 20_000


ROOM_MEMO = True      # remember each station's answer under what it depends on (board_without_room)
_ROOM: dict = {}      # (boxes' arguments, boxes skipped, (label bounds, radius), obstacles near) -> has room
_ENVS: dict = {}      # candidate_boxes arguments -> the envelope of all the boxes


def _boxes_env(name, xy, radius, preferred, hub, need) -> tuple[np.ndarray, tuple]:
    """_boxes and the envelope (x0, y0, x1, y1) of all of them."""
    out = _boxes(name, xy, radius, preferred, hub, need)
    key = (name, xy, radius, preferred, hub, need)
    env = _ENVS.get(key)
    if env is None:
        env = (float(out[:, 0].min()), float(out[:, 1].min()), float(out[:, 2].max()), float(out[:, 3].max())) if len(out) else None
        if len(_ENVS) >= CACHE_SIZE:
            _ENVS.clear()
        _ENVS[key] = env
    return out, env


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


def label_repair(rp, max_tries: int = LABEL_TRIES, retighten: tuple | None = None, sides: bool = True) -> list[str]:
    """Move stations without label room a little where the checks allow (see the module); `rp` is
    the geometry repair (mapkit.layout.repair.Repair) of a board it left clean. sides=False
    (--refine, where the stations are the designer's): no slides, which move one side of the
    board; instead a station whose own moves give it no room (or that is pinned) gets the same
    moves of the bends beside it (bends_beside). Returns the stations still without room."""
    dr = rp.dr
    lacking = without_room(rp.full_data())
    tries = 0
    for sid in list(lacking):
        s = rp.station_of[sid]
        points = ([s] if dr.free[s] else []) + ([] if sides else bends_beside(dr, s))
        for i in points:
            if tries >= max_tries:
                break
            kept, tries = move_for_room(rp, s, i, tries, max_tries)
            if kept:
                break
    if SLIDES and sides:
        # each pass ends with the tightening, which draws in what the slides spread: a label still
        # without room may find a slide the next pass that the last one's spread left it none
        for _ in range(SLIDE_PASSES):
            if not slide_repair(rp, retighten=retighten) or not room_key(rp)[ROOM_SIZES.index(SLIDE_PT)]:
                break
    return without_room(rp.full_data())


def move_for_room(rp, s: int, i: int, tries: int, max_tries: int) -> tuple[bool, int]:
    """Point i (station s itself, or a bend beside it) moved LABEL_STEPS_MM in eight directions, the
    first move kept that leaves the stations near s fewer labels without room, the checks on the
    part of the board round them no worse and the whole board's no worse than the repair left, and
    the stations' fill. (kept, tries counted so far)."""
    net, dr = rp.net, rp.dr
    moves = [dr.pos[i] + step * d for step in LABEL_STEPS_MM for d in _directions()]
    part = rp.select(rp._centres([s] if i == s else [s, i]), 25.0 + max(LABEL_STEPS_MM))
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
        old = dr.pos[i].copy()
        dr.pos[i] = xy
        sub = rp.view(part)
        # (the checks asked only until they find more than before: Part.score_until)
        ok = fill_kept(dr, span) and sub.score_until(lambda sc: sc > checks) is not None \
            and len(sub.without_room(only=near)) < base
        if ok and rp.no_worse():
            return True, tries
        dr.pos[i] = old
    return False, tries


def bends_beside(dr, s: int) -> list[int]:
    """The free bends next to station s on its routes (each route's first waypoint from s), in
    the order of the routes."""
    out = []
    for line in dr.lines:
        nxt = line[1] if line[0] == s else line[-2] if line[-1] == s else None
        if nxt is not None and nxt >= dr.n_stations and dr.free[nxt] and nxt not in out:
            out.append(nxt)
    return out


# -- slides: one side of the board moved away from a station without room ---------------------------
# With the gap rule the routes round a crowded station are drawn near their shortest (gaps of at most
# 6 mm, the tightening's doing): a move of the station alone makes one of them too short or turns a
# first space onto its neighbour's, and the label repair above finds nothing. A slide moves every
# point on one side of a line next to the station by a few millimetres away from it (the reverse of
# the tightening's cut_moves): the routes crossing the line get longer, none shorter, so no route
# gets too short, and the routes of the station that cross it turn and lengthen, opening a wedge or
# moving their first spaces out. A point the slide would take past the layout's bounds stops at them
# (_clamped: its routes along the edge may get a little shorter, the checks judge). Each slide is
# judged on the whole board: its checks no worse than the repair left (Repair.no_worse) and fewer
# labels without room at 7 pt, or as many and fewer at 8 pt (SLIDE_PT); of those that help, the one
# that leaves the fewest routes with gaps over 6 mm (a gap of 7 mm costs a designer less than a label
# drawn over the spaces), then the most room at LABEL_PT, then the smaller slide. The slides lengthen
# every route across their lines: the tightening (tighten.py, which keeps every label's room at each
# of ROOM_SIZES) then draws in what it can.
SLIDES = True
SLIDE_ANGLES = 8                 # directions of the slides (every 360/8 degrees)
SLIDE_DELTAS_MM = (3.0, 6.0, 10.0)
SLIDE_OFFSETS_MM = (1.0, -1.0)   # the line just past the station (it stays) or just behind it (it moves)
SLIDE_ROUNDS = 2                 # slides kept per station at most, a pass
SLIDE_PASSES = 2                 # passes of slide_repair (each with its tightening)
SLIDE_TRIES = 400                # slides judged (the station's own room) at most over one label repair
SLIDE_WHOLE = 60                 # ... and of those, judged on the whole board at most
SLIDE_BEST = 8                   # a station's slides judged on the whole board at most, a round
SLIDE_REACH_MM = 45.0            # the part of the board round a station its own room is judged on
ROOM_SIZES = (7.0, 8.0, LABEL_PT)   # label room counted at these sizes, smallest first (room_counts)
SLIDE_PT = 8.0                   # slides are for the labels without room at this size (one of ROOM_SIZES)
RETIGHTEN = True                 # the tightening once more after slides kept (slide_repair)


def room_counts(part, only=None, data=None, sizes=None) -> tuple[int, ...]:
    """Stations (of `only`, or all) without label room at each of `sizes` (ROOM_SIZES), smallest
    size first, on a mapkit.layout.repair.Part (or a board dict, `data`). A station with room at a
    size has it at every smaller one (its boxes are a part of theirs): each smaller size is asked
    only of the stations without room at the size above it."""
    sizes = ROOM_SIZES if sizes is None else tuple(sorted(sizes))
    def lacking(ask, pt, after=None):
        if part is None:
            return without_room(data, ask, pt)
        if part.board is not None:
            # (the stations asked at a smaller size have no room at the size above it, on this
            # same Layout: their boxes of that size are not asked again)
            return board_without_room(part.board, part.layout(), ask, pt, after)
        return without_room(part.data, ask, pt)
    out = [lacking(only, sizes[-1])]
    for pt, above in zip(reversed(sizes[:-1]), reversed(sizes[1:])):
        out.append(lacking(set(out[-1]), pt, above) if out[-1] else [])
    return tuple(len(x) for x in reversed(out))


def worse_room(after, before) -> bool:
    """More stations without label room at any of ROOM_SIZES (room_counts): a move that takes one
    label's room at 8 pt is not paid for by another's at 10 pt."""
    return any(a > b for a, b in zip(after, before))


def room_key(rp) -> tuple[int, ...]:
    """room_counts of the whole board (compared as a tuple: fewer labels with no room at all first)."""
    whole = rp._whole()
    if whole is not None:
        return room_counts(rp.view(whole))
    return room_counts(None, data=rp.full_data())


def routes_over_gap(rp) -> int:
    from mapkit.layout.figures import gap_figures

    whole = rp._whole()
    if whole is not None:
        part = rp.view(whole)
        return gap_figures(None, part.board, part.layout())["routes_over_gap"]
    return gap_figures(rp.full_data())["routes_over_gap"]


def slide_moves(rp, s) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """(points moved, shift, slide) of every slide next to station s: every free point on the far
    side of a line across the board near s moved away from it (a point that may not move, a kept or
    pinned station or a file's waypoint, stays: the checks judge what that does to its routes)."""
    dr = rp.dr
    c = dr.pos[s]
    out = []
    for a in range(SLIDE_ANGLES):
        d = np.array([np.cos(2 * np.pi * a / SLIDE_ANGLES), np.sin(2 * np.pi * a / SLIDE_ANGLES)])
        along = (dr.pos - c) @ d
        for off in SLIDE_OFFSETS_MM:
            side = (along > off) & dr.free
            if not side.any():
                continue
            moved = np.flatnonzero(side)
            for delta in SLIDE_DELTAS_MM:
                out.append((moved, delta * d, delta))
    return out


def _clamped(rp, pts, shift) -> np.ndarray:
    """pts moved by shift, each no farther than the board's edge allows (dr.bounds, where the
    layout puts points): a slide towards an edge presses the points beside it against it (their
    routes across the line get longer, those along the edge a little shorter: the checks judge)
    rather than pushing them off the board. A point already past the edge is not moved."""
    b = rp.dr.bounds
    new = pts + shift
    if b is None:
        return new
    lo, hi = np.array(b[:2], dtype=float), np.array(b[2:], dtype=float)
    return np.clip(new, np.minimum(lo, pts), np.maximum(hi, pts))


def slide_repair(rp, max_tries: int = SLIDE_TRIES, retighten: tuple | None = None) -> int:
    """Slides (see above) for the stations still without room at SLIDE_PT; the number kept. A slide
    is first judged on the part of the board round the station (its own room, SLIDE_REACH_MM: it
    must gain some at SLIDE_PT or below), and only then on the whole board (SLIDE_WHOLE at most),
    where it must leave fewer labels without room at SLIDE_PT or below (room at LABEL_PT only
    breaks ties, after the gaps: a slide costs gaps, and a label at 8 pt reads). retighten: the
    (weights, style) of the layout's tightening, run again after slides are kept (None: not run)."""
    dr = rp.dr
    tries = whole = kept = 0
    aim = ROOM_SIZES.index(SLIDE_PT) + 1    # the sizes the slides are for: room_key(...)[:aim]
    room = room_key(rp)
    if not room[aim - 1]:
        return 0
    done: dict[str, int] = {}
    while tries < max_tries and whole < SLIDE_WHOLE:
        data = rp.full_data()
        lacking = [sid for sid in without_room(data, size=SLIDE_PT) if done.get(sid, 0) < SLIDE_ROUNDS]
        if not lacking:
            break
        # the labels with no room at all first, then those without it at 8 pt
        worst = set(without_room(data, lacking, ROOM_SIZES[0]))
        sid = min(lacking, key=lambda i: i not in worst)
        done[sid] = done.get(sid, 0) + 1
        s = rp.station_of[sid]
        part = rp.select(dr.pos[s][None], SLIDE_REACH_MM)
        own = room_counts(rp.view(part), {sid})
        moves = slide_moves(rp, s)
        helped = []
        for n, (moved, shift, delta) in enumerate(moves):
            if tries >= max_tries:
                break
            old = dr.pos.copy()
            dr.pos[moved] = _clamped(rp, dr.pos[moved], shift)
            tries += 1
            mine = room_counts(rp.view(rp.select(dr.pos[s][None], SLIDE_REACH_MM)), {sid})
            if mine[:aim] < own[:aim]:
                helped.append((mine, delta, n))
            dr.pos = old
        # the SLIDE_BEST that give the station the most room (the smaller first), on the whole board
        judged = []
        for mine, delta, n in sorted(helped)[:SLIDE_BEST]:
            if whole >= SLIDE_WHOLE:
                break
            moved, shift, _ = moves[n]
            old = dr.pos.copy()
            dr.pos[moved] = _clamped(rp, dr.pos[moved], shift)
            whole += 1
            key = room_key(rp)
            if key[:aim] < room[:aim]:
                judged.append((key, routes_over_gap(rp), delta, n, moved, shift))
            dr.pos = old
        # the most room, then the fewest routes over 6 mm, then the smaller slide: the first the checks pass
        for key, o, delta, n, moved, shift in sorted(judged, key=lambda j: (j[0][:aim], j[1], j[0], j[2], j[3])):
            old = dr.pos.copy()
            dr.pos[moved] = _clamped(rp, dr.pos[moved], shift)
            if rp.no_worse():
                room, kept = key, kept + 1
                break
            dr.pos = old
        else:
            done[sid] = SLIDE_ROUNDS   # nothing kept: the same slides would be judged the same
        if not room[aim - 1]:
            break
    if kept and RETIGHTEN and retighten is not None:
        # the slides lengthened every route across their lines: the tightening draws in again what
        # it can without taking any label's room at any of ROOM_SIZES
        from mapkit.layout.tighten import tighten

        tighten(rp, *retighten, sizes=ROOM_SIZES)
    return kept


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
