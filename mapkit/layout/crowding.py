"""How wide a crowded station's first gaps must be: the angle two neighbouring routes' first spaces
need at a shared station, and the smallest gap between spaces that lets every route leaving a
station clear its neighbours.

A route's spaces are spread evenly along it, so the first space starts one gap from the station's
edge; the nearer it starts, the wider the angle its corners take. Seven routes with two doubles
(north-america's Denver and Pittsburgh) take more than the full circle at 6 mm gaps: their first
spaces clear only when the gaps are wider. The layout holds gaps to network.MAX_GAP_MM except on the
routes of such stations, which get the gap their station needs (`station_gaps`), and says so.
"""

from __future__ import annotations

import math

import numpy as np

# the corner geometry of two first spaces at a station lives with the space placement that also uses
# it (mapkit.geometry); the layout's terms take it from here as before
from mapkit.geometry import alpha, need_of  # noqa: F401

ANGLE_CLEAR = 0.04      # radians beyond the corners' need at a shared station (the optimizer's margin)
HALF_EXTRA_MM = 0.5     # added to a band's half-width in the angle need, as the optimizer does
WIDEST_GAP_MM = 40.0    # the search for a station's gap stops here (a station no gap can clear)


def circle_need(halves: np.ndarray, gap: float, radius: float) -> float:
    """The angle all bands of a station take round it (each with its cyclic neighbour) when every
    first space starts one `gap` from the station's edge."""
    m = len(halves)
    if m < 2:
        return 0.0
    h = np.asarray(halves, dtype=float) + HALF_EXTRA_MM
    s = np.full(m, radius + gap)
    h2 = np.roll(h, -1)
    return float(need_of(s, s, h, h2).sum() + ANGLE_CLEAR * m)


def station_gap(halves, radius: float, smallest: float) -> float:
    """The smallest gap (at least `smallest`) at which the bands with these half-widths, in this
    cyclic order, fit round a station; WIDEST_GAP_MM when none up to it does."""
    if circle_need(halves, smallest, radius) <= 2 * math.pi:
        return smallest
    if circle_need(halves, WIDEST_GAP_MM, radius) > 2 * math.pi:
        return WIDEST_GAP_MM
    lo, hi = smallest, WIDEST_GAP_MM
    for _ in range(30):   # bisection: the need falls as the gap grows
        mid = (lo + hi) / 2
        if circle_need(halves, mid, radius) <= 2 * math.pi:
            hi = mid
        else:
            lo = mid
    return hi


def station_gaps(n: int, ends: list[tuple[int, int, float]], geo: np.ndarray, radius: float,
                 smallest: float) -> np.ndarray:
    """(n,) the gap each station's routes need so that their first spaces clear round it, from the
    bands (a, b, half-width) leaving it in their real cyclic order; `smallest` where that is enough."""
    at: dict[int, list[tuple[float, float]]] = {}
    for a, b, half in ends:
        for s, o in ((a, b), (b, a)):
            d = geo[o] - geo[s]
            at.setdefault(s, []).append((math.atan2(d[1], d[0]), half))
    out = np.full(n, float(smallest))
    for s, items in at.items():
        items.sort()
        out[s] = station_gap(np.array([h for _, h in items]), radius, smallest)
    return out


def pair_gap(theta: float, h1: float, h2: float, radius: float, smallest: float) -> float:
    """The smallest gap (at least `smallest`) at which two bands with half-widths h1, h2 leaving a
    station at the angle theta between them have first spaces that clear (with the optimizer's
    margins, as circle_need counts them); WIDEST_GAP_MM when none up to it does. For the drawing's
    real angle where two routes' first spaces still touch: the gap that would let them clear
    without the angle opening any further."""
    h = np.array([h1 + HALF_EXTRA_MM]), np.array([h2 + HALF_EXTRA_MM])

    def need(gap):
        s = np.array([radius + gap])
        return float(need_of(s, s, *h)[0]) + ANGLE_CLEAR

    if need(smallest) <= theta:
        return smallest
    if need(WIDEST_GAP_MM) > theta:
        return WIDEST_GAP_MM
    lo, hi = smallest, WIDEST_GAP_MM
    for _ in range(30):   # bisection: the need falls as the gap grows
        mid = (lo + hi) / 2
        if need(mid) <= theta:
            hi = mid
        else:
            lo = mid
    return hi


def drawn_pair_gap(net, dr, k: int, j: int) -> float:
    """The gap at which bundles k and j, leaving their shared station at the angle the drawing has
    between their first segments, would have first spaces that clear (0 when they share none)."""
    bk, bj = net.bundles[k], net.bundles[j]
    shared = ({bk.a, bk.b} & {bj.a, bj.b})
    if len(shared) != 1:
        return 0.0
    s = shared.pop()

    def out(m):
        line = dr.lines[m]
        nxt = line[1] if line[0] == s else line[-2]
        return dr.pos[nxt] - dr.pos[s]

    u, v = out(k), out(j)
    theta = float(np.arccos(np.clip(u @ v / max(np.linalg.norm(u) * np.linalg.norm(v), 1e-12), -1, 1)))
    return pair_gap(theta, bk.half_width, bj.half_width, net.radius, max(bk.gap_max, bj.gap_max))


