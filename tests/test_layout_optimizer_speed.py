"""The optimizer's faster pieces (docs/design/speed.md, "Layout"), each against a
plain version: the csr structure refilled against scipy's own conversion, the Jacobian operator's
products against the sparse matrix's, the halves of the geometric terms against the functions as
they were, and a whole least-squares round against the plain call (the Jacobian with all its
entries, as a sparse matrix, with gradients at every evaluation): the same positions, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import least_squares
from scipy.sparse import coo_matrix, csr_array

from mapkit.layout import optimize as O
from mapkit.layout import terms as T
from mapkit.layout.lsq import SparseJacobian, Structure
from mapkit.layout.network import build_network
from mapkit.layout.synthetic import layout_board_data


def _bits(a):
    a = np.asarray(a)
    return a.dtype.str, a.shape, a.tobytes()


@pytest.mark.parametrize("sorted_rows", [False, True])
def test_structure_fills_the_csr_scipy_makes(sorted_rows):
    rng = np.random.default_rng(3)
    for _ in range(25):
        m, n = int(rng.integers(1, 200)), int(rng.integers(1, 60))
        k = int(rng.integers(0, 2500))
        rows, cols = rng.integers(0, m, k), rng.integers(0, n, k)   # many entries on one place
        if sorted_rows:   # already sorted: scipy skips its (unstable) sort, and so must the replay
            o = np.lexsort((cols, rows))
            rows, cols = rows[o], cols[o]
        st = Structure(rows, cols, (m, n))
        for _ in range(3):
            v = rng.normal(size=k) * 10.0 ** rng.integers(-6, 6, k)
            plain = coo_matrix((v, (rows, cols)), shape=(m, n)).tocsr()
            got = st.fill(v)
            assert _bits(got.indptr) == _bits(plain.indptr)
            assert _bits(got.indices) == _bits(plain.indices)
            assert _bits(got.data) == _bits(plain.data)


def test_jacobian_operator_products_are_the_sparse_matrix_ones():
    rng = np.random.default_rng(5)
    m, n = 700, 90
    k = 4000
    J = coo_matrix((rng.normal(size=k), (rng.integers(0, m, k), rng.integers(0, n, k))), shape=(m, n)).tocsr()
    op, plain = SparseJacobian(J), csr_array(J)   # least_squares turned a sparse Jacobian into a csr_array
    for _ in range(5):
        x, y, X = rng.normal(size=n), rng.normal(size=m), rng.normal(size=(n, 2))
        assert _bits(op.matvec(x)) == _bits(plain @ x)
        assert _bits(op.rmatvec(y)) == _bits(plain.T @ y)
        assert _bits(op.matmat(X)) == _bits(plain @ X)
        assert _bits(op.dot(x)) == _bits(plain.dot(x))
        assert _bits(op.matvec(x[:, None])) == _bits((plain @ x)[:, None])   # a column: the general path


# ------------------------------------------------------------------ the terms as they were

def _plain_point_segment(x, a, b):
    ab = b - a
    t = np.clip(T.dot(x - a, ab) / np.maximum(T.dot(ab, ab), T.EPS), 0.0, 1.0)
    c = a + ab * t[:, None]
    v = x - c
    d = np.sqrt(T.dot(v, v) + T.EPS)
    n = v / d[:, None]
    return d, n, -n * (1 - t)[:, None], -n * t[:, None]


def _plain_line_depth(x, a, b):
    ab = b - a
    lab = np.sqrt(T.dot(ab, ab) + T.EPS)
    s = T.cross(ab, x - a) / lab
    sg = np.sign(s)
    gx = np.stack([-ab[:, 1], ab[:, 0]], axis=1) / lab[:, None] * sg[:, None]
    t = T.dot(x - a, ab) / np.maximum(T.dot(ab, ab), T.EPS)
    return np.abs(s), gx, -gx * (1 - t)[:, None], -gx * t[:, None]


def _plain_signed_segments(a, b, c, d):
    k = len(a)
    cand_v, cand_g = np.empty((4, k)), np.zeros((4, 4, k, 2))
    for i, (x, s0, s1, ix, i0, i1) in enumerate(((a, c, d, 0, 2, 3), (b, c, d, 1, 2, 3),
                                                 (c, a, b, 2, 0, 1), (d, a, b, 3, 0, 1))):
        v, gx, g0, g1 = _plain_point_segment(x, s0, s1)
        cand_v[i] = v
        cand_g[i, ix], cand_g[i, i0], cand_g[i, i1] = gx, g0, g1
    ab, cd = b - a, d - c
    o1, o2 = T.cross(ab, c - a), T.cross(ab, d - a)
    o3, o4 = T.cross(cd, a - c), T.cross(cd, b - c)
    crossing = (o1 * o2 < 0) & (o3 * o4 < 0)
    pick = np.argmin(cand_v, axis=0)
    val, grad = cand_v[pick, np.arange(k)], cand_g[pick, :, np.arange(k)]
    if crossing.any():
        dep_v, dep_g = np.empty((4, k)), np.zeros((4, 4, k, 2))
        for i, (x, s0, s1, ix, i0, i1) in enumerate(((c, a, b, 2, 0, 1), (d, a, b, 3, 0, 1),
                                                     (a, c, d, 0, 2, 3), (b, c, d, 1, 2, 3))):
            v, gx, g0, g1 = _plain_line_depth(x, s0, s1)
            dep_v[i] = v
            dep_g[i, ix], dep_g[i, i0], dep_g[i, i1] = gx, g0, g1
        dp = np.argmin(dep_v, axis=0)
        val = np.where(crossing, -dep_v[dp, np.arange(k)], val)
        grad = np.where(crossing[:, None, None], -dep_g[dp, :, np.arange(k)], grad)
    return val, grad[:, 0], grad[:, 1], grad[:, 2], grad[:, 3]


def _plain_spread_angle(s, p1, p2):
    a1, g1 = T.angle_of(p1 - s)
    a2, g2 = T.angle_of(p2 - s)
    t = np.mod(a2 - a1 + np.pi, 2 * np.pi) - np.pi
    sg = np.sign(t)[:, None]
    return np.abs(t), -sg * (g2 - g1), -sg * g1, sg * g2


def _plain_turn(p, w, q):
    a1, g1 = T.angle_of(w - p)
    a2, g2 = T.angle_of(q - w)
    t = np.mod(a2 - a1 + np.pi, 2 * np.pi) - np.pi
    sg = np.sign(t)[:, None]
    return np.abs(t), sg * g1, sg * (-g2 - g1), sg * g2


def _plain_unit(p, q):
    v = q - p
    ln = np.sqrt(T.dot(v, v) + T.EPS)
    u = v / ln[:, None]
    return u, (np.eye(2)[None] - u[:, :, None] * u[:, None, :]) / ln[:, None, None]


def _plain_trim(p, q, first, last, t):
    v = q - p
    ln = np.maximum(np.hypot(v[:, 0], v[:, 1]), 1e-9)
    u = v / ln[:, None]
    capped = t > 0.4 * ln
    cut = np.where(capped, 0.4 * ln, t)
    cp, cq = np.where(first, cut, 0.0), np.where(last, cut, 0.0)
    eye = np.eye(2)[None]
    ju = (eye - u[:, :, None] * u[:, None, :]) / ln[:, None, None]

    def dmove(c):
        return np.where(capped[:, None, None], 0.4 * eye * (c > 0)[:, None, None], c[:, None, None] * ju)
    mp, mq = dmove(cp), dmove(cq)
    return p + u * cp[:, None], q - u * cq[:, None], eye - mp, mp, mq, eye - mq


def _points(rng, k):
    pts = rng.uniform(0, 100, (k, 2))
    pts[: k // 10] = np.round(pts[: k // 10])   # some on a grid: collinear and touching cases
    return pts


def test_the_terms_halves_are_the_terms_as_they_were():
    rng = np.random.default_rng(11)
    k = 3000
    a, b, c, d = (_points(rng, k) for _ in range(4))
    d[:50] = a[:50]   # a shared end
    cases = [(T.point_segment, _plain_point_segment, (a, b, c)), (T.line_depth, _plain_line_depth, (a, b, c)),
             (T.signed_segments, _plain_signed_segments, (a, b, c, d)),
             (T.spread_angle, _plain_spread_angle, (a, b, c)), (T.turn, _plain_turn, (a, b, c))]
    for new, plain, args in cases:
        got, want = new(*args), plain(*args)
        assert [_bits(g) for g in got] == [_bits(w) for w in want], new.__name__
    assert [_bits(g) for g in T.unit(a, b)] == [_bits(w) for w in _plain_unit(a, b)]
    first, last = rng.random(k) < 0.5, rng.random(k) < 0.5
    p2, q2, st = T.trim_value(a, b, first, last, 13.0)
    got = (p2, q2, *T.trim_grad(st))
    assert [_bits(g) for g in got] == [_bits(w) for w in _plain_trim(a, b, first, last, 13.0)]
    crossing = _plain_signed_segments(a, b, c, d)[0] < 0
    assert 100 < crossing.sum() < k - 100   # both branches tried
    # a state cut to some rows gives those rows' gradients
    rows = np.flatnonzero(rng.random(k) < 0.3)
    _, st = T.signed_segments_value(a, b, c, d)
    cut = T.signed_segments_grad(T.signed_segments_take(st, rows))
    assert [_bits(g) for g in cut] == [_bits(g[rows]) for g in _plain_signed_segments(a, b, c, d)[1:]]


# ------------------------------------------------------------------ a round, plain and fast

def _cramped_problem(seed):
    """A 40-station drawing squeezed so that many hinges are in force, with a waypoint, a
    held station and a board box."""
    net = build_network(layout_board_data(40, seed=seed), frozenset())
    rng = np.random.default_rng(seed)
    pos = rng.uniform(100, 420, (net.n, 2))
    dr = O.Drawing(pos, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool),
                   bounds=(120, 120, 400, 400), anchor=pos.copy(), fill_box=(300, 300))
    dr.add_waypoint(0, (pos[net.bundles[0].a] + pos[net.bundles[0].b]) / 2 + 5.0)
    dr.free[3] = False
    return O.Problem(net, dr, O.Weights(hard=10.0), "geographic")


def _plain_jacobian(prob, x):
    prob.every_row = True   # the gradients of every row of a hinge, in force or not
    try:
        _, ents, m = prob.evaluate(x)
    finally:
        prob.every_row = False
    rows, cols, vals = [], [], []
    for rr, pts, g in ents:
        var = prob.var_of[pts]
        keep = var >= 0
        rows += [rr[keep]] * 2
        cols += [2 * var[keep], 2 * var[keep] + 1]
        vals += [g[keep][:, 0], g[keep][:, 1]]
    return coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(m, 2 * len(prob.free_idx))).tocsr()


@pytest.mark.parametrize("seed", [1, 4])
def test_a_round_gives_the_plain_rounds_positions(seed):
    prob = _cramped_problem(seed)
    x0 = prob.dr.pos[prob.free_idx].ravel()
    # the gradients come only where a hinge is in force: the Jacobian has the plain one's values
    # and agrees with finite differences of the residuals (nothing in force left out)
    J = prob.jacobian(x0)
    assert (J != _plain_jacobian(prob, x0)).nnz == 0
    vals = prob.terms(x0)[0]
    assert len(prob.cs_s) and len(prob.cc_1) and len(prob.an_s)
    in_force = [int(np.count_nonzero(vals[b:e])) for _, b, e in prob.block_names[4:7]]   # near, apart, angle
    assert min(in_force) > 5 and sum(in_force) > 100
    fd = np.stack([(prob.terms(x0 + h)[0] - prob.terms(x0 - h)[0]) / 2e-6 for h in np.eye(len(x0)) * 1e-6], axis=1)
    off = np.abs(J.toarray() - fd) > 1e-3 * np.maximum(1.0, np.abs(fd))
    assert off.sum() <= 3   # a kink of a hinge or a branch within the difference's step, at most
    fast = prob.solve(12)
    plain = least_squares(lambda x: prob.terms(x)[0], x0, jac=lambda x: _plain_jacobian(prob, x), method="trf",
                          max_nfev=12, x_scale=1.0, xtol=1e-7, ftol=1e-8, tr_solver="lsmr", tr_options={"maxiter": 40})
    assert _bits(fast) == _bits(prob.positions(plain.x))
    assert not np.array_equal(fast, prob.dr.pos)   # it moved


def test_the_private_kernels_are_checked_before_they_are_used():
    """lsq.py uses scipy's private sparse kernels only when a check at import finds them giving
    the public products' numbers; on this scipy they do (else the optimizer runs the public path)."""
    from mapkit.layout import lsq
    assert lsq._kernels_work() is (lsq._kernels is not None)
