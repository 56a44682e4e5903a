"""Drawing geometry: what the board's primitives look like, computed with shapely and plain math.

Nothing here draws; every function returns coordinates in board mm (x right, y down).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shapely.geometry import LineString, Polygon
from shapely.geometry.polygon import orient

XY = tuple[float, float]
TRACK_CELLS = 100  # the scoring track: 0 … 99, then round again (100 = the start cell)


def rounded(corners, radius: float) -> list[XY]:
    """A polygon (a space's four corners) with rounded corners, as one counter-clockwise ring."""
    poly = Polygon(corners)
    r = min(radius, 0.45 * min(_side_lengths(corners)))
    if r > 0.05:
        poly = poly.buffer(-r, join_style="mitre").buffer(r, quad_segs=4)
    return list(orient(poly, 1.0).exterior.coords)


def _side_lengths(corners) -> list[float]:
    pts = list(corners)
    return [math.dist(pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts))] or [0.0]


def wavy(coords, amplitude: float = 1.6, wavelength: float = 7.0, step: float = 0.7) -> list[XY]:
    """The polyline as a sine wave of this amplitude around it (ferries and water taxis)."""
    line = LineString(coords)
    n = max(2, int(line.length / step))
    out = []
    for i in range(n + 1):
        s = line.length * i / n
        p = line.interpolate(s)
        nx, ny = normal_at(line, s)
        w = amplitude * math.sin(2 * math.pi * s / wavelength)
        out.append((p.x + nx * w, p.y + ny * w))
    return out


def normal_at(line: LineString, s: float) -> XY:
    """Unit normal (left of the direction of travel, y down) of the line at arc length s."""
    a = line.interpolate(max(0.0, s - 0.5))
    b = line.interpolate(min(line.length, s + 0.5))
    dx, dy = b.x - a.x, b.y - a.y
    norm = math.hypot(dx, dy) or 1.0
    return (-dy / norm, dx / norm)


def middle(coords) -> tuple[XY, XY]:
    """(point, unit normal) halfway along a polyline."""
    line = LineString(coords)
    p = line.interpolate(line.length / 2)
    return (p.x, p.y), normal_at(line, line.length / 2)


def trimmed(coords, start: float, end: float) -> list[XY]:
    """The polyline less `start` mm at its beginning and `end` mm at its end."""
    line = LineString(coords)
    if line.length <= start + end:
        return list(coords)
    from shapely.ops import substring
    return list(substring(line, start, line.length - end).coords)


@dataclass(frozen=True)
class Track:
    """The scoring track's band: cells from `outer` mm to `outer + width` mm from each edge."""

    outer: float
    width: float

    @property
    def inner(self) -> float:
        return self.outer + self.width


def track_band(margin_mm: float) -> Track:
    return Track(outer=min(3.0, 0.12 * margin_mm), width=min(12.0, max(4.0, 0.48 * margin_mm)))


@dataclass(frozen=True)
class TrackCell:
    number: int
    rect: tuple[float, float, float, float]  # x0, y0, x1, y1


def track_cells(width_mm: float, height_mm: float, margin_mm: float) -> list[TrackCell]:
    """The 100 cells of the scoring track around the border, clockwise from the top-left corner
    (cell 0, the start). Corner cells are squares; each side's cells share its length evenly."""
    t = track_band(margin_mm)
    o, w = t.outer, t.width
    x0, y0, x1, y1 = o, o, width_mm - o, height_mm - o
    len_h, len_v = (x1 - x0) - 2 * w, (y1 - y0) - 2 * w
    side_cells = TRACK_CELLS - 4
    n_h = max(1, round(side_cells / 2 * len_h / (len_h + len_v)))
    n_v = side_cells // 2 - n_h
    cells: list[tuple] = [(x0, y0, x0 + w, y0 + w)]
    step = len_h / n_h
    cells += [(x0 + w + i * step, y0, x0 + w + (i + 1) * step, y0 + w) for i in range(n_h)]
    cells.append((x1 - w, y0, x1, y0 + w))
    step = len_v / n_v
    cells += [(x1 - w, y0 + w + i * step, x1, y0 + w + (i + 1) * step) for i in range(n_v)]
    cells.append((x1 - w, y1 - w, x1, y1))
    step = len_h / n_h
    cells += [(x1 - w - (i + 1) * step, y1 - w, x1 - w - i * step, y1) for i in range(n_h)]
    cells.append((x0, y1 - w, x0 + w, y1))
    step = len_v / n_v
    cells += [(x0, y1 - w - (i + 1) * step, x0 + w, y1 - w - i * step) for i in range(n_v)]
    return [TrackCell(i, c) for i, c in enumerate(cells)]


def rect_ring(x0: float, y0: float, x1: float, y1: float) -> list[XY]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]


def rounded_rect(x0: float, y0: float, x1: float, y1: float, radius: float) -> list[XY]:
    return rounded([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], radius)
