"""The renderer's candidate label boxes of one station (mapkit.render.labels.station_candidates),
as one array, for the layout's label-room test.

The layout asks for the boxes of a station at every position the polish tries, and the renderer
makes each box as a Candidate object (several hundred a station): that was half the label-room
test. Here the same boxes come from numpy, operation for operation the renderer's arithmetic
(anchor, centre, corners; then the same boxes slid along the marker's side), so they are the same
numbers: what depends only on the name and size (the measured text, the offsets) is computed once
a station, what depends on the position is one array expression. Only the boxes of the sizes the
test asks about are made; their order is the renderer's. tests/test_layout_identity.py compares
them with station_candidates box for box.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from mapkit.render import fonts
from mapkit.render import labels as R

_NS, _EW, _DIAG = 0, 1, 2


@lru_cache(maxsize=4096)
def _template(name: str, radius: float, preferred: str | None, hub: bool, need: float):
    """Per compass candidate (in the renderer's order, sizes >= need): the offsets that do not
    depend on the station's position, and how its slid copies are made."""
    order = ([preferred] if preferred else []) + [p for p in R.ORDER if p != preferred]
    rows = []
    for size in (R.HUB_SIZES if hub else R.STATION_SIZES):
        if size < need:
            continue
        for extra in (0.0, R.FAR_MM, 2 * R.FAR_MM):
            for lines in R.line_variants(name):
                for pos in order:
                    dx, dy = R.COMPASS[pos]
                    reach = radius + R.LABEL_GAP_MM + extra
                    if dx and dy:
                        reach_x = reach_y = reach / math.sqrt(2)
                    else:
                        reach_x, reach_y = reach * abs(dx), reach * abs(dy)
                    w, h = fonts.block_size(lines, size, hub)
                    w, h = w + 2 * R.PAD_MM, h + 2 * R.PAD_MM
                    kind = _NS if pos in ("n", "s") else _EW if pos in ("e", "w") else _DIAG
                    rows.append((dx * reach_x, dy * reach_y, dx * w / 2, dy * h / 2, w / 2, h / 2,
                                 kind, pos.endswith("e"), pos.startswith("s")))
    if not rows:
        return None
    cols = list(zip(*rows))
    f = [np.array(c, dtype=float) for c in cols[:6]]
    rx, ry, hx, hy, w2, h2 = f
    kind, east, south = np.array(cols[6], dtype=int), np.array(cols[7], dtype=bool), np.array(cols[8], dtype=bool)
    # the same offsets as (k, 2) pairs for candidate_boxes' arithmetic on both coordinates at once
    # (each element is the same operation on the same numbers), and the slides' choices as masks
    ns, ew = kind == _NS, kind == _EW
    pairs = (np.column_stack([rx, ry]), np.column_stack([hx, hy]), np.column_stack([w2, h2]), ns, ew, east,
             np.where(south, -1.0, 1.0))
    return (*f, kind, east, south, len(order), pairs)


def candidate_boxes(name: str, xy, radius: float, preferred: str | None, hub: bool, need: float) -> np.ndarray:
    """(k, 4) boxes x0, y0, x1, y1: the renderer's candidates of `size >= need`, in its order."""
    t = _template(name, float(radius), preferred, bool(hub), float(need))
    if t is None:
        return np.zeros((0, 4))
    per = t[9]
    r_xy, h_xy, w_xy, ns, ew, east, south_sign = t[10]
    # cx = (x + rx) + hx, cy = (y + ry) + hy; the corners cx -/+ w2, cy -/+ h2
    c = (np.array([float(xy[0]), float(xy[1])]) + r_xy) + h_xy
    lo, hi = c - w_xy, c + w_xy
    base = np.concatenate([lo, hi], axis=1)
    # the slid copies (mapkit.render.labels._slid), two a candidate:
    #   n/s: (-wd/3, 0) and (wd/3, 0); e/w: (0, -ht/2) and (0, ht/2); diagonal: (-dx*wd/4, 0) and
    #   (0, -ht/2 if south else ht/2), dx = 1 if cx > the box's middle or east else -1
    # ((-a)/b is -(a/b) and a*(-1) is -a in floats: the same numbers as before)
    size = hi - lo
    wd, ht = size[:, 0], size[:, 1]
    dxs = (c[:, 0] > (lo[:, 0] + hi[:, 0]) / 2) | east
    w3, w4, h_2 = wd / 3, wd / 4, ht / 2
    zero = np.zeros_like(wd)
    s1 = np.empty_like(size)
    s1[:, 0] = np.where(ns, -w3, np.where(ew, zero, np.where(dxs, -w4, w4)))
    s1[:, 1] = np.where(ew, -h_2, zero)
    s2 = np.empty_like(size)
    s2[:, 0] = np.where(ns, w3, zero)
    s2[:, 1] = np.where(ns, zero, np.where(ew, h_2, h_2 * south_sign))
    slid1 = base + np.concatenate([s1, s1], axis=1)
    slid2 = base + np.concatenate([s2, s2], axis=1)
    # renderer's order: each group of `per` compass boxes, then their slid copies (two each, in turn)
    g = len(base) // per
    base = base.reshape(g, per, 4)
    slid = np.stack([slid1, slid2], axis=1).reshape(g, per * 2, 4)
    return np.concatenate([base, slid], axis=1).reshape(-1, 4)
