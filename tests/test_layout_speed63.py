"""The tightening's faster paths (docs/design/speed.md, "Layout"): each
faster path gives the very floats of the plain code it replaced (tighten.py: Tighten.centrelines
and badness, _target's residuals on all routes at once, the station fans remembered by
_fresh_needs)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mapkit.layout.tighten as T
from mapkit.geometry import station_fan
from mapkit.layout import layout_board
from mapkit.layout.synthetic import layout_board_data

# Tighten._target, plain (one numpy call per route in its residuals), run in
# tighten.py's namespace: the reference the faster one must match bit for bit
_TARGET_BEFORE = r'''
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

    def values(xy):
        P[i] = xy
        L = np.array([float(np.hypot(*np.diff(P[seg], axis=0).T).sum()) for seg in seg_pts])
        Lt = L + np.array([track_extra(P[seg], off) for seg, off in zip(seg_pts, offs)]) if any(offs) else L
        e0, g, e1 = self.placed(ks, Lt)
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
'''


def _reference_target():
    ns = dict(vars(T))
    exec(_TARGET_BEFORE, ns)
    return ns["_target"]


class _Drawing:
    pass


class _Bare(T.Tighten):
    def __init__(self, pos, lines):
        self.dr = _Drawing()
        self.dr.pos, self.dr.lines = pos, lines


def test_centrelines_are_each_centreline_bit_for_bit():
    rng = np.random.default_rng(7)
    for _ in range(500):
        pos = rng.random((40, 2)) * rng.choice([1.0, 300.0, 1e4])
        # lines of 2 to 13 points: under 8 segments (the padded rows) and longer (the slices)
        lines = [[int(q) for q in rng.integers(0, 40, size=rng.integers(2, 14))]
                 for _ in range(rng.integers(1, 9))]
        tg = _Bare(pos, lines)
        ks = list(range(len(lines)))
        got = tg.centrelines(ks)
        assert got == [tg.centreline(k) for k in ks]
        assert all(type(v) is float for v in got)
        other = pos + 1.5
        assert tg.centrelines(ks[::-1], other) == [tg.centreline(k, other) for k in ks[::-1]]
    assert _Bare(np.zeros((2, 2)), [[0, 1]]).centrelines([]) == []


def _plain_needs(tg):
    """Tighten.needs() of the drawing as it is, the whole board's fans made anew in plain code (each
    station's bands in the order of the bundles, station_fan on each, nothing remembered)."""
    dr, bundles = tg.dr, tg.net.bundles
    at = {}
    for k, line in enumerate(dr.lines):
        for s_ in sorted({line[0], line[-1]}):
            at.setdefault(s_, []).append(k)
    out = [[0.0, 0.0] for _ in bundles]
    for s_, ks in at.items():
        bands = {}
        for k in ks:
            line, b = dr.lines[k], bundles[k]
            P = dr.pos[list(line)]
            even = (float(np.hypot(*np.diff(P, axis=0).T).sum()) - 2 * tg.r - b.length * tg.sl) / (b.length + 1)
            v0, v1 = dr.pos[line[1]] - dr.pos[line[0]], dr.pos[line[-2]] - dr.pos[line[-1]]
            ang = (math.atan2(v0[1], v0[0]), math.atan2(v1[1], v1[0]))
            for end, e in ((0, line[0]), (1, line[-1])):
                if e == s_:
                    bands[k] = (end, ang[end], b.half_width, even)
        got = station_fan([v[1:] for v in bands.values()], tg.r, tg.gmin)
        for (k, v), need in zip(bands.items(), got):
            out[k][v[0]] = need
    return [tuple(v) for v in out]


@pytest.fixture(scope="module")
def seen():
    """One layout of a small synthetic board with the tightening's fast paths checked against the
    plain code at every call: (name, calls, mismatches)."""
    ref_target = _reference_target()
    counts = {"badness": [0, 0], "target": [0, 0], "needs": [0, 0]}
    fast_badness, fast_target, fast_needs = T.Tighten.badness, T.Tighten._target, T.Tighten._fresh_needs

    def badness(self, ks):
        got = fast_badness(self, ks)
        over, out = 0, 0.0
        for k in ks:   # the plain code: each bundle's widest, one at a time
            if k in self.aim:
                g = self.widest(k)
                over += g > self.aim[k] + (T.OVER_MM - T.GAP_AIM_MM)
                out += max(g - self.aim[k], 0.0)
        counts["badness"][0] += 1
        counts["badness"][1] += got != (over, out)
        return got

    def target(self, i):
        got = fast_target(self, i)
        want = ref_target(self, i)
        counts["target"][0] += 1
        counts["target"][1] += not ((got is None and want is None) or
                                    (got is not None and want is not None and got.tobytes() == want.tobytes()))
        return got

    def fresh_needs(self):
        got = fast_needs(self)
        counts["needs"][0] += 1
        counts["needs"][1] += got != _plain_needs(self)
        return got

    mp = pytest.MonkeyPatch()
    mp.setattr(T.Tighten, "badness", badness)
    mp.setattr(T.Tighten, "_target", target)
    mp.setattr(T.Tighten, "_fresh_needs", fresh_needs)
    try:
        layout_board(layout_board_data(24, seed=0), seed=0)
    finally:
        mp.undo()
    return counts


def test_badness_is_the_plain_sum_of_each_bundles_widest(seen):
    calls, wrong = seen["badness"]
    assert calls > 20 and wrong == 0


def test_point_targets_are_those_of_the_plain_residuals(seen):
    calls, wrong = seen["target"]
    assert calls > 5 and wrong == 0


def test_remembered_station_fans_give_the_whole_boards_needs(seen):
    calls, wrong = seen["needs"]
    assert calls > 20 and wrong == 0
