"""The optimizer's residuals, block by block (mapkit.layout.optimize has the rules they stand for).

`terms` gives the residuals at a point and, for each block, a function that computes its
gradients from what the values left (the halves of mapkit.layout.terms): least_squares asks for
the Jacobian only at the points it accepts, so the gradients are computed only there (`entries`).
A hinge's gradients are found only at its rows in force (the others are zero; they are left out of
the Jacobian handed to least_squares, mapkit.layout.lsq).
"""

from __future__ import annotations

import numpy as np

from mapkit.layout import order as O
from mapkit.layout import terms as T

CLEAR_MM = 1.0          # kept beyond what the checks need, for rounding and the drawn line
MAX_TURN = np.radians(55)  # at a waypoint: sharper, and a space's corner leaves the band


def entries(lazy):
    """The Jacobian's entry blocks from terms()'s deferred gradients."""
    ents = []
    for base, grad, args in lazy:
        for rows, pts, g in grad(*args):
            ents.append((rows + base, pts, g))
    return ents


def terms(pb, x):
    """(residuals, deferred gradients, rows) at x for the Problem pb: each block's gradients come
    from a function of what its values left (terms.py's halves), called only for the Jacobian
    (entries)."""
    net, w, dr = pb.net, pb.w, pb.dr
    pos = pb.positions(x)
    vals, lazy = [], []
    base = 0

    names = pb.block_names = []

    def block(v, grad, *args, name=""):
        nonlocal base
        names.append((name, base, base + len(v)))
        vals.append(v)
        lazy.append((base, grad, args))
        base += len(v)

    def hinge(need, f, weight):
        """weight * max(need - f, 0) and the factor its gradient takes from f's."""
        on = need - f > 0
        return weight * np.where(on, need - f, 0.0), -weight * on

    def once(fn, *args):
        """fn(*args), computed at the first call only (gradients shared by several blocks)."""
        memo = []

        def get():
            if not memo:
                memo.append(fn(*args))
            return memo[0]
        return get

    nb = len(net.bundles)
    seg_l, seg_st = T.dist_value(pos[pb.sq], pos[pb.sp])
    seg_g = once(T.dist_grad, seg_st)   # grads: d/dq, d/dp
    L = np.bincount(pb.sown, weights=seg_l, minlength=nb)

    def along(fac):   # a block of one row per bundle, through its segments' lengths
        gp, gq = seg_g()
        return [(pb.sown, pb.sq, gp * fac[:, None]), (pb.sown, pb.sp, gq * fac[:, None])]
    # too short for its spaces, or longer than its gaps may be (gap_max: 6 mm, or what a crowded
    # station needs): both rules, as strong as the checks' (a soft gap term lost to the clearances,
    # which a longer route always eases, and left most routes of north-america at 8-14 mm gaps)
    lo, flo = hinge(pb.lmin, L, w.hard)
    hi, fhi = hinge(-pb.lsoft, -L, w.hard)
    block(lo + hi, lambda flo, fhi: along((flo - fhi)[pb.sown]), flo, fhi)
    fp = np.where(pb.flight, 0.0, w.pref)
    block(fp * (L - pb.lpref), lambda: along(fp[pb.sown]))
    d, st = T.dist_value(pos[pb.st_i], pos[pb.st_j])
    v, f = hinge(net.min_station_dist, d, w.hard)

    def pairs(st, f):
        gi, gj = T.dist_grad(st)
        rows_st = np.arange(len(pb.st_i))
        return [(rows_st, pb.st_i, gi * f[:, None]), (rows_st, pb.st_j, gj * f[:, None])]
    block(v, pairs, st, f)
    p, q, trim_st = T.trim_value(pos[pb.sp], pos[pb.sq], pb.sfirst, pb.slast, net.radius + 1.0)
    trim_g = once(T.trim_grad, trim_st)

    def seg_grads(k, gp_, gq_):
        """Gradients with respect to trimmed segments' ends, carried to their points (p, q)."""
        Ppp, Ppq, Pqp, Pqq = trim_g()
        return (np.einsum("ki,kij->kj", gp_, Ppp[k]) + np.einsum("ki,kij->kj", gq_, Pqp[k]),
                np.einsum("ki,kij->kj", gp_, Ppq[k]) + np.einsum("ki,kij->kj", gq_, Pqq[k]))

    def spread_out(n_, on, g):
        """Gradients found for the rows `on` (a hinge in force), as a block's (n_, 2) array:
        the other rows' gradients are zero (a hinge at rest) and left out of the Jacobian."""
        out = np.zeros((n_, 2))
        out[on] = g
        return out
    if len(pb.cs_s):
        d, st = T.point_segment_value(pos[pb.cs_s], p[pb.cs_k], q[pb.cs_k])
        need = net.radius + pb.half[pb.sown[pb.cs_k]] + CLEAR_MM + pb.cs_extra
        v, f = hinge(need, d, w.hard)

        def near_station(st, f):
            on = pb._in_force(f)
            n_, fo = len(pb.cs_s), f[on][:, None]
            gx, ga, gb = T.point_segment_grad(T.take(st, on))
            gp_, gq_ = seg_grads(pb.cs_k[on], ga * fo, gb * fo)
            r = np.arange(n_)
            return [(r, pb.cs_s, spread_out(n_, on, gx * fo)), (r, pb.sp[pb.cs_k], spread_out(n_, on, gp_)),
                    (r, pb.sq[pb.cs_k], spread_out(n_, on, gq_))]
        block(v, near_station, st, f)
    if len(pb.cc_1):
        d, st = T.signed_segments_value(p[pb.cc_1], q[pb.cc_1], p[pb.cc_2], q[pb.cc_2])
        need = pb.half[pb.sown[pb.cc_1]] + pb.half[pb.sown[pb.cc_2]] + CLEAR_MM + pb.cc_extra
        v, f = hinge(need, d, w.hard)

        def apart(st, f):
            on = pb._in_force(f)
            n_, fo = len(pb.cc_1), f[on][:, None]
            ga, gb, gc, gd = T.signed_segments_grad(T.signed_segments_take(st, on))
            p1, q1 = seg_grads(pb.cc_1[on], ga * fo, gb * fo)
            p2, q2 = seg_grads(pb.cc_2[on], gc * fo, gd * fo)
            r = np.arange(n_)
            return [(r, pb.sp[pb.cc_1], spread_out(n_, on, p1)), (r, pb.sq[pb.cc_1], spread_out(n_, on, q1)),
                    (r, pb.sp[pb.cc_2], spread_out(n_, on, p2)), (r, pb.sq[pb.cc_2], spread_out(n_, on, q2))]
        block(v, apart, st, f)
    if len(pb.an_s):
        gap, st = T.spread_angle_value(pos[pb.an_s], pos[pb.an_p1], pos[pb.an_p2])
        need = pb._angle_need(L)
        v, f = hinge(need, gap, w.hard * 15.0)

        def spread(st, f, L):
            on = pb._in_force(f)
            n_, fo = len(pb.an_s), f[on][:, None]
            gs, g1, g2 = T.spread_angle_grad(T.take(st, on))
            dn1, dn2 = np.zeros(n_), np.zeros(n_)
            dn1[on], dn2[on] = pb._angle_need_grad(L, on)
            gp, gq = seg_g()
            # f is d v / d gap; d v / d need is -f
            c1 = (-f * dn1)[pb.an_rep1][:, None]
            c2 = (-f * dn2)[pb.an_rep2][:, None]
            r = np.arange(n_)
            return [(r, pb.an_s, spread_out(n_, on, gs * fo)), (r, pb.an_p1, spread_out(n_, on, g1 * fo)),
                    (r, pb.an_p2, spread_out(n_, on, g2 * fo)),
                    (pb.an_rep1, pb.sq[pb.an_seg1], gp[pb.an_seg1] * c1),
                    (pb.an_rep1, pb.sp[pb.an_seg1], gq[pb.an_seg1] * c1),
                    (pb.an_rep2, pb.sq[pb.an_seg2], gp[pb.an_seg2] * c2),
                    (pb.an_rep2, pb.sp[pb.an_seg2], gq[pb.an_seg2] * c2)]
        block(v, spread, st, f, L)
    if len(pb.tw):
        t, st = T.turn_value(pos[pb.tp], pos[pb.tw], pos[pb.tq])
        v, f = hinge(-MAX_TURN, -t, w.hard * 15.0)

        def bend(st, f):
            g0, g1, g2 = T.turn_grad(st)
            f = -f
            r = np.arange(len(pb.tw))
            return [(r, pb.tp, g0 * f[:, None]), (r, pb.tw, g1 * f[:, None]), (r, pb.tq, g2 * f[:, None])]
        block(v, bend, st, f)
    nf = len(pb.free_idx)
    r = np.arange(nf)
    ex, ey = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    if dr.bounds is not None:
        x0, y0, x1, y1 = dr.bounds
        fp_ = pos[pb.free_idx]
        for c, lo_, hi_, e in ((0, x0, x1, ex), (1, y0, y1, ey)):
            under, over = lo_ - fp_[:, c], fp_[:, c] - hi_
            v = w.hard * (np.maximum(under, 0) + np.maximum(over, 0))
            sgn = w.hard * ((over > 0).astype(float) - (under > 0).astype(float))
            block(v, lambda sgn, e: [(r, pb.free_idx, sgn[:, None] * e * np.ones((nf, 1)))], sgn, e)
    if dr.anchor is not None and w.geo:
        fs = pb.free_idx[pb.free_idx < dr.n_stations]
        k = len(fs)
        v = w.geo * (pos[fs] - dr.anchor[fs]).ravel()
        rr = np.arange(k) * 2
        block(v, lambda: [(rr, fs, w.geo * ex * np.ones((k, 1))), (rr + 1, fs, w.geo * ey * np.ones((k, 1)))])
    if w.bearing:
        u, st = T.unit_value(pos[pb.ba], pos[pb.bb])
        v = w.bearing * (u - pb.geo_dir).ravel()

        def bearing(st):
            Jw = w.bearing * T.unit_grad(st)
            rr = np.arange(nb) * 2
            return [(rr, pb.bb, Jw[:, 0, :]), (rr, pb.ba, -Jw[:, 0, :]),
                    (rr + 1, pb.bb, Jw[:, 1, :]), (rr + 1, pb.ba, -Jw[:, 1, :])]
        block(v, bearing, st)
    if w.order and len(pb.or_s):
        v, e = O.order_terms(pos, pb.or_s, pb.or_p1, pb.or_p2, w.order)
        block(v, lambda e: e, e, name="order")
    if w.octilinear:
        sv = pos[pb.sq] - pos[pb.sp]
        phi = T.angle_value(sv)
        v = w.octilinear * np.sin(4 * phi)

        def octilinear(sv, phi):
            gg = (w.octilinear * 4 * np.cos(4 * phi))[:, None] * T.angle_grad(sv)
            rr = np.arange(len(phi))
            return [(rr, pb.sq, gg), (rr, pb.sp, -gg)]
        block(v, octilinear, sv, phi)
    if pb.ext is not None and dr.fill_box is not None:
        fw, fh = dr.fill_box
        i0, i1, j0, j1 = pb.ext
        sw, sh = pos[i1, 0] - pos[i0, 0], pos[j1, 1] - pos[j0, 1]
        v = w.fill * np.array([max(fw - sw, 0.0), max(fh - sh, 0.0)])
        a_, b_ = -w.fill * (fw - sw > 0), -w.fill * (fh - sh > 0)
        block(v, lambda: [(np.array([0, 0]), np.array([i1, i0]), np.array([[a_, 0.0], [-a_, 0.0]])),
                          (np.array([1, 1]), np.array([j1, j0]), np.array([[0.0, b_], [0.0, -b_]]))])
    return np.concatenate(vals), lazy, base
