"""Does the draft fit a board? The size the layout would draw it at, estimated before laying out.

`mapkit layout` draws each pair of stations about as far apart as the routes between them are
long (stress majorization from the real map). A network whose lengths ask for more than the board
is drawn shrunk and fails the space checks; so the importer estimates that span first (span_mm)
and scales the lengths to fit the board it lays the draft out on: the given --size, else each
standard size from GAME_BOARD (800 x 530 mm, the published maps') up (board_sizes), turned the
way the network is longer (oriented).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from mapkit.layout.fit import EDGE_MM, STANDARD_SIZES
from mapkit.layout.network import preferred_mm
from mapkit.model import Physical

FIT_BOARD = tuple(float(x) for x in max(STANDARD_SIZES, key=lambda s: s[0] * s[1]))  # the largest: 1682 x 1189 mm
# the published maps' size (the standard Ticket to Ride board): drafts are fitted to it first,
# then to each larger standard size while the layout leaves problems (board_sizes)
GAME_BOARD = (800.0, 530.0)
# room for what the estimate does not see (paths that are not straight, labels)
GROWTH = 1.0
# `mapkit import gtfs` makes drafts at each of these and lays them out the most spaces first
# while the board does not validate (board.import_attempts): the layout squeezes a drawing a good
# deal with few problems (at 1.45 the synthetic metro is valid with 25 trains each instead of 20
# at 1.2, five Cairns lines with 22 instead of 17, the whole Cairns network at 36 stations with
# 41; at 61 stations it leaves one crossing warning at 1.45 and one space on a station at 1.2)
TOLERANCES = (1.45, 1.2, 1.0, 0.85)


def route_mm(n: int, ph: Physical = Physical()) -> float:
    """The length a route of n spaces is drawn at, station centre to centre (the layout's aim)."""
    return preferred_mm(n, ph)


def span_mm(xy: dict, ends: list[tuple[str, str]], lengths: list[int]) -> tuple[float, float]:
    """(width, height) in mm the layout will want: it draws each pair of stations about as far
    apart as the routes between them are long (stress majorization), in the direction of the real
    map; so the extent east-west is the largest (path length in mm × |east-west share of the
    real direction|) over all pairs, and likewise north-south."""
    nodes = sorted({s for e in ends for s in e})
    if len(nodes) < 2:
        return 0.0, 0.0
    index = {s: i for i, s in enumerate(nodes)}
    w = {}
    for (a, b), n in zip(ends, lengths):
        key = (min(index[a], index[b]), max(index[a], index[b]))
        w[key] = min(w.get(key, math.inf), route_mm(n))
    rows, cols = zip(*w) if w else ((), ())
    graph = csr_matrix((list(w.values()), (rows, cols)), shape=(len(nodes), len(nodes)))
    dist = dijkstra(graph, directed=False)
    dist[np.isinf(dist)] = 0.0
    pts = np.array([xy[s] for s in nodes], dtype=float)
    delta = pts[None, :, :] - pts[:, None, :]
    norm = np.hypot(delta[..., 0], delta[..., 1])
    norm[norm == 0] = np.inf
    return float((dist * np.abs(delta[..., 0]) / norm).max()) * GROWTH, \
        float((dist * np.abs(delta[..., 1]) / norm).max()) * GROWTH


def board_sizes(size=None) -> list[tuple[float, float]]:
    """The boards to fit drafts to, in turn: the given (width, height), else the standard sizes
    from GAME_BOARD up by area (landscape; `oriented` turns each to the network)."""
    if size is not None and size != "auto":
        return [tuple(float(v) for v in size)]
    up = sorted({(float(max(w, h)), float(min(w, h))) for w, h in STANDARD_SIZES}, key=lambda s: s[0] * s[1])
    return [s for s in up if s[0] * s[1] >= GAME_BOARD[0] * GAME_BOARD[1]]


def oriented(board: tuple[float, float], span: tuple[float, float], fixed: bool) -> tuple[float, float]:
    """board as given when fixed (--size), else turned the way the network is longer."""
    if fixed:
        return board
    w, h = max(board), min(board)
    return (w, h) if span[0] >= span[1] else (h, w)


def fits(span: tuple[float, float], tolerance: float = 1.0, board: tuple[float, float] = FIT_BOARD,
         fixed: bool = False, ph: Physical = Physical()) -> bool:
    """Whether a span, divided by tolerance, fits `board` (either way round unless fixed) inside its
    margins."""
    span = (span[0] / tolerance, span[1] / tolerance)
    w, h = oriented(board, span, fixed)
    return _holds(w, h, span, ph)


def _holds(w: float, h: float, span, ph) -> bool:
    e = 2 * (ph.margin_mm + EDGE_MM)
    return span[0] + e <= w and span[1] + e <= h
