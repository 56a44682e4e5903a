"""The optimization: station and waypoint positions that hold every route's spaces, keep spaces
clear of each other and of stations, and stay near the real map.

Each rule of `mapkit validate`'s geometry checks becomes a block of least-squares residuals that
are zero when the rule holds with a small margin (hinge terms), plus soft terms for how the board
reads (route lengths near their preferred gaps, bearings near the real ones, octilinear directions
in the schematic style, the board filled). `scipy.optimize.least_squares` minimizes them with a
sparse Jacobian (each residual depends on at most a few points), so a 200-station board stays
within seconds. The pairs of things that may collide are found with a k-d tree and refreshed
between rounds.

Rules and their terms (docs/board-format.md):
- route-too-short / route-stretched: polyline length between lmin and lmax (hinge)
- station-overlap: station centres at least 2r + 3 mm (+1) apart (hinge)
- space-on-station: a station at least r + half-width + 1 from every other bundle's segments
- space-overlap: segments of bundles that share no station at least both half-widths + 1 apart,
  signed (negative when they cross, so that the gradient pulls them apart rather than along)
- spaces at a shared station: the angle between neighbouring bundles at least the angle their
  first spaces' corners need (atan(half width / where the spaces start), both sides)
- off-board: stations and waypoints inside the inner area less a double's half-width
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import least_squares
from scipy.sparse import coo_matrix
from scipy.spatial import cKDTree

from mapkit.layout.network import Network

CLEAR_MM = 1.0          # kept beyond what the checks need, for rounding and the drawn line
ANGLE_CLEAR = 0.06      # radians beyond the corners' need at a shared station
TWO_PI = 2 * np.pi
MAX_TURN = np.radians(55)  # at a waypoint: sharper, and a space's corner leaves the band


@dataclass
class Weights:
    hard: float = 4.0         # the checks' rules
    pref: float = 0.25        # route length near its preferred gaps
    geo: float = 0.03         # stations near their scaled real positions
    bearing: float = 6.0      # route directions near their real bearings (per unit vector difference)
    octilinear: float = 0.0   # schematic style: directions at multiples of 45°
    fill: float = 1.0         # bounding box at least 80 % of the inner area each way


@dataclass
class Drawing:
    """Positions of stations and waypoints, and each bundle's polyline through them."""

    pos: np.ndarray                  # (n_points, 2): stations first, then waypoints
    n_stations: int
    lines: list[list[int]]           # per bundle: point indices from a to b
    free: np.ndarray                 # (n_points,) bool: moved by the optimizer
    bounds: tuple | None = None      # (x0, y0, x1, y1) box for station centres and waypoints
    anchor: np.ndarray | None = None  # (n_stations, 2) the real map in mm
    fill_box: tuple | None = None    # (w, h) the bounding box must reach
    extra: dict = field(default_factory=dict)

    def add_waypoint(self, bundle: int, xy, free: bool = True) -> None:
        self.pos = np.vstack([self.pos, np.asarray(xy, dtype=float)[None, :]])
        self.free = np.append(self.free, free)
        line = self.lines[bundle]
        line.insert(len(line) - 1, len(self.pos) - 1)

    def segments(self):
        p, q, owner, first, last = [], [], [], [], []
        for k, line in enumerate(self.lines):
            for j in range(len(line) - 1):
                p.append(line[j])
                q.append(line[j + 1])
                owner.append(k)
                first.append(j == 0)
                last.append(j == len(line) - 2)
        return (np.array(p, dtype=int), np.array(q, dtype=int), np.array(owner, dtype=int),
                np.array(first, dtype=bool), np.array(last, dtype=bool))


def _pt_seg(x, a, b):
    """Distance from points x to segments a-b (all (k, 2))."""
    ab = b - a
    t = np.einsum("ij,ij->i", x - a, ab) / np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-12)
    t = np.clip(t, 0.0, 1.0)
    d = x - (a + ab * t[:, None])
    return np.sqrt(np.einsum("ij,ij->i", d, d) + 1e-12)


def _cross(u, v):
    return u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]


def signed_seg_dist(a, b, c, d):
    """Distance between segments a-b and c-d; when they cross, minus how far the nearest endpoint
    is from the other's line (how far it must move to uncross)."""
    dist = np.minimum(np.minimum(_pt_seg(a, c, d), _pt_seg(b, c, d)), np.minimum(_pt_seg(c, a, b), _pt_seg(d, a, b)))
    ab, cd = b - a, d - c
    o1, o2 = _cross(ab, c - a), _cross(ab, d - a)
    o3, o4 = _cross(cd, a - c), _cross(cd, b - c)
    crossing = (o1 * o2 < 0) & (o3 * o4 < 0)
    lab = np.maximum(np.hypot(ab[:, 0], ab[:, 1]), 1e-9)
    lcd = np.maximum(np.hypot(cd[:, 0], cd[:, 1]), 1e-9)
    depth = np.minimum(np.minimum(np.abs(o1), np.abs(o2)) / lab, np.minimum(np.abs(o3), np.abs(o4)) / lcd)
    return np.where(crossing, -depth, dist)


def _trim(p, q, first, last, t):
    """Segments shortened at station ends by t (the spaces start past the station marker)."""
    v = q - p
    ln = np.maximum(np.hypot(v[:, 0], v[:, 1]), 1e-9)
    u = v / ln[:, None]
    cut = np.minimum(t, 0.4 * ln)
    p2 = p + u * np.where(first, cut, 0.0)[:, None]
    q2 = q - u * np.where(last, cut, 0.0)[:, None]
    return p2, q2


class Problem:
    """The residual function and its sparsity for one round (fixed candidate pairs)."""

    def __init__(self, net: Network, dr: Drawing, w: Weights, style: str, reach: float = 70.0):
        self.net, self.dr, self.w, self.style = net, dr, w, style
        B = net.bundles
        n = dr.n_stations
        self.sp, self.sq, self.sown, self.sfirst, self.slast = dr.segments()
        self.lmin = np.array([b.lmin for b in B])
        self.lmax = np.array([b.lmax if np.isfinite(b.lmax) else 1e9 for b in B])
        self.lpref = np.array([b.lpref for b in B])
        self.half = np.array([b.half_width for b in B])
        self.nsp = np.array([b.length for b in B], dtype=float)
        self.ba = np.array([b.a for b in B], dtype=int)
        self.bb = np.array([b.b for b in B], dtype=int)
        self.flight = np.array([b.flight for b in B])
        pos = dr.pos
        # --- candidate pairs, from the current positions
        st = pos[:n]
        tree = cKDTree(st)
        pairs = tree.query_pairs(net.min_station_dist + reach * 0.5, output_type="ndarray")
        self.st_i, self.st_j = (pairs[:, 0], pairs[:, 1]) if len(pairs) else (np.zeros(0, int), np.zeros(0, int))
        mids = (pos[self.sp] + pos[self.sq]) / 2
        seglen = np.hypot(*(pos[self.sq] - pos[self.sp]).T)
        stree = cKDTree(mids)
        ends = [{B[k].a, B[k].b} for k in range(len(B))]
        si, sk = [], []
        for s in range(n):
            for k in stree.query_ball_point(st[s], reach + seglen.max() / 2 if len(seglen) else reach):
                if s not in ends[self.sown[k]]:
                    si.append(s)
                    sk.append(k)
        self.cs_s, self.cs_k = np.array(si, dtype=int), np.array(sk, dtype=int)
        ki, kj = [], []
        seg_pairs = stree.query_pairs(reach + (seglen.max() if len(seglen) else 0.0), output_type="ndarray")
        for k1, k2 in seg_pairs:
            o1, o2 = self.sown[k1], self.sown[k2]
            if o1 == o2:
                continue
            shared = ends[o1] & ends[o2]
            if shared:
                touch1 = {self.sp[k1], self.sq[k1]} & shared
                touch2 = {self.sp[k2], self.sq[k2]} & shared
                if touch1 & touch2:
                    continue  # both leave the same station: the angle term judges them
            ki.append(k1)
            kj.append(k2)
        self.cc_1, self.cc_2 = np.array(ki, dtype=int), np.array(kj, dtype=int)
        # --- cyclic order at each station (kept from the current drawing)
        ang_s, ang_e1, ang_e2, nb1, nb2 = [], [], [], [], []
        incident: dict[int, list[tuple[int, int, int]]] = {}
        for k, line in enumerate(dr.lines):
            incident.setdefault(line[0], []).append((k, line[0], line[1]))
            incident.setdefault(line[-1], []).append((k, line[-1], line[-2]))
        for s, items in incident.items():
            if len(items) < 2:
                continue
            items.sort(key=lambda it: np.arctan2(*(pos[it[2]] - pos[it[1]])[::-1]))
            for j in range(len(items)):
                a, b = items[j], items[(j + 1) % len(items)]
                ang_s.append(s)
                ang_e1.append(a[2])
                ang_e2.append(b[2])
                nb1.append(a[0])
                nb2.append(b[0])
        self.an_s, self.an_p1, self.an_p2 = (np.array(x, dtype=int) for x in (ang_s, ang_e1, ang_e2))
        self.an_b1, self.an_b2 = np.array(nb1, dtype=int), np.array(nb2, dtype=int)
        # --- variables
        self.var_of = -np.ones(len(pos), dtype=int)
        free_idx = np.flatnonzero(dr.free)
        self.var_of[free_idx] = np.arange(len(free_idx))
        self.free_idx = free_idx
        if dr.fill_box is not None:
            ext = [int(np.argmin(st[:, 0])), int(np.argmax(st[:, 0])), int(np.argmin(st[:, 1])), int(np.argmax(st[:, 1]))]
            self.ext = ext
        else:
            self.ext = None
        self.geo_dir = net.geo[self.bb] - net.geo[self.ba]
        gl = np.maximum(np.hypot(self.geo_dir[:, 0], self.geo_dir[:, 1]), 1e-12)
        self.geo_dir = self.geo_dir / gl[:, None]
        self._sparsity = None
        self.L0 = self.bundle_lengths(pos)
        # waypoints: the turn at each, kept gentle so that spaces follow the line
        self.turns = [(line[j - 1], line[j], line[j + 1]) for line in dr.lines for j in range(1, len(line) - 1)]
        self.tp = np.array([t[0] for t in self.turns], dtype=int)
        self.tw = np.array([t[1] for t in self.turns], dtype=int)
        self.tq = np.array([t[2] for t in self.turns], dtype=int)

    # ------------------------------------------------------------------ residuals
    def positions(self, x):
        pos = self.dr.pos.copy()
        pos[self.free_idx] = x.reshape(-1, 2)
        return pos

    def bundle_lengths(self, pos):
        v = pos[self.sq] - pos[self.sp]
        return np.bincount(self.sown, weights=np.hypot(v[:, 0], v[:, 1]), minlength=len(self.net.bundles))

    def residuals(self, x):
        net, w, dr = self.net, self.w, self.dr
        pos = self.positions(x)
        out = []
        L = self.bundle_lengths(pos)
        out.append(w.hard * (np.maximum(self.lmin - L, 0) + np.maximum(L - self.lmax, 0)))
        out.append(w.pref * np.where(self.flight, 0.0, L - self.lpref))
        # stations apart
        d = pos[self.st_i] - pos[self.st_j]
        d = np.sqrt(np.einsum("ij,ij->i", d, d) + 1e-12)
        out.append(w.hard * np.maximum(net.min_station_dist - d, 0))
        # stations clear of other bundles' spaces
        p, q = _trim(pos[self.sp], pos[self.sq], self.sfirst, self.slast, net.radius + 1.0)
        if len(self.cs_s):
            ds = _pt_seg(pos[self.cs_s], p[self.cs_k], q[self.cs_k])
            need = net.radius + self.half[self.sown[self.cs_k]] + CLEAR_MM
            out.append(w.hard * np.maximum(need - ds, 0))
        # bundles clear of each other
        if len(self.cc_1):
            dc = signed_seg_dist(p[self.cc_1], q[self.cc_1], p[self.cc_2], q[self.cc_2])
            need = self.half[self.sown[self.cc_1]] + self.half[self.sown[self.cc_2]] + CLEAR_MM
            out.append(w.hard * np.maximum(need - dc, 0))
        # room at shared stations: angle to the next bundle around the station
        if len(self.an_s):
            u1 = pos[self.an_p1] - pos[self.an_s]
            u2 = pos[self.an_p2] - pos[self.an_s]
            gap = np.mod(np.arctan2(_cross(u1, u2), np.einsum("ij,ij->i", u1, u2)), TWO_PI)
            # where the first spaces start, from the lengths at the round's start: a constant per
            # round keeps each angle residual on three points (a narrow sparse Jacobian)
            L0 = self.L0
            spread = np.maximum((L0 - 2 * net.radius - self.nsp * net.space_len) / (self.nsp + 1), net.space_gap)
            start = net.radius + spread
            halfang = np.arctan2(self.half + 0.5, start)
            need = halfang[self.an_b1] + halfang[self.an_b2] + ANGLE_CLEAR
            out.append(w.hard * 15.0 * np.maximum(need - gap, 0))
        if len(self.tw):
            u1 = pos[self.tw] - pos[self.tp]
            u2 = pos[self.tq] - pos[self.tw]
            turn = np.abs(np.arctan2(_cross(u1, u2), np.einsum("ij,ij->i", u1, u2)))
            out.append(w.hard * 15.0 * np.maximum(turn - MAX_TURN, 0))
        # on the board
        if dr.bounds is not None:
            x0, y0, x1, y1 = dr.bounds
            fp = pos[self.free_idx]
            out.append(w.hard * (np.maximum(x0 - fp[:, 0], 0) + np.maximum(fp[:, 0] - x1, 0)))
            out.append(w.hard * (np.maximum(y0 - fp[:, 1], 0) + np.maximum(fp[:, 1] - y1, 0)))
        # near the real map
        if dr.anchor is not None and w.geo:
            fs = self.free_idx[self.free_idx < dr.n_stations]
            out.append(w.geo * (pos[fs] - dr.anchor[fs]).ravel())
        # bearings
        chord = pos[self.bb] - pos[self.ba]
        cl = np.maximum(np.hypot(chord[:, 0], chord[:, 1]), 1e-9)
        u = chord / cl[:, None]
        if w.bearing:
            out.append(w.bearing * (u - self.geo_dir).ravel())
        if w.octilinear:
            v = pos[self.sq] - pos[self.sp]
            vl = np.maximum(np.hypot(v[:, 0], v[:, 1]), 1e-9)
            c, s = v[:, 0] / vl, v[:, 1] / vl
            out.append(w.octilinear * 4 * c * s * (c * c - s * s))
        if self.ext is not None and dr.fill_box is not None:
            fw, fh = dr.fill_box
            i0, i1, j0, j1 = self.ext
            out.append(w.fill * np.array([max(fw - (pos[i1, 0] - pos[i0, 0]), 0.0),
                                          max(fh - (pos[j1, 1] - pos[j0, 1]), 0.0)]))
        return np.concatenate(out)

    # ------------------------------------------------------------------ sparsity
    def sparsity(self):
        """Which variables each residual row depends on (the rows in the order residuals() makes)."""
        rows: list[list[int]] = []
        line_pts = [set(l) for l in self.dr.lines]
        nb = len(self.net.bundles)
        rows += [sorted(line_pts[k]) for k in range(nb)]
        rows += [sorted(line_pts[k]) for k in range(nb)]
        rows += [[i, j] for i, j in zip(self.st_i, self.st_j)]
        rows += [[s, self.sp[k], self.sq[k]] for s, k in zip(self.cs_s, self.cs_k)]
        rows += [[self.sp[a], self.sq[a], self.sp[b], self.sq[b]] for a, b in zip(self.cc_1, self.cc_2)]
        rows += [[s, p1, p2] for s, p1, p2 in zip(self.an_s, self.an_p1, self.an_p2)]
        rows += [[p, wpt, q] for p, wpt, q in self.turns]
        mat_rows = [self._cols(r) for r in rows]
        if self.dr.bounds is not None:
            mat_rows += [[2 * v, 2 * v + 1] for v in range(len(self.free_idx))] * 2
        if self.dr.anchor is not None and self.w.geo:
            fs = self.free_idx[self.free_idx < self.dr.n_stations]
            for s in fs:
                c = self._cols([s])
                mat_rows += [c, c]
        if self.w.bearing:
            for k in range(nb):
                c = self._cols([self.ba[k], self.bb[k]])
                mat_rows += [c, c]
        if self.w.octilinear:
            mat_rows += [self._cols([p, q]) for p, q in zip(self.sp, self.sq)]
        if self.ext is not None and self.dr.fill_box is not None:
            i0, i1, j0, j1 = self.ext
            mat_rows += [self._cols([i0, i1]), self._cols([j0, j1])]
        ri = np.repeat(np.arange(len(mat_rows)), [len(c) for c in mat_rows])
        ci = np.fromiter((c for cols in mat_rows for c in cols), dtype=int, count=len(ri))
        return coo_matrix((np.ones(len(ri), dtype=np.int8), (ri, ci)),
                          shape=(len(mat_rows), 2 * len(self.free_idx))).tocsr()

    def _cols(self, points) -> list[int]:
        out = []
        for p in points:
            v = self.var_of[p]
            if v >= 0:
                out += [2 * v, 2 * v + 1]
        return out

    def solve(self, max_nfev: int = 60):
        x0 = self.dr.pos[self.free_idx].ravel()
        if not len(x0):
            return self.dr.pos
        sp = self.sparsity()
        res = least_squares(self.residuals, x0, jac_sparsity=sp, method="trf", max_nfev=max_nfev,
                            x_scale=1.0, xtol=1e-6, ftol=1e-7, tr_solver="lsmr")
        import os, time
        if os.environ.get("LAYOUT_DEBUG"):
            print(f"solve: vars {len(x0)} rows {sp.shape[0]} nfev {res.nfev} njev {res.njev} cost {res.cost:.1f} "
                  f"hard {float(np.sum(self.residuals(res.x)[:len(self.lmin)]**2)):.1f} status {res.status}")
            L = self.bundle_lengths(self.positions(res.x))
            bad = np.argsort(-(np.maximum(self.lmin - L, 0) + np.maximum(L - self.lmax, 0)))[:4]
            print("   worst", [(self.net.route_ids[self.net.bundles[k].routes[0]], round(L[k]), round(self.lmin[k]), round(self.lmax[k])) for k in bad])
        return self.positions(res.x)


def run_rounds(net: Network, dr: Drawing, w: Weights, style: str, rounds: int = 4, max_nfev: int = 60,
               escalate: float = 2.5, start: int = 0) -> Drawing:
    """Optimize in rounds, refreshing the candidate pairs and cyclic orders between rounds; the
    checks' terms weigh more each round (a penalty continuation: first the map's shape, then
    the rules it must meet exactly)."""
    for k in range(start, start + rounds):
        wk = replace(w, hard=w.hard * escalate ** k)
        prob = Problem(net, dr, wk, style)
        dr.pos = prob.solve(max_nfev)
    return dr
