"""Printer's marks as primitives: calibration bars, the "print at 100 %" notice, crop marks,
alignment crosshairs (the tiled sheets use registration ticks across their seams instead, see
`tiling`) and the stamp every sheet of a kit carries (`Stamp`). Each function returns items for
`draw.draw`."""

from __future__ import annotations

from dataclasses import dataclass

from mapkit.render import fonts, shapes
from mapkit.render.draw import Area, Disc, Line, Text

NOTICE = "Print at 100 % (actual size) — do not scale"
MARK_INK = "#000000"
BAR_MM = 2.0
PLAYTEST = "playtest ☐  date ________"
STAMP_SIZES = (6.0, 5.5, 5.0, 4.5)


@dataclass(frozen=True)
class Stamp:
    """What matches a printed sheet to its board file: the board's name, its version ("" when the
    file has none) and the first 8 hex digits of the file's SHA-256 (kit.content_hash; "" where not
    known). Every sheet of a kit prints it with a playtest box (`stamp_text`)."""

    name: str
    version: str = ""
    file: str = ""

    def ident(self) -> str:
        """"version 1.0 · file 1a2b3c4d" (the parts the board has)."""
        return " · ".join(x for x in (f"version {self.version}" if self.version else "",
                                      f"file {self.file}" if self.file else "") if x)

    def lines(self, with_name: bool = True) -> list[tuple[str, ...]]:
        """The stamp as one line, then as two, then three: the ways `stamp_text` tries, in turn."""
        head = [self.name] if with_name else []
        ident = self.ident()
        one = " · ".join(head + ([ident] if ident else []) + [PLAYTEST])
        two = " · ".join(head + ([ident] if ident else []))
        out = [(one,)]
        if two:
            out.append((two, PLAYTEST))
        if with_name and ident:
            out.append((self.name, ident, PLAYTEST))
        return out


def stamp_text(stamp: Stamp, box, with_name: bool = True, rotation: float = 0.0, ha: str = "left",
               sizes=STAMP_SIZES) -> Text:
    """The stamp as one Text inside box (x0, y0, x1, y1, mm; read bottom to top when rotation is
    90): the largest of sizes at which one of `Stamp.lines` fits, fewest lines first; where none
    fits, its shortest lines at the smallest size. Its box is where it is drawn."""
    x0, y0, x1, y1 = box
    along, across = (y1 - y0, x1 - x0) if rotation else (x1 - x0, y1 - y0)
    choices = stamp.lines(with_name)
    best = None
    for size in sizes:
        for lines in choices:
            w, h = fonts.block_size(lines, size)
            if w <= along and h <= across:
                best = (lines, size, w, h)
                break
        if best is not None:
            break
    if best is None:
        lines = choices[-1]
        best = (lines, sizes[-1], *fonts.block_size(lines, sizes[-1]))
    lines, size, w, h = best
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if rotation:
        # read bottom to top: the text's left edge at the box's bottom
        start = y1 if ha == "left" else cy + w / 2
        return Text((cx, start - w / 2), lines, size, MARK_INK, z=20, rotation=90, align="left",
                    box=(cx - h / 2, start - w, cx + h / 2, start))
    left = x0 if ha == "left" else x1 - w if ha == "right" else cx - w / 2
    return Text((left + w / 2, cy), lines, size, MARK_INK, z=20, align="left",
                box=(left, cy - h / 2, left + w, cy + h / 2))


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
