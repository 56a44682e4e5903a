"""Card colors from the lines' route_color.

- Lines whose colors are nearly the same (CIEDE2000 below MERGE_DELTA_E) are one card color:
  the branches of one line family. When one color covers most lines of a feed (an agency's brand
  color on every bus), it says nothing about the lines, and those lines get their own colors.
- Colors are taken in order of importance (rail-like lines, then by trips on the service day);
  a missing, near-white or malformed route_color, or one that clashes with a color already taken
  or with the gray of gray routes (closer than mapkit's MIN_COLOR_DELTA_E, what `validate` warns
  about), is replaced by the candidate farthest from every color taken.
- Past MAX_COLORS card colors, the least frequent bus lines become gray routes (claimed with any
  one color), as the published maps do with minor routes.
- A color's name comes from its lines' names; its kind from their route_type.
"""

from __future__ import annotations

import functools

import re
from dataclasses import dataclass

from mapkit.colors import GRAY_DISPLAY_HEX, MIN_COLOR_DELTA_E, color_distance, hex_to_rgb, rgb_to_lab
from mapkit.importers.gtfs.select import BUS_MODES, Line

MERGE_DELTA_E = 8.0
MAX_COLORS = 12
BRAND_SHARE = 0.5     # one color on more than half of the lines (and at least BRAND_LINES) is a brand
BRAND_LINES = 4

# printable colors to fill in with, in the order they are preferred while one is clearly apart
# (PREFERRED_DELTA_E) from every color taken; past that the farthest color of an sRGB grid
CANDIDATES = ("#d7191c", "#2c7bb6", "#1a9641", "#fdae61", "#7b3294", "#111111", "#f1c40f", "#e7298a",
              "#8c510a", "#00a6a6", "#66a61e", "#253494", "#ff7f00", "#b2182b", "#6a3d9a", "#01665e",
              "#c51b7d", "#4d9221", "#f46d43", "#5e3c99", "#35978f", "#bf812d", "#762a83", "#de77ae")


PREFERRED_DELTA_E = 30.0
_LEVELS = (0x11, 0x33, 0x55, 0x77, 0x99, 0xBB, 0xDD, 0xFF)


@functools.lru_cache(maxsize=None)
def _distance(a: str, b: str) -> float:
    # distinct_color compares the same few hundred colors again for each color it adds
    return color_distance(a, b)


@functools.lru_cache(maxsize=1)
def _grid() -> list[str]:
    grid = [f"#{r:02x}{g:02x}{b:02x}" for r in _LEVELS for g in _LEVELS for b in _LEVELS]
    return [c for c in grid if rgb_to_lab(hex_to_rgb(c))[0] <= 85]   # lighter ones vanish on a pale board


def distinct_color(taken: list[str]) -> tuple[str, float]:
    """(color, its smallest CIEDE2000 distance to `taken`): the first preferred candidate clearly
    apart from all of them, else the grid color farthest from them."""
    def apart(c):
        return min(_distance(c, t) for t in taken)

    for c in CANDIDATES:
        d = apart(c)
        if d >= PREFERRED_DELTA_E:
            return c, d
    best = max(_grid(), key=lambda c: (apart(c), c))
    return best, apart(best)


@dataclass
class CardColor:
    id: str
    name: str
    hex: str
    kind: str
    lines: list           # route ids
    source: str           # "route_color", "replaced: why", "merged"

    def as_json(self) -> dict:
        return {"id": self.id, "name": self.name, "hex": self.hex.upper(), "kind": self.kind}


def _near_white(hexval: str) -> bool:
    return rgb_to_lab(hex_to_rgb(hexval))[0] > 92


def _slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:40].strip("-") or "line"


def _name(lines: list[Line]) -> str:
    if len(lines) == 1:
        return lines[0].name[:40]
    longs = {ln.long_name for ln in lines}
    if len(longs) == 1 and lines[0].long_name:
        return lines[0].long_name[:40]
    names = ", ".join(ln.name for ln in lines)
    if len(names) <= 40:
        return names
    labels = [ln.label for ln in lines]
    text = "Lines " + ", ".join(labels)
    if len(text) <= 40:
        return text
    shown = []
    for lab in labels:
        more = f" +{len(labels) - len(shown) - 1}"
        if len("Lines " + ", ".join([*shown, lab])) + len(more) > 40:
            break
        shown.append(lab)
    return "Lines " + ", ".join(shown) + f" +{len(labels) - len(shown)}"


def build_palette(lines: list[Line]) -> tuple[list[CardColor], dict[str, str], list[str]]:
    """(card colors, route id → color id or 'gray', notes for the summary)."""
    notes = []
    ranked = sorted(lines, key=lambda ln: (bool(set(ln.modes) & set(BUS_MODES)), -ln.trips, ln.route_id))
    usable, why = {}, {}
    for ln in ranked:
        if ln.color is None:
            why[ln.route_id] = "no route_color"
        elif _near_white(ln.color):
            why[ln.route_id] = f"{ln.color} is too light to print"
        else:
            usable[ln.route_id] = ln.color
    # clusters of near-identical colors, led by their most important line
    clusters: list[list[Line]] = []
    for ln in ranked:
        c = usable.get(ln.route_id)
        if c is None:
            clusters.append([ln])
            continue
        for cl in clusters:
            lead = usable.get(cl[0].route_id)
            if lead and color_distance(lead, c) < MERGE_DELTA_E:
                cl.append(ln)
                break
        else:
            clusters.append([ln])
    groups: list[list[Line]] = []
    for cl in clusters:
        if len(cl) >= BRAND_LINES and len(cl) > BRAND_SHARE * len(lines) and len(lines) > BRAND_LINES:
            notes.append(f"{len(cl)} of {len(lines)} lines share route_color {usable[cl[0].route_id]} (the agency's "
                         f"color, not a line's): each line gets its own card color, the most frequent keeps it")
            groups.append([cl[0]])
            for ln in cl[1:]:
                usable.pop(ln.route_id, None)
                why[ln.route_id] = "the agency's color, on most lines"
                groups.append([ln])
        else:
            if len(cl) > 1:
                notes.append(f"lines {', '.join(ln.label for ln in cl)} have nearly the same color: one card color")
            groups.append(cl)
    is_bus = [all(set(ln.modes) & set(BUS_MODES) for ln in g) for g in groups]
    colored = []
    gray_lines = []
    for g, bus in zip(groups, is_bus):
        if len(colored) >= MAX_COLORS and bus:
            gray_lines.extend(g)
        else:
            colored.append(g)
    if gray_lines:
        notes.append(f"{len(gray_lines)} least frequent bus line(s) are gray routes, past {MAX_COLORS} card colors: "
                     + ", ".join(ln.label for ln in gray_lines))
    taken: list[str] = []
    palette: list[CardColor] = []
    assign: dict[str, str] = {ln.route_id: "gray" for ln in gray_lines}
    ids = set()
    for g in colored:
        lead = g[0]
        want = usable.get(lead.route_id)
        source = "route_color"
        if want is not None:
            clash = [t for t in taken + [GRAY_DISPLAY_HEX] if color_distance(t, want) < MIN_COLOR_DELTA_E]
            if clash:
                source = f"replaced: {want} is too close to {'gray routes' if clash[0] == GRAY_DISPLAY_HEX else clash[0]}"
                want = None
        else:
            source = f"replaced: {why.get(lead.route_id, 'no route_color')}"
        if want is None:
            best, gap = distinct_color(taken + [GRAY_DISPLAY_HEX])
            if gap < MIN_COLOR_DELTA_E:
                if all(set(ln.modes) & set(BUS_MODES) for ln in g):
                    gray_lines.extend(g)
                    for ln in g:
                        assign[ln.route_id] = "gray"
                    notes.append(f"line(s) {', '.join(ln.label for ln in g)}: no distinct color left; gray routes")
                    continue
            want = best
        # a one- or two-letter short name ("R") makes a cryptic id: the long name reads better
        short = lead.short_name if len(lead.short_name) > 2 or not lead.long_name else ""
        base = _slug(short or lead.long_name or lead.route_id)
        cid = base if base not in ("gray", "wild") else f"line-{base}"
        if cid[0].isdigit():
            cid = f"line-{cid}"
        n = 2
        while cid in ids:
            cid = f"{base}-{n}"
            n += 1
        ids.add(cid)
        palette.append(CardColor(cid, _name(g), want, lead.kind, [ln.route_id for ln in g], source))
        taken.append(want)
        for ln in g:
            assign[ln.route_id] = cid
    return palette, assign, notes
