"""Symbols that tell colors apart without color (printed on spaces and train cards).

Each symbol is a shapely shape in a unit box ([-1, 1]², y pointing down), built once; `rings`
places one at a point and size and returns its outlines for drawing. A color uses its palette
`symbol`, or else the first symbol of `SYMBOLS` no other color uses, in palette order.
"""

from __future__ import annotations

import math
from functools import lru_cache

from shapely import affinity
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box
from shapely.geometry.polygon import orient
from shapely.ops import unary_union

# the schema's list, in the order mapkit hands them out
SYMBOLS = ("circle", "square", "triangle", "diamond", "star", "plus", "cross", "hexagon",
           "pentagon", "heart", "moon", "bolt", "wave", "anchor", "plane", "tram")
WILD = "wild"


def assign_symbols(board) -> dict[str, str]:
    """Symbol of each palette color: its own, else the first unused one (wrapping past 16 colors)."""
    taken = {c.symbol for c in board.palette if c.symbol}
    free = [s for s in SYMBOLS if s not in taken] or list(SYMBOLS)
    out, i = {}, 0
    for c in board.palette:
        if c.symbol:
            out[c.id] = c.symbol
        else:
            out[c.id] = free[i % len(free)]
            i += 1
    return out


def _regular(n: int, r: float = 1.0, start: float = -90.0) -> Polygon:
    return Polygon([(r * math.cos(math.radians(start + 360 * k / n)), r * math.sin(math.radians(start + 360 * k / n)))
                    for k in range(n)])


def _star(points: int, outer: float, inner: float) -> Polygon:
    pts = []
    for k in range(2 * points):
        r = outer if k % 2 == 0 else inner
        a = math.radians(-90 + 180 * k / points)
        pts.append((r * math.cos(a), r * math.sin(a)))
    return Polygon(pts)


def _plus(arm: float = 0.95, half: float = 0.3) -> Polygon:
    return unary_union([box(-arm, -half, arm, half), box(-half, -arm, half, arm)])


def _heart() -> Polygon:
    lobes = [Point(-0.45, -0.35).buffer(0.5, quad_segs=16), Point(0.45, -0.35).buffer(0.5, quad_segs=16)]
    tip = Polygon([(-0.93, -0.2), (0.93, -0.2), (0, 0.95)])
    return unary_union([*lobes, tip])


def _moon() -> Polygon:
    return Point(0, 0).buffer(0.95, quad_segs=24).difference(Point(0.45, -0.25).buffer(0.8, quad_segs=24))


def _wave() -> Polygon:
    xs = [-0.9 + 1.8 * k / 40 for k in range(41)]
    bands = []
    for dy in (-0.35, 0.35):
        line = LineString([(x, dy + 0.25 * math.sin(x * math.pi * 1.6)) for x in xs])
        bands.append(line.buffer(0.14, cap_style="round"))
    return unary_union(bands)


def _anchor() -> Polygon:
    ring = Point(0, -0.72).buffer(0.24, quad_segs=12).difference(Point(0, -0.72).buffer(0.11, quad_segs=12))
    shaft = box(-0.09, -0.5, 0.09, 0.85)
    bar = box(-0.45, -0.35, 0.45, -0.2)
    arc = LineString([(0.75 * math.cos(math.radians(a)), 0.1 + 0.75 * math.sin(math.radians(a)))
                      for a in range(10, 171, 8)]).buffer(0.1)
    flukes = [Polygon([(0.62, 0.2), (0.95, 0.2), (0.78, 0.5)]), Polygon([(-0.62, 0.2), (-0.95, 0.2), (-0.78, 0.5)])]
    return unary_union([ring, shaft, bar, arc, *flukes])


def _plane() -> Polygon:
    body = LineString([(0, -0.95), (0, 0.75)]).buffer(0.13)
    wings = Polygon([(-0.95, 0.15), (0, -0.35), (0.95, 0.15), (0.95, 0.3), (0, 0.05), (-0.95, 0.3)])
    tail = Polygon([(-0.42, 0.85), (0, 0.6), (0.42, 0.85), (0.42, 0.95), (-0.42, 0.95)])
    return unary_union([body, wings, tail])


def _tram() -> Polygon:
    body = box(-0.6, -0.45, 0.6, 0.7).buffer(0.12, join_style="round")
    windows = [box(-0.5, -0.3, -0.06, 0.12), box(0.06, -0.3, 0.5, 0.12)]
    pole = Polygon([(-0.35, -0.55), (0, -0.95), (0.35, -0.55), (0.2, -0.55), (0, -0.78), (-0.2, -0.55)])
    wheels = [Point(-0.35, 0.85).buffer(0.13), Point(0.35, 0.85).buffer(0.13)]
    return unary_union([body.difference(unary_union(windows)), pole, *wheels])


@lru_cache(maxsize=None)
def unit_shape(name: str):
    """The symbol in the unit box, y down."""
    if name == "circle":
        return Point(0, 0).buffer(0.85, quad_segs=16)
    if name == "square":
        return box(-0.72, -0.72, 0.72, 0.72)
    if name == "triangle":
        return Polygon([(0, -0.95), (0.95, 0.7), (-0.95, 0.7)])
    if name == "diamond":
        return Polygon([(0, -1), (0.75, 0), (0, 1), (-0.75, 0)])
    if name == "star":
        return _star(5, 1.0, 0.42)
    if name == "plus":
        return _plus()
    if name == "cross":
        return affinity.rotate(_plus(), 45, origin=(0, 0))
    if name == "hexagon":
        return _regular(6, 0.92, 0)
    if name == "pentagon":
        return _regular(5, 0.95)
    if name == "heart":
        return _heart()
    if name == "moon":
        return _moon()
    if name == "bolt":
        return Polygon([(0.25, -1), (-0.55, 0.12), (-0.05, 0.12), (-0.3, 1), (0.55, -0.18), (0.05, -0.18)])
    if name == "wave":
        return _wave()
    if name == "anchor":
        return _anchor()
    if name == "plane":
        return _plane()
    if name == "tram":
        return _tram()
    if name == WILD:
        return unary_union([_star(8, 1.0, 0.55), ]).difference(Point(0, 0).buffer(0.3, quad_segs=12))
    raise ValueError(f"unknown symbol '{name}'")


def rings(name: str, center, size: float) -> list[list[tuple]]:
    """Outlines of the symbol centred at center, size mm across: a list of polygons, each a list
    of rings (the exterior counter-clockwise, then its holes clockwise, for nonzero filling)."""
    geom = affinity.translate(affinity.scale(unit_shape(name), size / 2, size / 2, origin=(0, 0)), *center)
    polys = list(geom.geoms) if isinstance(geom, MultiPolygon) else [geom]
    out = []
    for p in polys:
        p = orient(p, 1.0)
        out.append([list(p.exterior.coords), *(list(i.coords) for i in p.interiors)])
    return out
