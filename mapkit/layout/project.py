"""From lat/lon to a first guess in millimetres: the real map at the scale its routes ask for.

The scale is the median over routes of (the length a route's spaces want) / (its real distance),
so that a typical route starts about as long as it should be; pinned stations, when there are
some, fix the scale and offset instead (a least-squares similarity fit to their positions).
"""

from __future__ import annotations

import numpy as np

from mapkit.layout.network import Network


def natural_scale(net: Network) -> float:
    ratios = []
    for b in net.bundles:
        d = float(np.hypot(*(net.geo[b.a] - net.geo[b.b])))
        if d > 0 and not b.flight:
            ratios.append(b.lpref / d)
    if not ratios:
        return 1.0
    return float(np.median(ratios))


def initial_positions(net: Network) -> tuple[np.ndarray, float]:
    """(n, 2) mm positions with the map's shape, and the mm per geographic unit used.

    Fixed stations are placed where the file has them; the others follow the real map, scaled
    and shifted to agree with the fixed ones (or centred on the origin when nothing is fixed)."""
    scale = natural_scale(net)
    pos = net.geo * scale
    fixed = net.fixed & ~np.isnan(net.given[:, 0])
    if fixed.sum() >= 2:
        # similarity fit without rotation: pos * s + t ≈ given on the fixed stations
        g, p = net.given[fixed], net.geo[fixed]
        pc, gc = p - p.mean(0), g - g.mean(0)
        denom = float((pc ** 2).sum())
        s = float((pc * gc).sum() / denom) if denom > 0 else scale
        if s <= 0:
            s = scale
        scale = s
        pos = (net.geo - p.mean(0)) * s + g.mean(0)
    elif fixed.sum() == 1:
        i = int(np.flatnonzero(fixed)[0])
        pos = pos - pos[i] + net.given[i]
    else:
        pos = pos - (pos.min(0) + pos.max(0)) / 2
    pos[fixed] = net.given[fixed]
    return pos, scale
