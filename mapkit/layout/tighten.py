"""The last step of a clean layout: routes drawn longer than their spaces need, drawn in.

The optimization only prefers gaps between spaces of at most 6 mm (network.MAX_GAP_MM: a route
reads as one line): its clearances grow heavier each round and a longer route always eases
them, so a clean board comes out with many routes stretched past that (docs/design/layout.md).
Holding the gaps as a rule during the optimization (--gap-rule) fights those clearances and costs
label room and time. Here the board already passes the checks; each route's gap between spaces
above its aim (GAP_AIM_MM) is its excess — the gap between spaces as mapkit.geometry places them: an
end at a narrow fan keeps the room its first space needs (space_placement), so a crowded station's
routes are not aimed wider; a double's gap is its wider track's, each track its centreline offset to
one side as the geometry draws it, longer on the outside of each bend, `track_extras` — and points
are moved to take excess out:

- slides (`cut_moves`): a line across the board, and every point on one side of it moved towards
  it by a few millimetres: every route crossing the line gets shorter and no other changes length;
  the cuts where the crossing routes have room to lose, best first, each judged on the whole board;
- a point (a station or a route's bend) moved towards a target: where the whole board's
  optimization puts it with the gaps held at their aims (`global_targets`, one least-squares solve
  from the clean board: a coordinated target that alone leaves problems, so it is only a
  direction), or where its own routes have the least excess (`_target`: a tiny Gauss-Newton over
  its two coordinates with hinge residuals for each route through it, its gap above the aim and its
  length below what its spaces need, and for each pair of routes next to each other round a station
  it turns, the angle their first spaces need at the gaps the move gives them); the whole way, half
  or a quarter of it;
- a point pulled straight along the widest route over its aim through it (`_pulls`: a station
  towards its next point on that route, a bend towards its neighbours' chord) by that route's excess:
  the point's own target weighs every route and fan round it and often stays put where one route is
  far over; the whole way, half or a quarter of it;
- a bend taken out of a route too long with it and long enough without it;
- a station moved with bends near it by one vector (`try_group`, when none of its single moves was
  kept): the first bends of its routes not over 6 mm, or every free bend within GROUP_RADIUS_MM
  (the points of its routes over 6 mm left out), by the steps towards its targets above: where
  every target of the station alone lengthens another route through it as much as it shortens
  this one, that route's bend moved with it keeps its length;
- first, the whole drawing drawn in towards its centre by a few per cent (`shrink`), where every
  route keeps its spaces' length: rarely possible (a route at its shortest stops it), the slides
  are that move one line at a time.

A move is kept only when it takes out something (fewer routes over 6 mm, or as many and less
excess, `better`), the checks find nothing more on the part of the board it changes (overpass.rank,
the finishing step's judge: no error traded for anything; the slides on the whole board), the
stations near what it moves keep room for as many labels as before (labelroom.py: a label is an
obstacle; at each of 7, 8 and 10 pt, labelroom.ROOM_SIZES: a station already without
room at 10 pt keeps its room at 7 and 8),
the stations still fill the board as asked (judge.fill_kept) and the routes it turns
are no farther from what the style asks (their real bearings, 45° in the schematic style, `turns_ok`).
Each sweep is confirmed on the whole board (checks and label room); one it refuses keeps its moves
before the first one it refuses (a bisection over the sweep's moves, BISECT_STEPS whole-board
judgements), that move's point is not moved again and the sweeps go on. Counts bound it
(MAX_TRIES, TRIES_PER_STATION, SWEEPS, SWEEPS_RETIGHTEN, CUT_TRIES), never time; the order is fixed and a move
refused is not tried again until something near it has moved: a seed gives one layout.

Without sides (--refine, where the stations are the designer's): no cut and no shrink, only the
points of routes over 6 mm are moved, and a move leaves no other route over 6 mm in their place,
so every station moved is an end of a route over 6 mm on the board the tightening was given.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from mapkit.geometry import space_placement, space_placement_arrays, station_fan
from mapkit.layout.crowding import ANGLE_CLEAR, HALF_EXTRA_MM, need_of
from mapkit.layout.judge import fill_kept, station_span
from mapkit.layout.labelroom import LABEL_REACH_MM, ROOM_SIZES, room_counts, worse_room
from mapkit.layout.network import MAX_GAP_MM, drawn_mm_at_gap
from mapkit.layout.optimize import Drawing, run_rounds
from mapkit.layout.overpass import rank
from mapkit.layout.repair import REACH_MM

GAP_AIM_MM = 5.8          # a route's gap aimed at: inside 6 mm (the figure counts a gap over 6.0, as rounded)
OVER_MM = MAX_GAP_MM - 0.05   # a gap counted over 6 mm here: the figure rounds to 0.1 mm (6.05 is over), the written points to 0.1 too
CROWD_MARGIN_MM = 0.2     # at a crowded station the aim is what its first spaces need, less this
LMIN_MARGIN_MM = 0.6      # no route drawn nearer than this above what its spaces need (route-too-short)
FRACTIONS = (1.0, 0.5, 0.25)   # of a point's step to its target: tried in this order, the first kept wins
SHRINK = (0.97, 0.94, 0.91)    # the whole drawing drawn in towards its centre by these factors (the best kept)
SWEEPS = 8                # over the points with excess, while a sweep keeps a move (12: fewer over, one label less, +8 % CPU)
SWEEPS_RETIGHTEN = 12     # ... when the label step tightens again after its slides (they lengthen every route across them)
TRIES_PER_POINT = 6       # a sweep's tries of one point at most (the fractions, a bend taken out)
MAX_TRIES = 1200          # part-board judgements over one tightening
TRIES_PER_STATION = 8     # ... and at most this many per station of the board
MIN_GAIN = 1e-3           # mm of gap excess a move must take out (with as many routes over)
TURN_SLACK_DEG = 6.0      # geographic style: a move may turn the routes it moves this much farther from their bearings (rms)
ANCHOR = 0.05             # the weak pull of a point to where it is (per mm), in the target's least squares
CUT_DIRECTIONS = (0.0, 90.0, 45.0, 135.0)   # degrees of the slides' directions (cut_moves)
CUT_DELTAS_MM = (1.0, 2.0, 4.0, 7.0, 11.0, 16.0, 24.0)
CUT_CLEAR_MM = 4.0        # a cut line this far from the points on either side, and no segment turned past it
CUT_TRIES = 16            # cut moves judged on the whole board at most
BISECT_STEPS = 8          # whole-board judgements to find that move at most
STALE_MM = 80.0           # a kept move makes the refused moves of points this close worth trying again
GLOBAL_START = 3          # its round's weights (the checks' terms 2.5^3 times their first weight)
GLOBAL_NFEV = 30          # its evaluations (a direction for the moves, not an answer)
GN_STEPS = 12             # Gauss-Newton steps of a point's target at most
ANGLE_WEIGHT = 20.0       # a radian the fan of a station lacks weighs as this many mm of gap
PULL = 1                  # a point pulled along the widest route over its aim through it (_pulls): how many routes
MITRE_LIMIT = 3.0         # the tracks' offset curves' mitre limit (mapkit.geometry), in offsets from the bend
LMIN_WEIGHT = 3.0         # a route drawn too short weighs this much per mm of length, against a gap's mm
GROUP_RADIUS_MM = 30.0    # ... the free bends within this of the station (its routes over: their points left out)
GROUP_TRIES = 3           # ... judged tries of one station's group moves at most (after its single moves)
GROUP_FRACTIONS = (1.0, 0.5)   # ... of the vector, tried in this order
FAN_MEMO = 50000          # station fans remembered (_fresh_needs) at most


def route_sums(cnt) -> Callable[[np.ndarray], np.ndarray]:
    """A function of the segments' lengths h (the routes' segments one after another, cnt[m] of
    route m, each at least one) to each route's length, the very floats of each route's own
    np.sum: under 8 segments a row of the route's segment indices padded with one index to a 0.0
    (numpy's sum adds a row in order, and 0.0s at its end change nothing); longer lines the sum of
    each route's slice (the same additions as its own array's). Made once for many h."""
    cnt = [int(c) for c in cnt]
    first = np.concatenate([[0], np.cumsum(cnt)[:-1]]).astype(int).tolist()
    wide = max(cnt)
    if wide < 8:
        rows = np.full((len(cnt), wide), sum(cnt), dtype=int)
        for m_, (f_, c_) in enumerate(zip(first, cnt)):
            rows[m_, :c_] = np.arange(f_, f_ + c_)
        return lambda h: np.append(h, 0.0)[rows].sum(axis=1)
    return lambda h: np.array([float(h[f_:f_ + c_].sum()) for f_, c_ in zip(first, cnt)])


def track_extra(pts: np.ndarray, offset: float) -> float:
    """How much longer a double's longer track is than its centreline (track_extras)."""
    return max(*track_extras(pts, offset), 0.0)


def track_extras(pts: np.ndarray, offset: float) -> tuple[float, float]:
    """How much longer each track of a double is than its centreline (points pts; below 0: shorter),
    (left, right): each track is its centreline offset to one side by `offset`, as mapkit.geometry
    draws it (shapely's offset curve, mitred, mitre limit 3, square ends); at a bend turning by phi
    the inner track is 2 tan(phi/2) x offset shorter, the outer one as much longer, less what the
    mitre limit clips off a sharp turn. (A track whose inner side folds over itself, short segments
    round a sharp turn, is not modelled: the geometry keeps the centreline there.)"""
    if len(pts) < 3:
        return 0.0, 0.0
    v = np.diff(pts, axis=0)
    a, b = v[:-1], v[1:]
    turn = np.arctan2(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0], (a * b).sum(1))
    h = np.abs(turn) / 2
    inner = 2 * offset * np.tan(h)
    clip = np.maximum(offset / np.maximum(np.cos(h), 1e-6) - MITRE_LIMIT * offset, 0.0)
    outer = inner - 2 * clip * (1 - np.cos(h)) / np.maximum(np.sin(h), 1e-6)
    left = np.where(turn > 0, -inner, outer).sum()    # (a left turn: the left track is inside)
    right = np.where(turn > 0, outer, -inner).sum()
    return float(left), float(right)


class Tighten:
    """The tightening of one board (tighten). Its kinds of move, each on unless turned off here (a
    test takes one out to see what the others do alone): cuts, slides of one side of the drawing
    across a line (cut_moves), first; shrink, the factors the whole drawing is drawn in by towards
    its centre (the best kept; () for none); bisect, a sweep the whole board refuses keeps its moves
    before the first refused one (run; off: the sweep is undone whole and the step stops); group, a
    station moved with its neighbours by one vector when no single move was kept (_groups)."""

    def __init__(self, rp, w=None, style: str = "geographic", sizes=None, sides: bool = True, *,
                 cuts: bool = True, shrink: tuple = SHRINK, bisect: bool = True, group: bool = True):
        self.rp, self.net, self.dr = rp, rp.net, rp.dr
        self.sides = sides   # the moves of one side of the board or the whole drawing (cuts, shrink)
        self.cuts, self.shrink_factors, self.bisect, self.group = cuts, tuple(shrink), bisect, group
        # the label sizes whose room a move must keep (labelroom.room_counts): every one of
        # labelroom.ROOM_SIZES unless sizes says (a station without room at 10 pt keeps its room at
        # 7 and 8 pt, where the renderer places it)
        self.retighten = sizes is not None
        self.sizes = ROOM_SIZES if sizes is None else tuple(sizes)
        self.w, self.style = w, style
        net = self.net
        ph = net.board.physical
        self.r = net.radius
        # the aim of each bundle (flights: none, their spaces spread along a path of their own)
        # (the gaps between spaces: an end at a narrow fan gets the room its first space needs from
        # the placement itself, mapkit.geometry.space_placement, so no route's aim is widened for it)
        self.ks = [k for k, b in enumerate(net.bundles) if not b.flight]
        self.aim = {k: GAP_AIM_MM for k in self.ks}
        self.sl = ph.space_length_mm
        self.gmin = ph.space_gap_mm
        # a double's two tracks are its centreline offset to each side (geometry: shapely's mitred
        # offset curve): at each bend the outer track is longer, and its spaces spread over that
        self.track = {k: ph.space_width_mm / 2 + 1 for k, b in enumerate(net.bundles)
                      if len(b.routes) == 2 and k in self.aim}
        self._needs_key, self._needs = None, None
        self._fans: dict = {}   # _fresh_needs: a station's bands -> station_fan's needs
        self._nstate = None   # _fresh_needs' state: the positions, lines, bundles' evens and angles, needs
        self.tries = 0
        self.max_tries = min(MAX_TRIES, TRIES_PER_STATION * net.n)
        self.kept = 0
        self.banned: set = set()   # points whose move the whole board refused after a sweep (not moved again)
        self.sweeps = 0
        self.undone = 0   # moves kept on their part of the board, undone with their sweep (the whole board refused it)
        self.kinds = {"cut": 0, "global": 0, "point": 0, "unbend": 0, "pull": 0, "group": 0}
        self.targets = None
        self.stale: set = set()   # (kind, point) of moves refused since nothing near them moved
        self.refused = {"off-board": 0, "fill": 0, "checks": 0, "labels": 0}   # why moves were not kept

    # -- the objective ----------------------------------------------------------------------------
    def length(self, k, pos=None) -> float:
        """Bundle k's drawn length as its spaces are placed on it: its centreline, or for a double
        with bends its longer track (track_extra)."""
        pts = (self.dr.pos if pos is None else pos)[self.dr.lines[k]]
        L = float(np.hypot(*np.diff(pts, axis=0).T).sum())
        return L + track_extra(pts, self.track[k]) if k in self.track else L

    def centreline(self, k, pos=None) -> float:
        pts = (self.dr.pos if pos is None else pos)[self.dr.lines[k]]
        return float(np.hypot(*np.diff(pts, axis=0).T).sum())

    def needs(self) -> list[tuple[float, float]]:
        """What each bundle's ends (line[0], line[-1]) need, as drawn now (geometry.fan_needs on the
        bundles' first segments; the double's two tracks are one band, as the geometry has them)."""
        dr = self.dr
        key = (dr.pos.tobytes(), sum(map(len, dr.lines)))   # (a bend taken out: one point fewer)
        if key != self._needs_key:
            self._needs = self._fresh_needs()
            self._needs_key = key
        return self._needs

    def _fresh_needs(self) -> list[tuple[float, float]]:
        """needs() recomputed only round the stations whose fans changed: a station's needs depend
        only on its own bands (the angle of each bundle's first segment there, its half-width, its
        even gap), so only the fans at the ends of bundles with a moved point or a changed line are
        made again (the whole board's fan_needs at every moved point was 55 % of the 200-station
        bench board's time). Each station's fan is given to station_fan as the whole board's loop
        built it (its bundles in the same order, the same numbers), so the needs are identical."""
        dr, bundles = self.dr, self.net.bundles
        pos = dr.pos
        ns = self._nstate
        if ns is not None and ns["pos"].shape == pos.shape and dr.lines == ns["lists"]:
            # (the lines as they were: one comparison of the lists; only points moved)
            lines, ks = ns["lines"], set()
            through = ns["through"]
            for i in np.flatnonzero((pos != ns["pos"]).any(axis=1)).tolist():
                ks.update(through.get(i, ()))
        elif ns is None or ns["pos"].shape != pos.shape or len(dr.lines) != len(ns["lines"]) or any(
                a[0] != b[0] or a[-1] != b[-1] for a, b in zip(dr.lines, ns["lines"])):
            lines = [tuple(line) for line in dr.lines]
            ns = self._nstate = {"pos": None, "lines": lines, "even": [0.0] * len(bundles),
                                 "ang": [(0.0, 0.0)] * len(bundles), "out": [[0.0, 0.0] for _ in bundles],
                                 "res": [(0.0, 0.0)] * len(bundles)}
            ns["at"], ns["through"] = {}, {}
            for k, line in enumerate(lines):
                for s_ in sorted({line[0], line[-1]}):
                    ns["at"].setdefault(s_, []).append(k)
                for q in set(line):
                    ns["through"].setdefault(q, []).append(k)
            ks = set(range(len(bundles)))
        else:
            lines = [tuple(line) for line in dr.lines]
            ks = {k for k, (a, b) in enumerate(zip(lines, ns["lines"])) if a != b}
            if ks:   # a line changed (its ends did not): the points' bundles anew
                ns["lines"], ns["through"] = lines, {}
                for k, line in enumerate(lines):
                    for q in set(line):
                        ns["through"].setdefault(q, []).append(k)
            through = ns["through"]
            for i in np.flatnonzero((pos != ns["pos"]).any(axis=1)).tolist():
                ks.update(through.get(i, ()))
        ns["pos"] = pos.copy()
        if lines is not ns.get("of"):   # (the lists the fast path compares with, made when the lines were)
            ns["of"], ns["lists"] = lines, [list(line) for line in lines]
        even, ang = ns["even"], ns["ang"]
        stations = set()
        ks = sorted(ks)
        for k, L in zip(ks, self.centrelines(ks)):   # (centreline(k): the same floats)
            b, line = bundles[k], lines[k]
            even[k] = (L - 2 * self.r - b.length * self.sl) / (b.length + 1)
            v0, v1 = pos[line[1]] - pos[line[0]], pos[line[-2]] - pos[line[-1]]
            ang[k] = (math.atan2(v0[1], v0[0]), math.atan2(v1[1], v1[0]))
            stations.update((line[0], line[-1]))
        out, res = ns["out"], ns["res"]
        fans = self._fans
        if len(fans) > FAN_MEMO:
            fans.clear()
        for s_ in stations:
            bands = {}   # bundle -> (its end here, angle, half-width, even gap)
            for k in ns["at"][s_]:   # ascending, as the whole board's loop put them at s_
                line = lines[k]
                for end, e in ((0, line[0]), (1, line[-1])):
                    if e == s_:   # (a loop's end 1 overwrites its end 0, as there)
                        bands[k] = (end, ang[k][end], bundles[k].half_width, even[k])
            fan = tuple(v[1:] for v in bands.values())
            got = fans.get(fan)
            if got is None:   # (the same fan met again, a move put back: the same needs)
                got = fans[fan] = station_fan(list(fan), self.r, self.gmin)
            for (k, v), need in zip(bands.items(), got):
                out[k][v[0]] = need
            for k in bands:
                res[k] = tuple(out[k])
        return list(res)

    def placed(self, ks, L, needs=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(gap at line[0]'s end, gap between spaces, gap at line[-1]'s end) of bundles ks drawn L
        long, as mapkit.geometry.space_placement places their spaces (arrays)."""
        if needs is None:
            needs = self.needs()
        n = np.array([self.net.bundles[k].length for k in ks], dtype=float)
        na = np.array([needs[k][0] for k in ks])
        nb = np.array([needs[k][1] for k in ks])
        return space_placement_arrays(np.asarray(L, dtype=float) - 2 * self.r, n, self.sl, self.gmin, na, nb)

    def gap(self, k, L, needs=None) -> float:
        """Bundle k's gap between spaces drawn L long (an end at a narrow fan holds its need; needs:
        self.needs() when the caller has it already)."""
        n = self.net.bundles[k].length
        return space_placement(L - 2 * self.r, n, self.sl, self.gmin, *(self.needs() if needs is None else needs)[k])[1]

    def widest(self, k, pos=None, needs=None) -> float:
        """Bundle k's gap between spaces as drawn: a double's wider one of its two tracks' (the
        shorter track of a double with bends may be too short to hold its ends' needs, and then has
        the even spread, wider)."""
        if needs is None:
            needs = self.needs()
        if k not in self.track:
            return self.gap(k, self.length(k, pos), needs)
        pts = (self.dr.pos if pos is None else pos)[self.dr.lines[k]]
        L = float(np.hypot(*np.diff(pts, axis=0).T).sum())
        return max(self.gap(k, L + e, needs) for e in track_extras(pts, self.track[k]))

    def excess(self, ks, pos=None) -> float:
        """The gap excess of these bundles: the sum of each one's gap above its aim (mm)."""
        out = 0.0
        needs = self.needs()
        for k in ks:
            if k in self.aim:
                out += max(self.widest(k, pos, needs) - self.aim[k], 0.0)
        return out

    def over(self, ks) -> int:
        """How many of these bundles have gaps wider than their aim allows (the figure routes_over_gap
        counts a gap over 6 mm: the aim is GAP_AIM_MM inside it)."""
        needs = self.needs()
        return sum(self.widest(k, None, needs) > self.aim[k] + (OVER_MM - GAP_AIM_MM) for k in ks if k in self.aim)

    def over_set(self, ks) -> set[int] | None:
        """Which of these bundles are over (as over counts them), for a move without sides (--refine)
        to leave no route over that was not: the stations moved stay the ends of routes over 6 mm
        on the board given. None with sides (a route drawn in may leave another over in its place,
        the count no higher)."""
        if self.sides:
            return None
        needs = self.needs()
        return {k for k in ks if k in self.aim and self.widest(k, None, needs) > self.aim[k] + (OVER_MM - GAP_AIM_MM)}

    def centrelines(self, ks, pos=None) -> list[float]:
        """centreline(k, pos) of each of ks, the same floats, from one array call on all their
        segments (route_sums)."""
        if not ks:
            return []
        pos = self.dr.pos if pos is None else pos
        lines = [self.dr.lines[k] for k in ks]
        cnt = [len(line) - 1 for line in lines]
        idx = np.array([q for line in lines for q in line])
        last = np.zeros(len(idx), dtype=bool)
        last[np.cumsum(np.array(cnt) + 1) - 1] = True
        D = pos[idx[1:]] - pos[idx[:-1]]   # (a line's last point to the next's first: left out below)
        return route_sums(cnt)(np.hypot(D[:, 0], D[:, 1])[~last[:-1]]).tolist()

    def badness(self, ks) -> tuple[int, float]:
        """What a move must lessen: routes over first, then the excess (over and excess, each
        bundle's gap read once; widest's arithmetic, the centrelines at once)."""
        over, out = 0, 0.0
        needs = self.needs()
        mine = [k for k in ks if k in self.aim]
        pos = self.dr.pos
        for k, L in zip(mine, self.centrelines(mine)):
            if k in self.track:
                pts = pos[self.dr.lines[k]]
                g = max(self.gap(k, L + e, needs) for e in track_extras(pts, self.track[k]))
            else:
                g = self.gap(k, L, needs)
            over += g > self.aim[k] + (OVER_MM - GAP_AIM_MM)
            out += max(g - self.aim[k], 0.0)
        return over, out

    def better(self, new, old) -> bool:
        return new[0] < old[0] or (new[0] == old[0] and new[1] < old[1] - MIN_GAIN)

    def directions(self, ks, pos=None) -> float:
        """How far these bundles' directions (station to station) are from what the style asks
        (rad²): their real bearings in the geographic style (the figure direction_error_deg_*),
        the nearest multiple of 45° in the schematic one."""
        ks = [k for k in ks if k in self.aim]
        if not ks:
            return 0.0
        pos = self.dr.pos if pos is None else pos
        a = np.array([self.net.bundles[k].a for k in ks], dtype=int)
        b = np.array([self.net.bundles[k].b for k in ks], dtype=int)
        d = pos[b] - pos[a]
        if self.style == "schematic":
            off = np.mod(np.arctan2(d[:, 1], d[:, 0]), np.pi / 4)
            return float((np.minimum(off, np.pi / 4 - off) ** 2).sum())
        return float((self.bearing_errors(ks, pos) ** 2).sum())

    def bearing_errors(self, ks, pos=None) -> np.ndarray:
        """Each bundle's direction (station to station) off its real bearing, radians, signed."""
        pos = self.dr.pos if pos is None else pos
        a = np.array([self.net.bundles[k].a for k in ks], dtype=int)
        b = np.array([self.net.bundles[k].b for k in ks], dtype=int)
        d, g = pos[b] - pos[a], self.net.geo[b] - self.net.geo[a]
        return np.arctan2(g[:, 0] * d[:, 1] - g[:, 1] * d[:, 0], (g * d).sum(1))

    def turns_ok(self, ks, before: float) -> bool:
        """The moved routes' directions no farther from what the style asks than before, beyond
        TURN_SLACK_DEG a route (none in the schematic style: its directions are its point)."""
        slack = 0.0 if self.style == "schematic" else np.radians(TURN_SLACK_DEG) ** 2 * len(ks)
        return self.directions(ks) <= before + slack + 1e-12

    def through(self, i) -> list[int]:
        """The bundles (flights left out) whose line goes through point i."""
        if not hasattr(self, "_through"):
            self._through = {}
            for k in self.ks:
                for q in self.dr.lines[k]:
                    self._through.setdefault(q, []).append(k)
        return self._through.get(i, [])

    def _reset_through(self) -> None:
        if hasattr(self, "_through"):
            del self._through

    # -- the moves --------------------------------------------------------------------------------
    def _fan(self, s) -> list[tuple[int, int]]:
        """The pairs of bundles (flights left out) next to each other round station s, as drawn."""
        ks = self.net.at_station(s)
        if len(ks) < 2:
            return []
        pos = self.dr.pos
        ang = []
        for k in ks:
            line = self.dr.lines[k]
            q = line[1] if line[0] == s else line[-2]
            v = pos[q] - pos[s]
            ang.append((float(np.arctan2(v[1], v[0])), k))
        ang.sort()
        order = [k for _, k in ang]
        if len(order) == 2:
            return [(order[0], order[1])]
        return [(order[m], order[(m + 1) % len(order)]) for m in range(len(order))]

    def _target(self, i) -> np.ndarray | None:
        """Where point i's routes have the least excess (with a weak pull to where it is): damped
        Gauss-Newton on a handful of hinge residuals: each route through i, its gap above its aim
        and its length below what its spaces need; each pair of routes next to each other round a
        station at an end of a segment that moves, the angle their first spaces need (at the gaps
        the move gives them) above the angle drawn, never more than the board holds now (the checks'
        space overlap where routes leave a station: a shorter route starts its spaces nearer the
        station, and they need a wider angle). None when it stays where it is."""
        pos, net, dr = self.dr.pos, self.net, self.dr
        ks = self.through(i)
        if not ks:
            return None
        x0 = pos[i].copy()
        lines = {k: dr.lines[k] for k in ks}
        # the stations whose fans the move turns: i itself, and the stations next to it on its routes
        hubs = set()
        if i < net.n:
            hubs.add(i)
        for k in ks:
            line = lines[k]
            j = line.index(i)
            for q in (line[j - 1] if j > 0 else None, line[j + 1] if j + 1 < len(line) else None):
                if q is not None and q < net.n:
                    hubs.add(q)
        pairs = [(s, a, b) for s in sorted(hubs) for a, b in self._fan(s)
                 if a in lines or b in lines or s == i]
        # as index arrays: the bundles through i (their lengths move), and every pair's two first
        # segments (station, next point) and gaps, the ones through i read from the moving lengths
        mine = {k: m for m, k in enumerate(ks)}
        nk = len(ks)
        seg_pts = [np.array(lines[k]) for k in ks]
        offs = [self.track.get(k, 0.0) for k in ks]
        n_sp = np.array([net.bundles[k].length for k in ks], dtype=float)
        aim = np.array([self.aim[k] for k in ks])
        lmin = np.array([net.bundles[k].lmin + LMIN_MARGIN_MM for k in ks])
        S, QA, QB, GA, GB, HA, HB = [], [], [], [], [], [], []
        for s_, a, b in pairs:
            for k, Q, G, H in ((a, QA, GA, HA), (b, QB, GB, HB)):
                line = dr.lines[k]
                Q.append(line[1] if line[0] == s_ else line[-2])
                G.append(mine.get(k, -1))
                H.append(net.bundles[k].half_width + HALF_EXTRA_MM)
            S.append(s_)
        S, QA, QB, GA, GB = (np.array(v, dtype=int) for v in (S, QA, QB, GA, GB))
        HA, HB = np.array(HA), np.array(HB)
        # each pair's two ends: the first space's gap from the station (as placed), end 0 or 1 of its line
        EA = np.array([0 if dr.lines[a][0] == s_ else 1 for s_, a, b in pairs], dtype=int)
        EB = np.array([0 if dr.lines[b][0] == s_ else 1 for s_, a, b in pairs], dtype=int)
        fixed_g = np.zeros((len(pairs), 2))
        for m_, (s_, a, b) in enumerate(pairs):
            for c, (k, e) in enumerate(((a, EA[m_]), (b, EB[m_]))):
                if k not in mine:
                    fixed_g[m_, c] = self.placed([k], [self.length(k)])[2 * e][0]
        P = pos.copy()
        # placed(ks, .)'s arrays, made once (the needs are the drawing's: values moves P, a copy)
        needs = self.needs()
        na = np.array([needs[k][0] for k in ks])
        nb = np.array([needs[k][1] for k in ks])
        # every route's segments at once: (start, end) point of each, summed per route (route_sums)
        sa_ = np.concatenate([seg[:-1] for seg in seg_pts])
        sb_ = np.concatenate([seg[1:] for seg in seg_pts])
        lengths = route_sums([len(seg) - 1 for seg in seg_pts])
        doubles = [(m_, seg, off) for m_, (seg, off) in enumerate(zip(seg_pts, offs)) if off]

        def values(xy):
            P[i] = xy
            D = P[sb_] - P[sa_]
            L = lengths(np.hypot(D[:, 0], D[:, 1]))
            if doubles:   # (a single's track_extra is 0: its offset is 0)
                extra = np.zeros(nk)
                for m_, seg, off in doubles:
                    extra[m_] = track_extra(P[seg], off)
                Lt = L + extra
            else:
                Lt = L
            e0, g, e1 = space_placement_arrays(Lt - 2 * self.r, n_sp, self.sl, self.gmin, na, nb)
            ends = np.stack([e0, e1])
            out = np.empty(2 * nk + len(S) + 2)
            out[0:2 * nk:2] = np.maximum(g - aim, 0.0)
            out[1:2 * nk:2] = LMIN_WEIGHT * np.maximum(lmin - L, 0.0)
            if len(S):
                u, v = P[QA] - P[S], P[QB] - P[S]
                theta = np.arctan2(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0], (u * v).sum(1)) % (2 * np.pi)
                ga = np.where(GA >= 0, ends[EA, np.maximum(GA, 0)], fixed_g[:, 0])
                gb = np.where(GB >= 0, ends[EB, np.maximum(GB, 0)], fixed_g[:, 1])
                need = need_of(self.r + np.maximum(ga, 0.0), self.r + np.maximum(gb, 0.0), HA, HB) + ANGLE_CLEAR
                out[2 * nk:2 * nk + len(S)] = need - theta
            out[-2:] = ANCHOR * (xy - x0)
            return out

        raw0 = values(x0)
        m = 2 * len(ks)
        slack = np.maximum(raw0[m:m + len(pairs)], 0.0)   # a fan the model finds short now (the checks pass it) may stay so

        def resid(xy):
            v = values(xy)
            v[m:m + len(pairs)] = ANGLE_WEIGHT * np.maximum(v[m:m + len(pairs)] - slack, 0.0)
            return v

        def jac(xy, r):
            J = np.empty((len(r), 2))
            for d in range(2):
                e = np.zeros(2)
                e[d] = 1e-4
                J[:, d] = (resid(xy + e) - r) / 1e-4
            return J

        xc, lam = x0.copy(), 1e-3
        r = resid(xc)
        cost = float(r @ r)
        for _ in range(GN_STEPS):
            J = jac(xc, r)
            step = np.linalg.solve(J.T @ J + lam * np.eye(2), -J.T @ r)
            xn = xc + step
            rn = resid(xn)
            cn = float(rn @ rn)
            if cn < cost:
                xc, r, cost, lam = xn, rn, cn, lam * 0.3
                if float(np.linalg.norm(step)) < 0.02:
                    break
            else:
                lam *= 10
        return None if float(np.linalg.norm(xc - x0)) < 0.05 else xc

    # -- the judge --------------------------------------------------------------------------------
    def _near(self, centres) -> set[str]:
        """The stations whose label room a move can change: those near the moved points or along
        the lines through them, before or after (centres: Repair._centres of both)."""
        st = self.dr.pos[: self.net.n]
        d = np.min(np.linalg.norm(st[:, None, :] - centres[None], axis=2), axis=1)
        return {self.net.ids[q] for q in np.flatnonzero(d < LABEL_REACH_MM)}

    def judge_point(self, i, new, span) -> bool:
        """Point i moved to `new`, kept if the checks find nothing more on the part of the board it
        changes, the stations near it keep their label room and the fill holds; else put back
        (judge_group of the one point)."""
        return self.judge_group(np.array([i]), np.asarray(new, dtype=float)[None], span)

    def global_targets(self) -> np.ndarray | None:
        """Every free point where the whole board's optimization puts it with the gaps held at their
        aims (from the clean board, the checks' terms at their heaviest): a coordinated target the
        points are moved towards one at a time, each judged (the optimization alone leaves problems)."""
        if self.w is None:
            return None
        dr = self.dr
        local = Drawing(dr.pos.copy(), dr.n_stations, [list(line) for line in dr.lines], dr.free.copy(),
                        bounds=dr.bounds, anchor=dr.anchor, fill_box=dr.fill_box)
        w = replace(self.w, order=0.0)
        run_rounds(self.rule_net(), local, w, self.style, rounds=1, start=GLOBAL_START, max_nfev=GLOBAL_NFEV)
        return local.pos

    def try_point(self, i, span) -> bool:
        ks = self.through(i)
        before = self.badness(ks)
        if before[1] <= MIN_GAIN:
            return False
        def targets():   # in this order, each made only when the ones before it kept nothing
            if self.targets is not None and i < len(self.targets) and \
                    float(np.linalg.norm(self.targets[i] - self.dr.pos[i])) > 0.05:
                yield "global", self.targets[i]
            own = self._target(i)
            if own is not None:
                yield "point", own
            if PULL:
                yield from (("pull", t) for t in self._pulls(i, ks))

        tried = 0
        old = self.dr.pos[i].copy()
        turned = self.directions(ks)
        was = self.over_set(ks)
        seen = []   # the targets tried, for the group moves
        for kind, target in targets():
            seen.append(target)
            for f in FRACTIONS:
                if tried >= TRIES_PER_POINT or self.tries >= self.max_tries:
                    return False
                new = self._clipped(old + f * (target - old))
                self.dr.pos[i] = new
                better = self.better(self.badness(ks), before) and self.turns_ok(ks, turned) and \
                    (was is None or self.over_set(ks) <= was)
                self.dr.pos[i] = old
                if not better:
                    continue
                tried += 1
                if self.judge_point(i, new, span):
                    self.kinds[kind] += 1
                    return True
        if i >= self.net.n and tried < TRIES_PER_POINT and self.tries < self.max_tries:
            return self.try_unbend(i, span)
        if self.group and i < self.net.n and self.tries < self.max_tries:
            return self.try_group(i, ks, [t - old for t in seen], span)
        return False

    def _groups(self, i, ks) -> list[np.ndarray]:
        """The points moved with station i: (1) the first bend of each of its routes that is not
        over 6 mm, (2) every free bend within GROUP_RADIUS_MM of it (other stations stay: their
        own moves are theirs); the points of its routes over 6 mm other than i left out of both
        (those routes are drawn in by the move)."""
        dr, net = self.dr, self.net
        limit = OVER_MM - GAP_AIM_MM
        needs = self.needs()
        over = [k for k in ks if self.widest(k, None, needs) > self.aim[k] + limit]
        if not over:
            return []
        keep_out = {q for k in over for q in self.dr.lines[k]} - {i}
        out = []
        bends = set()
        for k in ks:
            if k in over:
                continue
            line = dr.lines[k]
            q = line[1] if line[0] == i else (line[-2] if line[-1] == i else None)
            if q is not None and q >= net.n and dr.free[q] and q not in keep_out:
                bends.add(q)
        if bends:
            out.append(np.array(sorted({i} | bends), dtype=int))
        pts = np.array(sorted({q for k in self.ks for q in dr.lines[k]}), dtype=int)
        d = np.linalg.norm(dr.pos[pts] - dr.pos[i], axis=1)
        disc = {int(q) for q in pts[d < GROUP_RADIUS_MM]
                if q >= net.n and dr.free[q] and int(q) not in keep_out} | {i}
        if len(disc) > 1 and (not out or disc != set(out[0].tolist())):
            out.append(np.array(sorted(disc), dtype=int))
        return out

    def try_group(self, i, ks, shifts, span) -> bool:
        """Station i and its neighbours (_groups) moved by one vector: the steps of i's targets
        (global, own, pulls), GROUP_FRACTIONS of each; judged like a point's move on every route
        through a moved point (fewer over or less excess, the turns), the checks on the part of the
        board it changes, the label room near it, the fill. Where every single target of i lengthens
        another route through i as much as it shortens this one, a neighbour moved with it keeps that
        route's length."""
        dr = self.dr
        shifts = [s_ for s_ in shifts if float(np.hypot(*s_)) > 0.05]
        if not shifts:
            return False
        tried = 0
        for grp in self._groups(i, ks):
            gks = sorted({k for q in grp.tolist() for k in self.through(q)})
            before = self.badness(gks)
            turned = self.directions(gks)
            was = self.over_set(gks)
            old = dr.pos[grp].copy()
            for shift in shifts:
                for f in GROUP_FRACTIONS:
                    if tried >= GROUP_TRIES or self.tries >= self.max_tries:
                        return False
                    new = old + f * shift
                    dr.pos[grp] = new
                    better = self.better(self.badness(gks), before) and self.turns_ok(gks, turned) and \
                        (was is None or self.over_set(gks) <= was)
                    dr.pos[grp] = old
                    if not better:
                        continue
                    tried += 1
                    if self.judge_group(grp, new, span):
                        self.kinds["group"] += 1
                        return True
        return False

    def judge_group(self, idx, new, span) -> bool:
        """Points idx (an index array) moved to `new` (one row each): kept if the checks find
        nothing more on the part of the board they change, the stations near them keep their label
        room and the fill holds; else put back."""
        rp, dr = self.rp, self.dr
        old = dr.pos[idx].copy()
        if not all(rp._inside(xy) for xy in new):
            self.refused["off-board"] += 1
            return False
        plist = idx.tolist()
        before_centres = rp._centres(plist)
        dr.pos[idx] = new
        if not fill_kept(dr, span):
            dr.pos[idx] = old
            self.refused["fill"] += 1
            return False
        centres = np.vstack([before_centres, rp._centres(plist)])
        part = rp.select(centres, REACH_MM)
        self.tries += 1
        sub = rp.view(part)
        found = rank(sub.problems())
        if found[1]:
            dr.pos[idx] = old
            base = rank(rp.view(part).problems())
            dr.pos[idx] = new
            if found > base:
                dr.pos[idx] = old
                self.refused["checks"] += 1
                return False
        near = self._near(centres)
        lacking = room_counts(sub, near, sizes=self.sizes)
        if any(lacking):
            dr.pos[idx] = old
            room = room_counts(rp.view(part), near, sizes=self.sizes)
            dr.pos[idx] = new
            if worse_room(lacking, room):
                dr.pos[idx] = old
                self.refused["labels"] += 1
                return False
        return True

    def _pulls(self, i, ks) -> list[np.ndarray]:
        """Point i moved straight along the route over its aim through it (the widest first,
        PULL of them) by as much as its gaps' excess: a station towards its next point on that
        route, a bend onto its neighbours' chord. The point's own target weighs every route and
        fan round it and often stays put where one route is far over; this move is judged the same
        way (the routes through i fewer over or less excess, the checks, the labels, the turns)."""
        dr, pos = self.dr, self.dr.pos
        over = []
        for k in ks:
            L = self.length(k)
            g = self.gap(k, L)
            if g > self.aim[k] + (OVER_MM - GAP_AIM_MM):
                over.append((-(g - self.aim[k]), k, L, g))
        out = []
        for _, k, L, g in sorted(over)[:PULL]:
            line, n = dr.lines[k], self.net.bundles[k].length
            j = line.index(i)
            even = space_placement(L - 2 * self.r, n, self.sl, self.gmin, 0.0, 0.0)[1]
            spread = n + 1 if abs(even - g) < 1e-9 else max(n - 1, 1)   # the gaps the excess is spread over
            cut = min((g - self.aim[k]) * spread, self.centreline(k) - self.net.bundles[k].lmin - LMIN_MARGIN_MM)
            if cut <= 0.05:
                continue
            if j == 0 or j == len(line) - 1:
                q = line[1] if j == 0 else line[-2]
                d = pos[q] - pos[i]
                dist = float(np.hypot(*d))
                if dist > 1e-6:
                    out.append(pos[i] + d / dist * min(cut, dist / 2))
            else:
                a, b = pos[line[j - 1]], pos[line[j + 1]]
                ab = b - a
                t = float(np.clip((pos[i] - a) @ ab / max(float(ab @ ab), 1e-9), 0.0, 1.0))
                foot = a + t * ab
                d = foot - pos[i]
                dist = float(np.hypot(*d))
                if dist > 1e-6:
                    # (a bend's move towards the chord shortens its route by less than the move)
                    out.append(pos[i] + d / dist * min(cut, dist))
        return out

    def _clipped(self, xy) -> np.ndarray:
        b = self.dr.bounds
        return xy if b is None else np.clip(xy, [b[0], b[1]], [b[2], b[3]])

    def try_unbend(self, w, span) -> bool:
        """Bend w taken out of its route where the route is too long with it and long enough without."""
        dr = self.dr
        ks = self.through(w)
        if len(ks) != 1 or not dr.free[w]:
            return False
        k = ks[0]
        line = dr.lines[k]
        before = self.badness(ks)
        j = line.index(w)
        line.pop(j)
        L = self.centreline(k)
        ok = L >= self.net.bundles[k].lmin + LMIN_MARGIN_MM and self.better(self.badness(ks), before)
        if ok:
            # judged as the route's neighbours moving onto its new line: the part round both lines
            rp = self.rp
            centres = rp._centres([line[j - 1], line[j]])
            line.insert(j, w)
            centres = np.vstack([centres, rp._centres([w])])
            line.pop(j)
            part = rp.select(centres, REACH_MM)
            self.tries += 1
            found = rank(rp.view(part).problems())
            line.insert(j, w)
            base = rank(rp.view(part).problems()) if found[1] else found
            line.pop(j)
            near = self._near(centres)
            if found <= base:
                lacking = room_counts(rp.view(part), near, sizes=self.sizes)
                if any(lacking):
                    line.insert(j, w)
                    room = room_counts(rp.view(part), near, sizes=self.sizes)
                    line.pop(j)
                    ok = not worse_room(lacking, room)
            else:
                ok = False
        if not ok:
            line.insert(j, w)
            return False
        self.kinds["unbend"] += 1
        dr.free[w] = False   # no longer on any line (build_result writes only the lines' points)
        self._reset_through()
        return True

    def shrink(self) -> float | None:
        """The whole drawing drawn in towards the stations' centre by the largest of its factors (SHRINK) that keeps
        every route its spaces' length, the fill, the checks and the label room; the factor or None."""
        rp, dr, net = self.rp, self.dr, self.net
        free = dr.free.copy()
        if not free[: net.n].all() or not self.ks:
            return None   # pinned or kept stations fix the scale
        Ls = np.array([self.centreline(k) for k in self.ks])
        need = np.array([net.bundles[k].lmin + LMIN_MARGIN_MM for k in self.ks])
        lowest = float(np.max(need / Ls))
        st = dr.pos[: net.n]
        c = (st.min(0) + st.max(0)) / 2
        before = self.badness(self.ks)
        base = rank(rp.full())
        room = self.lacking()
        saved = dr.pos.copy()
        for f in self.shrink_factors:
            if f < lowest:
                break
            dr.pos = saved.copy()
            dr.pos[free] = (saved[free] - c) * f + c
            span = station_span(dr)
            if dr.fill_box is not None and (span < np.asarray(dr.fill_box, dtype=float)).any():
                continue
            if not self.better(self.badness(self.ks), before):
                continue
            self.tries += 1
            if self._confirmed(base, room):
                return f
        dr.pos = saved
        return None

    def rule_net(self):
        """The network with each bundle's longest drawing at its aim, held as the gap rule holds it
        (the optimizer's lmax): for the whole board's targets (global_targets)."""
        if getattr(self, "_rule_net", None) is None:
            ph = self.net.board.physical
            bundles = [replace(b, gap_max=self.aim[k] + CROWD_MARGIN_MM,
                               lsoft=min(b.lsoft, max(b.lmin + 1.0, drawn_mm_at_gap(b.length, ph, self.aim[k]))))
                       if k in self.aim else b for k, b in enumerate(self.net.bundles)]
            self._rule_net = replace(self.net, gap_rule=True, bundles=bundles, order_rows=None, _at=None)
        return self._rule_net

    def cut_moves(self) -> list[tuple[tuple[int, float], np.ndarray, np.ndarray, float]]:
        """Slides of one side of the drawing towards the other: a line across the board (at right
        angles to one of CUT_DIRECTIONS, between two points' projections) and every point on one
        side of it moved towards it by delta. Every route crossing the line gets shorter (its far
        part comes nearer along the line's normal) and no other route changes length: a cut where
        the crossing routes have room to lose takes excess out of all of them at once (the uniform
        shrink is every cut together, and stops at the first route already as short as its spaces
        allow). Those that take out something and keep every route its spaces' length and the fill,
        best first (routes over, then the excess): (gain, moved point indices, shift, delta)."""
        dr, net = self.dr, self.net
        pts = np.array(sorted({q for k in self.ks for q in dr.lines[k]} | set(range(net.n))), dtype=int)
        if not dr.free[pts].all():
            return []   # pinned or kept points: no side slides (they fix the scale)
        P = dr.pos
        segs = [(m, a, b) for m, k in enumerate(self.ks) for a, b in zip(dr.lines[k][:-1], dr.lines[k][1:])]
        sa = np.array([a for _, a, _ in segs], dtype=int)
        sb = np.array([b for _, _, b in segs], dtype=int)
        sm = np.array([m for m, _, _ in segs], dtype=int)
        L = np.array([self.length(k) for k in self.ks])
        aim = np.array([self.aim[k] for k in self.ks])
        # no route shorter than its spaces' length and the margin (one already nearer: no shorter)
        floor = np.minimum(np.array([net.bundles[k].lmin + LMIN_MARGIN_MM for k in self.ks]),
                           np.array([self.centreline(k) for k in self.ks])) - 1e-9
        limit = aim + (OVER_MM - GAP_AIM_MM)
        # placed(self.ks, .)'s arrays, made once (the drawing does not change here)
        needs = self.needs()
        n_sp = np.array([net.bundles[k].length for k in self.ks], dtype=float)
        na = np.array([needs[k][0] for k in self.ks])
        nb = np.array([needs[k][1] for k in self.ks])

        def gaps(lengths):
            return space_placement_arrays(lengths - 2 * self.r, n_sp, self.sl, self.gmin, na, nb)[1]

        g0 = gaps(L)
        over0, ex0 = int((g0 > limit).sum()), float(np.maximum(g0 - aim, 0.0).sum())
        st = P[: net.n]
        need_span = None if dr.fill_box is None else \
            np.minimum(st.max(0) - st.min(0), np.asarray(dr.fill_box, dtype=float)) - 1e-9
        out = []
        for deg in CUT_DIRECTIONS:
            u = np.array([np.cos(np.radians(deg)), np.sin(np.radians(deg))])
            order = np.unique(np.round(P[pts] @ u, 3))
            cuts = ((order[:-1] + order[1:]) / 2)[np.diff(order) > CUT_CLEAR_MM]
            pa, pb = P[sa] @ u, P[sb] @ u
            for c in cuts:
                for side in (1.0, -1.0):   # the points beyond the line slide back, or those before it forward
                    far_a, far_b = side * (pa - c) > 0, side * (pb - c) > 0
                    cross = far_a != far_b
                    if not cross.any():
                        continue
                    # each crossing segment from its near end to its far end
                    d = np.where(far_b[cross, None], P[sb[cross]] - P[sa[cross]], P[sa[cross]] - P[sb[cross]])
                    room = float((d @ (side * u)).min()) - CUT_CLEAR_MM   # no segment turned back past the line
                    moved = None
                    for delta in CUT_DELTAS_MM:
                        if delta > room:
                            break
                        dl = np.linalg.norm(d - delta * side * u, axis=1) - np.linalg.norm(d, axis=1)
                        L2 = L.copy()
                        np.add.at(L2, sm[cross], dl)
                        if (L2 < floor).any():
                            break
                        g2 = gaps(L2)
                        gain = (over0 - int((g2 > limit).sum()), ex0 - float(np.maximum(g2 - aim, 0.0).sum()))
                        if gain[0] < 0 or (gain[0] == 0 and gain[1] <= MIN_GAIN):
                            continue
                        if moved is None:
                            moved = pts[side * (P[pts] @ u - c) > 0]
                            ms = moved[moved < net.n]
                        if need_span is not None:
                            st2 = st.copy()
                            st2[ms] -= delta * side * u
                            if ((st2.max(0) - st2.min(0)) < need_span).any():
                                break
                        out.append((gain, moved, -delta * side * u, delta))
        out.sort(key=lambda m: (-m[0][0], -m[0][1], m[3], len(m[1])))
        # the two sides of one cut take out the same: only the side with fewer points moved
        seen, best = set(), []
        for m in out:
            key = (m[0][0], round(m[0][1], 6), m[3])
            if key not in seen:
                seen.add(key)
                best.append(m)
        return best

    def try_cuts(self) -> int:
        """The best cut moves (cut_moves), each judged on the whole board (its checks no worse, no
        fewer stations with label room, every point on the board), CUT_TRIES at most; the number kept."""
        rp, dr = self.rp, self.dr
        base = rank(rp.full())
        room = self.lacking()
        kept = tried = 0
        while tried < CUT_TRIES:
            for gain, moved, shift, delta in self.cut_moves()[:CUT_TRIES - tried]:
                tried += 1
                old = dr.pos.copy()
                dr.pos[moved] += shift
                side = set(moved.tolist())   # the routes with one station on each side turn
                turned = [k for k in self.ks if (self.net.bundles[k].a in side) != (self.net.bundles[k].b in side)]
                if all(rp._inside(dr.pos[q]) for q in moved) and self.turns_ok(turned, self.directions(turned, old)):
                    self.tries += 1
                    if self._confirmed(base, room):
                        kept += 1
                        self.kinds["cut"] += 1
                        break   # the drawing has changed: the cuts again
                dr.pos = old
            else:
                break   # none kept (or none left)
        return kept

    def _refresh(self, before) -> None:
        """After a kept move (the drawing was `before`): the moves refused near the points it moved
        may be kept now; the others would be judged on the same part of the board as before, with
        the same verdict, and are not tried again (self.stale)."""
        dr = self.dr
        n = min(len(before), len(dr.pos))
        moved = np.flatnonzero(np.any(before[:n] != dr.pos[:n], axis=1))
        if not len(moved) or not self.stale:
            return
        spots = np.vstack([before[moved], dr.pos[moved]])
        d = np.min(np.linalg.norm(dr.pos[:, None, :] - spots[None], axis=2), axis=1)
        near = set(np.flatnonzero(d < STALE_MM).tolist())
        self.stale = {key for key in self.stale if key[1] not in near}

    def _confirmed(self, base, room) -> bool:
        """The whole board's checks no worse than `base` and no station without label room it had (room)."""
        return rank(self.rp.full()) <= base and not worse_room(self.lacking(), room)

    def _restore(self, state) -> None:
        dr = self.dr
        dr.pos, dr.free, dr.lines = state[0].copy(), state[1].copy(), [list(line) for line in state[2]]
        self._reset_through()

    def lacking(self) -> tuple[int, ...]:
        """Stations of the whole board without label room at each of self.sizes
        (labelroom.room_counts): a move may not take a label's room at any of them."""
        rp = self.rp
        whole = rp._whole()
        if whole is not None:
            return room_counts(rp.view(whole), sizes=self.sizes)
        return room_counts(None, data=rp.full_data(), sizes=self.sizes)

    # -- the sweeps -------------------------------------------------------------------------------
    def run(self) -> dict:
        rp, dr = self.rp, self.dr
        shrunk = self.shrink() if self.sides else None
        if self.cuts and self.sides:
            self.try_cuts()
        self.targets = self.global_targets()
        base = rank(rp.full())
        room = self.lacking()
        n_sweeps = SWEEPS_RETIGHTEN if self.retighten else SWEEPS
        for _ in range(n_sweeps):
            if self.tries >= self.max_tries:
                break
            self.sweeps += 1
            snapshot = (dr.pos.copy(), dr.free.copy(), [list(line) for line in dr.lines])
            states, moved = [snapshot], []   # the drawing after each move kept, and the point it moved
            self._reset_through()
            points = sorted({q for k in self.ks for q in dr.lines[k] if dr.free[q]},
                            key=lambda q: (-self.excess(self.through(q)), q))
            if not self.sides:   # only the points of routes over 6 mm: those the gaps ask to move
                points = [q for q in points if self.over(self.through(q))]
            kept, span = 0, station_span(dr)
            for q in points:
                if self.tries >= self.max_tries:
                    break
                if self.excess(self.through(q)) <= MIN_GAIN:
                    break   # sorted: the rest have none
                if ("point", q) in self.stale or q in self.banned:
                    continue
                before = dr.pos.copy()
                if self.try_point(q, span):
                    kept += 1
                    span = station_span(dr)
                    self._refresh(before)
                    if self.bisect:
                        states.append((dr.pos.copy(), dr.free.copy(), [list(line) for line in dr.lines]))
                        moved.append(q)
                else:
                    self.stale.add(("point", q))
            if not kept:
                break
            # the sweep confirmed on the whole board: no more problems, no fewer labels with room
            if self._confirmed(base, room):
                self.kept += kept
                continue
            if not self.bisect:
                self._restore(snapshot)
                self.undone += kept
                break
            # refused: the moves before the first one the whole board refuses are kept (bisection
            # over the sweep's moves in their order, BISECT_STEPS whole-board judgements at most),
            # that move's point is not moved again, and the sweeps go on
            lo, hi = 0, kept   # the drawing after lo moves passes, after hi it does not
            for _ in range(BISECT_STEPS):
                if hi - lo <= 1:
                    break
                mid = (lo + hi) // 2
                self._restore(states[mid])
                if self._confirmed(base, room):
                    lo = mid
                else:
                    hi = mid
            self._restore(states[lo])
            self._refresh(states[kept][0])
            self.kept += lo
            self.undone += kept - lo
            if hi - lo > 1:
                break   # not found within the judgements allowed: kept what passed, stopped
            self.banned.add(moved[hi - 1])
        return {"moves": self.kept + self.kinds["cut"], "shrunk": shrunk, "tries": self.tries, "refused": self.refused, "kinds": self.kinds,
                "undone": self.undone, "sweeps": self.sweeps}


def tighten(rp, w=None, style: str = "geographic", sizes=None, sides: bool = True, **moves) -> dict:
    """Draw in the routes of a board the checks pass (rp: its mapkit.layout.repair.Repair); returns
    what it did (moves kept, the whole drawing's shrink factor or None). sides=False (--refine: the
    stations are the designer's): only the points of routes over 6 mm are moved, one at a time (or
    a station with its bends), and a move leaves no other route over 6 mm in their place; no cut
    and no shrink, which move one side of the board or all of it. The stations moved are ends of
    routes over 6 mm on the board it was given. moves: Tighten's kinds of move turned off
    (cuts, shrink, bisect, group)."""
    return Tighten(rp, w, style, sizes, sides, **moves).run()
