"""The optimizer's Jacobian as `scipy.optimize.least_squares` uses it (mapkit.layout.optimize).

With `tr_solver="lsmr"` the trust-region solver only multiplies by the Jacobian and its
transpose, some 60 times a step. Handed a sparse matrix, least_squares converts and copies it at
every step and reaches the product through two operator layers and the sparse matrix's dispatch,
which cost several times the product itself on a board's few thousand rows. `SparseJacobian`
is a `LinearOperator` that calls the very kernels the sparse matrix would (csr for J x, the
transposed csc view for J^T y, the multi-vector csr kernel for J X), on the same arrays, so every
product has the same bits as before.

`Structure` assembles the matrix: the rows and columns of a round's entries are the same at every
evaluation (only the gradients change), so the conversion to csr (sorting each row, summing the
entries that fall on the same place) is worked out once and replayed on the new values in the
same order of additions as scipy's own conversion. The optimizer then drops the zero entries
(hinges at rest, most of them): a product's sums start at +0, and adding a zero product to a sum
changes none of its bits, so the products are the same with a fraction of the entries.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.linalg import LinearOperator

try:  # the kernels scipy.sparse itself calls for a product with a vector
    from scipy.sparse import _sparsetools as _kernels
except ImportError:  # pragma: no cover - a scipy without them: the public product (same kernels)
    _kernels = None


def _kernels_work() -> bool:
    """The private kernels are not scipy's promise: a scipy whose calls differ (or give other
    numbers) falls back to the public products, checked once at import on a small matrix."""
    if _kernels is None:
        return False
    try:
        a = csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
        x, y = np.array([1.0, 2.0, 3.0]), np.zeros(2)
        _kernels.csr_matvec(2, 3, a.indptr, a.indices, a.data, x, y)
        z, w = np.array([1.0, 2.0]), np.zeros(3)
        _kernels.csc_matvec(3, 2, a.indptr, a.indices, a.data, z, w)  # a.T as rmatvec uses it
        bp, bj, bx = np.empty(3, dtype=np.int32), np.empty(3, dtype=np.int32), np.empty(3)
        _kernels.coo_tocsr(2, 3, 3, np.array([0, 1, 0], dtype=np.int32), np.array([0, 1, 2], dtype=np.int32),
                           np.array([1.0, 3.0, 2.0]), bp, bj, bx)
        built = csr_matrix((bx, bj, bp), shape=(2, 3)).toarray()
        return bool(np.array_equal(y, a @ x) and np.array_equal(w, a.T @ z) and np.array_equal(built, a.toarray()))
    except Exception:  # pragma: no cover - a changed private signature
        return False


if not _kernels_work():  # pragma: no cover
    _kernels = None


class SparseJacobian(LinearOperator):
    """J as a LinearOperator over a csr matrix, with the products the matrix itself would give."""

    def __init__(self, csr: csr_matrix):
        self.csr = csr
        super().__init__(dtype=np.dtype(np.float64), shape=csr.shape)

    def matvec(self, x):
        if _kernels is None or getattr(x, "ndim", 0) != 1 or x.dtype != np.float64:
            return super().matvec(x)
        m, n = self.shape
        y = np.zeros(m)
        c = self.csr
        _kernels.csr_matvec(m, n, c.indptr, c.indices, c.data, np.ascontiguousarray(x), y)
        return y

    def rmatvec(self, x):
        if _kernels is None or getattr(x, "ndim", 0) != 1 or x.dtype != np.float64:
            return super().rmatvec(x)
        m, n = self.shape
        y = np.zeros(n)
        c = self.csr
        # J^T is the csc matrix on J's csr arrays, as csr.T gives it
        _kernels.csc_matvec(n, m, c.indptr, c.indices, c.data, np.ascontiguousarray(x), y)
        return y

    def _matvec(self, x):
        return self.csr @ np.ravel(x)

    def _rmatvec(self, x):
        return self.csr.T @ np.ravel(x)

    def _matmat(self, X):
        return self.csr @ X

    def _rmatmat(self, X):
        return self.csr.T @ X


class ZeroJacobian(LinearOperator):
    """What least_squares is given for a Jacobian it asks for after its last evaluation: the
    step loop stops there (max_nfev), the Jacobian only feeds the result's gradient, unused."""

    def __init__(self, shape):
        super().__init__(dtype=np.dtype(np.float64), shape=shape)

    def _matvec(self, x):
        return np.zeros(self.shape[0])

    def _rmatvec(self, x):
        return np.zeros(self.shape[1])


class Structure:
    """The csr layout of a Jacobian whose entries come at fixed (row, column) places, in a fixed order.

    `fill(values)` gives the csr matrix `coo_matrix((values, (rows, cols)), shape).tocsr()`
    gives, with the same indptr, indices and data bits. That conversion puts the entries in row
    order (keeping their order within a row), sorts a row's entries by column when the matrix is
    not sorted yet (a sort that is not stable, so the order of entries at the same place is
    learnt from scipy itself, once, by converting the entries' serial numbers), and adds the
    entries of one place left to right; `fill` replays that order of additions."""

    def __init__(self, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]):
        self.shape = shape
        self.rows, self.cols = rows, cols
        if _kernels is None:  # pragma: no cover
            return
        m, n = shape
        k = len(rows)
        idx = np.int32 if max(m, n, k) < 2 ** 31 - 1 else np.int64
        bp, bj = np.empty(m + 1, dtype=idx), np.empty(k, dtype=idx)
        bx = np.empty(k, dtype=np.float64)
        # serial numbers are exact in float64: where each entry lands is read off the result
        _kernels.coo_tocsr(m, n, k, rows.astype(idx), cols.astype(idx), np.arange(k, dtype=np.float64), bp, bj, bx)
        raw = csr_matrix((bx, bj, bp), shape=shape, copy=False)
        raw.sort_indices()   # what tocsr's sum_duplicates does first (only when unsorted)
        order = raw.data.astype(np.int64)
        key = np.repeat(np.arange(m, dtype=np.int64), np.diff(raw.indptr)) * n + raw.indices
        starts = np.ones(k, dtype=bool)
        starts[1:] = key[1:] != key[:-1]
        place = np.cumsum(starts) - 1
        self.first = order[starts]
        self.indices = raw.indices[starts].copy()
        per_row = np.bincount(np.repeat(np.arange(m), np.diff(raw.indptr))[starts], minlength=m)
        self.indptr = np.concatenate([[0], np.cumsum(per_row)]).astype(idx)
        run_start = np.maximum.accumulate(np.where(starts, np.arange(k), 0))
        rank = np.arange(k) - run_start
        top = int(rank.max(initial=0))
        # the second entry of each place, then the third, ...: left to right, as csr_sum_duplicates adds
        self.adds = [(place[rank == r], order[rank == r]) for r in range(1, top + 1)]

    def fill(self, values: np.ndarray) -> csr_matrix:
        if _kernels is None:  # pragma: no cover
            return coo_matrix((values, (self.rows, self.cols)), shape=self.shape).tocsr()
        data = values[self.first]
        for where, which in self.adds:
            data[where] += values[which]
        return csr_matrix((data, self.indices.copy(), self.indptr.copy()), shape=self.shape, copy=False)
