"""The renderer's candidate label boxes of one station (mapkit.render.labels.station_candidates),
as one array, for the layout's label-room test.

The layout asks for the boxes of a station at every position the polish tries, and the renderer
makes each box as a Candidate object (several hundred a station): that was half the label-room
test. Here the same boxes come from numpy, operation for operation the renderer's arithmetic
(anchor, centre, corners; then the same boxes slid along the marker's side), so they are the same
numbers: what depends only on the name and size (the measured text, the offsets) is computed once
a station, what depends on the position is one array expression. Only the boxes of the sizes the
test asks about are made; their order is the renderer's. tests/test_layout_speed.py compares
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
    return (*f, np.array(cols[6], dtype=int), np.array(cols[7], dtype=bool), np.array(cols[8], dtype=bool), len(order))


def candidate_boxes(name: str, xy, radius: float, preferred: str | None, hub: bool, need: float) -> np.ndarray:
    """(k, 4) boxes x0, y0, x1, y1: the renderer's candidates of `size >= need`, in its order."""
    t = _template(name, float(radius), preferred, bool(hub), float(need))
    if t is None:
        return np.zeros((0, 4))
    rx, ry, hx, hy, w2, h2, kind, east, south, per = t
    x, y = float(xy[0]), float(xy[1])
    cx, cy = (x + rx) + hx, (y + ry) + hy
    x0, y0, x1, y1 = cx - w2, cy - h2, cx + w2, cy + h2
    base = np.stack([x0, y0, x1, y1], axis=1)
    # the slid copies (mapkit.render.labels._slid), two a candidate
    wd, ht = x1 - x0, y1 - y0
    dxs = np.where((cx > (x0 + x1) / 2) | east, 1, -1)
    zero = np.zeros_like(wd)
    sx1 = np.where(kind == _NS, -wd / 3, np.where(kind == _EW, 0.0, -dxs * wd / 4))
    sy1 = np.where(kind == _NS, 0.0, np.where(kind == _EW, -ht / 2, 0.0))
    sx2 = np.where(kind == _NS, wd / 3, zero)
    sy2 = np.where(kind == _NS, 0.0, np.where(kind == _EW, ht / 2, np.where(south, -ht / 2, ht / 2)))
    slid1 = np.stack([x0 + sx1, y0 + sy1, x1 + sx1, y1 + sy1], axis=1)
    slid2 = np.stack([x0 + sx2, y0 + sy2, x1 + sx2, y1 + sy2], axis=1)
    # renderer's order: each group of `per` compass boxes, then their slid copies (two each, in turn)
    g = len(base) // per
    base = base.reshape(g, per, 4)
    slid = np.stack([slid1, slid2], axis=1).reshape(g, per * 2, 4)
    return np.concatenate([base, slid], axis=1).reshape(-1, 4)
