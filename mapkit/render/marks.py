"""Printer's marks as primitives: calibration bars, the "print at 100 %" notice, crop marks and
alignment crosshairs (the tiled sheets use registration ticks across their seams instead, see
`tiling`). Each function returns items for `draw.draw`."""

from __future__ import annotations

from mapkit.render import fonts, shapes
from mapkit.render.draw import Area, Disc, Line, Text

NOTICE = "Print at 100 % (actual size) — do not scale"
MARK_INK = "#000000"
BAR_MM = 2.0


def calibration_bar(x: float, y: float, length: float, label: str, ticks: float, vertical: bool = False,
                    size: float = 5.5) -> list:
    """A bar `length` mm long starting at (x, y) (its top-left), ticked every `ticks` mm, with its
    label after it: measure it on paper to check the print scale."""
    out = []
    if vertical:
        out.append(Area((shapes.rect_ring(x, y, x + BAR_MM, y + length),), face="white", edge=MARK_INK, lw=0.4, z=20))
        n = int(round(length / ticks))
        for i in range(n):
            if i % 2 == 0:
                out.append(Area((shapes.rect_ring(x, y + i * ticks, x + BAR_MM, y + min(length, (i + 1) * ticks)),),
                                face=MARK_INK, z=20.1))
        w = fonts.line_width(label, size)
        out.append(Text((x + BAR_MM + 1.4, y + length / 2), (label,), size, MARK_INK, z=20, rotation=90,
                        box=(x + BAR_MM, y + length / 2 - w / 2, x + BAR_MM + 2.8, y + length / 2 + w / 2)))
        return out
    out.append(Area((shapes.rect_ring(x, y, x + length, y + BAR_MM),), face="white", edge=MARK_INK, lw=0.4, z=20))
    n = int(round(length / ticks))
    for i in range(n):
        if i % 2 == 0:
            out.append(Area((shapes.rect_ring(x + i * ticks, y, x + min(length, (i + 1) * ticks), y + BAR_MM),),
                            face=MARK_INK, z=20.1))
    w = fonts.line_width(label, size)
    out.append(Text((x + length + 1.5 + w / 2, y + BAR_MM / 2), (label,), size, MARK_INK, z=20,
                    box=(x + length + 1.5, y - 1, x + length + 1.5 + w, y + BAR_MM + 1)))
    return out


def scale_strip(x: float, y: float, size: float = 5.5) -> tuple[list, tuple]:
    """The notice, a 100 mm bar and a 1 inch bar side by side from (x, y) (top-left), left to right.
    Returns items and their bounding box."""
    nw = fonts.line_width(NOTICE, size, True)
    out = [Text((x + nw / 2, y + BAR_MM / 2), (NOTICE,), size, MARK_INK, z=20, bold=True,
                box=(x, y - 1, x + nw, y + BAR_MM + 1))]
    bx = x + nw + 4
    out += calibration_bar(bx, y, 100.0, "100 mm", 10.0, size=size)
    ix = bx + 100 + 4 + fonts.line_width("100 mm", size) + 4
    out += calibration_bar(ix, y, 25.4, "1 inch", 25.4 / 4, size=size)
    end = ix + 25.4 + 1.5 + fonts.line_width("1 inch", size)
    return out, (x, y - 1, end, y + BAR_MM + 1)


def scale_strip_width(size: float = 5.5) -> float:
    return (fonts.line_width(NOTICE, size, True) + 4 + 100 + 4 + fonts.line_width("100 mm", size) + 4 + 25.4
            + 1.5 + fonts.line_width("1 inch", size))


def crop_marks(xs, ys, frame, length: float, gap: float = 1.0, lw: float = 0.3) -> list:
    """Short lines outside frame (x0, y0, x1, y1, the area the cards fill) continuing each trim
    line: verticals at xs above and below it, horizontals at ys left and right of it."""
    x0, y0, x1, y1 = frame
    out = []
    for x in xs:
        out.append(Line(((x, y0 - gap - length), (x, y0 - gap)), MARK_INK, lw, z=20))
        out.append(Line(((x, y1 + gap), (x, y1 + gap + length)), MARK_INK, lw, z=20))
    for y in ys:
        out.append(Line(((x0 - gap - length, y), (x0 - gap, y)), MARK_INK, lw, z=20))
        out.append(Line(((x1 + gap, y), (x1 + gap + length, y)), MARK_INK, lw, z=20))
    return out


def crosshair(x: float, y: float, radius: float = 3.0, arm: float = 5.0) -> list:
    """An alignment mark: a circle with a cross through it, drawn over everything."""
    return [Disc((x, y), radius, None, MARK_INK, 0.4, z=30),
            Line(((x - arm, y), (x + arm, y)), MARK_INK, 0.4, z=30),
            Line(((x, y - arm), (x, y + arm)), MARK_INK, 0.4, z=30)]
