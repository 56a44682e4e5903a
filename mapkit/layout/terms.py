"""Geometric measures with their exact gradients, for the optimizer's residuals and Jacobian.

Each function takes point arrays (k, 2) and returns the values (k,) and the gradient with respect
to each point involved ((k, 2) each). An analytic Jacobian instead of finite differences is what
makes a 200-station board a matter of seconds: one evaluation per step instead of one per group
of columns.

Most come in two halves, `NAME_value` (the values and what the gradient needs of them) and
`NAME_grad` (the gradients from that): least_squares asks for the residuals at every trial point
and for the Jacobian only at the points it accepts (a third are rejected), so the optimizer
computes the gradients only when they are asked for. `NAME` is both halves at once; the halves do
the same arithmetic, so the numbers are the same bits either way.
"""

from __future__ import annotations

import numpy as np

EPS = 1e-9


def cross(u, v):
    return u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]


def dot(u, v):
    return np.einsum("ij,ij->i", u, v)


def perp(v):
    return np.stack([-v[:, 1], v[:, 0]], axis=1)


def take(st, rows):
    """A `NAME_value` state cut to some of its rows (the gradients of just those, the same numbers)."""
    return tuple(a[rows] for a in st)


def dist(p, q):
    """|p - q| and its gradients (d/dp, d/dq)."""
    d, st = dist_value(p, q)
    return (d, *dist_grad(st))


def dist_value(p, q):
    v = p - q
    d = np.sqrt(dot(v, v) + EPS)
    return d, (v, d)


def dist_grad(st):
    v, d = st
    g = v / d[:, None]
    return g, -g


def point_segment(x, a, b):
    """Distance from x to segment a-b; gradients d/dx, d/da, d/db (the envelope of the closest point)."""
    d, st = point_segment_value(x, a, b)
    return (d, *point_segment_grad(st))


def point_segment_value(x, a, b):
    ab = b - a
    t = np.clip(dot(x - a, ab) / np.maximum(dot(ab, ab), EPS), 0.0, 1.0)
    c = a + ab * t[:, None]
    v = x - c
    d = np.sqrt(dot(v, v) + EPS)
    return d, (v, d, t)


def point_segment_grad(st):
    v, d, t = st
    n = v / d[:, None]
    return n, -n * (1 - t)[:, None], -n * t[:, None]


def line_depth(x, a, b):
    """Distance from x to the line through a-b (how far x must move to reach its other side)."""
    d, st = line_depth_value(x, a, b)
    return (d, *line_depth_grad(st))


def line_depth_value(x, a, b):
    ab = b - a
    lab = np.sqrt(dot(ab, ab) + EPS)
    s = cross(ab, x - a) / lab
    return np.abs(s), (x, a, ab, lab, s)


def line_depth_grad(st):
    x, a, ab, lab, s = st
    sg = np.sign(s)
    gx = np.stack([-ab[:, 1], ab[:, 0]], axis=1) / lab[:, None] * sg[:, None]
    t = dot(x - a, ab) / np.maximum(dot(ab, ab), EPS)
    return gx, -gx * (1 - t)[:, None], -gx * t[:, None]


_NEAR = ((0, 2, 3), (1, 2, 3), (2, 0, 1), (3, 0, 1))   # (point, segment end, segment end): a-b c-d
_DEEP = ((2, 0, 1), (3, 0, 1), (0, 2, 3), (1, 2, 3))


def signed_segments(a, b, c, d):
    """Distance between segments a-b and c-d, or minus the depth of the shallowest endpoint when
    they cross; gradients (d/da, d/db, d/dc, d/dd)."""
    val, st = signed_segments_value(a, b, c, d)
    return (val, *signed_segments_grad(st))


def signed_segments_value(a, b, c, d):
    k = len(a)
    pts = (a, b, c, d)
    cand_v = np.empty((4, k))
    near = []
    for i, (ix, i0, i1) in enumerate(_NEAR):
        cand_v[i], s_ = point_segment_value(pts[ix], pts[i0], pts[i1])
        near.append(s_)
    ab, cd = b - a, d - c
    o1, o2 = cross(ab, c - a), cross(ab, d - a)
    o3, o4 = cross(cd, a - c), cross(cd, b - c)
    crossing = (o1 * o2 < 0) & (o3 * o4 < 0)
    pick = np.argmin(cand_v, axis=0)
    val = cand_v[pick, np.arange(k)]
    deep, dp = [], None
    if crossing.any():
        dep_v = np.empty((4, k))
        for i, (ix, i0, i1) in enumerate(_DEEP):
            dep_v[i], s_ = line_depth_value(pts[ix], pts[i0], pts[i1])
            deep.append(s_)
        dp = np.argmin(dep_v, axis=0)
        dval = dep_v[dp, np.arange(k)]
        val = np.where(crossing, -dval, val)
    return val, (k, near, pick, crossing, deep, dp)


def signed_segments_take(st, rows):
    k, near, pick, crossing, deep, dp = st
    return (len(rows), [take(s_, rows) for s_ in near], pick[rows], crossing[rows], [take(s_, rows) for s_ in deep],
            None if dp is None else dp[rows])


def signed_segments_grad(st):
    k, near, pick, crossing, deep, dp = st
    cand_g = np.zeros((4, 4, k, 2))  # candidate, point (a, b, c, d), k, xy
    for i, (ix, i0, i1) in enumerate(_NEAR):
        cand_g[i, ix], cand_g[i, i0], cand_g[i, i1] = point_segment_grad(near[i])
    grad = cand_g[pick, :, np.arange(k)]  # (k, 4, 2)
    if deep:
        dep_g = np.zeros((4, 4, k, 2))
        for i, (ix, i0, i1) in enumerate(_DEEP):
            dep_g[i, ix], dep_g[i, i0], dep_g[i, i1] = line_depth_grad(deep[i])
        dgrad = dep_g[dp, :, np.arange(k)]
        grad = np.where(crossing[:, None, None], -dgrad, grad)
    return grad[:, 0], grad[:, 1], grad[:, 2], grad[:, 3]


def angle_of(v):
    """atan2 of v and its gradient."""
    n2 = dot(v, v) + EPS
    return np.arctan2(v[:, 1], v[:, 0]), perp(v) / n2[:, None]


def angle_value(v):
    return np.arctan2(v[:, 1], v[:, 0])


def angle_grad(v):
    n2 = dot(v, v) + EPS
    return perp(v) / n2[:, None]


def ccw_gap(s, p1, p2):
    """The angle from s→p1 to s→p2 in [0, 2π) (board axes); gradients d/ds, d/dp1, d/dp2."""
    a1, g1 = angle_of(p1 - s)
    a2, g2 = angle_of(p2 - s)
    gap = np.mod(a2 - a1, 2 * np.pi)
    return gap, -(g2 - g1), -g1, g2


def spread_angle(s, p1, p2):
    """The unsigned angle between s→p1 and s→p2 in [0, π]; gradients d/ds, d/dp1, d/dp2. Unsigned,
    so that two neighbours that swapped sides still push apart instead of reading 2π - ε."""
    gap, st = spread_angle_value(s, p1, p2)
    return (gap, *spread_angle_grad(st))


def spread_angle_value(s, p1, p2):
    v1, v2 = p1 - s, p2 - s
    t = np.mod(angle_value(v2) - angle_value(v1) + np.pi, 2 * np.pi) - np.pi
    return np.abs(t), (v1, v2, t)


def spread_angle_grad(st):
    v1, v2, t = st
    g1, g2 = angle_grad(v1), angle_grad(v2)
    sg = np.sign(t)[:, None]
    return -sg * (g2 - g1), -sg * g1, sg * g2


def turn(p, w, q):
    """The absolute turn at w of the polyline p-w-q; gradients d/dp, d/dw, d/dq."""
    t, st = turn_value(p, w, q)
    return (t, *turn_grad(st))


def turn_value(p, w, q):
    v1, v2 = w - p, q - w
    t = np.mod(angle_value(v2) - angle_value(v1) + np.pi, 2 * np.pi) - np.pi
    return np.abs(t), (v1, v2, t)


def turn_grad(st):
    v1, v2, t = st
    g1, g2 = angle_grad(v1), angle_grad(v2)
    sg = np.sign(t)[:, None]
    return sg * g1, sg * (-g2 - g1), sg * g2


def unit(p, q):
    """(q - p)/|q - p| and its Jacobian with respect to q ((k, 2, 2); minus it for p)."""
    u, st = unit_value(p, q)
    return u, unit_grad(st)


def unit_value(p, q):
    v = q - p
    ln = np.sqrt(dot(v, v) + EPS)
    u = v / ln[:, None]
    return u, (u, ln)


def unit_grad(st):
    u, ln = st
    return (np.eye(2)[None] - u[:, :, None] * u[:, None, :]) / ln[:, None, None]


def trim_value(p, q, first, last, t):
    """Segments shortened at station ends by t (the spaces start past the station marker)."""
    v = q - p
    ln = np.maximum(np.hypot(v[:, 0], v[:, 1]), 1e-9)
    u = v / ln[:, None]
    capped = t > 0.4 * ln
    cut = np.where(capped, 0.4 * ln, t)
    cp, cq = np.where(first, cut, 0.0), np.where(last, cut, 0.0)
    p2 = p + u * cp[:, None]
    q2 = q - u * cq[:, None]
    return p2, q2, (u, ln, capped, cp, cq)


def trim_grad(st):
    """The Jacobians of the trimmed ends with respect to the old ones: (dp'/dp, dp'/dq, dq'/dp, dq'/dq)."""
    u, ln, capped, cp, cq = st
    eye = np.eye(2)[None]
    ju = (eye - u[:, :, None] * u[:, None, :]) / ln[:, None, None]   # du/dq (minus for p)

    # d(u * cut)/dq: cut constant -> cut * ju; cut = 0.4 ln -> 0.4 I
    def dmove(c):
        return np.where(capped[:, None, None], 0.4 * eye * (c > 0)[:, None, None], c[:, None, None] * ju)
    mp, mq = dmove(cp), dmove(cq)
    return eye - mp, mp, mq, eye - mq
