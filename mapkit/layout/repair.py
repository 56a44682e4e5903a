"""The last step of a layout: local moves judged by the real checks.

The optimization can stop in a topological local minimum: a station sitting on a neighbour's
route, two routes leaving a station almost together, a route threading between the wrong two
stations. Its smooth terms cannot pull a station through the route it sits on, but a jump can. For
each problem `mapkit validate` still finds, this tries a few local moves of the points it names
(its routes' stations and waypoints, the covered station): steps in eight directions, the covered
station reflected across the route it sits on, a new bend on one of the routes. A move is kept only
when the checks' result gets better: fewer errors and warnings, or as many and smaller ones (less
overlap area, fewer millimetres short), never more.

A candidate is judged on the part of the board around it (the routes and stations within reach of
the moved point) so that one try costs a small fraction of a full check; a kept move is confirmed
on the whole board. The number of tries is bounded, not the time, so a seed gives one result.
"""

from __future__ import annotations

import hashlib
import math
import json
import re
from dataclasses import fields

import numpy as np

from mapkit.boardfile import build_board, default_route_ids, route_model, station_model
from mapkit.layout.judge import OWN_CHECKS, _route_names, _size_of, _station_names, even_problems, score
from mapkit.layout.result import _xy, build_result
from mapkit.model import Board

STEPS_MM = (4.0, 9.0, 18.0, 32.0)
DIRECTIONS = [np.array([np.cos(a), np.sin(a)]) for a in np.arange(8) * np.pi / 4]
REACH_MM = 25.0        # routes and stations this close to a changed segment can change their problems
SAMPLE_MM = 30.0       # spacing of the points sampled along a changed segment
PREPARE = 16           # moves whose shapes are built in one call (Repair._prepare)
NO_GAIN = (math.inf, math.inf)   # the gain recorded for a move judged no better than the best (try_problem)
MAX_TRIES = 1000       # candidate evaluations over a whole repair (about 0.02 s each)
PASSES = 4             # sweeps over the remaining problems
DIST_REACH_MM = REACH_MM + max(STEPS_MM)   # Repair._distances measures at least this far (the repair's usual largest reach)


_STEPS_OF: dict = {}   # m -> np.linspace(0.0, 1.0, m + 1)[:, None] (Repair._centres)


class Repair:
    def __init__(self, net, dr, size_out, check):
        self.net, self.dr, self.size_out, self.check = net, dr, size_out, check
        self.bundle_of = {net.route_ids[r]: k for k, b in enumerate(net.bundles) for r in b.routes}
        self.station_of = {sid: i for i, sid in enumerate(net.ids)}
        self.tries = 0
        self.max_tries = MAX_TRIES
        self.baseline = None    # the score the label and polish steps must keep (no_worse)
        self._physical = None   # the "physical" of the board laid out (part_data)
        self._boards = None     # PartBoards, made when first needed (view)
        self._whole_part = None  # the whole board as a part, or False (_whole)

    def no_worse(self) -> bool:
        """The whole board's checks no worse than when the repair was made (self.baseline; clean
        unless the repair left a warning), for the label and polish steps after it."""
        if self.baseline is None:
            self.baseline = score(self.full())
        return score(self.full()) <= self.baseline

    # -- evaluation -------------------------------------------------------------------------
    @property
    def even(self) -> bool:
        """Whether the repair judges the drawing with every route's spaces spread evenly (its check is
        judge.even_problems): its part boards, their Layouts and the whole board's checks are so."""
        return self.check is even_problems

    def _memo(self, kind: str) -> dict:
        """Results already computed for this drawing, by what they depend on (see full and
        try_problem); kept on the drawing so that the repair after the untangling sees them. Kept
        apart for each check (the even spread's, even_problems, and the placement by needs'): the
        same points give other problems under each, and a step with one check is not told what the
        other found."""
        return self.dr.extra.setdefault("repair_memo", {}).setdefault((kind, id(self.check)), {})

    def full(self):
        """The whole board's checks; a board already checked (the same positions, as written) is
        not checked again: the repair retries a board it reverted to, the untangling's kicks
        that change nothing leave one."""
        whole = self._whole()
        if whole is not None:
            # the layout's own check: the whole board as a Board from PartBoards (no deep copy of
            # the file and no build_board), the same Board build_result's dict gives (_whole)
            board = self._boards.board(whole)
            memo = self._memo("full-board")
            key = _full_key(board, self.size_out)
            if key not in memo:
                from mapkit.checks import check_geometry
                from mapkit.geometry import Layout

                memo[key] = list(check_geometry(board, Layout(board, even=True) if self.even else None))
            return list(memo[key])
        data, _ = build_result(self.net, self.dr, self.size_out)
        memo = self._memo("full")
        key = hashlib.sha256(json.dumps([data["stations"], data["routes"], data.get("physical")],
                                        sort_keys=True).encode()).digest()
        if key not in memo:
            memo[key] = list(self.check(data))
        return list(memo[key])

    def _whole(self):
        """(every station, every bundle): the part that is the whole board, when its Board from
        PartBoards is build_board of build_result's dict: the layout's own check, every route in a
        bundle (then the routes are in the file's order) and no bundle with the file's own waypoints
        (build_result keeps those as written, lat/lon maybe; the part writes the drawing's points).
        None otherwise."""
        if self.check not in OWN_CHECKS:
            return None
        if self._whole_part is None:
            net = self.net
            routes = sorted(ri for b in net.bundles for ri in b.routes)
            ok = routes == list(range(len(net.data["routes"]))) and not any(b.fixed_waypoints for b in net.bundles)
            self._whole_part = (list(range(net.n)), list(range(len(net.bundles)))) if ok else False
            if self._boards is None:
                self._boards = PartBoards(self)
        return self._whole_part or None

    def _state(self) -> bytes:
        """Everything a try_problem depends on besides the problem and the tries left."""
        dr = self.dr
        h = hashlib.sha256(dr.pos.tobytes())
        h.update(dr.free.tobytes())
        h.update(repr((dr.lines, dr.bounds)).encode())
        return h.digest()

    def select(self, centres: np.ndarray, reach: float) -> tuple[list[int], list[int]]:
        """The stations and bundles within reach of the given points: the part of the board a move there can change."""
        net = self.net
        station_dist, segment_dist, own = self._distances(centres, reach)
        stations = set(np.nonzero(station_dist < reach)[0].tolist())
        hit = np.zeros(len(self.dr.lines), dtype=bool)
        hit[own[segment_dist < reach]] = True
        bundles = np.flatnonzero(hit).tolist()
        for k in bundles:
            stations.update((net.bundles[k].a, net.bundles[k].b))
        return sorted(stations), bundles

    def _distances(self, centres: np.ndarray, reach: float = math.inf):
        """(each station's distance to the nearest of the points, each segment's, the segments'
        bundles), for select: those that can be under `reach` exact, the others maybe inf (select
        only compares them with the reach). Only the stations and segments whose bounding box comes
        within the reach (one over REACH_MM: at least DIST_REACH_MM; plus 1 mm) of the points' are
        measured, each with the same operations as when all were (elementwise, each segment's own
        two-term sums): the same numbers where measured. Remembered for the last points and drawing
        and the reach measured: the repair selects the part round one problem's points at up to
        five reaches (select compares the same arrays with each)."""
        pos = self.dr.pos
        p_, q_, own = self._segments()
        key = (centres.shape, centres.dtype.str, centres.tobytes(), pos.shape, pos.tobytes(), self._seg_version)
        if getattr(self, "_dist_key", None) == key and self._dist_reach >= reach:
            return self._dist
        # (the repair's reaches, above REACH_MM, measured at once to its usual largest; the
        # tightening's and the others' new points each time: their own reach)
        cut = reach if reach <= REACH_MM else max(reach, DIST_REACH_MM)
        # a point within cut of a centre lies in the centres' bounding box grown by cut; 1 mm more
        # than that for the rounding of these sums (the distances are a few hundred mm)
        lo, hi = centres.min(axis=0) - (cut + 1.0), centres.max(axis=0) + (cut + 1.0)
        n = self.net.n
        st = pos[:n]
        s_in = np.flatnonzero(((st >= lo) & (st <= hi)).all(axis=1))
        station_dist = np.full(n, np.inf)
        if len(s_in):
            station_dist[s_in] = np.min(_norms(st[s_in, None, :] - centres[None]), axis=1)
        a_all, b_all = pos[p_], pos[q_]
        g_in = np.flatnonzero(((np.maximum(a_all, b_all) >= lo) & (np.minimum(a_all, b_all) <= hi)).all(axis=1))
        segment_dist = np.full(len(p_), np.inf)
        if len(g_in):
            # every segment near the points at once: the distance from each centre to its nearest point
            a, d = a_all[g_in], b_all[g_in] - a_all[g_in]                    # (segments, 2)
            t = np.einsum("csk,sk->cs", centres[:, None, :] - a[None], d) / np.maximum((d * d).sum(1), 1e-9)[None]
            foot = a[None] + np.clip(t, 0.0, 1.0)[..., None] * d[None]
            segment_dist[g_in] = np.min(_norms(centres[:, None, :] - foot), axis=0)
        self._dist, self._dist_key, self._dist_reach = (station_dist, segment_dist, own), key, cut
        return self._dist

    def _segments(self):
        """(start points, end points, owning bundle) of every segment, as the lines are now."""
        key = tuple(tuple(line) for line in self.dr.lines)
        if getattr(self, "_seg_key", None) != key:
            p, q, own = [], [], []
            for k, line in enumerate(self.dr.lines):
                p.extend(line[:-1])
                q.extend(line[1:])
                own.extend([k] * (len(line) - 1))
            self._seg = (np.array(p, dtype=int), np.array(q, dtype=int), np.array(own, dtype=int))
            self._seg_key = key
            self._seg_version = getattr(self, "_seg_version", 0) + 1
        return self._seg

    def full_data(self) -> dict:
        return build_result(self.net, self.dr, self.size_out)[0]

    def local(self, part, view=None) -> tuple[int, float]:
        """The checks' score of that part of the board, with the points where they are now (view:
        that part made already, Repair._prepare)."""
        self.tries += 1
        return score((self.view(part) if view is None else view).problems())

    def local_unless(self, part, view, base, best_gain, before=None) -> tuple[int, float] | None:
        """local(part, view), or None when the move judged there is certainly no better than the best
        so far: its gain over base (the score of that part as it was) not below best_gain (try_problem
        keeps a move only when its gain is below the best's); before: (that part's view as it was,
        its problems). Counted as one try, like local."""
        self.tries += 1
        view = self.view(part) if view is None else view
        return view.score_unless(base, best_gain, known=None if before is None else view.kept_from(*before))

    def view(self, part) -> "Part":
        """That part of the board with the points where they are now, for its checks and label room."""
        if self.check not in OWN_CHECKS:
            return Part(self, self.part_data(part), None)
        if self._boards is None:
            self._boards = PartBoards(self)
        board, needs = self._boards.board(part, True)
        return Part(self, None, board, needs=needs)

    def part_data(self, part) -> dict:
        """A board dict of only that part (its stations and bundles), for the checks or label room."""
        net, pos = self.net, self.dr.pos
        stations, bundles = part
        data = dict(net.data)
        if self.size_out is not None:
            # the board's size as the layout chose it, as the whole board's checks see it: with the
            # file's own (smaller) size every station past it was off the board in every part,
            # a move across that edge looked like a gain or a loss, and the label bounds were the file's
            if self._physical is None:
                self._physical = build_result(net, self.dr, self.size_out)[0]["physical"]
            data["physical"] = self._physical
        data["stations"] = [{**net.data["stations"][i], "board": _xy(pos[i])} for i in stations]
        routes = {}
        for k in bundles:
            wps = [_xy(pos[q]) for q in self.dr.lines[k][1:-1]]
            for ri in net.bundles[k].routes:
                r = dict(net.data["routes"][ri])
                r.pop("waypoints", None)
                if wps:
                    r["waypoints"] = wps
                routes[ri] = r
        data["routes"] = [routes[ri] for ri in sorted(routes)]
        data["tickets"] = []
        return data

    def _centres(self, points) -> np.ndarray:
        """The moved points and samples along every bundle through them (where their problems can change)."""
        pts = set(points)
        out = [self.dr.pos[i] for i in pts]
        for k, line in enumerate(self.dr.lines):
            if pts.isdisjoint(line):
                continue
            for j in range(len(line) - 1):
                a, b = self.dr.pos[line[j]], self.dr.pos[line[j + 1]]
                d = b - a
                m = max(int(np.sqrt(d.dot(d)) // SAMPLE_MM), 1)   # (np.linalg.norm of a vector)
                # a + (b - a) * t for every t at once: the same two operations on each element
                t = _STEPS_OF.get(m)
                if t is None:   # (np.linspace(0.0, 1.0, m + 1)[:, None], made once a count)
                    if len(_STEPS_OF) >= 1000:
                        _STEPS_OF.clear()
                    t = _STEPS_OF[m] = np.linspace(0.0, 1.0, m + 1)[:, None]
                    t.setflags(write=False)
                out.extend(a + d * t)
        return np.array(out)

    # -- candidates -------------------------------------------------------------------------
    def _points(self, p) -> list[int]:
        pts: list[int] = []
        for rid in _route_names(p):
            k = self.bundle_of.get(rid)
            if k is None:
                continue
            line = self.dr.lines[k]
            pts.extend(line[1:-1])
            pts.extend((line[0], line[-1]))
        for sid in _station_names(p):
            if sid in self.station_of:
                pts.append(self.station_of[sid])
        seen, out = set(), []
        for i in pts:
            if i not in seen and self.dr.free[i]:
                seen.add(i)
                out.append(i)
        return out

    def _reflections(self, p) -> list[tuple[int, np.ndarray]]:
        """A station a route covers, put on the route's other side (clear of it)."""
        if p.code != "space-on-station":
            return []
        k = self.bundle_of.get(_route_names(p)[0]) if _route_names(p) else None
        s = self.station_of.get(_station_names(p)[0]) if _station_names(p) else None
        if k is None or s is None or not self.dr.free[s]:
            return []
        pos, line = self.dr.pos, self.dr.lines[k]
        x = pos[s]
        best = None
        for j in range(len(line) - 1):
            a, b = pos[line[j]], pos[line[j + 1]]
            d = b - a
            t = np.clip(np.dot(x - a, d) / max(np.dot(d, d), 1e-9), 0.0, 1.0)
            foot = a + t * d
            dist = np.linalg.norm(x - foot)
            if best is None or dist < best[0]:
                best = (dist, foot, d)
        _, foot, d = best
        nrm = np.array([-d[1], d[0]]) / max(np.linalg.norm(d), 1e-9)
        side = 1.0 if np.dot(x - foot, nrm) >= 0 else -1.0
        clear = self.net.radius + self.net.bundles[k].half_width + 2.0
        return [(s, foot - side * nrm * (clear + extra)) for extra in (0.0, 4.0)] + \
               [(s, foot + side * nrm * (clear + extra)) for extra in (0.0, 4.0)]

    def _lengthenings(self, p) -> list[tuple[int, np.ndarray]]:
        """A route too short: one of its stations moved away from the other by what is missing."""
        nums = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) mm", p.message)]
        k = self.bundle_of.get(_route_names(p)[0]) if p.code == "route-too-short" and _route_names(p) else None
        if k is None or len(nums) < 2:
            return []
        line, pos, out = self.dr.lines[k], self.dr.pos, []
        for end, nxt in ((line[0], line[1]), (line[-1], line[-2])):
            if not self.dr.free[end]:
                continue
            d = pos[end] - pos[nxt]
            d = d / max(np.linalg.norm(d), 1e-9)
            out.extend((end, pos[end] + d * (nums[0] - nums[1] + e)) for e in (2.0, 5.0))
        return out

    def _shortenings(self, p) -> list[tuple[int, np.ndarray]]:
        """A route stretched: a waypoint drawn in towards the straight line between its neighbours
        (a bend wider than it needs), or one of its stations moved towards the other by the excess."""
        k = self.bundle_of.get(_route_names(p)[0]) if p.code == "route-stretched" and _route_names(p) else None
        m = re.search(r"needs? (\d+) mm but the route is drawn (\d+) mm", p.message)
        if k is None or m is None:
            return []
        need, drawn = float(m.group(1)), float(m.group(2))
        excess = drawn - need * self.net.board.physical.max_stretch
        line, pos, out = self.dr.lines[k], self.dr.pos, []
        for j in range(1, len(line) - 1):
            w = line[j]
            if self.dr.free[w]:
                mid = (pos[line[j - 1]] + pos[line[j + 1]]) / 2
                out.extend((w, pos[w] + (mid - pos[w]) * f) for f in (0.25, 0.5, 0.75))
        for end, nxt in ((line[0], line[1]), (line[-1], line[-2])):
            if not self.dr.free[end]:
                continue
            d = pos[nxt] - pos[end]
            d = d / max(np.linalg.norm(d), 1e-9)
            out.extend((end, pos[end] + d * (excess + e)) for e in (2.0, 5.0))
        return out

    def candidates(self, p) -> list[tuple[int, np.ndarray]]:
        out = self._reflections(p) + self._lengthenings(p) + self._shortenings(p)
        for i in self._points(p):
            for step in STEPS_MM:
                for d in DIRECTIONS:
                    out.append((i, self.dr.pos[i] + step * d))
        return out

    def _inside(self, xy) -> bool:
        b = self.dr.bounds
        return b is None or (b[0] <= xy[0] <= b[2] and b[1] <= xy[1] <= b[3])

    def _bends(self, p) -> list[int]:
        """Straight bundles a problem names: a bend on one can take it round an obstacle."""
        out = []
        for rid in _route_names(p):
            k = self.bundle_of.get(rid)
            if k is not None and len(self.dr.lines[k]) == 2 and not self.net.bundles[k].fixed_waypoints \
                    and self.dr.free[self.dr.lines[k][0]] | self.dr.free[self.dr.lines[k][1]]:
                out.append(k)
        return out

    # -- the loop ---------------------------------------------------------------------------
    def try_problem(self, p) -> bool:
        """The best of the candidate moves for one problem, applied if it beats the board as it is."""
        moves = [(i, xy) for i, xy in self.candidates(p) if self._inside(xy)]
        for k in self._bends(p):
            moves.extend(("bend", k, xy) for xy in self._bend_points(k, p) if self._inside(xy))
        if not moves:
            return False
        pts = self._points(p) + [e for k in self._bends(p) for e in (self.dr.lines[k][0], self.dr.lines[k][-1])]
        centres = self._centres(pts) if pts else np.array([m[-1] for m in moves])
        # the part of the board judged grows with how far a move goes: small moves are cheap to judge.
        # A problem tried before on the same drawing (the repair's next pass after a reverted move,
        # the repair after an untangling that kept nothing) has the same moves with the same
        # verdicts: they are replayed from what was recorded, tries counted as they were.
        memo = self._memo("try")
        key = (self._state(), p.severity, p.code, p.subject, p.message)
        best_gain, best_move = (0, 0.0), None
        seen = memo.get(key)
        if seen is not None:
            trace, complete = seen
            start = self.tries
            for (inc, gain, stop), m in zip(trace, moves):
                if self.tries >= self.max_tries:
                    break
                self.tries += inc
                if gain < best_gain:
                    best_gain, best_move = gain, m
                    if stop:
                        break
            else:
                if not complete and len(trace) < len(moves):
                    self.tries, seen = start, None   # got further than recorded: judge them all
                    best_gain, best_move = (0, 0.0), None
        if seen is None:
            parts: dict[float, tuple] = {}
            selected: dict[float, tuple] = {}   # reach -> part (the drawing is the same for every move)
            fast = self.check in OWN_CHECKS
            trace, complete = [], True
            ready: dict = {}   # move number or ("base", reach) -> its Part, made ahead (_prepare)
            for n, m in enumerate(moves):
                if self.tries >= self.max_tries:
                    complete = False
                    break
                if fast and n % PREPARE == 0:
                    ready = self._prepare(moves, n, min(PREPARE, self.max_tries - self.tries), centres, selected, parts)
                before = self.tries
                reach, part = self._part_of(m, centres, selected)
                if reach not in parts:
                    # (local(part, that view), its view and problems kept: what a move leaves as it was, Part.kept_from)
                    view = ready.get(("base", reach))
                    view = self.view(part) if view is None else view
                    self.tries += 1
                    found = view.problems()
                    parts[reach] = (part, score(found), (view, found))
                part, base, was = parts[reach]
                # judged only as far as it can still beat the best move so far (the trace's gain of
                # one that cannot: NO_GAIN, which is never below a best gain either, so a replay
                # makes the same choices)
                judge = lambda view=None: self.local_unless(part, view, base, best_gain, was)
                sc = judge(ready[n]) if n in ready else self._moved(m, judge)
                if sc is None:
                    gain, stop = NO_GAIN, False
                else:
                    gain = (sc[0] - base[0], sc[1] - base[1])
                    stop = gain[0] < 0 and sc[0] == 0   # this part of the board is clean: nothing better to find
                trace.append((self.tries - before, gain, stop))
                if gain < best_gain:
                    best_gain, best_move = gain, m
                    if stop:
                        break
            memo[key] = (trace, complete)
        if best_move is None:
            return False
        if best_move[0] == "bend":
            self.dr.add_waypoint(best_move[1], best_move[2])
        else:
            self.dr.pos[best_move[0]] = best_move[1]
        return True

    def _part_of(self, m, centres, selected) -> tuple[float, tuple]:
        """(reach, the part of the board judged) of a move: the part grows with how far it goes."""
        i = self.dr.lines[m[1]][0] if m[0] == "bend" else m[0]
        if m[0] != "bend":
            d = m[-1] - self.dr.pos[i]
            dist = math.sqrt(d.dot(d))   # np.linalg.norm of a vector: sqrt(x.dot(x)), the same bits
        else:
            dist = float(np.min(_norms(self.dr.pos[self.dr.lines[m[1]]] - m[2])))
        reach = next((s for s in STEPS_MM if s >= dist - 1e-6), 2 * dist)
        if reach not in selected:
            selected[reach] = self.select(centres, REACH_MM + reach)
        return reach, selected[reach]

    def _moved(self, m, judge):
        """judge() with move m made, the drawing put back after it."""
        if m[0] == "bend":
            self.dr.add_waypoint(m[1], m[2])
            try:
                return judge()
            finally:
                self._drop_last_waypoint(m[1])
        old = self.dr.pos[m[0]].copy()
        self.dr.pos[m[0]] = m[1]
        try:
            return judge()
        finally:
            self.dr.pos[m[0]] = old

    def _prepare(self, moves, start, count, centres, selected, parts) -> dict:
        """The Parts of moves[start:start + count] (and of the parts they are judged on as they are,
        those not judged yet), their Layouts made together (mapkit.geometry.layouts_of: the shapes
        none has in the caches built in one call): the same boards and shapes the checks would make
        one move at a time. By move number, and ("base", reach)."""
        from mapkit.geometry import layouts_of

        if self._boards is None:
            self._boards = PartBoards(self)
        keys, boards = [], []
        for n in range(start, min(start + count, len(moves))):
            reach, part = self._part_of(moves[n], centres, selected)
            if reach not in parts and ("base", reach) not in keys:
                keys.append(("base", reach))
                boards.append(self._boards.board(part, True))
            keys.append(n)
            boards.append(self._moved(moves[n], lambda: self._boards.board(part, True)))
        # without the crossing test's clipped lines: most moves are found no better before their
        # crossings are asked (score_unless), and a Layout clips its own lines when they are
        made = layouts_of([b for b, _ in boards], [nd for _, nd in boards], clip=False, even=self.even)
        return {key: Part(self, None, board, layout) for key, (board, _), layout in zip(keys, boards, made)}

    def _bend_points(self, k, p) -> list[np.ndarray]:
        """A bend at the middle pushed to either side, and (a station covered) one that goes round it."""
        line = self.dr.lines[k]
        a, b = self.dr.pos[line[0]], self.dr.pos[line[-1]]
        d = b - a
        length = max(np.linalg.norm(d), 1e-9)
        nrm = np.array([-d[1], d[0]]) / length
        out = [(a + b) / 2 + f * length * nrm for f in (0.08, -0.08, 0.16, -0.16)]
        for sid in _station_names(p):
            s = self.station_of.get(sid)
            if s is None or s in (line[0], line[-1]):
                continue
            x = self.dr.pos[s]
            t = np.clip(np.dot(x - a, d) / length ** 2, 0.15, 0.85)
            foot = a + t * d
            side = 1.0 if np.dot(x - foot, nrm) >= 0 else -1.0
            clear = self.net.radius + self.net.bundles[k].half_width + 3.0
            off = np.dot(x - foot, nrm)
            out.extend((foot + nrm * (off - side * (clear + e)), foot + nrm * (off + side * (clear + e))) for e in (0.0, 6.0))
        flat = []
        for o in out:
            flat.extend(o if isinstance(o, tuple) else (o,))
        return flat

    def _drop_last_waypoint(self, k) -> None:
        idx = len(self.dr.pos) - 1
        self.dr.lines[k].remove(idx)
        self.dr.pos = self.dr.pos[:-1]
        self.dr.free = self.dr.free[:-1]

    # how a sweep's whole-board findings are compared (Finish judges errors first: overpass.rank)
    judge = staticmethod(score)

    def run(self):
        found = self.full()
        current = self.judge(found)
        for _ in range(PASSES):
            if not found or self.tries >= self.max_tries:
                break
            improved = False
            for p in sorted(found, key=lambda q: (q.severity != "error", q.code, q.subject, q.message)):
                if self.tries >= self.max_tries:
                    break
                snapshot = (self.dr.pos.copy(), self.dr.free.copy(), [list(line) for line in self.dr.lines])
                if not self.try_problem(p):
                    continue
                new_found = self.full()
                new = self.judge(new_found)
                if new < current:
                    found, current, improved = new_found, new, True
                else:  # better near the move, worse elsewhere: undo
                    self.dr.pos, self.dr.free, self.dr.lines = snapshot
                if not found:
                    break
            if not improved:
                break
        return found


def _norms(v: np.ndarray) -> np.ndarray:
    """np.linalg.norm(v, axis=-1) of real vectors, as numpy computes it (sqrt(add.reduce(v * v)))
    without its argument handling (the repair asks it tens of thousands of times)."""
    return np.sqrt(np.add.reduce(v * v, axis=-1))


_WHOLE = 2.0 ** 40   # a problem's size below this and a whole number: sums of them are exact (score_until)


def _later_steps(known) -> list | None:
    """[(errors, problems, size) of the known problems of checks.geometry_steps' steps k and after,
    for k = 0..7], or None when a size is not a whole number below _WHOLE (score_until)."""
    from mapkit.checks import GEOMETRY_STEPS, geometry_step

    rows = [[0, 0, 0.0] for _ in range(GEOMETRY_STEPS + 1)]
    for p in known:
        v = _size_of(p)
        if not (v.is_integer() and 0.0 <= v < _WHOLE):
            return None
        if p.code in ("space-overlap", "space-on-station"):
            # the same spaces and markers meet with the same areas, but the part's tree (other
            # spaces moved) may add them up in another order: the last bit of the sum, and so its
            # rounding to the mm² of the message, can differ by one
            v = max(v - 1.0, 0.0)
        row = rows[geometry_step(p)]
        row[0] += p.severity == "error"
        row[1] += 1
        row[2] += v
    for k in range(GEOMETRY_STEPS - 1, -1, -1):   # each row the sum of it and the ones after
        for j in range(3):
            rows[k][j] += rows[k + 1][j]
    return [tuple(row) for row in rows]


def _full_key(board, size_out) -> bytes:
    """Repair.full's memo key of a whole board from PartBoards: its stations' and waypoints'
    positions and the layout's size (the rest of such a board is the same for every drawing), each
    waypoint written as the tuple of its fields (equal exactly when its dataclass repr
    is, and cheaper to write)."""
    return hashlib.sha256(repr([[(s.board.x, s.board.y) for s in board.stations],
                                [tuple([(w.lat, w.lon, w.x, w.y) for w in r.waypoints]) for r in board.routes],
                                size_out]).encode()).digest()


class Part:
    """A part of the board as Repair.part_data makes it, for its checks (self.problems) and its
    stations' label room (self.without_room). With the layout's own check (check_geometry of
    build_board(data): mapkit.layout.judge.geometry_problems) the part is a Board from
    PartBoards and both use one Layout of it; with any other check it is the dict, as before."""

    def __init__(self, rp, data, board, layout=None, needs=None):
        self.rp, self.data, self.board = rp, data, board
        self._layout, self._needs = layout, needs

    def layout(self):
        if self._layout is None:
            from mapkit.geometry import Layout

            self._layout = Layout(self.board, self._needs, even=self.rp.even)
        return self._layout

    def problems(self) -> list:
        if self.board is None:
            return self.rp.check(self.data)
        from mapkit.checks import check_geometry

        return list(check_geometry(self.board, self.layout()))

    def score_unless(self, base, best_gain, ranked: bool = False, known=None) -> tuple | None:
        """score(self.problems()) (ranked: overpass.rank of them, errors first), or None once its
        gain over base is certainly not below best_gain (a candidate no better than the best so
        far: Repair.try_problem, Finish.try_problem); known: problems certainly among this part's
        (kept_from)."""
        if ranked:
            return self.score_until(lambda sc: not (sc[0] - base[0], sc[1] - base[1], sc[2] - base[2]) < best_gain,
                                    ranked, known)
        return self.score_until(lambda sc: not (sc[0] - base[0], sc[1] - base[1]) < best_gain, known=known)

    def kept_from(self, before: "Part", found: list) -> list | None:
        """The problems of found (those of before, this part of the board as it was before a move)
        that this one certainly has too: each names only routes drawn as they were (the very shape:
        the same points, offset, length and end needs, so the same spaces and clipped line) and
        stations where they were, and whether such a problem is found depends on those alone (the
        same spaces meeting, lines crossing, lengths; an overlap's area may be summed in another
        order: _later_steps). None when the two are not the same part (other routes or stations)
        or not both Boards of the layout's check."""
        if self.board is None or before.board is None or not found:
            return None
        lay, was = self.layout(), before.layout()
        if lay._route_index != was._route_index or list(lay.positions) != list(was.positions):
            return None
        same_routes = {rid for rid, a, b in zip(lay._route_index, lay._shapes, was._shapes) if a is b}
        here, there = lay.positions, was.positions
        kept = []
        for p in found:
            rids, sids = _route_names(p), _station_names(p)
            if all(r in same_routes for r in rids) and all(here[s] == there[s] for s in sids):
                kept.append(p)
        return kept

    def score_until(self, enough, ranked: bool = False, known=None) -> tuple | None:
        """score(self.problems()) (ranked: overpass.rank of them), or None as soon as enough(the
        score of the problems found so far) is true: enough must hold of every score at least as
        large, count for count and size for size (then it holds of the whole one). The checks
        are asked a step at a time (checks.geometry_steps), summed in their order as score sums
        them: more problems only add to the counts, and to the size (no problem's size is
        negative, and a float sum grows with its terms). The last steps (the spaces' overlaps and
        the crossings: most of a part's check) are then not asked for a move that is already
        worse. known: problems certainly among the part's (kept_from); those of the steps not
        asked yet are added to what is found so far, where every size is a whole number (they
        are: counts of mm and mm² read from the messages, far below 2**53, so every sum of them is
        exact in any order and no larger than the whole part's). A part with another check is
        judged whole."""
        if self.board is None:
            found = self.problems()
            if ranked:
                from mapkit.layout.overpass import rank

                return rank(found)
            return score(found)
        from mapkit.checks import geometry_steps

        later = _later_steps(known) if known else None   # (errors, count, size) known after step k, at k + 1
        errors, count, size = 0, 0, 0.0
        whole = later is not None
        if later is not None:
            e, c, z = later[0]
            sc = (e, c, z) if ranked else (c, z)
        else:
            sc = (0, 0, 0.0) if ranked else (0, 0.0)
        if enough(sc):
            return None   # (nothing built)
        for k, step in enumerate(geometry_steps(self.board, self.layout())):
            count += len(step)
            for p in step:
                v = _size_of(p)
                size += v
                errors += p.severity == "error"
                if whole and not (v.is_integer() and 0.0 <= v < _WHOLE):
                    whole = False
            if whole:
                e, c, z = later[k + 1]
                sc = (errors + e, count + c, size + z) if ranked else (count + c, size + z)
            else:
                sc = (errors, count, size) if ranked else (count, size)
            if enough(sc):
                return None
        return (errors, count, size) if ranked else (count, size)

    def without_room(self, only=None) -> list[str]:
        from mapkit.layout.labelroom import board_without_room, without_room

        if self.board is None:
            return without_room(self.data, only=only)
        return board_without_room(self.board, self.layout(), only)


class PartBoards:
    """build_board(rp.part_data(part)) without the dict and with the model objects of unmoved
    stations and routes made once: the repair and the polish judge thousands of parts that differ
    from the one before in a point (building them was about a tenth of a check). Each Station and
    Route is boardfile's own station_model / route_model of the dict part_data would write, keyed
    by everything that dict and its place in the part depend on, so the Board is equal field for
    field to build_board's (tests/test_layout_identity.py compares them)."""

    def __init__(self, rp):
        self.rp = rp
        self.template = build_board(rp.part_data(([], [])))   # everything but the stations and routes
        self.kinds = {c.id: c.kind for c in self.template.palette}
        self._stations: dict = {}   # (station index, place in the part, x, y) -> Station
        self._routes: dict = {}     # (route index, place in the part, id, waypoints) -> Route
        self._ids: dict = {}        # route indices of a part -> their ids (default_route_ids)
        self._fields = {f.name: getattr(self.template, f.name) for f in fields(Board)}
        self._round_src = None      # the points _rounded rounded last, and what it made of them
        self._round_out: list = []

    def _rounded(self, pos: np.ndarray) -> list:
        """[(round(x, 1), round(y, 1)) of each point (x, y) of pos as Python floats] (_xy's
        rounding), made again only for the points whose bits differ from the last call's (a
        judged part differs from the one before in a point or two); a copy of pos kept to compare."""
        last, out = self._round_src, self._round_out
        if last is None or last.ndim != 2 or pos.ndim != 2 or last.shape[1] != pos.shape[1]:
            out[:] = [(round(x, 1), round(y, 1)) for x, y in pos.tolist()]
        elif last.shape == pos.shape and last.tobytes() == pos.tobytes():
            return out   # (the same bits: nothing moved)
        else:
            m = min(len(last), len(pos))
            a, b = pos[:m], last[:m]
            # (a sign of zero or a NaN counts as a change: round keeps the sign, NaN != NaN)
            changed = np.flatnonzero(((a != b) | (np.signbit(a) != np.signbit(b))).any(axis=1)).tolist()
            del out[m:]
            for i in changed:
                x, y = pos[i].tolist()
                out[i] = (round(x, 1), round(y, 1))
            out.extend((round(x, 1), round(y, 1)) for x, y in pos[m:].tolist())
        self._round_src = pos.copy()
        return out

    def whole_needs(self, order) -> dict:
        """{route index: (need at its a, need at its b)} of these routes of the file, as the whole
        board's geometry gives them with the points where they are now (mapkit.geometry.end_needs on
        build_result's board: every bundle round their end stations, their first segments at the
        positions as written, 0.1 mm)."""
        from mapkit.geometry import station_fan

        rp, net = self.rp, self.rp.net
        dr = rp.dr
        if not hasattr(self, "_route_bundle"):
            self._index = {sid: i for i, sid in enumerate(net.ids)}
            self._route_bundle = {ri: k for k, b in enumerate(net.bundles) for ri in b.routes}
            self._ends = {}
            for k, b in enumerate(net.bundles):
                for s_ in (b.a, b.b):
                    self._ends.setdefault(s_, []).append(k)
            self._fans: dict = {}   # (station, its bundles' lines and sizes, their points) -> {(bundle, end): need}
            self._fan_points: dict = {}   # (station, its bundles' lines) -> (their points' indices, the bundles' sizes)
        ks = {self._route_bundle[ri] for ri in order}
        stations = {q for k in ks for q in (dr.lines[k][0], dr.lines[k][-1])}
        # each station's fan once per drawing of it: its needs depend only on its own bands (their
        # lines' points, widths and lengths), and a judged part differs from the one before in a
        # point, so most stations' fans are as they were (their fan_needs and band building were
        # about a tenth of the 200-station bench board's time). The fan is given to station_fan as
        # the whole loop built it (the same bundles in the same order, the same numbers).
        fans, idx_of = self._fans, self._fan_points
        got, pr = {}, None
        for s_ in stations:
            kk = self._ends.get(s_, [])
            lines = tuple(tuple(dr.lines[k]) for k in kk)
            # the points' indices and the bundles' sizes of a station's fan, made once for its lines
            # (the same key as before, with the points' bytes taken by one index array)
            made = idx_of.get((s_, lines))
            if made is None:
                if len(idx_of) >= 50_000:   # bounded memory
                    idx_of.clear()
                made = idx_of[(s_, lines)] = (
                    np.array([q for ln in lines for q in ln], dtype=np.intp),
                    tuple((net.bundles[k].half_width, net.bundles[k].length) for k in kk))
            idx, sizes = made
            key = (s_, lines, sizes, net.radius, net.space_len, net.space_gap, dr.pos[idx].tobytes())
            fan = fans.get(key)
            if fan is None:
                if pr is None:
                    pr = self._rounded(dr.pos)   # (each point as _xy rounds it: (x, y) for its {"x", "y"})
                bands = {}   # bundle -> (its end here, angle, half-width, even gap)
                for k in kk:
                    line = dr.lines[k]
                    end, q = (0, line[1]) if line[0] == s_ else (1, line[-2])
                    here, nxt = pr[s_], pr[q]
                    pts = [pr[p] for p in line]
                    total = sum(math.hypot(u[0] - v[0], u[1] - v[1]) for u, v in zip(pts[:-1], pts[1:]))
                    b = net.bundles[k]
                    even = (total - 2 * net.radius - b.length * net.space_len) / (b.length + 1)
                    bands[k] = (end, math.atan2(nxt[1] - here[1], nxt[0] - here[0]), b.half_width, even)
                need = station_fan([v[1:] for v in bands.values()], net.radius, net.space_gap)
                fan = {(k, v[0]): n for (k, v), n in zip(bands.items(), need)}
                if len(fans) >= 50_000:   # bounded memory
                    fans.clear()
                fans[key] = fan
            got[s_] = fan
        out = {}
        routes = net.board.routes
        for ri in order:
            k = self._route_bundle[ri]
            line = dr.lines[k]
            n0, n1 = got[line[0]].get((k, 0), 0.0), got[line[-1]].get((k, 1), 0.0)
            out[ri] = (n0, n1) if line[0] == self._index[routes[ri].a] else (n1, n0)
        return out

    def board(self, part, with_needs: bool = False):
        """The Board of that part; with_needs: (it, {route id: its end needs on the whole board})."""
        rp, net = self.rp, self.rp.net
        pos, raw_stations, raw_routes = rp.dr.pos, net.data["stations"], net.data["routes"]
        stations_in, bundles = part
        if len(self._stations) >= 50_000:   # bounded memory (a few dozen bytes of key a point)
            self._stations.clear()
            self._routes.clear()
            self._ids.clear()
        # the points as Python floats, rounded as _xy rounds them (round(float(v), 1)), made again
        # only for the points moved since the last part (_rounded)
        pr = self._rounded(pos)
        stations = []
        for j, i in enumerate(stations_in):
            x, y = pr[i]
            key = (i, j, x, y)
            st = self._stations.get(key)
            if st is None:
                st = self._stations[key] = station_model({**raw_stations[i], "board": {"x": x, "y": y}}, j)
            stations.append(st)
        wps_of = {}
        lines = rp.dr.lines
        for k in bundles:
            line = lines[k]
            wps = tuple([pr[q] for q in line[1:-1]]) if len(line) > 2 else ()
            for ri in net.bundles[k].routes:
                wps_of[ri] = wps
        order = tuple(sorted(wps_of))
        ids = self._ids.get(order)
        if ids is None:
            ids = self._ids[order] = default_route_ids([raw_routes[ri] for ri in order])
        routes = []
        for j, (ri, rid) in enumerate(zip(order, ids)):
            key = (ri, j, rid, wps_of[ri])
            r = self._routes.get(key)
            if r is None:
                raw = dict(raw_routes[ri])
                raw.pop("waypoints", None)
                if wps_of[ri]:
                    raw["waypoints"] = [{"x": x, "y": y} for x, y in wps_of[ri]]
                r = self._routes[key] = route_model(raw, j, rid, self.kinds, self.template.gray_kind)
            routes.append(r)
        # dataclasses.replace(self.template, stations=..., routes=...) without its field-by-field
        # __init__: the template's fields with these two (and none of its cached properties)
        board = object.__new__(Board)
        board.__dict__.update(self._fields)
        board.__dict__["stations"], board.__dict__["routes"] = tuple(stations), tuple(routes)
        if not with_needs:
            return board
        if self.rp.even:
            return board, None   # (every route's spaces spread evenly: no needs to give)
        whole = self.whole_needs(order)
        return board, {rid: whole[ri] for ri, rid in zip(order, ids)}


def repair(net, dr, size_out, check, max_tries: int | None = None) -> list:
    """Local moves until the checks find nothing or nothing helps; returns what is left."""
    rp = Repair(net, dr, size_out, check)
    if max_tries is not None:
        rp.max_tries = max_tries
    return rp.run()
