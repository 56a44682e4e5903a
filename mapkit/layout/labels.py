"""The label step: every station keeps room for its name (room as mapkit.layout.labelroom measures it).

The print places labels last (mapkit.render.labels), so a layout that passes every geometry check
can still leave a station no free spot for its name, and the renderer shrinks it to 7 pt or draws
it over a route.

`label_repair` runs after the geometry repair on a board with no errors: for each station without room, a
few short moves of that station, each kept only when the checks find nothing more near it and the
stations around it have room for more labels than before; then, for the labels still without room
at 8 pt, slides of one side of the board away from the station (slide_repair, below), each pass
followed by the tightening once more. With --refine (sides=False) no slides: the same short moves
of the bends beside the station instead. Bounded tries, so a seed gives one result.
"""

from __future__ import annotations

import numpy as np

from mapkit.layout.judge import fill_kept, score, station_span
from mapkit.layout.labelroom import LABEL_REACH_MM, ROOM_SIZES, room_counts, without_room

LABEL_STEPS_MM = (3.0, 6.0, 10.0)
LABEL_TRIES = 240        # candidate moves judged at most over one label repair


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
    if sides:
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
SLIDE_ANGLES = 8                 # directions of the slides (every 360/8 degrees)
SLIDE_DELTAS_MM = (3.0, 6.0, 10.0)
SLIDE_OFFSETS_MM = (1.0, -1.0)   # the line just past the station (it stays) or just behind it (it moves)
SLIDE_ROUNDS = 2                 # slides kept per station at most, a pass
SLIDE_PASSES = 2                 # passes of slide_repair (each with its tightening)
SLIDE_TRIES = 400                # slides judged (the station's own room) at most over one label repair
SLIDE_WHOLE = 60                 # ... and of those, judged on the whole board at most
SLIDE_BEST = 8                   # a station's slides judged on the whole board at most, a round
SLIDE_REACH_MM = 45.0            # the part of the board round a station its own room is judged on
SLIDE_PT = 8.0                   # slides are for the labels without room at this size (one of ROOM_SIZES)


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
    if kept and retighten is not None:
        # the slides lengthened every route across their lines: the tightening draws in again what
        # it can without taking any label's room at any of ROOM_SIZES
        from mapkit.layout.tighten import tighten

        tighten(rp, *retighten, sizes=ROOM_SIZES)
    return kept


def _directions():
    return [np.array([np.cos(a), np.sin(a)]) for a in np.arange(8) * np.pi / 4]


def _near(net, dr, s) -> set[str]:
    d = np.linalg.norm(dr.pos[: net.n] - dr.pos[s], axis=1)
    return {net.ids[i] for i in np.nonzero(d < LABEL_REACH_MM)[0]}
