"""Stress majorization (SMACOF): a first drawing whose distances follow the routes' lengths.

The target distance of two stations is the shortest path between them with each route counted at
the length its spaces want; majorizing the weighted stress (weights 1/d², Gansner, Koren & North
2004) from the real map as the starting point gives a drawing where every route is about as long
as it should be and the map keeps its shape, a far better start for the exact optimization than
the real map at one scale (dense downtowns, long suburban routes).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from mapkit.layout.network import Network


def target_distances(net: Network) -> np.ndarray:
    rows, cols, vals = [], [], []
    for b in net.bundles:
        rows += [b.a, b.b]
        cols += [b.b, b.a]
        vals += [b.lpref, b.lpref]
    # duplicates would add up in a csr: keep the shortest instead
    g = coo_matrix((vals, (rows, cols)), shape=(net.n, net.n))
    dense = np.full((net.n, net.n), np.inf)
    np.minimum.at(dense, (g.row, g.col), g.data)
    dense[~np.isfinite(dense)] = 0.0
    d = shortest_path(dense, method="D", directed=False)
    finite = np.isfinite(d)
    if not finite.all():  # separate pieces (a ferry-only island): keep them a typical route apart
        d[~finite] = np.nanmax(np.where(finite, d, np.nan)) + np.median([b.lpref for b in net.bundles])
    return d


def majorize(net: Network, start: np.ndarray, iterations: int = 150, anchor: float = 0.0) -> np.ndarray:
    """Positions minimizing sum w_ij (|x_i - x_j| - d_ij)², from `start`; fixed stations stay."""
    d = target_distances(net)
    with np.errstate(divide="ignore"):
        w = np.where(d > 0, 1.0 / d ** 2, 0.0)
    np.fill_diagonal(w, 0.0)
    lap = -w.copy()
    np.fill_diagonal(lap, w.sum(1) + anchor)
    free = ~net.fixed
    x = start.copy()
    if free.all():
        lap_inv = np.linalg.pinv(lap)
    else:
        lff = lap[np.ix_(free, free)]
        lff_inv = np.linalg.pinv(lff)
    for _ in range(iterations):
        diff = x[:, None, :] - x[None, :, :]
        dist = np.sqrt((diff ** 2).sum(-1)) + 1e-9
        bmat = -w * d / dist
        np.fill_diagonal(bmat, 0.0)
        np.fill_diagonal(bmat, -bmat.sum(1))
        rhs = bmat @ x + anchor * start
        if free.all():
            new = lap_inv @ rhs
        else:
            rhs_f = rhs[free] - lap[np.ix_(free, ~free)] @ x[~free]
            new = x.copy()
            new[free] = lff_inv @ rhs_f
        if np.max(np.abs(new - x)) < 1e-3:
            x = new
            break
        x = new
    # BLAS sums matrix products in an order that depends on its thread count, so the last bits of x
    # differ between machines; the layout must not (a seed gives one layout): keep a micrometre grid
    return np.round(x, 3)
