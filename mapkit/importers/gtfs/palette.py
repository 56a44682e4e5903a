"""Card colors: line families from the lines' route_color (build_palette), then the deck's card
colors as a game decision (deck_colors).

build_palette — the families:
- Lines whose colors are nearly the same (CIEDE2000 below MERGE_DELTA_E) are one family: the
  branches of one line. When one color covers most lines of a feed (an agency's brand color on
  every bus), it says nothing about the lines, and each of them is a family of its own.
- Colors are taken in order of importance (rail-like lines, then by trips on the service day);
  a route_color that clashes with a color already taken or with the gray of gray routes (closer
  than mapkit's MIN_COLOR_DELTA_E, what `validate` warns about) becomes the nearest printable
  shade of it apart from them all (a blue line stays blue); a missing, near-white or malformed
  one is replaced by the candidate farthest from every color taken.
- A color's name comes from its lines' names; its kind from their route_type.

deck_colors — the deck: MIN_DECK_COLORS to MAX_DECK_COLORS card colors by default (--colors N),
families of at most GRAY_TRACKS tracks made gray (up to GRAY_SHARE of the spaces) or joined to a
neighbour, the smallest families joined to the one they share most stations with, and a feed of
fewer families than colors (two lines of one red) gets colors dealt along its lines so that each
color's track is spread over the board; see its docstring.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from mapkit.colors import GRAY_DISPLAY_HEX, MIN_COLOR_DELTA_E, color_distance, hex_to_rgb, rgb_to_lab
from mapkit.importers.gtfs.select import BUS_MODES, Line

MERGE_DELTA_E = 8.0
MAX_COLORS = 40           # line families told apart before the deck decides (deck_colors)
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


def nearest_distinct(want: str, taken: list[str]) -> tuple[str, float]:
    """(color, its smallest CIEDE2000 distance to `taken`): of the printable colors at least
    MIN_COLOR_DELTA_E from every color taken, the one nearest `want` (a line's own color that
    clashes becomes a shade of it, so a blue line stays blue); distinct_color when none is."""
    def apart(c):
        return min(_distance(c, t) for t in taken)

    ok = [c for c in (*CANDIDATES, *_grid()) if apart(c) >= MIN_COLOR_DELTA_E]
    if not ok:
        return distinct_color(taken)
    best = min(ok, key=lambda c: (_distance(c, want), c))
    return best, apart(best)


@dataclass
class CardColor:
    id: str
    name: str
    hex: str
    kind: str
    lines: list           # route ids
    source: str           # "route_color", "replaced: why", "merged"
    own: str | None = None   # the lead line's printable route_color, when it has one

    def as_json(self) -> dict:
        return {"id": self.id, "name": self.name, "hex": self.hex.upper(), "kind": self.kind}


def _near_white(hexval: str) -> bool:
    return rgb_to_lab(hex_to_rgb(hexval))[0] > 92


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    s = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
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
                         f"color, not a line's): each line is a family of its own")
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
        own = want = usable.get(lead.route_id)
        source = "route_color"
        if want is not None:
            clash = [t for t in taken + [GRAY_DISPLAY_HEX] if color_distance(t, want) < MIN_COLOR_DELTA_E]
            if clash:
                source = f"replaced: {want} is too close to {'gray routes' if clash[0] == GRAY_DISPLAY_HEX else clash[0]}"
                want = None
        else:
            source = f"replaced: {why.get(lead.route_id, 'no route_color')}"
        if want is None:
            best, gap = (nearest_distinct(own, taken + [GRAY_DISPLAY_HEX]) if own
                         else distinct_color(taken + [GRAY_DISPLAY_HEX]))
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
        palette.append(CardColor(cid, _name(g), want, lead.kind, [ln.route_id for ln in g], source, own))
        taken.append(want)
        for ln in g:
            assign[ln.route_id] = cid
    return palette, assign, notes


# card colors a deck plays with by default: at least MIN_DECK_COLORS, at most MAX_DECK_COLORS (the
# standard map's 8), each holding at least TRACKS_PER_COLOR tracks; lines of at most GRAY_TRACKS
# tracks are gray routes (claimed with any one color) rather than a color of their own
MIN_DECK_COLORS = 5
MAX_DECK_COLORS = 8
TRACKS_PER_COLOR = 3
GRAY_TRACKS = 2
GRAY_SHARE = 0.25      # at most this share of the spaces gray; the other small lines join a neighbour
# names of the colors a deck adds when the feed's lines have fewer colors than the deck needs
HUE_NAMES = {"#d7191c": "Red", "#2c7bb6": "Blue", "#1a9641": "Green", "#fdae61": "Orange", "#7b3294": "Purple",
             "#111111": "Black", "#f1c40f": "Yellow", "#e7298a": "Pink", "#8c510a": "Brown", "#00a6a6": "Teal",
             "#66a61e": "Lime", "#253494": "Navy", "#ff7f00": "Amber", "#b2182b": "Crimson", "#6a3d9a": "Violet",
             "#01665e": "Pine", "#c51b7d": "Magenta", "#4d9221": "Olive", "#f46d43": "Coral", "#5e3c99": "Indigo",
             "#35978f": "Jade", "#bf812d": "Ochre", "#762a83": "Plum", "#de77ae": "Rose"}


def hue_name(hexval: str, taken: set[str]) -> str:
    """A color's name for its cards: its HUE_NAMES name, else the nearest one's, told apart from
    the names `taken` by "Dark" or "Light" (its lightness against that color's), then a number."""
    hexval = hexval.lower()
    if hexval in HUE_NAMES and HUE_NAMES[hexval] not in taken:
        return HUE_NAMES[hexval]
    ref = min(HUE_NAMES, key=lambda h: (_distance(h, hexval), h))
    name = HUE_NAMES[ref]
    lighter = rgb_to_lab(hex_to_rgb(hexval))[0] - rgb_to_lab(hex_to_rgb(ref))[0]
    if name in taken and abs(lighter) >= 5:
        name = f"{'Light' if lighter > 0 else 'Dark'} {name}"
    base, n = name, 2
    while name in taken:
        name, n = f"{base} {n}", n + 1
    return name


@dataclass
class DeckColors:
    palette: list           # CardColor, in deck order
    tracks: list            # per plan: the color id of each of its tracks ('gray' for gray routes)
    notes: list
    grouping: list          # per line family: its lines and the card colors it got (for the summary)


def deck_color_count(families: int, tracks: int, asked: int | None) -> tuple[int, str]:
    """(card colors, why): `asked` (--colors) when given, else the families' count held to
    MIN_DECK_COLORS..MAX_DECK_COLORS; either way at most one color per TRACKS_PER_COLOR tracks."""
    want = asked if asked else min(MAX_DECK_COLORS, max(MIN_DECK_COLORS, families))
    room = max(2, tracks // TRACKS_PER_COLOR)
    if want > room:
        return room, f"{room} card colors (of {want}): the board has {tracks} colored tracks, {TRACKS_PER_COLOR} at least a color"
    return want, (f"{want} card colors (--colors)" if asked else
                  f"{want} card colors from {families} line famil{'y' if families == 1 else 'ies'} "
                  f"(between {MIN_DECK_COLORS} and {MAX_DECK_COLORS} by default; --colors N to choose)")


def deck_colors(palette: list[CardColor], assign: dict[str, str], plans: list, lengths: list[int],
                lines: dict[str, Line], asked: int | None = None) -> DeckColors:
    """Card colors as a game decision, from the line families (`build_palette`'s colors: lines of
    one route_color) and the tracks drawn (plans: (segment, [line id of each track])).

    - A family of at most GRAY_TRACKS tracks is made gray.
    - More families than the deck's colors (deck_color_count): the family with the fewest spaces
      joins the family it shares the most stations with (its trunk), again and again.
    - Fewer: the family with the most spaces a color gets one more color, again and again, and a
      family's tracks are dealt to its colors along its lines, each track to the color with the
      fewest spaces so far that no track at either of its stations has: each color's track is
      spread over the family's part of the board, and the spaces are even.
    - The two tracks of a double never share a color (the second is then gray)."""
    notes, grouping = [], []
    fam_tracks: dict[str, list[tuple[int, int]]] = {}
    for i, (sg, tracks) in enumerate(plans):
        for j, ln in enumerate(tracks):
            fam_tracks.setdefault(assign[ln], []).append((i, j))
    by_id = {c.id: c for c in palette}
    fams = [c.id for c in palette if c.id in fam_tracks]
    spaces = {f: sum(lengths[i] for i, _ in fam_tracks[f]) for f in fams}
    small = sorted((f for f in fams if len(fam_tracks[f]) <= GRAY_TRACKS), key=lambda f: (spaces[f], f))
    gray, total = [], sum(spaces.values()) or 1
    for f in small:
        if len(gray) + 1 < len(fams) and sum(spaces[g] for g in gray) + spaces[f] <= GRAY_SHARE * total:
            gray.append(f)
    if gray:
        notes.append(f"{len(gray)} line famil{'y' if len(gray) == 1 else 'ies'} of {GRAY_TRACKS} tracks or fewer made gray "
                     f"routes (claimed with any one color): " + ", ".join(by_id[f].name for f in gray))
        fams = [f for f in fams if f not in gray]
    joining = [f for f in small if f not in gray and len(fams) > 1]   # past GRAY_SHARE: joined to a neighbour
    colored_tracks = sum(len(fam_tracks[f]) for f in fams)
    n, why = deck_color_count(len(fams), colored_tracks, asked)
    notes.append(why)
    stations = {f: {x for i, _ in fam_tracks[f] for x in (plans[i][0].a, plans[i][0].b)} for f in fams}
    members = {f: [f] for f in fams}
    while len(fams) > n or (joining and len(fams) > 1):
        small = joining.pop(0) if joining else min(fams, key=lambda f: (spaces[f], f))
        others = [f for f in fams if f != small]
        into = max(others, key=lambda f: (len(stations[f] & stations[small]), -spaces[f], f))
        shared = len(stations[into] & stations[small])
        notes.append(f"{by_id[small].name} joins {by_id[into].name} as one card color ("
                     + (f"{shared} station{'s' if shared > 1 else ''} shared)" if shared else
                        "no station shared: the smallest family)"))
        members[into] += members.pop(small)
        fam_tracks[into] += fam_tracks.pop(small)
        spaces[into] += spaces.pop(small)
        stations[into] |= stations.pop(small)
        fams.remove(small)
    split = {f: 1 for f in fams}
    while sum(split.values()) < n and fams:
        f = max(fams, key=lambda f: (spaces[f] / split[f], len(fam_tracks[f]) / split[f] >= 2 * TRACKS_PER_COLOR, f))
        if len(fam_tracks[f]) < (split[f] + 1) * TRACKS_PER_COLOR:
            break
        split[f] += 1
    # the families' own colors in order of importance, as build_palette takes them: a clash costs
    # the less frequent family its exact color
    def importance(f):
        famlines = [lines[x] for m in members[f] for x in by_id[m].lines]
        return (by_id[f].own is None, all(set(ln.modes) & set(BUS_MODES) for ln in famlines),
                -sum(ln.trips for ln in famlines), -spaces[f], f)

    fams.sort(key=importance)
    taken = [GRAY_DISPLAY_HEX]
    out: list[CardColor] = []
    ids: set[str] = set()
    subs: dict[str, list[str]] = {}
    names = {}
    for f in fams:
        famlines = [lines[x] for m in members[f] for x in by_id[m].lines]
        names[f] = (_name(famlines) if len(members[f]) > 1 else by_id[f].name, famlines)
        subs[f] = []
    # each family's own color first (its route_color where distinct), then the colors added
    for k in range(max(split.values(), default=0)):
        for f in fams:
            if k >= split[f]:
                continue
            lead = by_id[f]
            name, famlines = names[f]
            if k == 0 and lead.own and all(color_distance(lead.own, t) >= MIN_COLOR_DELTA_E for t in taken):
                hexval, cname, cid, source = lead.own, name, lead.id, "route_color"
            elif k == 0 and lead.own:
                hexval, _ = nearest_distinct(lead.own, taken)
                cname, cid = name, lead.id
                source = ("joined: " + ", ".join(by_id[m].name for m in members[f]) + "; " if len(members[f]) > 1
                          else "") + f"a shade of {lead.own}, which is too close to a color taken"
            else:
                hexval, _ = distinct_color(taken)
                hue = hue_name(hexval, {c.name for c in out})
                cname = hue if split[f] > 1 else name
                cid = _slug(hue) if split[f] > 1 else lead.id
                source = (f"one of {split[f]} colors dealt along {name}" if split[f] > 1 else
                          "joined: " + ", ".join(by_id[m].name for m in members[f]) if len(members[f]) > 1 else
                          lead.source if lead.source != "route_color" else "replaced: too close to a color taken")
            base, m = cid, 2
            while cid in ids or cid in ("gray", "wild"):
                cid = f"{base}-{m}"
                m += 1
            ids.add(cid)
            taken.append(hexval)
            out.append(CardColor(cid, cname[:40], hexval, lead.kind, [x.route_id for x in famlines], source))
            subs[f].append(cid)
    for f in fams:
        grouping.append({"family": names[f][0], "lines": [x.label for x in names[f][1]], "colors": subs[f]})
    # deal the tracks
    track_colors = [["gray"] * len(t) for _, t in plans]
    at_station: dict[str, set] = {}
    dealt = {c.id: 0 for c in out}
    for f in fams:
        for i, j in fam_tracks[f]:
            sg = plans[i][0]
            busy = at_station.get(sg.a, set()) | at_station.get(sg.b, set())
            partner = {track_colors[i][k] for k in range(len(plans[i][1])) if k != j}
            choices = [c for c in subs[f] if c not in busy and c not in partner] or \
                      [c for c in subs[f] if c not in partner]
            if not choices:
                continue          # the double's other track has the family's one color: this one gray
            c = min(choices, key=lambda c: (dealt[c], subs[f].index(c)))
            track_colors[i][j] = c
            dealt[c] += lengths[i]
            at_station.setdefault(sg.a, set()).add(c)
            at_station.setdefault(sg.b, set()).add(c)
    used = {c for t in track_colors for c in t}
    out = [c for c in out if c.id in used]
    return DeckColors(out, track_colors, notes, grouping)
