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
- route-too-short / gaps: polyline length between lmin and lsoft (hinge; lsoft holds the gaps between
  spaces to at most network.MAX_GAP_MM, or what a crowded station needs, inside the checks' lmax)
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
from scipy.spatial import cKDTree

from mapkit.layout import order as O
from mapkit.layout import residuals as R
from mapkit.layout import terms as T
from mapkit.layout.crowding import ANGLE_CLEAR, alpha, need_of
from mapkit.layout.lsq import SparseJacobian, Structure, ZeroJacobian
from mapkit.layout.network import Network

TWO_PI = 2 * np.pi


@dataclass
class Weights:
    hard: float = 4.0         # the checks' rules
    pref: float = 0.25        # route length near its preferred gaps
    gaps: float = 1.0         # gaps of at most about 6 mm (a route reads as one line; with the gap rule, beside its hinge)
    geo: float = 0.03         # stations near their scaled real positions
    bearing: float = 6.0      # route directions near their real bearings (per unit vector difference)
    octilinear: float = 0.0   # schematic style: directions at multiples of 45°
    fill: float = 1.0         # bounding box at least 80 % of the inner area each way
    order: float = 4.0        # routes around a station in their real cyclic order (mapkit.layout.order)


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


# kept under their old names (tests and the speed notes refer to them)
_alpha, _need_of = alpha, need_of


class Problem:
    """The residual function and its sparsity for one round (fixed candidate pairs)."""

    def __init__(self, net: Network, dr: Drawing, w: Weights, style: str, reach: float = 70.0):
        self.net, self.dr, self.w, self.style = net, dr, w, style
        B = net.bundles
        n = dr.n_stations
        self.sp, self.sq, self.sown, self.sfirst, self.slast = dr.segments()
        flight = np.array([b.flight for b in B], dtype=bool)
        if flight.any():
            # flights get their own path round the board (mapkit.layout.flights), not these terms
            keep = ~flight[self.sown]
            self.sp, self.sq, self.sown, self.sfirst, self.slast = (a[keep] for a in
                                                                    (self.sp, self.sq, self.sown, self.sfirst, self.slast))
        self.lmin = np.array([0.0 if b.flight else b.lmin for b in B])
        self.lmax = np.array([b.lmax if np.isfinite(b.lmax) else 1e9 for b in B])
        if net.gap_rule:   # the longest a route may be drawn: its gaps at gap_max (network.build_network)
            self.lmax = np.minimum(self.lmax, np.array([b.lsoft if np.isfinite(b.lsoft) else 1e9 for b in B]))
        self.lpref = np.array([b.lpref for b in B])
        self.lsoft = np.array([b.lsoft if np.isfinite(b.lsoft) else 1e9 for b in B])
        self.half = np.array([b.half_width for b in B])
        self.gap_max = np.array([b.gap_max for b in B])
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
        ba_, bb_ = np.array([b.a for b in B], dtype=int), np.array([b.b for b in B], dtype=int)
        si, sk = [np.zeros(0, dtype=int)], [np.zeros(0, dtype=int)]
        # one query for all stations (unsorted: each station's list in the order its own query gives)
        near_lists = stree.query_ball_point(st, reach + seglen.max() / 2 if len(seglen) else reach,
                                            return_sorted=False) if n else []
        for s in range(n):   # its own routes left out as arrays: the same pairs in the same order
            found = np.asarray(near_lists[s], dtype=int)
            own_ = self.sown[found]
            found = found[(ba_[own_] != s) & (bb_[own_] != s)]
            si.append(np.full(len(found), s, dtype=int))
            sk.append(found)
        si, sk = np.concatenate(si), np.concatenate(sk)
        # the k-d tree of midpoints over-reaches by half the longest segment: keep the pairs really
        # within reach (a hinge farther off is zero and its row in the Jacobian too, but costs time)
        if len(si):
            near = T.point_segment_value(st[si], pos[self.sp[sk]], pos[self.sq[sk]])[0] < reach
            si, sk = si[near], sk[near]
        self.cs_s, self.cs_k = si, sk
        seg_pairs = stree.query_pairs(reach + (seglen.max() if len(seglen) else 0.0), output_type="ndarray")
        k1, k2 = (seg_pairs[:, 0], seg_pairs[:, 1]) if len(seg_pairs) else (np.zeros(0, int), np.zeros(0, int))
        o1, o2 = self.sown[k1], self.sown[k2]
        keep = o1 != o2
        for x in (self.sp[k1], self.sq[k1]):
            # both leave the same station (an end of both bundles, on both segments): the angle term judges them
            keep &= ~(((x == self.sp[k2]) | (x == self.sq[k2])) & ((x == ba_[o1]) | (x == bb_[o1]))
                      & ((x == ba_[o2]) | (x == bb_[o2])))
        ki, kj = k1[keep].astype(int), k2[keep].astype(int)
        if len(ki):  # as above: only the pairs of segments really within reach of each other
            sd = T.signed_segments_value(pos[self.sp[ki]], pos[self.sq[ki]], pos[self.sp[kj]], pos[self.sq[kj]])[0]   # (the values only)
            # an overpass may cross another route's line (the checks ask only that its spaces stay
            # clear, at a gap of it): where a step asks (mapkit.layout.knots.folds), its crossings are not pushed apart
            over = np.array([b.overpass for b in B], dtype=bool) & bool(dr.extra.get("overpass_crossings"))
            crossing_over = (over[self.sown[ki]] | over[self.sown[kj]]) & (sd < 0)
            near = (sd < reach) & ~crossing_over
            ki, kj = ki[near], kj[near]
        self.cc_1, self.cc_2 = ki, kj
        # --- cyclic order at each station (kept from the current drawing)
        ang_s, ang_e1, ang_e2, nb1, nb2 = [], [], [], [], []
        incident: dict[int, list[tuple[int, int, int]]] = {}
        for k, line in enumerate(dr.lines):
            if flight[k]:
                continue
            incident.setdefault(line[0], []).append((k, line[0], line[1]))
            incident.setdefault(line[-1], []).append((k, line[-1], line[-2]))
        for s, items in incident.items():
            if len(items) < 2:
                continue
            v = pos[[it[2] for it in items]] - pos[[it[1] for it in items]]
            turn = np.arctan2(v[:, 1], v[:, 0]).tolist()
            items = [it for _, it in sorted(zip(turn, items), key=lambda pair: pair[0])]
            for j in range(len(items)):
                a, b = items[j], items[(j + 1) % len(items)]
                ang_s.append(s)
                ang_e1.append(a[2])
                ang_e2.append(b[2])
                nb1.append(a[0])
                nb2.append(b[0])
        self.an_s, self.an_p1, self.an_p2 = (np.array(x, dtype=int) for x in (ang_s, ang_e1, ang_e2))
        self.an_b1, self.an_b2 = np.array(nb1, dtype=int), np.array(nb2, dtype=int)
        if w.order:
            if net.order_rows is None:
                net.order_rows = O.order_pairs(net)
            rows_ = net.order_rows
            if flight.any() and len(rows_):
                rows_ = rows_[~(flight[rows_[:, 1]] | flight[rows_[:, 2]])]
            self.or_s, self.or_p1, self.or_p2 = O.next_points(dr.lines, rows_)
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
        self._last = None
        self._nfun, self._max_nfev = 0, None   # residual evaluations of the running solve, its budget
        self._jac_index = None   # (shape, masks, csr Structure) of the Jacobian's entries (jacobian)
        self.L0 = self.bundle_lengths(pos)
        # extra clearances a step asked for (most rounds have none: zeros without the look-ups)
        extra = dr.extra.get("angle", {})
        self.an_extra = (np.array([extra.get(frozenset((int(a), int(b))), 0.0) for a, b in zip(self.an_b1, self.an_b2)])
                         if extra else np.zeros(len(self.an_b1)))
        cextra = dr.extra.get("clear", {})
        self.cc_extra = (np.array([cextra.get(frozenset((int(self.sown[a]), int(self.sown[b]))), 0.0)
                                   for a, b in zip(self.cc_1, self.cc_2)]) if cextra else np.zeros(len(self.cc_1)))
        sextra = dr.extra.get("station", {})
        self.cs_extra = (np.array([sextra.get((int(st_), int(self.sown[k])), 0.0) for st_, k in zip(self.cs_s, self.cs_k)])
                         if sextra else np.zeros(len(self.cs_s)))
        # for the angle rows: the segments of each row's two bundles (their lengths move the need),
        # each bundle's segments in increasing order
        by_order = np.argsort(self.sown, kind="stable")
        count = np.bincount(self.sown, minlength=len(B))
        first = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(int)

        def segments_of(bundles):
            c = count[bundles]
            rep = np.repeat(np.arange(len(bundles)), c)
            within = np.arange(int(c.sum())) - np.repeat(np.cumsum(c) - c, c)
            return rep.astype(int), by_order[first[bundles][rep] + within].astype(int)
        self.an_rep1, self.an_seg1 = segments_of(self.an_b1)
        self.an_rep2, self.an_seg2 = segments_of(self.an_b2)
        # waypoints: the turn at each, kept gentle so that spaces follow the line
        self.turns = [(line[j - 1], line[j], line[j + 1]) for k, line in enumerate(dr.lines) if not flight[k]
                      for j in range(1, len(line) - 1)]
        self.tp = np.array([t[0] for t in self.turns], dtype=int)
        self.tw = np.array([t[1] for t in self.turns], dtype=int)
        self.tq = np.array([t[2] for t in self.turns], dtype=int)

    # the gradients of every row, not only those of hinges in force (tests compare the two)
    every_row = False

    def _in_force(self, f):
        """The rows of a hinge block whose gradient factor is not zero."""
        return np.arange(len(f)) if self.every_row else np.flatnonzero(f)

    def _angle_need(self, L=None, grad=False):
        """The angle two neighbouring bundles at a station need so that their first spaces clear.

        A bundle's first space occupies, at distance rho from the station centre, an angle
        alpha(rho) either side of its axis: nothing before its spaces start (s), then up to
        atan(h / s) at the near corner, then asin(h / rho) along its side. Two neighbours clear
        when the angle between them exceeds alpha_1 + alpha_2 at every rho where both are
        present; the sum peaks at one of the two near corners, which is where it is taken. s comes from the lengths at the
        round's start (a constant per round, so the residual stays on three points)."""
        if not len(self.an_s):
            return (np.zeros(0), np.zeros(0), np.zeros(0)) if grad else np.zeros(0)
        s1, s2, h1, h2, _ = self._need_inputs(L)
        need = _need_of(s1, s2, h1, h2) + ANGLE_CLEAR + self.an_extra
        return (need, *self._angle_need_grad(L)) if grad else need

    def _need_inputs(self, L):
        net = self.net
        L = self.L0 if L is None else L
        raw = (L - 2 * net.radius - self.nsp * net.space_len) / (self.nsp + 1)
        # no wider than the route may be drawn (its gap_max): a longer route would not be kept,
        # so it must not seem to give its neighbours more room
        spread = np.clip(raw, net.space_gap, self.gap_max)
        dspread = np.where((raw > net.space_gap) & (raw < self.gap_max), 1.0 / (self.nsp + 1), 0.0)
        start = net.radius + spread
        h = self.half + 0.5
        return start[self.an_b1], start[self.an_b2], h[self.an_b1], h[self.an_b2], dspread

    def _angle_need_grad(self, L=None, rows=None):
        """The need's derivatives with respect to the two bundles' lengths (_angle_need), at the
        given rows (all by default; the same numbers either way)."""
        if not len(self.an_s):
            return np.zeros(0), np.zeros(0)
        s1, s2, h1, h2, dspread = self._need_inputs(L)
        b1, b2 = self.an_b1, self.an_b2
        if rows is not None:
            s1, s2, h1, h2, b1, b2 = s1[rows], s2[rows], h1[rows], h2[rows], b1[rows], b2[rows]
        e = 1e-4  # the closed form is piecewise; a central difference is exact enough for the step
        # the four shifted copies in one call on stacked arrays (element for element the same
        # numbers; separate calls on short arrays were a third of the residuals' time)
        both = _need_of(np.concatenate([s1 + e, s1 - e, s1, s1]), np.concatenate([s2, s2, s2 + e, s2 - e]),
                        np.tile(h1, 4), np.tile(h2, 4))
        up1, down1, up2, down2 = both.reshape(4, -1)
        return (up1 - down1) / (2 * e) * dspread[b1], (up2 - down2) / (2 * e) * dspread[b2]

    # ------------------------------------------------------------------ residuals
    def positions(self, x):
        pos = self.dr.pos.copy()
        pos[self.free_idx] = x.reshape(-1, 2)
        return pos

    def bundle_lengths(self, pos):
        v = pos[self.sq] - pos[self.sp]
        return np.bincount(self.sown, weights=np.hypot(v[:, 0], v[:, 1]), minlength=len(self.net.bundles))

    def evaluate(self, x):
        """(residuals, [(row, point, gradient (E, 2)) entry blocks], rows) at x."""
        vals, lazy, m = self.terms(x)
        return vals, R.entries(lazy), m

    def terms(self, x):
        """(residuals, deferred gradients, rows) at x (mapkit.layout.residuals)."""
        return R.terms(self, x)

    def _evaluated(self, x):
        """terms(x), kept for the Jacobian that least_squares asks for at the same x next."""
        key = x.tobytes()
        if self._last is None or self._last[0] != key:
            self._last = (key, self.terms(x))
        return self._last[1]

    def residuals(self, x):
        self._nfun += 1
        return self._evaluated(x)[0]

    def jacobian(self, x):
        """The Jacobian at x, a csr matrix."""
        _, lazy, m = self._evaluated(x)
        ents = R.entries(lazy)
        # the entries' rows and columns are the same at every x of a round (only the gradients
        # change): found once, with the free points' mask of each block and the csr structure
        shape = (m, tuple(len(rr) for rr, _, _ in ents))
        if self._jac_index is None or self._jac_index[0] != shape:
            keeps, rows, cols = [], [], []
            for rr, pts, _ in ents:
                var = self.var_of[pts]
                keep = var >= 0
                rr, var = rr[keep], var[keep]
                keeps.append(None if keep.all() else keep)
                rows += [rr, rr]
                cols += [2 * var, 2 * var + 1]
            self._jac_index = (shape, keeps, Structure(np.concatenate(rows), np.concatenate(cols),
                                                       (m, 2 * len(self.free_idx))))
        _, keeps, structure = self._jac_index
        data = []
        for (_, _, g), keep in zip(ents, keeps):
            if keep is not None:
                g = g[keep]
            data += [g[:, 0], g[:, 1]]
        return structure.fill(np.concatenate(data))

    def _jacobian_operator(self, x):
        """The Jacobian as least_squares gets it (mapkit.layout.lsq)."""
        if self._max_nfev is not None and self._nfun >= self._max_nfev:
            # asked for after the round's last evaluation: least_squares stops here and uses it
            # only for the result's gradient, never for a step
            return ZeroJacobian((len(self._evaluated(x)[0]), 2 * len(self.free_idx)))
        J = self.jacobian(x)
        # most entries are zero (hinges not in force): left out, every product keeps its bits
        # (a sum that starts at +0 is not changed by adding a zero product)
        J.eliminate_zeros()
        return SparseJacobian(J)

    def solve(self, max_nfev: int = 30):
        x0 = self.dr.pos[self.free_idx].ravel()
        if not len(x0):
            return self.dr.pos
        self._nfun, self._max_nfev = 0, max_nfev
        res = least_squares(self.residuals, x0, jac=self._jacobian_operator, method="trf", max_nfev=max_nfev,
                            x_scale=1.0, xtol=1e-7, ftol=1e-8, tr_solver="lsmr",
                            tr_options={"maxiter": 40})
        return self.positions(res.x)


# evaluations per round: each round's solution is only the next round's start (the penalty weights
# grow between rounds), so a round need not converge; 30 instead of 60 halves the optimization's
# time and leaves synthetic 20-60 station boards and Portland as clean (docs/design/speed.md)
ROUND_NFEV = 30


def run_rounds(net: Network, dr: Drawing, w: Weights, style: str, rounds: int = 4, max_nfev: int = ROUND_NFEV,
               escalate: float = 2.5, start: int = 0) -> Drawing:
    """Optimize in rounds, refreshing the candidate pairs and cyclic orders between rounds; the
    checks' terms weigh more each round (a penalty continuation: first the map's shape, then
    the rules it must meet exactly)."""
    for k in range(start, start + rounds):
        wk = replace(w, hard=w.hard * escalate ** k)
        prob = Problem(net, dr, wk, style)
        dr.pos = prob.solve(max_nfev)
    return dr
