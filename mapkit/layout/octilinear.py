"""The schematic style's octilinear pass (octilinear), and how octilinear a drawing is
(segments, octilinear_share).

octilinear(rp): on a board the checks find no error on (rp: mapkit.layout.repair.Repair), route
segments (a route's straight pieces: station to bend, bend to bend, bend to station) are turned to
a multiple of 45°, as a transit diagram draws them: a free station or bend moved (at most
MAX_MOVE_MM) to the point nearest where it is that puts one or two of its segments on the 45° lines
through their other ends, and a segment still off 45° given one bend that splits it into two pieces
on the 45° lines either side of its direction, or two bends (a Z: half of one line, the other, the
other half), each piece at least MIN_PIECE_MM. A move is kept
only when it leaves fewer of its segments off 45°, the stations still fill the board as asked, no
route at it gets gaps between spaces more than GAP_SLACK_MM wider than its gap_max (or than they
were), the geometry checks find nothing on the part of the board it changes, the stations near it
keep their labels' room, and the whole board's checks find no more than before the pass. Pinned
stations and fixed waypoints stay. Tries are bounded in number (MAX_TRIES), in a fixed order, so a
seed gives one result.

segments(data): every route's straight pieces of a board dict as drawn, one drawing per route (a
double's two routes share one: counted once). octilinear_share(data): the share of them within
TOLERANCE_DEG of a multiple of 45°.
"""

from __future__ import annotations

import math

import numpy as np

from mapkit.layout.judge import fill_kept, score, station_span
from mapkit.layout.labelroom import LABEL_REACH_MM

TOLERANCE_DEG = 5.0
ON_DEG = 0.5             # a segment this near a multiple of 45° is on it (the pass aims at exact directions)
MAX_MOVE_MM = 25.0       # the farthest a station or bend is moved in one step
MIN_PIECE_MM = 5.0       # a bend's shorter piece at least this long: a shorter one reads as a wobble, not a bend
SWEEPS = 4
MAX_TRIES = 1500         # moves judged by the checks at most
GAP_SLACK_MM = 1.5      # a route's gaps may grow this much past its gap_max (or past what they were)
CANDIDATES = 5           # moves judged per point and sweep at most
DIRS = np.array([[math.cos(t), math.sin(t)] for t in np.arange(4) * math.pi / 4])   # the 45° lines


def segments(data: dict) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    pos = {s["id"]: (s["board"]["x"], s["board"]["y"]) for s in data["stations"] if "board" in s}
    out, seen = [], set()
    for r in data["routes"]:
        if r["from"] not in pos or r["to"] not in pos:
            continue
        key = r.get("double") or id(r)
        if key in seen:
            continue
        seen.add(key)
        pts = [pos[r["from"]]] + [(w["x"], w["y"]) for w in r.get("waypoints", []) if "x" in w and "y" in w]
        pts.append(pos[r["to"]])
        out += [(p, q) for p, q in zip(pts, pts[1:]) if p != q]
    return out


def off_45(p, q) -> float:
    """Degrees between the segment p-q and the nearest multiple of 45°."""
    a = math.degrees(math.atan2(q[1] - p[1], q[0] - p[0])) % 45.0
    return min(a, 45.0 - a)


def octilinear_share(data: dict, tol: float = TOLERANCE_DEG) -> float:
    segs = segments(data)
    if not segs:
        return 1.0
    return sum(off_45(p, q) <= tol for p, q in segs) / len(segs)


def _cost(pos, pairs) -> tuple[int, float]:
    """(segments off 45° by more than ON_DEG, their summed degrees off) of the point pairs."""
    offs = [off_45(pos[i], pos[j]) for i, j in pairs]
    return sum(o > ON_DEG for o in offs), sum(offs)


def _gaps(net, dr, ks) -> np.ndarray:
    out = []
    for k in ks:
        pts = dr.pos[dr.lines[k]]
        L = float(np.hypot(*np.diff(pts, axis=0).T).sum())
        b = net.bundles[k]
        out.append((L - 2 * net.radius - b.length * net.space_len) / (b.length + 1))
    return np.array(out)


class _Pass:
    """The pass's moves on one drawing, with the whole board's score before it (base)."""

    def __init__(self, rp):
        self.rp, self.net, self.dr = rp, rp.net, rp.dr
        self.base = score(rp.full())
        self.tries = 0
        self.moved = self.bent = 0

    def pairs_at(self, i) -> tuple[list[tuple[int, int]], list[int], list[int]]:
        """(the segments at point i, the other end of each, the bundles through i)."""
        pairs, others, ks = [], [], []
        for k, line in enumerate(self.dr.lines):
            if i not in line or self.net.bundles[k].flight:
                continue
            ks.append(k)
            j = line.index(i)
            for o in (j - 1, j + 1):
                if 0 <= o < len(line):
                    pairs.append((i, line[o]))
                    others.append(line[o])
        return pairs, others, ks

    def candidates(self, i, others) -> list[np.ndarray]:
        """Points near i that put one of its segments on a 45° line, or two of them."""
        pos = self.dr.pos
        x = pos[i]
        out = []
        for o in dict.fromkeys(others):
            for u in DIRS:
                out.append(pos[o] + np.dot(x - pos[o], u) * u)   # the foot on that line
        uniq = list(dict.fromkeys(others))
        for a in range(len(uniq)):
            for b in range(a + 1, len(uniq)):
                pa, pb = pos[uniq[a]], pos[uniq[b]]
                for u in DIRS:
                    for v in DIRS:
                        m = np.column_stack([u, -v])
                        if abs(np.linalg.det(m)) < 1e-6:
                            continue
                        t = np.linalg.solve(m, pb - pa)
                        out.append(pa + t[0] * u)
        return [c for c in out if 1e-6 < np.linalg.norm(c - x) <= MAX_MOVE_MM and self.rp._inside(c)]

    def judged(self, points, ks, gaps_before, span) -> bool:
        """Whether the drawing as it is now (points moved or added) may be kept: the fill, the gaps
        of the bundles ks (each within GAP_SLACK_MM of its gap_max or of gaps_before), the checks of
        the part around the points, the labels' room near them and the whole board's checks."""
        rp, dr, net = self.rp, self.dr, self.net
        if not fill_kept(dr, span):
            return False
        if net.gap_rule and ks:
            now = _gaps(net, dr, ks)
            limit = np.array([net.bundles[k].gap_max for k in ks])
            if not np.all(now <= np.maximum(limit, gaps_before) + GAP_SLACK_MM + 1e-9):
                return False
        self.tries += 1
        centres = rp._centres(points)
        part = rp.select(centres, 25.0 + MAX_MOVE_MM)
        near = {net.ids[s] for s in np.nonzero(np.linalg.norm(dr.pos[: net.n] - centres[0], axis=1) < LABEL_REACH_MM)[0]}
        sub = rp.view(part)
        if sub.problems() or sub.without_room(only=near):
            return False   # (the pass runs on a clean board, or one left with a warning elsewhere: nothing new here)
        return score(rp.full()) <= self.base

    def move_points(self) -> int:
        dr = self.dr
        kept = 0
        order = []
        for i in range(len(dr.pos)):
            if not dr.free[i]:
                continue
            pairs, others, ks = self.pairs_at(i)
            if not pairs:
                continue
            c = _cost(dr.pos, pairs)
            if c[0]:
                order.append((-c[0], -c[1], i, pairs, others, ks))
        for _, _, i, pairs, others, ks in sorted(order, key=lambda t: t[:3]):
            if self.tries >= MAX_TRIES:
                break
            before = _cost(dr.pos, pairs)
            old = dr.pos[i].copy()
            ranked = []
            limit = np.array([self.net.bundles[k].gap_max for k in ks])
            for c in self.candidates(i, others):
                dr.pos[i] = c
                after = _cost(dr.pos, pairs)
                if after[0] < before[0]:
                    over = float(np.maximum(_gaps(self.net, dr, ks) - limit, 0.0).sum()) if ks else 0.0
                    ranked.append((after[0], round(over, 1), float(np.linalg.norm(c - old)), tuple(c)))
            dr.pos[i] = old
            span, gaps_before = station_span(dr), _gaps(self.net, dr, ks)
            for _, _, _, c in sorted(ranked)[:CANDIDATES]:
                dr.pos[i] = np.array(c)
                if self.judged([i], ks, gaps_before, span):
                    kept += 1
                    break
                dr.pos[i] = old
        return kept

    def bend_routes(self) -> int:
        """Each segment still off 45°: one bend that splits it into two pieces on the 45° lines
        either side of its direction (bend_segment)."""
        dr, net = self.dr, self.net
        kept = 0
        for k in range(len(dr.lines)):
            b = net.bundles[k]
            if b.flight or b.fixed_waypoints:
                continue
            j = 0
            while j < len(dr.lines[k]) - 1 and self.tries < MAX_TRIES:
                added = self.bend_segment(k, j)
                kept += added
                j += 1 + added
        return kept

    def bend_segment(self, k, j) -> int:
        """Bends inside the segment j of bundle k (off 45°), its pieces on the 45° lines either side
        of its direction: one bend (an L: one line, then the other), or where neither L is kept two
        (a Z: half of one line, the other, the other half: nearer where the segment was). Returns
        the bends added."""
        dr, net = self.dr, self.net
        line = dr.lines[k]
        a_, b_ = dr.pos[line[j]], dr.pos[line[j + 1]]
        if off_45(a_, b_) <= ON_DEG:
            return 0
        d = b_ - a_
        ang = math.atan2(d[1], d[0])
        lo = math.floor(ang / (math.pi / 4)) * math.pi / 4
        u = np.array([math.cos(lo), math.sin(lo)])
        v = np.array([math.cos(lo + math.pi / 4), math.sin(lo + math.pi / 4)])
        s, t = np.linalg.solve(np.column_stack([u, v]), d)
        # the L whose corner is farther from both ends first (pieces of some length read as a bend)
        ls = sorted(([a_ + s * u], [a_ + t * v]), key=lambda c: -min(np.linalg.norm(c[0] - a_), np.linalg.norm(c[0] - b_)))
        zs = [[a_ + s / 2 * u, a_ + s / 2 * u + t * v], [a_ + t / 2 * v, a_ + t / 2 * v + s * u]]
        span, gaps_before = station_span(dr), _gaps(net, dr, [k])
        for corners in ls + sorted(zs, key=lambda c: -min(np.linalg.norm(c[0] - a_), np.linalg.norm(c[1] - c[0]))):
            ends = [a_] + corners + [b_]
            if not all(self.rp._inside(c) for c in corners) or \
                    min(np.linalg.norm(q - p) for p, q in zip(ends, ends[1:])) < MIN_PIECE_MM:
                continue
            n0 = len(dr.pos)
            dr.pos = np.vstack([dr.pos, np.array(corners)])
            dr.free = np.append(dr.free, [True] * len(corners))
            idxs = list(range(n0, len(dr.pos)))
            line[j + 1:j + 1] = idxs
            if self.judged(idxs, [k], gaps_before, span):
                return len(idxs)
            del line[j + 1:j + 1 + len(idxs)]
            dr.pos = dr.pos[:n0]
            dr.free = dr.free[:n0]
        return 0


def octilinear(rp) -> dict:
    """The pass (see the module docstring); returns {"moved": points moved, "bent": bends added,
    "tries": moves judged}."""
    op = _Pass(rp)
    for sweep in range(SWEEPS):
        moved = op.move_points()
        bent = op.bend_routes() if sweep >= 1 else 0
        op.moved += moved
        op.bent += bent
        if (sweep >= 1 and not (moved or bent)) or op.tries >= MAX_TRIES:
            break
    return {"moved": op.moved, "bent": op.bent, "tries": op.tries}
