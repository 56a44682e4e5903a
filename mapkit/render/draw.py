"""Primitives of a drawing (in mm, y down) and how they become matplotlib artists.

The scene and the card faces describe what to draw with these few value types; `draw` adds
them to an axes whose data units are mm. Nothing here computes geometry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from matplotlib.lines import Line2D
from matplotlib.patches import Circle, PathPatch
from matplotlib.path import Path

XY = tuple[float, float]
Box = tuple[float, float, float, float]


def _bbox_of(points) -> Box:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


@dataclass(frozen=True)
class Area:
    """A filled polygon: rings[0] its outline, the rest holes. Line widths are in points."""

    rings: tuple
    face: object = None
    edge: object = None
    lw: float = 0.0
    z: float = 1.0
    dash: tuple | None = None
    alpha: float = 1.0
    bbox: Box = field(default=None)

    def __post_init__(self):
        if self.bbox is None:
            object.__setattr__(self, "bbox", _bbox_of(self.rings[0]))


@dataclass(frozen=True)
class Line:
    coords: tuple
    color: object
    lw: float
    z: float = 1.0
    dash: tuple | None = None   # (on, off, …) in points
    alpha: float = 1.0
    bbox: Box = field(default=None)

    def __post_init__(self):
        if self.bbox is None:
            object.__setattr__(self, "bbox", _bbox_of(self.coords))


@dataclass(frozen=True)
class Disc:
    center: XY
    radius: float
    face: object = "white"
    edge: object = None
    lw: float = 0.0
    z: float = 1.0

    @property
    def bbox(self) -> Box:
        (x, y), r = self.center, self.radius
        return (x - r, y - r, x + r, y + r)


@dataclass(frozen=True)
class Text:
    """Lines of text centred at center; box is the measured box (for culling and checks)."""

    center: XY
    lines: tuple
    size: float
    color: object = "#222222"
    z: float = 10.0
    bold: bool = False
    align: str = "center"
    rotation: float = 0.0
    box: Box | None = None
    ha: str = "center"          # where center sits on the text: "center", "left" or "right" edge

    @property
    def bbox(self) -> Box:
        if self.box is not None:
            return self.box
        x, y = self.center
        return (x - 1, y - 1, x + 1, y + 1)


def _path(rings) -> Path:
    verts, codes = [], []
    for ring in rings:
        ring = list(ring)
        if ring[0] != ring[-1]:
            ring.append(ring[0])
        verts.extend(ring)
        codes.extend([Path.MOVETO] + [Path.LINETO] * (len(ring) - 2) + [Path.CLOSEPOLY])
    return Path(verts, codes)


def _visible(bbox: Box, window: Box | None) -> bool:
    if window is None:
        return True
    return bbox[0] <= window[2] and bbox[2] >= window[0] and bbox[1] <= window[3] and bbox[3] >= window[1]


def _add(ax, artist) -> None:
    """Add an artist in data coordinates without updating the axes' data limits (which are set
    by the page and slow to update for thousands of patches)."""
    artist.set_transform(ax.transData)
    ax.add_artist(artist)
    if artist.get_clip_on():
        artist.set_clip_path(ax.patch)


def draw(ax, items, window: Box | None = None, clip: bool = True) -> int:
    """Add the items (those touching window, when given) to ax; returns how many were drawn."""
    n = 0
    for it in items:
        if not _visible(it.bbox, window):
            continue
        n += 1
        if isinstance(it, Area):
            _add(ax, PathPatch(_path(it.rings), facecolor=it.face if it.face is not None else "none",
                                   edgecolor=it.edge if it.edge is not None else "none", linewidth=it.lw,
                                   zorder=it.z, alpha=it.alpha, joinstyle="round",
                                   linestyle=(0, it.dash) if it.dash else "solid", clip_on=clip))
        elif isinstance(it, Line):
            xs, ys = zip(*it.coords)
            line = Line2D(xs, ys, color=it.color, linewidth=it.lw, zorder=it.z, alpha=it.alpha,
                          solid_capstyle="round", dash_capstyle="butt", solid_joinstyle="round", clip_on=clip)
            if it.dash:
                line.set_dashes(it.dash)
            _add(ax, line)
        elif isinstance(it, Disc):
            _add(ax, Circle(it.center, it.radius, facecolor=it.face if it.face is not None else "none",
                                edgecolor=it.edge if it.edge is not None else "none", linewidth=it.lw,
                                zorder=it.z, clip_on=clip))
        elif isinstance(it, Text):
            ax.text(it.center[0], it.center[1], "\n".join(it.lines), fontsize=it.size, color=it.color,
                    fontweight="bold" if it.bold else "normal",
                    ha=it.ha, va="center", multialignment=it.align, rotation=it.rotation,
                    rotation_mode="anchor", zorder=it.z, parse_math=False, clip_on=clip)
        else:  # pragma: no cover - a programming error
            raise TypeError(f"cannot draw {it!r}")
    return n
