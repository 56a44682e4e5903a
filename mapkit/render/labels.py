"""Placing station labels (and other small text boxes) where they collide with nothing.

Each label has candidate boxes in order of preference; a label goes to the first candidate whose
box (measured with `fonts`) stays inside the bounds and touches no obstacle (station markers,
spaces) and no label placed before it. Labels with the fewest free candidates are placed first.
Labels keep 0.4 mm clear of everything, or 0.1 mm when that leaves them no room. A label with no
free candidate is first nudged: its boxes moved by up to 3 mm (`_nudged`); one that finds no
free spot even so is drawn at its least-bad candidate and reported in `unplaced`. A label placed
below its normal size (NORMAL_PT; hubs HUB_NORMAL_PT) is then raised to it where one of its boxes
at that size, nudged if need be, has room (`raised`).

Station candidates: the 8 compass positions around the marker (the station's `label` first),
first at the normal size on one line, then broken over two or three lines (each time followed by
the same boxes slid a little along the marker's side); then the same 8 positions 4 and then 8 mm
further out; then all of that one size smaller.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import Polygon, box

from mapkit.render import fonts

XY = tuple[float, float]
Box = tuple[float, float, float, float]  # x0, y0, x1, y1

COMPASS = {"n": (0, -1), "ne": (1, -1), "e": (1, 0), "se": (1, 1),
           "s": (0, 1), "sw": (-1, 1), "w": (-1, 0), "nw": (-1, -1)}
ORDER = ("e", "ne", "se", "w", "nw", "sw", "n", "s")
ALIGN = {-1: "right", 0: "center", 1: "left"}
LABEL_GAP_MM = 1.0   # between a marker and its label
PAD_MM = 0.35        # around the measured text
CLEARANCE_MM = 0.4   # kept free between a label and anything else
TIGHT = 0.25         # of that, when a label has no room otherwise
FAR_MM = 4.0         # the further rings of positions, this much further out each
NUDGE_MM = 3.0       # a label with no free candidate: each box moved by up to this much either way (_nudged)
NUDGE_STEP_MM = 1.0  # ... in steps of this much
NUDGE_CHUNK = 64     # candidates nudged at a time (_nudged)

# Read at arm's length (~70 cm) a label wants a cap height of about 3 mm: DejaVu's caps are 0.73 em,
# so 12 pt (4.2 mm em, 3.1 mm caps). Smaller sizes are fallbacks where a crowded board has no room.
STATION_SIZES = (12.0, 11.0, 10.0, 9.0, 8.0, 7.0)
HUB_SIZES = (13.0, 12.0, 11.0, 10.0, 9.0)
# the smallest size a label is drawn at wherever any of its boxes at that size (nudged, if need be)
# finds room (`raised`): the layout's label room is counted at it too (mapkit.layout.labels.LABEL_PT)
NORMAL_PT = 10.0
HUB_NORMAL_PT = 11.0


@dataclass(frozen=True)
class Candidate:
    position: str
    lines: tuple[str, ...]
    size: float
    bold: bool
    center: XY
    box: Box
    align: str = "center"


@dataclass(frozen=True)
class LabelRequest:
    key: str
    candidates: tuple[Candidate, ...]
    least: float = 0.0     # the normal smallest size (`raised`): smaller candidates are fallbacks


@dataclass
class Placement:
    placed: dict[str, Candidate] = field(default_factory=dict)
    unplaced: list[str] = field(default_factory=list)

    def boxes(self) -> list[Box]:
        return [c.box for c in self.placed.values()]


def text_candidate(position: str, lines, size: float, bold: bool, anchor: XY, direction: tuple[int, int],
                   align: str = "center") -> Candidate:
    """A text block whose edge (or corner, diagonally) touches anchor on the side `direction`."""
    w, h = fonts.block_size(lines, size, bold)
    w, h = w + 2 * PAD_MM, h + 2 * PAD_MM
    dx, dy = direction
    cx, cy = anchor[0] + dx * w / 2, anchor[1] + dy * h / 2
    return Candidate(position, tuple(lines), size, bold, (cx, cy), (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), align)


def line_variants(name: str) -> list[tuple[str, ...]]:
    """The name on one line, then split over two and (long names) three lines."""
    out = [(name,)]
    if len(name) > 9:
        two = fonts.split_balanced(name, 2)
        if two:
            out.append(two)
    if len(name) > 22:
        three = fonts.split_balanced(name, 3)
        if three:
            out.append(three)
    return out


def station_request(key: str, name: str, xy: XY, radius: float, preferred: str | None = None,
                    hub: bool = False) -> LabelRequest:
    """A station label's request: its candidates, and NORMAL_PT (hubs HUB_NORMAL_PT) as the size
    below which a candidate is a fallback."""
    return LabelRequest(key, station_candidates(name, xy, radius, preferred, hub),
                        HUB_NORMAL_PT if hub else NORMAL_PT)


def station_candidates(name: str, xy: XY, radius: float, preferred: str | None = None,
                       hub: bool = False) -> tuple[Candidate, ...]:
    return _station_candidates(name, (xy[0], xy[1]), radius, preferred, hub)


# `mapkit edit` places the labels again after every drag, when all but one station are where they
# were: their candidates (hundreds of measured boxes each) are kept, by everything they depend on.
@functools.lru_cache(maxsize=4096)
def _station_candidates(name: str, xy: XY, radius: float, preferred: str | None, hub: bool) -> tuple[Candidate, ...]:
    order = ([preferred] if preferred else []) + [p for p in ORDER if p != preferred]
    out = []
    for size in (HUB_SIZES if hub else STATION_SIZES):
        for extra in (0.0, FAR_MM, 2 * FAR_MM):
            for lines in line_variants(name):
                for pos in order:
                    dx, dy = COMPASS[pos]
                    reach = radius + LABEL_GAP_MM + extra
                    if dx and dy:
                        reach_x = reach_y = reach / math.sqrt(2)
                    else:
                        reach_x, reach_y = reach * abs(dx), reach * abs(dy)
                    anchor = (xy[0] + dx * reach_x, xy[1] + dy * reach_y)
                    out.append(text_candidate(pos if not extra else f"{pos}+", lines, size, hub, anchor, (dx, dy),
                                              ALIGN[dx]))
                out += _slid(out[-len(order):])
    return tuple(out)


def _slid(candidates) -> list[Candidate]:
    """The compass candidates slid along the marker's side: those above and below it by a third
    of their width either way, those beside it by half their height up or down, diagonal ones a
    quarter of their width back towards the marker or half their height towards its middle."""
    out = []
    for c in candidates:
        pos = c.position.rstrip("+")
        x0, y0, x1, y1 = c.box
        if pos in ("n", "s"):
            shifts = [(-(x1 - x0) / 3, 0.0), ((x1 - x0) / 3, 0.0)]
        elif pos in ("e", "w"):
            shifts = [(0.0, -(y1 - y0) / 2), (0.0, (y1 - y0) / 2)]
        else:  # diagonal: along either side of the corner
            dx = 1 if c.center[0] > (x0 + x1) / 2 or pos.endswith("e") else -1
            shifts = [(-dx * (x1 - x0) / 4, 0.0), (0.0, -(y1 - y0) / 2 if pos.startswith("s") else (y1 - y0) / 2)]
        for sx, sy in shifts:
            out.append(Candidate(c.position + "~", c.lines, c.size, c.bold, (c.center[0] + sx, c.center[1] + sy),
                                 (x0 + sx, y0 + sy, x1 + sx, y1 + sy), c.align))
    return out


def place(requests, obstacles, bounds: Polygon, clearance: float = CLEARANCE_MM) -> Placement:
    """Place every request's label (see the module docstring)."""
    tight = clearance * TIGHT
    groups = [req.candidates for req in requests]
    geoms = np.concatenate([_geoms_of(c) for c in groups]) if requests else _as_geoms([])
    outside = _outside_costs(geoms, bounds)
    # the obstacles grown by the clearance and by the tight one (the nudge asks the same)
    keys = _keys(obstacles)
    grown = {clearance: _grown(obstacles, keys, clearance), tight: _grown(obstacles, keys, tight)}
    runs = [(c, len(c)) for c in groups]
    free_mask = (outside == 0) & ~_TOUCHES.touching(runs, geoms, keys, grown[clearance], clearance,
                                                  np.ones(len(geoms), dtype=bool))
    # a box clear of the obstacles grown by the clearance is clear of them grown by less
    tight_costs = _LazyCosts(geoms, outside, grown[tight], np.zeros(len(geoms), dtype=bool))
    tight_costs.free &= ~_TOUCHES.touching(runs, geoms, keys, grown[tight], tight, ~free_mask)
    nearly_mask = tight_costs.free

    scored, k = [], 0
    for order, req in enumerate(requests):
        n = len(req.candidates)
        free = [c for c, f in zip(req.candidates, free_mask[k:k + n]) if f]
        nearly = [c for c, f in zip(req.candidates, nearly_mask[k:k + n]) if f]
        scored.append((len(free) if free else len(nearly) + 1000 if nearly else math.inf, order, req, free, nearly, k))
        k += n
    scored.sort(key=lambda t: (t[0], t[1]))

    result = Placement()
    placed_boxes: list[Box] = []
    for _, _, req, free, nearly, k in scored:
        choice = next((c for c in free if not _hits_any(c.box, placed_boxes, clearance)), None)
        if choice is None:  # closer to its neighbours, but still touching nothing
            choice = next((c for c in nearly if not _hits_any(c.box, placed_boxes, tight)), None)
        if choice is None:  # every candidate touches something: the same boxes nudged a little
            choice = _nudged(req, grown, bounds, placed_boxes)
        if choice is None:
            choice = _least_bad(req, list(tight_costs.of(k, k + len(req.candidates))), placed_boxes)
            result.unplaced.append(req.key)
        result.placed[req.key] = choice
        placed_boxes.append(choice.box)
    # report in request order, whatever order they were placed in
    rank = {r.key: i for i, r in enumerate(requests)}
    result.unplaced.sort(key=rank.__getitem__)
    result.placed = dict(sorted(result.placed.items(), key=lambda kv: rank[kv[0]]))
    return result


def raised(placement: Placement, requests, obstacles, bounds: Polygon, clearance: float = CLEARANCE_MM) -> Placement:
    """The placement with each label that `place` drew below its request's normal size (`least`)
    moved to the first of its candidates at that size or larger that is clear of everything and of
    the other labels as placed (`normal_boxes`: at the normal clearance, then the tight one, then
    nudged at the normal size); a label none of whose normal-size boxes finds room stays as placed. `place`
    places each label at the first free box in its order of preference, so a label whose
    normal-size boxes all miss by a sliver (Portland's Hollywood: 0.23 mm² of a space at 10 pt)
    went down to 8 pt while a nudge of a millimetre would have kept it at 10. Labels are raised
    in request order; the others do not move."""
    small = [r for r in requests if r.least and r.key in placement.placed and placement.placed[r.key].size < r.least]
    if not small:
        return placement
    tight = clearance * TIGHT
    keys = _keys(obstacles)
    grown = {clearance: _grown(obstacles, keys, clearance), tight: _grown(obstacles, keys, tight)}
    for req in small:
        choice = next(iter(normal_boxes(placement, req, grown, bounds, clearance)), None)
        if choice is not None:
            placement = moved(placement, req.key, choice)
    return placement


def normal_boxes(placement: Placement, req: LabelRequest, grown: dict, bounds: Polygon,
                 clearance: float = CLEARANCE_MM, limit: int | None = None):
    """The request's candidates at its normal size or larger that are clear of everything and of
    the other labels as placed, in the order `raised` takes them: at the normal clearance, then the
    tight one, then the first nudged one at the normal size (`_nudged`). grown: {clearance: the obstacles grown by
    it}, as `place` makes them; limit: at most this many (a generator: asked one at a time)."""
    big = tuple(c for c in req.candidates if c.size >= req.least)
    if not big:
        return
    others = [c.box for k, c in placement.placed.items() if k != req.key]
    boxes = [c.box for c in big]
    tight = clearance * TIGHT
    seen, n = set(), 0
    for gap in (clearance, tight):
        free = _free_mask(boxes, grown[gap], bounds)
        for i, (c, f) in enumerate(zip(big, free)):
            if f and i not in seen and not _hits_any(c.box, others, gap):
                seen.add(i)
                yield c
                n += 1
                if limit is not None and n >= limit:
                    return
    # nudged, only to the normal size itself: a larger size is for boxes free as they stand, as the
    # layout's label room counts them (mapkit.layout.labels)
    least = tuple(c for c in big if c.size == req.least)
    nudged = _nudged(LabelRequest(req.key, least, req.least), grown, bounds, others) if least else None
    if nudged is not None:
        yield nudged


def moved(placement: Placement, key: str, choice: Candidate) -> Placement:
    """The placement with one label at choice (found room: no longer unplaced)."""
    return Placement({**placement.placed, key: choice}, [k for k in placement.unplaced if k != key])


# A box's cost is its area outside bounds plus its area over each obstacle it touches (at least
# 1e-3 a touch); 0 means free. Why the costs are computed lazily: a board has tens of thousands
# of candidate boxes, and the area a box covers is needed only for the few labels that find no
# free box (`_least_bad`); every other label needs to know only whether a box is free. Computing
# every area took ~90 % of a board's drawing time. The values asked for are the same, summed in
# the same order, as computing them all (tests/test_edit_render_identity.py keeps that plain
# version and checks that the placements agree on the bundled boards).

def _buffered(obstacles, distance: float) -> list:
    """Each obstacle grown by distance (the same shapes as g.buffer(distance, quad_segs=2), made
    in one call)."""
    if not distance or not len(obstacles):
        return list(obstacles)
    return list(shapely.buffer(np.asarray(list(obstacles), dtype=object), distance, quad_segs=2))


def _prepared(bounds: Polygon) -> Polygon:
    """bounds, prepared for the tens of thousands of containment tests (~50× faster; the answers
    are the same)."""
    shapely.prepare(bounds)
    return bounds


def _outside_costs(geoms, bounds: Polygon) -> np.ndarray:
    """Each box's area outside bounds (0 below 1e-9), measured
    only for the boxes bounds does not contain (a contained box's outside area is 0)."""
    cost = np.zeros(len(geoms))
    out = np.flatnonzero(~shapely.contains(_prepared(bounds), geoms))
    if len(out):
        g = geoms[out]
        cost[out] = shapely.area(g) - shapely.area(shapely.intersection(g, bounds))
    cost[np.abs(cost) < 1e-9] = 0.0
    return cost


def _keys(obstacles) -> list[bytes]:
    """Each obstacle's exact identity (its WKB: every coordinate's bits)."""
    return shapely.to_wkb(np.asarray(list(obstacles), dtype=object)).tolist() if len(obstacles) else []


_GROWN: dict = {}   # (obstacle key, distance) → the obstacle grown: a drag changes a few obstacles


def _grown(obstacles, keys: list[bytes], distance: float) -> list:
    """`_buffered(obstacles, distance)`, each obstacle grown once for all calls (the same
    deterministic buffer of the same geometry)."""
    if not distance:
        return list(obstacles)
    obstacles = list(obstacles)
    missing = [i for i, k in enumerate(keys) if (k, distance) not in _GROWN]
    if missing:
        if len(_GROWN) + len(missing) > 20_000:
            _GROWN.clear()
            missing = list(range(len(keys)))
        made = _buffered([obstacles[i] for i in missing], distance)
        shapely.prepare(np.asarray(made, dtype=object))   # kept prepared: asked against thousands of boxes
        for i, g in zip(missing, made):
            _GROWN[(keys[i], distance)] = g
    return [_GROWN[(k, distance)] for k in keys]


def _touch_pairs(geoms, obstacles) -> tuple[np.ndarray, np.ndarray]:
    """(box index, obstacle index) of every box touching an obstacle: each obstacle (a drawn line's
    outline is a long complex polygon) that comes within the boxes' envelope asked against a tree of
    the boxes (prepared once, not each box against it)."""
    none = np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    if not len(obstacles) or not len(geoms):
        return none
    obstacles = np.asarray(obstacles, dtype=object)
    gb, ob = shapely.bounds(geoms), shapely.bounds(obstacles)
    lo, hi = np.nanmin(gb[:, :2], axis=0), np.nanmax(gb[:, 2:], axis=0)
    near = np.flatnonzero((ob[:, 0] <= hi[0]) & (ob[:, 2] >= lo[0]) & (ob[:, 1] <= hi[1]) & (ob[:, 3] >= lo[1]))
    if not len(near):
        return none
    obs, box_i = STRtree(geoms).query(obstacles[near], predicate="intersects")
    return box_i, near[obs]


class _Touches:
    """Which boxes touch an obstacle (grown by a clearance), remembered for each run of boxes (a
    request's candidates, a chunk of nudged boxes) with the obstacles it was asked against.
    `mapkit edit` places the labels again after every drag, when most candidates and obstacles are
    as they were. A box touches the obstacles when it touches one of them, a yes or no of the two
    exact shapes; so a box of a run asked before that touches none of the obstacles gone since
    keeps its answer, or-ed with whether it touches one of the new ones; the other boxes are asked
    against all of them. The answers are the ones asking every box would give
    (tests/test_edit_speed_labels.py compares them)."""

    LIMIT = 8192   # runs kept; all are forgotten past it

    def __init__(self):
        self.kept: dict = {}   # (id(run), clearance) → (run, {obstacle key: grown obstacle}, touch, known)

    def touching(self, runs, geoms, keys: list, grown: list, clearance: float, ask: np.ndarray) -> np.ndarray:
        """For each box: it touches an obstacle (False where not asked). runs: (run, n) for each run
        of boxes in order, run an object that stands for exactly those n boxes while it lives
        (the candidates tuple, a `_Chunk`); keys: each obstacle's exact identity (`_keys`);
        grown: the obstacles grown by clearance."""
        touch, known = np.zeros(len(geoms), dtype=bool), np.zeros(len(geoms), dtype=bool)
        now = dict(zip(keys, grown))
        before: dict = {}   # id(obstacles asked before) → (those obstacles, the box ranges)
        spans, k = [], 0
        for run, n in runs:
            found = self.kept.get((id(run), clearance))
            if found is not None and found[0] is run:   # the entry keeps the run alive: ids are not reused
                touch[k:k + n], known[k:k + n] = found[2], found[3]
                before.setdefault(id(found[1]), (found[1], []))[1].append((k, k + n))
            spans.append((run, k, k + n))
            k += n
        for prev, ranges in before.values():
            idx = np.concatenate([np.arange(lo, hi) for lo, hi in ranges])
            gone = [g for key, g in prev.items() if key not in now]
            new = [g for key, g in now.items() if key not in prev]
            if gone:   # a box that touched an obstacle since gone is asked again
                known[idx[_touch_pairs(geoms[idx], gone)[0]]] = False
            touch[idx] &= known[idx]
            if new:
                hit = idx[_touch_pairs(geoms[idx], new)[0]]
                touch[hit[known[hit]]] = True
        todo = np.flatnonzero(ask & ~known)
        if len(todo):
            touch[todo[_touch_pairs(geoms[todo], grown)[0]]] = True
            known[todo] = True
        if len(self.kept) + len(spans) > self.LIMIT:
            self.kept.clear()
        for run, lo, hi in spans:
            self.kept[(id(run), clearance)] = (run, now, touch[lo:hi].copy(), known[lo:hi].copy())
        return touch & ask


_TOUCHES = _Touches()          # the requests' candidates (place)
_NUDGE_TOUCHES = _Touches()    # the chunks of nudged boxes (_nudged)


class _Chunk:
    """NUDGE_CHUNK candidates' boxes, each with every nudge (candidate-major), as numbers and as
    shapes (made when first asked)."""

    def __init__(self, moved: np.ndarray):
        self.moved = moved
        self._geoms = None

    @property
    def geoms(self):
        if self._geoms is None:
            self._geoms = _as_geoms(self.moved)
        return self._geoms


_CHUNKS: dict = {}   # candidates tuple → its chunks: the same label is nudged again after a drag elsewhere


def _chunks(candidates: tuple, quad: np.ndarray) -> list[_Chunk]:
    found = _CHUNKS.get(candidates)
    if found is None:
        if len(_CHUNKS) >= 1024:
            _CHUNKS.clear()
        boxes = np.asarray([c.box for c in candidates], dtype=float).reshape(-1, 4)
        found = [_Chunk((boxes[lo:lo + NUDGE_CHUNK, None, :] + quad[None, :, :]).reshape(-1, 4))
                 for lo in range(0, len(boxes), NUDGE_CHUNK)]
        _CHUNKS[candidates] = found
    return found


class _LazyCosts:
    """The boxes' costs, with the areas over obstacles measured only for the ranges asked.
    may_touch: the boxes that can touch an obstacle at all (the others are not looked at)."""

    def __init__(self, geoms, outside: np.ndarray, obstacles, may_touch: np.ndarray):
        self.geoms, self.outside, self.obstacles = geoms, outside, obstacles
        self.tree = STRtree(obstacles) if obstacles else None
        self.free = outside == 0
        if self.tree is not None:
            ask = np.flatnonzero(may_touch)
            self.free[ask[self.tree.query(geoms[ask], predicate="intersects")[0]]] = False

    def of(self, lo: int, hi: int) -> np.ndarray:
        cost = self.outside[lo:hi].copy()
        if self.tree is not None:
            # the pairs of one box come in the tree's order whatever else is asked with it, so
            # the areas are summed in the order computing every box's would sum them
            src, obs = self.tree.query(self.geoms[lo:hi], predicate="intersects")
            if len(src):
                areas = shapely.area(shapely.intersection(self.geoms[lo:hi][src],
                                                          np.asarray(self.obstacles, dtype=object)[obs]))
                np.add.at(cost, src, np.maximum(areas, 1e-3))
        return cost


# the candidates' boxes as shapely geometry, by candidates tuple: a drag leaves all but one
# station's candidates as they were (`_station_candidates` gives back the same tuple)
_GEOMS: dict[int, tuple] = {}


def _geoms_of(candidates: tuple) -> np.ndarray:
    found = _GEOMS.get(id(candidates))
    if found is not None and found[0] is candidates:  # the entry keeps the tuple alive: ids are not reused
        return found[1]
    if len(_GEOMS) >= 8192:
        _GEOMS.clear()
    geoms = _as_geoms([c.box for c in candidates])
    _GEOMS[id(candidates)] = (candidates, geoms)
    return geoms


def _nudges() -> list[XY]:
    """The shifts a nudged box tries, nearest first (then by angle: a fixed order)."""
    step = NUDGE_STEP_MM
    n = int(round(NUDGE_MM / step))
    out = [(i * step, j * step) for i in range(-n, n + 1) for j in range(-n, n + 1) if (i, j) != (0, 0)]
    return sorted(out, key=lambda d: (round(math.hypot(*d), 9), math.atan2(d[1], d[0])))


def _nudged(req: LabelRequest, grown: dict, bounds: Polygon, placed: list[Box]) -> Candidate | None:
    """For a label none of whose candidate boxes is free: each candidate's box moved by up to
    NUDGE_MM either way (steps of NUDGE_STEP_MM, nearest first), in the candidates' order of
    preference, and the first one clear of everything (at the normal clearance, then the tight
    one) — or None. The candidates sit at fixed spots round the marker, so a label can miss by a
    sliver what a millimetre over would clear (Seattle's SeaTac/Airport, 0.45 mm² over a space
    at every spot). Only labels that found no free box come here, so the others and their order
    are as before. A nudged box may come nearer its marker: the marker is an obstacle too.
    The candidates are asked NUDGE_CHUNK at a time, so a label that finds a spot early stops early.
    grown: {clearance: the obstacles grown by it}, the normal clearance first (as `place` made them)."""
    shifts = np.asarray(_nudges(), dtype=float).reshape(-1, 2)
    if not req.candidates or not len(shifts):
        return None
    quad = np.concatenate([shifts, shifts], axis=1)
    chunks = _chunks(tuple(req.candidates), quad)
    near = np.asarray(placed, dtype=float).reshape(-1, 4)
    prepared = _prepared(bounds)
    for gap, obstacles in grown.items():
        obstacles = list(obstacles)
        keys = _keys(obstacles)
        for lo, chunk in zip(range(0, len(req.candidates), NUDGE_CHUNK), chunks):
            moved, geoms = chunk.moved, chunk.geoms
            free = shapely.contains(prepared, geoms)
            if len(near):
                idx = np.flatnonzero(free)
                m, o = moved[idx][:, None, :], near[None, :, :]
                hit = ((m[..., 0] < o[..., 2] + gap) & (o[..., 0] < m[..., 2] + gap)
                       & (m[..., 1] < o[..., 3] + gap) & (o[..., 1] < m[..., 3] + gap)).any(axis=1)
                free[idx[hit]] = False
            # the obstacles asked last, only for the boxes inside bounds and clear of the labels placed
            free &= ~_NUDGE_TOUCHES.touching([(chunk, len(moved))], geoms, keys, obstacles, gap, free)
            found = np.flatnonzero(free)
            if len(found):
                i = int(found[0])
                c = req.candidates[lo + i // len(shifts)]
                dx, dy = quad[i % len(shifts), :2]
                b = tuple(float(v) for v in moved[i])
                return Candidate(c.position + "^", c.lines, c.size, c.bold, (c.center[0] + dx, c.center[1] + dy),
                                 b, c.align)
    return None


def _hits_any(b: Box, boxes: list[Box], clearance: float) -> bool:
    x0, y0, x1, y1 = b
    for a0, b0, a1, b1 in boxes:
        if x0 < a1 + clearance and a0 < x1 + clearance and y0 < b1 + clearance and b0 < y1 + clearance:
            return True
    return False


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _least_bad(req: LabelRequest, hits: list[float], placed: list[Box]) -> Candidate:
    best, best_cost = None, None
    for c, h in zip(req.candidates, hits):
        cost = h + sum(_overlap(c.box, b) for b in placed)
        if best_cost is None or cost < best_cost - 1e-9:
            best, best_cost = c, cost
    return best


def collisions(placement: Placement, obstacles, bounds: Polygon) -> list[str]:
    """Keys of placed labels that overlap an obstacle, leave the bounds, or overlap another label
    (an independent check of `place`, for tests)."""
    bad = set()
    items = list(placement.placed.items())
    for i, (k, c) in enumerate(items):
        shape = box(*c.box)
        if not bounds.contains(shape) or any(shape.intersects(o) for o in obstacles):
            bad.add(k)
        for k2, c2 in items[i + 1:]:
            if _overlap(c.box, c2.box) > 0:
                bad.update((k, k2))
    return sorted(bad)


def first_free(boxes, obstacles, bounds: Polygon, clearance: float = CLEARANCE_MM) -> Box | None:
    """The first of boxes inside bounds that touches no obstacle, or None. The boxes are asked a
    chunk at a time (64, then twice as many each time), so a free box early in the list stops the
    search early; the answer is the one asking every box gives."""
    if not boxes:
        return None
    obstacles = list(obstacles)
    if not obstacles:
        grown = []
    elif clearance:
        grown = _grown(obstacles, _keys(obstacles), clearance)
    else:
        grown = list(shapely.buffer(np.asarray(obstacles, dtype=object), clearance, quad_segs=2))
    prepared = _prepared(bounds)
    lo, n = 0, 64
    while lo < len(boxes):
        geoms = _as_geoms(boxes[lo:lo + n])
        free = shapely.contains(prepared, geoms)
        free[_touch_pairs(geoms, grown)[0]] = False
        idx = np.flatnonzero(free)
        if len(idx):
            return tuple(boxes[lo + int(idx[0])])
        lo, n = lo + n, 2 * n
    return None


def _as_geoms(boxes):
    a = np.asarray(boxes, dtype=float).reshape(-1, 4)
    return shapely.box(a[:, 0], a[:, 1], a[:, 2], a[:, 3])


def _free_mask(boxes, obstacles, bounds: Polygon) -> np.ndarray:
    """For each box: inside bounds and touching no obstacle."""
    geoms = _as_geoms(boxes)
    free = shapely.contains(_prepared(bounds), geoms)
    free[_touch_pairs(geoms, list(obstacles))[0]] = False
    return free


def scan_boxes(w: float, h: float, area: Box, step: float = 6.0) -> list[Box]:
    """Boxes of w × h in area: its four corners first, then the middles of its sides, then a scan
    of the whole area from the top left."""
    x0, y0, x1, y1 = area
    xs = [x0, x1 - w]
    ys = [y0, y1 - h]
    out = [(x, y, x + w, y + h) for y in ys for x in xs]
    out += [((x0 + x1 - w) / 2, y, (x0 + x1 + w) / 2, y + h) for y in ys]
    out += [(x, (y0 + y1 - h) / 2, x + w, (y0 + y1 + h) / 2) for x in xs]
    scan = []
    y = y0
    while y + h <= y1 + 1e-9:
        x = x0
        while x + w <= x1 + 1e-9:
            scan.append((x, y, x + w, y + h))
            x += step
        y += step
    # nearest the area's edges first, so that it stays out of the middle of the board
    scan.sort(key=lambda b: (round(min(b[0] - x0, x1 - b[2], b[1] - y0, y1 - b[3]) / step), b[1], b[0]))
    return out + scan


def least_covering(boxes, obstacles, bounds: Polygon) -> Box:
    """The box inside bounds that covers the least obstacle area (the first on ties)."""
    geoms = _as_geoms(boxes)
    inside = shapely.contains(_prepared(bounds), geoms)
    cost = np.zeros(len(boxes))
    if obstacles:
        obstacles = list(obstacles)
        src_i, obs_i = STRtree(obstacles).query(geoms, predicate="intersects")
        areas = shapely.area(shapely.intersection(geoms[src_i], np.asarray(obstacles, dtype=object)[obs_i]))
        np.add.at(cost, src_i, areas)
    cost[~inside] = np.inf
    return tuple(boxes[int(np.argmin(cost))])
