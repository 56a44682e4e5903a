"""After every other step: the last few small problems, finished on purpose rather than by luck.

The optimization is chaotic: the same board on a machine whose numpy rounds one operation an ulp
differently (AVX-512 kernels, say) comes out of the earlier steps with a different handful of
leftovers, each small: a route 1 mm too short for its spaces, 2 mm² of two first spaces at a
crowded station, a space over the edge of a station. The repair (repair.py) moves one point at a
time in steps of 4 mm and more, with a budget shared by every problem of the board, so a leftover
that needs two points moved together, a millimetre, or a turn of a few degrees stays on one
machine and is never there on another.

Here each problem left gets moves sized to it, some of them moving several points at once, judged
by the real checks on the part of the board around the move (repair.Repair's machinery: the part
boards, a kept move confirmed on the whole board by Repair.run):

- a route too short: an end pushed away from the other along the route by what is missing (and a
  little more), both ends apart by half of it each, a bend pushed outwards until the route is long
  enough, a straight route given a bend of just that length on either side; and the same together
  with a station in the route's way put off it (on either side). The check does not lay out the
  spaces of a route too short for them, so a route 1 mm short can hide a station its spaces
  would cover once it is long enough (200 stations, seed 1: s31 on s15-s32's path);
- a space over a station: the station moved off the route on its own side to just clear of its
  band, the route's segment moved away from it (either end, or both), half of each, the station
  put across the route, a bend round it;
- two routes' spaces overlapping where they leave a station: the routes leaving that station
  turned about it by a few degrees, the one named and its neighbours on its side together (a
  sector of the fan), away from the other; the angle closes where the fan has room;
- and for any problem, steps of 1 and 2.5 mm in eight directions of every point it names.

A move is kept only when the checks find less (overpass.rank: fewer errors, then fewer problems,
or as many and smaller ones). What is still left then gets a few kicks (kicks: a station put off a
route, swung about its neighbour, a route lengthened, drawn in or turned further than the moves
above), each followed by the untangling's local re-optimization and the moves again, kept only when
the whole board's checks find less. The tries and kicks are bounded in number (MAX_TRIES,
MAX_KICKS, KICK_TRIES), never in time, and made in a fixed order, so a seed gives one layout on a
machine. A board the earlier steps leave clean never comes here.
"""

from __future__ import annotations

import re

import numpy as np

from mapkit.layout.overpass import rank
from mapkit.layout.judge import _route_names, _station_names
from mapkit.layout.repair import DIRECTIONS, REACH_MM, Repair
from mapkit.layout.knots.crossings import _moves as uncross_moves
from mapkit.layout.knots.folds import _flip
from mapkit.layout.knots.kicks import Untangle

SMALL_STEPS_MM = (1.0, 2.5)          # the generic steps of every point a problem names
EXTRA_MM = (0.6, 1.5, 3.0)           # a short route lengthened by what is missing and this much more
MARGIN_MM = (0.7, 2.0, 3.5)          # a covered station and the route over it: this much clearer than touching
TURN_DEG = (1.5, 3.0, 5.0, 8.0)      # routes turned about the station where two of them overlap
MAX_TRIES = 600                      # candidate evaluations over one finishing (its sweeps: Repair.run)
MAX_KICKS = 16                       # kicks, each with a local re-optimization, after the finishing moves
KICK_AT_MOST = 4                     # problems left after the moves, at most, for the kicks to be tried
KICKS_PER_PROBLEM = 7                # of them at most on any one problem
KICK_EXTRA_MM = 4.0                  # a kick lengthens a short route by what is missing and this much
KICK_TURN_DEG = (12.0, 20.0)         # a kick turns routes at a crowded station this far
PIVOT_DEG = (30.0, 60.0)             # a covered station swung about its neighbour by this much
KICK_TRIES = 200                     # the finishing moves' evaluations after each kick

Move = list   # [(point, new xy), ...] then ("bend", bundle, xy), ... (new waypoints)


def _unit(v) -> np.ndarray:
    return v / max(float(np.linalg.norm(v)), 1e-9)


def _normal(d) -> np.ndarray:
    return _unit(np.array([-d[1], d[0]], dtype=float))


def _polyline_length(pts) -> float:
    return float(np.sum(np.linalg.norm(np.diff(np.asarray(pts, dtype=float), axis=0), axis=1)))


def _rotated(v, deg) -> np.ndarray:
    t = np.radians(deg)
    c, s = np.cos(t), np.sin(t)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


class Finish(Repair):
    """Repair.run's sweeps (a move kept only when the whole board gets better), with the
    finishing's own moves and judge (try_problem)."""

    def _memo(self, kind: str) -> dict:
        # a whole board's checks are the same whoever asks (shared with the repair); nothing else is
        return super()._memo(kind if kind.startswith("full") else "finish-" + kind)

    def _bundle(self, p):
        names = _route_names(p)
        return self.bundle_of.get(names[0]) if names else None

    # -- the moves --------------------------------------------------------------------------------
    def moves(self, p) -> list[Move]:
        out: list[Move] = []
        if p.code == "route-too-short":
            out += self.lengthen(p)
        elif p.code == "space-on-station":
            out += self.clear_station(p)
        elif p.code == "space-overlap":
            out += self.turn_apart(p)
        elif p.code == "route-stretched":
            out += [[m] for m in self._shortenings(p)]   # the repair's: a bend drawn in, an end moved in
        for i in self._points(p):
            for step in SMALL_STEPS_MM:
                out.extend([(i, self.dr.pos[i] + step * d)] for d in DIRECTIONS)
        return [m for m in out if all(self._inside(it[-1]) for it in m)]

    def _missing(self, p) -> float | None:
        m = re.search(r"needs? (\d+(?:\.\d+)?) mm but the route is drawn (\d+(?:\.\d+)?) mm", p.message)
        return None if m is None else max(float(m.group(1)) - float(m.group(2)), 0.0)

    def lengthen(self, p, extras=EXTRA_MM, aside: bool = True) -> list[Move]:
        """What is missing (the message's millimetres are rounded: a little more is asked), by an
        end, both ends, a bend pushed out or a new bend; then each of those with a station in the
        way put off the route."""
        k, missing = self._bundle(p), self._missing(p)
        if k is None or missing is None:
            return []
        pos, line, free = self.dr.pos, self.dr.lines[k], self.dr.free
        plain: dict[float, list[Move]] = {}
        for extra in extras:
            gain = missing + extra
            ms: list[Move] = []
            ends = [(end, pos[end] + _unit(pos[end] - pos[nxt]) * gain)
                    for end, nxt in ((line[0], line[1]), (line[-1], line[-2])) if free[end]]
            ms.extend([e] for e in ends)
            if len(ends) == 2:
                ms.append([(end, pos[end] + (xy - pos[end]) / 2) for end, xy in ends])
            for j in range(1, len(line) - 1):
                if free[line[j]]:
                    ms.append([(line[j], self._pushed_out(line, j, gain))])
            if len(line) == 2 and not self.net.bundles[k].fixed_waypoints:
                a, b = pos[line[0]], pos[line[1]]
                half = float(np.linalg.norm(b - a)) / 2
                h = float(np.sqrt((half + gain / 2) ** 2 - half ** 2))
                ms.extend([("bend", k, (a + b) / 2 + s * h * _normal(b - a))] for s in (1.0, -1.0))
            plain[extra] = ms
        out = [m for extra in extras for m in plain[extra]]
        for o, spots in (self._in_the_way(k) if aside else []):
            for xy in spots:
                out.append([(o, xy)])
                out.extend([(o, xy)] + m for m in plain[EXTRA_MM[1]] if all(it[0] != o for it in m))
        return out

    def _pushed_out(self, line, j, gain) -> np.ndarray:
        """Waypoint line[j] moved along the normal of its neighbours' chord, outwards, so that the
        route is `gain` longer (bisection on the offset: the length grows with it)."""
        pos = self.dr.pos
        a, w, b = pos[line[j - 1]], pos[line[j]], pos[line[j + 1]]
        nrm = _normal(b - a)
        side = 1.0 if np.dot(w - a, nrm) >= 0 else -1.0
        base = _polyline_length([a, w, b])
        lo, hi = 0.0, 4.0 * gain + 10.0
        for _ in range(30):
            mid = (lo + hi) / 2
            if _polyline_length([a, w + side * nrm * mid, b]) - base < gain:
                lo = mid
            else:
                hi = mid
        return w + side * nrm * hi

    def _nearest(self, k, x):
        """(distance, segment number, foot, unit normal, side of x) of bundle k's line nearest x."""
        pos, line, best = self.dr.pos, self.dr.lines[k], None
        for j in range(len(line) - 1):
            a, b = pos[line[j]], pos[line[j + 1]]
            d = b - a
            t = float(np.clip(np.dot(x - a, d) / max(float(np.dot(d, d)), 1e-9), 0.0, 1.0))
            foot = a + t * d
            dist = float(np.linalg.norm(x - foot))
            if best is None or dist < best[0]:
                best = (dist, j, foot, t, d)
        dist, j, foot, t, d = best
        nrm = _normal(d)
        return dist, j, foot, t, nrm, (1.0 if np.dot(x - foot, nrm) >= 0 else -1.0)

    def _clearance(self, k) -> float:
        return self.net.radius + self.net.bundles[k].half_width

    def _in_the_way(self, k) -> list[tuple[int, list[np.ndarray]]]:
        """Free stations (not k's ends) closer to k's line than its band and their radius: each
        with the spots just clear of it on either side."""
        return [(s, spots) for s, _, spots, _ in self._covered(k, [k])]

    def _covered(self, k, bundles) -> list[tuple[int, int, list[np.ndarray], list]]:
        """(station, bundle, the station's spots just clear of the bundle on either side, the
        bundle's moves just clear of the station on either side) for every free station closer to
        one of these bundles' lines than its band and their radius (not its ends)."""
        pos, out = self.dr.pos, []
        for k2 in bundles:
            line = self.dr.lines[k2]
            reach = self._clearance(k2) + 1.0
            lo, hi = pos[line].min(0) - reach, pos[line].max(0) + reach
            for s in range(self.net.n):
                if s in (line[0], line[-1]) or not self.dr.free[s] or np.any(pos[s] < lo) or np.any(pos[s] > hi):
                    continue
                dist, j, foot, t, nrm, side = self._nearest(k2, pos[s])
                if dist >= reach:
                    continue
                c = self._clearance(k2) + MARGIN_MM[1]
                spots = [foot + side * nrm * c, foot - side * nrm * c]
                # the bundle's nearest free waypoint put so that its line passes the station on either side
                route = []
                for q in (line[j], line[j + 1]):
                    if q >= self.net.n and self.dr.free[q]:
                        off = float(np.dot(pos[s] - foot, nrm))
                        route.extend([(q, pos[q] + nrm * (off - c)), (q, pos[q] + nrm * (off + c))])
                        break
                out.append((s, k2, spots, route))
        return out

    def clear_station(self, p) -> list[Move]:
        """The covered station and the route's nearest segment moved apart, by one or the other or
        half each, to just clear of each other; the station put across; a bend round it."""
        k = self._bundle(p)
        names = _station_names(p)
        s = self.station_of.get(names[0]) if names else None
        if k is None or s is None:
            return []
        pos, line, free = self.dr.pos, self.dr.lines[k], self.dr.free
        dist, j, foot, t, nrm, side = self._nearest(k, pos[s])
        qa, qb = line[j], line[j + 1]
        out: list[Move] = []
        for margin in MARGIN_MM:
            need = self._clearance(k) + margin - dist
            if need <= 0:
                continue
            away = -side * nrm
            if free[s]:
                out.append([(s, pos[s] - away * need)])
            seg = [(q, pos[q] + away * need) for q in (qa, qb) if free[q] and q != s]
            if seg:
                out.append(seg)
            for q, share in ((qa, 1.0 - t), (qb, t)):   # one end: the foot moves by its share of the end's move
                if free[q] and q != s and share > 0.25:
                    out.append([(q, pos[q] + away * need / share)])
            if free[s] and seg:
                out.append([(s, pos[s] - away * need / 2)] + [(q, xy - away * need / 2) for q, xy in seg])
        if free[s]:
            c = self._clearance(k) + MARGIN_MM[1]
            out.append([(s, foot - side * nrm * c)])     # across the route
        if len(line) == 2 and not self.net.bundles[k].fixed_waypoints:
            out.extend([("bend", k, xy)] for xy in super()._bend_points(k, p))
        return out

    def turn_apart(self, p, degrees=TURN_DEG, widest: int | None = None) -> list[Move]:
        """Two routes leaving one station: the named one's next point (its far end or first bend)
        turned about the station away from the other, alone or with the routes beyond it on that
        side (so the gap that closes is a wider one further round), each at the angles TURN_DEG."""
        names = _route_names(p)
        ks = [self.bundle_of.get(r) for r in names[:2]]
        if len(ks) < 2 or None in ks or ks[0] == ks[1]:
            return []
        la, lb = self.dr.lines[ks[0]], self.dr.lines[ks[1]]
        shared = {la[0], la[-1]} & {lb[0], lb[-1]}
        if len(shared) != 1:
            return []
        s = shared.pop()
        pos = self.dr.pos
        # every route at s by the angle of its first segment
        fan = []
        for k, line in enumerate(self.dr.lines):
            if s in (line[0], line[-1]):
                q = line[1] if line[0] == s else line[-2]
                v = pos[q] - pos[s]
                fan.append((float(np.arctan2(v[1], v[0])), k, q))
        fan.sort()
        order = [k for _, k, _ in fan]
        nxt = {k: q for _, k, q in fan}
        out: list[Move] = []
        for mine, other in ((ks[0], ks[1]), (ks[1], ks[0])):
            i, o = order.index(mine), order.index(other)
            n = len(order)
            # "away from the other": round the fan the way that does not pass the other first
            step = 1 if (o - i) % n == n - 1 or (o - i) % n > n // 2 else -1
            sign = 1.0 if step == 1 else -1.0     # arctan2 angles grow with the fan's order
            for size in range(1, min(n - 1, (widest or n) + 1)):
                sector = [order[(i + step * m) % n] for m in range(size)]
                if other in sector:
                    break
                for deg in degrees:
                    move = [it for k in sector for it in self._turned(k, s, nxt[k], sign * deg)]
                    if len(move) == len(sector):
                        out.append(sorted(move, key=lambda it: it[0] == "bend"))   # bends last (_apply)
        return out

    def _turned(self, k, s, q, deg) -> list:
        """Bundle k's first segment from station s turned by deg about s: its first bend turned
        (its distance from s kept), or a straight route given a bend halfway, turned (its far
        station stays where it is, with its other routes)."""
        pos = self.dr.pos
        if q >= self.net.n:
            return [(q, pos[s] + _rotated(pos[q] - pos[s], deg))] if self.dr.free[q] else []
        if len(self.dr.lines[k]) != 2 or self.net.bundles[k].fixed_waypoints:
            return []
        return [("bend", k, pos[s] + _rotated((pos[q] - pos[s]) / 2, deg))]

    # -- the judge --------------------------------------------------------------------------------
    def _apply(self, move: Move):
        undo = []
        for it in move:
            if it[0] == "bend":
                self.dr.add_waypoint(it[1], it[2])
                undo.append(("bend", it[1]))
            else:
                undo.append((it[0], self.dr.pos[it[0]].copy()))
                self.dr.pos[it[0]] = it[1]
        return undo

    def _undo(self, undo) -> None:
        for it in reversed(undo):
            if it[0] == "bend":
                self._drop_last_waypoint(it[1])
            else:
                self.dr.pos[it[0]] = it[1]

    def _moved_points(self, move: Move) -> tuple[list[int], list[np.ndarray], float]:
        """(the points a move changes, or the ends of the bundle it bends; the new spots; how far)."""
        pts, spots, far = [], [], 0.0
        for it in move:
            if it[0] == "bend":
                line = self.dr.lines[it[1]]
                pts.extend((line[0], line[-1]))
                far = max(far, float(np.min(np.linalg.norm(self.dr.pos[line] - it[2], axis=1))))
                spots.append(np.asarray(it[2], dtype=float))
            else:
                pts.append(it[0])
                far = max(far, float(np.linalg.norm(it[1] - self.dr.pos[it[0]])))
                spots.append(np.asarray(it[1], dtype=float))
        return pts, spots, far

    def try_problem(self, p) -> bool:
        """The best of the moves for one problem by the checks of the part of the board around it,
        applied if it beats that part as it is (Repair.run confirms it on the whole board)."""
        bases: dict = {}
        best_gain, best = (0, 0, 0.0), None
        for move in self.moves(p):
            if self.tries >= self.max_tries:
                break
            pts, spots, far = self._moved_points(move)
            centres = np.vstack([self._centres(pts), np.array(spots)])
            part = self.select(centres, REACH_MM + far)
            key = (tuple(part[0]), tuple(part[1]))
            if key not in bases:
                self.tries += 1
                bases[key] = rank(self.view(part).problems())
            base = bases[key]
            undo = self._apply(move)
            try:
                # judged only as far as it can still beat the best move so far (None: it cannot)
                sc = self.view(part).score_unless(base, best_gain, ranked=True)
                self.tries += 1
            finally:
                self._undo(undo)
            if sc is None:
                continue
            gain = (sc[0] - base[0], sc[1] - base[1], sc[2] - base[2])
            if gain < best_gain:
                best_gain, best = gain, move
                if sc[1] == 0:   # this part of the board is clean: nothing better to find
                    break
        if best is None:
            return False
        self._apply(best)
        return True

    # Repair.run's sweeps, judged by rank: an error is never traded for a smaller warning (a
    # stretched route drawn in until it covers a station is not better), as Repair's score would
    judge = staticmethod(rank)


def _swung(fn: Finish, o: int, k2: int) -> list[Move]:
    """Station o, sitting on bundle k2's line, swung about an end of k2 it has a route to (its
    distance kept), both ways, by PIVOT_DEG: a station that slid along a neighbour's route past
    the station they share (60 stations, seed 0: s48 along the double s49-s59 past s49) goes back
    round that station, where the real map has it."""
    line, pos, out = fn.dr.lines[k2], fn.dr.pos, []
    for e in (line[0], line[-1]):
        if not any({b.a, b.b} == {o, e} for b in fn.net.bundles):
            continue
        v = pos[o] - pos[e]
        for deg in PIVOT_DEG:
            out.extend([(o, pos[e] + _rotated(v, sg * deg))] for sg in (1.0, -1.0))
    return out


def kicks(fn: Finish, p) -> list[Move]:
    """The bigger moves worth a local re-optimization after them (the second round): a station in
    a too-short route's way, or a covered station, put on either side of the route."""
    out: list[Move] = []
    if p.code == "route-too-short":
        k = fn._bundle(p)
        if k is not None:
            # a station on the route's way, or on a route from one of its ends (60 stations, seed 0:
            # s48 on the double s49-s59 that leaves s49 along s48-s49): the check lays no spaces
            # on a route too short, so lengthening it shows the overlap it hides
            ends = {fn.dr.lines[k][0], fn.dr.lines[k][-1]}
            near = [k] + [j for j, line in enumerate(fn.dr.lines) if j != k and {line[0], line[-1]} & ends]
            for o, k2, spots, route in fn._covered(k, near):
                out.extend([(o, xy)] for xy in spots)
                out.extend([m] for m in route)
                out.extend(_swung(fn, o, k2))
            # what is missing and more, the neighbours then re-optimized round it: both ends apart, a bend
            out.extend(m for m in fn.lengthen(p, extras=(KICK_EXTRA_MM,), aside=False) if len(m) == 2 or m[0][0] == "bend")
    elif p.code == "space-overlap":
        # the fan at a crowded station turned further than the finishing's own angles, one or two
        # routes at a time, then re-optimized round it
        out.extend(fn.turn_apart(p, degrees=KICK_TURN_DEG, widest=2))
    elif p.code == "crossing":
        # the uncrossing's moves (a bend flipped, an end put across, a route taken round an end),
        # here followed by the finishing's moves rather than the repair's
        for _, moves in uncross_moves(fn, p):
            m = [("bend", q[1], xy) if isinstance(q, tuple) else (q, xy) for q, xy in moves]
            if all(it[0] != "bend" or len(fn.dr.lines[it[1]]) == 2 for it in m):
                out.append(sorted(m, key=lambda it: it[0] == "bend"))
    elif p.code == "route-stretched":
        # drawn in as the repair would (a bend towards its neighbours' middle, an end towards the
        # other), the neighbours then re-optimized round it
        out.extend([m] for m in fn._shortenings(p))
    elif p.code == "space-on-station":
        k, names = fn._bundle(p), _station_names(p)
        s = fn.station_of.get(names[0]) if names else None
        if k is not None and s is not None and fn.dr.free[s]:
            _, _, foot, _, nrm, side = fn._nearest(k, fn.dr.pos[s])
            c = fn._clearance(k) + MARGIN_MM[1]
            out.extend([[(s, foot + side * nrm * c)], [(s, foot - side * nrm * c)]])
            # the route's segment moved off the station by its band and more; its bend put beyond it
            out.extend(m for m in fn.clear_station(p) if len(m) == 2 and m[0][0] != s)
            out.extend([m] for o, _, _, route in fn._covered(k, [k]) if o == s for m in route)
            # a bent route round the station the wrong way: its bends put on the other side of its chord
            flip = _flip(fn.dr, k)
            if flip:
                out.append(flip)
            out.extend(_swung(fn, s, k))
    return out


def finish(net, dr, size_out, check, found, w=None, style=None, max_tries: int = MAX_TRIES,
           max_kicks: int = MAX_KICKS):
    """The finishing moves on what the earlier steps left; then, for what is still left, each kick
    (kicks) followed by the untangling's local re-optimization and the finishing moves again, kept
    when the whole board's checks find less. Returns what is still left."""
    if not found:
        return found
    fn = Finish(net, dr, size_out, check)
    fn.max_tries = max_tries
    found = fn.run()
    if not found or w is None or len(found) > KICK_AT_MOST:
        # many problems left is not a finishing job but a knotted drawing (the gap rule's first
        # attempt on 200 stations leaves a dozen): kicks would cost seconds for nothing; the
        # caller's fallback (another size, the soft layout) is the way out
        return found
    current, tried = rank(found), 0
    per_problem: dict = {}   # kicks tried on each problem (by its words), so that one cannot use them all
    while found and tried < max_kicks:
        # errors first; crossings last (their kicks are the uncrossing's, which already failed once)
        for p in sorted(found, key=lambda q: (q.severity != "error", q.code == "crossing", q.code, q.subject, q.message)):
            kept = False
            key = (p.code, p.subject, p.message)
            for kick in kicks(fn, p)[per_problem.get(key, 0):]:
                if tried >= max_kicks or per_problem.get(key, 0) >= KICKS_PER_PROBLEM:
                    break
                tried += 1
                per_problem[key] = per_problem.get(key, 0) + 1
                snapshot = (dr.pos.copy(), dr.free.copy(), [list(line) for line in dr.lines])
                pts, spots, _ = fn._moved_points(kick)
                centres = np.vstack([dr.pos[pts], np.array(spots)])
                fn._apply(kick)
                Untangle(fn, w, style).relax(centres)
                after = Finish(net, dr, size_out, check)
                after.max_tries = KICK_TRIES
                new = after.run()
                if rank(new) < current:
                    found, current, kept = new, rank(new), True
                    break
                dr.pos, dr.free, dr.lines = snapshot
            if kept:
                break   # the problems have changed: start again from the new list
        else:
            break       # no kick helps any problem left
    return found
