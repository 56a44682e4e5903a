"""The edits that make a board in the page, each as the list of text changes it makes to the file.

Every function takes the parsed file (`data`), its board model and the layout on show, with the
request's fields already type-checked (`api.fields`), and returns `(changes, what)`: the changes
for `session.apply_edits` (("set", path, value) with `textpatch.DELETE` to remove, or ("append",
path, value)), in an order in which each path is still right when it is made (an array's items
are deleted from the last), and `what` for the undo button. Nothing else of the file changes.
A request the board cannot take raises `EditError` with what to do instead.

Ids: a new station's id comes from its name (`slug`), made unique; a route's id is the file's
default (`<from>-<to>`, `#1`/`#2` for a double's tracks) unless the file gives one.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from mapkit.geometry import Layout, continuous_lon
from mapkit.model import Board
from mapkit.textpatch import DELETE

KINDS = ("rail", "light-rail", "streetcar", "commuter-rail", "aerial-tram", "monorail", "bus", "ferry",
         "water-taxi", "flight")
LABELS = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
MM_PER_DEGREE = 1000.0   # a new board's first stations: 1 mm of board for 1/1000 degree (about 111 m)


class EditError(Exception):
    """An edit this board cannot take (an unknown id, a color no route may use...): nothing is written."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def slug(text: str) -> str:
    """A readable id from a name: 'Pioneer Square' -> 'pioneer-square' (accents dropped)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")[:50] or "station"


def unique(base: str, taken: set) -> str:
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def _index(json_path: str) -> int:
    return int(json_path.split("[")[1].split("]")[0])


def _station(board: Board, sid: str):
    s = next((s for s in board.stations if s.id == sid), None)
    if s is None:
        raise EditError(f"no station '{sid}' on this board", 404)
    return s


def _route(board: Board, rid: str):
    r = next((r for r in board.routes if r.id == rid), None)
    if r is None:
        raise EditError(f"no route '{rid}' on this board", 404)
    return r


def _mm(v: float) -> float | int:
    """A position to 0.1 mm, a whole number written as one."""
    v = round(float(v), 1)
    return int(v) if v.is_integer() else v


def _on_board(board: Board, x: float, y: float) -> dict:
    ph = board.physical
    if not (0 <= x <= ph.width_mm and 0 <= y <= ph.height_mm):
        raise EditError(f"({x:g}, {y:g}) mm is off the {ph.width_mm:g} × {ph.height_mm:g} mm board")
    return {"x": _mm(x), "y": _mm(y)}


def latlon_at(board: Board, x: float, y: float) -> tuple[float, float]:
    """The lat/lon for a station placed by a click at (x, y) mm. While some station is drawn from
    its lat/lon, the inverse of `geometry.projector` (the new station sits where it was put even
    for a reader that projects lat/lon). When every station has its board position, the scale and
    offset that best map the stations' lat/lon onto their positions (least squares, north up), so
    the stations' lat/lon keep the drawing's shape for `mapkit layout`. Before two stations span
    the board: a nominal 1 mm for 1/1000 degree around the first station (or 0, 0)."""
    ph = board.physical
    st = board.stations
    if st:
        k = math.cos(math.radians(sum(s.lat for s in st) / len(st)))
        east = continuous_lon(s.lon for s in st)
        us, vs = [east(s.lon) * k for s in st], [s.lat for s in st]
        if any(s.board is None for s in st):
            pad = ph.margin_mm + ph.station_radius_mm
            span_x, span_y = max(us) - min(us), max(vs) - min(vs)
            scale = min((ph.width_mm - 2 * pad) / span_x if span_x else math.inf,
                        (ph.height_mm - 2 * pad) / span_y if span_y else math.inf)
            if math.isfinite(scale):
                cx, cy = (max(us) + min(us)) / 2, (max(vs) + min(vs)) / 2
                return _clamp(cy - (y - ph.height_mm / 2) / scale, ((x - ph.width_mm / 2) / scale + cx) / k)
        else:
            xs, ys = [s.board.x for s in st], [s.board.y for s in st]
            n = len(st)
            mx, my, mu, mv = sum(xs) / n, sum(ys) / n, sum(us) / n, sum(vs) / n
            den = sum((u - mu) ** 2 + (v - mv) ** 2 for u, v in zip(us, vs))
            num = sum((px - mx) * (u - mu) - (py - my) * (v - mv) for px, py, u, v in zip(xs, ys, us, vs))
            if den > 0 and num > 0:
                scale = num / den      # mm per degree: x = mx + scale (u - mu), y = my - scale (v - mv)
                return _clamp(mv - (y - my) / scale, (mu + (x - mx) / scale) / k)
            s0 = st[0]
            return _clamp(s0.lat - (y - s0.board.y) / MM_PER_DEGREE,
                          east(s0.lon) + (x - s0.board.x) / (MM_PER_DEGREE * max(0.2, k)))
    return _clamp(-(y - ph.height_mm / 2) / MM_PER_DEGREE, (x - ph.width_mm / 2) / MM_PER_DEGREE)


def _clamp(lat: float, lon: float) -> tuple[float, float]:
    """lat held inside ±89.9, lon brought back into [−180, 180) (a network around ±180° is worked on
    with continuous longitudes: geometry.continuous_lon), both to 6 decimals."""
    if not -180.0 <= lon < 180.0:
        lon = (lon + 180.0) % 360.0 - 180.0
    return round(max(-89.9, min(89.9, lat)), 6), round(lon, 6)


# ---------------------------------------------------------------- stations

def add_station(data: dict, board: Board, f: dict) -> tuple[list, str]:
    """A station by a click (x, y in mm: its board position, lat/lon from `latlon_at`) or by its
    lat/lon (drawn where the projection puts it)."""
    name = f["name"].strip()
    if not 1 <= len(name) <= 60:
        raise EditError("a station's name is 1 to 60 characters")
    taken = {s.id for s in board.stations}
    sid = f.get("id") or unique(slug(name), taken)
    if not SLUG.match(sid) or len(sid) > 60:
        raise EditError(f"'{sid}' is not a usable id: lowercase letters, digits and dashes")
    if sid in taken:
        raise EditError(f"there is a station '{sid}' already; give another id")
    item: dict[str, Any] = {"id": sid, "name": name}
    if "x" in f and "y" in f:
        pos = _on_board(board, f["x"], f["y"])
        lat, lon = (f["lat"], f["lon"]) if "lat" in f and "lon" in f else latlon_at(board, f["x"], f["y"])
        item.update(lat=lat, lon=lon, board=pos)
    elif "lat" in f and "lon" in f:
        item.update(lat=f["lat"], lon=f["lon"])
    else:
        raise EditError("give the station a place: x and y on the board, or lat and lon")
    if not (-90 <= item["lat"] <= 90 and -180 <= item["lon"] <= 180):
        raise EditError("lat is -90 to 90 and lon -180 to 180")
    return [("append", ("stations",), item)], f"add station {sid}"


def edit_station(data: dict, board: Board, layout: Layout, f: dict) -> tuple[list, str]:
    """Rename, pin or unpin, make a hub or not, set the label's side, or give lat/lon."""
    s = _station(board, f["id"])
    i = _index(s.json_path)
    raw = data["stations"][i]
    out, words = [], []
    if "name" in f:
        name = f["name"].strip()
        if not 1 <= len(name) <= 60:
            raise EditError("a station's name is 1 to 60 characters")
        if name != raw["name"]:
            out.append(("set", ("stations", i, "name"), name))
            words.append(f"rename station {s.id} to {name}")
    if "pinned" in f and bool(raw.get("pinned", False)) != f["pinned"]:
        if f["pinned"]:
            if "board" not in raw:  # a pinned station needs its board position: the one drawn
                x, y = layout.positions[s.id]
                out.append(("set", ("stations", i, "board"), {"x": _mm(x), "y": _mm(y)}))
            out.append(("set", ("stations", i, "pinned"), True))
            words.append(f"pin station {s.id}")
        else:
            out.append(("set", ("stations", i, "pinned"), DELETE))
            words.append(f"unpin station {s.id}")
    if "hub" in f and bool(raw.get("hub", False)) != f["hub"]:
        out.append(("set", ("stations", i, "hub"), True if f["hub"] else DELETE))
        words.append(f"{'make' if f['hub'] else 'unmake'} hub {s.id}")
    if "label" in f and f["label"] != raw.get("label", ""):
        if f["label"] not in ("", *LABELS):
            raise EditError(f"label is one of {', '.join(LABELS)} (or empty: mapkit chooses)")
        out.append(("set", ("stations", i, "label"), f["label"] or DELETE))
        words.append(f"label of {s.id}")
    if "lat" in f or "lon" in f:
        lat, lon = f.get("lat", raw["lat"]), f.get("lon", raw["lon"])
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            raise EditError("lat is -90 to 90 and lon -180 to 180")
        out += [("set", ("stations", i, "lat"), lat), ("set", ("stations", i, "lon"), lon)]
        words.append(f"lat/lon of {s.id}")
    if not out:
        raise EditError(f"station {s.id} already is so: nothing to change")
    return out, "; ".join(words)


def delete_station(data: dict, board: Board, f: dict) -> tuple[list, str]:
    """The station, with its routes (a double's remaining track loses its pair) and the tickets
    that start or end there."""
    s = _station(board, f["id"])
    routes = [r for r in board.routes if s.id in (r.a, r.b)]
    out = _delete_routes(data, board, routes)
    tickets = 0
    for deck, items in (data.get("ticket_decks") or {}).items():
        for j in reversed(range(len(items))):
            if s.id in (items[j].get("from"), items[j].get("to")):
                out.append(("set", ("ticket_decks", deck, j), DELETE))
                tickets += 1
    out.append(("set", ("stations", _index(s.json_path)), DELETE))
    extra = [f"{len(routes)} route{'s' * (len(routes) != 1)}"] if routes else []
    extra += [f"{tickets} ticket{'s' * (tickets != 1)}"] if tickets else []
    return out, f"delete station {s.id}" + (f" (and {', '.join(extra)})" if extra else "")


# ---------------------------------------------------------------- routes

def lengths(board: Board, layout: Layout, a: str, b: str, waypoints: list | None = None) -> dict:
    """What a route from a to b drawn straight (or through its waypoints) holds: the drawn length
    less a station radius at each end, the lengths that fit it (not too short, not stretched) and
    the one suggested (the longest that fits, within the scoring table)."""
    ph = board.physical
    pts = [layout.positions[_station(board, a).id], *(waypoints or []), layout.positions[_station(board, b).id]]
    drawn = sum(math.dist(p, q) for p, q in zip(pts, pts[1:]))
    usable = max(0.0, drawn - 2 * ph.station_radius_mm)
    top = max(1, min(20, len(board.route_points)))
    fit = [n for n in range(1, top + 1)
           if (need := n * ph.space_length_mm + (n + 1) * ph.space_gap_mm) <= usable <= need * ph.max_stretch]
    fits = [n for n in range(1, top + 1) if n * ph.space_length_mm + (n + 1) * ph.space_gap_mm <= usable]
    suggest = fit[-1] if fit else (fits[-1] if fits else 1)
    return {"drawn_mm": round(usable, 1), "fit": fit, "suggest": suggest,
            "note": "" if fit else ("too short for one space: move the stations apart" if not fits
                                    else f"longer than {top} spaces stretched: add a station between")}


def _color_ok(board: Board, color: str) -> None:
    ids = [c.id for c in board.palette]
    if color != "gray" and color not in ids:
        raise EditError(f"no color '{color}' in the palette (" + (", ".join(ids + ["gray"]) if ids else
                        "the palette is empty: add a color, or use gray") + ")")


def add_route(data: dict, board: Board, f: dict) -> tuple[list, str]:
    """A route between two stations: its color (a palette id or gray), length, kind, overpass, and
    with double=true two tracks in one double group (the second track's color: color2, default
    the same). A flight is kind "flight" (drawn over other routes, so overpass too)."""
    a, b = _station(board, f["from"]).id, _station(board, f["to"]).id
    if a == b:
        raise EditError("a route joins two different stations")
    colors = [f["color"]] + ([f.get("color2", f["color"])] if f.get("double") else [])
    for c in colors:
        _color_ok(board, c)
    n = f["length"]
    if not 1 <= n <= 20:
        raise EditError("a route's length is 1 to 20 spaces")
    kind = f.get("kind", "")
    if kind and kind not in KINDS:
        raise EditError(f"kind is one of {', '.join(KINDS)}")
    base = {"from": a, "to": b}
    items = []
    group = None
    if f.get("double"):
        taken = {r.double for r in board.routes if r.double}
        group = unique(f"{a}-{b}", taken)
        ids = {r.id for r in board.routes}
        if f"{a}-{b}#1" in ids or f"{a}-{b}#2" in ids:
            raise EditError(f"routes {a}-{b}#1/#2 exist already: delete them or join the stations the other way round")
    elif f"{a}-{b}" in {r.id for r in board.routes}:
        raise EditError(f"there is a route {a}-{b} already: edit it, make it double, or join them {b} to {a}")
    for c in colors:
        item = {**base, "color": c, "length": n}
        if group:
            item["double"] = group
        if kind:
            item["kind"] = kind
        if f.get("overpass") or kind == "flight":
            item["overpass"] = True
        if f.get("line"):
            item["line"] = f["line"][:80]
        items.append(item)
    what = f"add {'double ' if group else ''}route {a}-{b}"
    return [("append", ("routes",), it) for it in items], what


def edit_route(data: dict, board: Board, f: dict) -> tuple[list, str]:
    """Recolor, set the length, kind, overpass or line of one route; length, kind and overpass go
    to both tracks of a double (they are one route on the board)."""
    r = _route(board, f["id"])
    tracks = [r] + ([x for x in board.routes if x.double == r.double and x.id != r.id] if r.double else [])
    out, words = [], []
    i = _index(r.json_path)
    if "color" in f and f["color"] != data["routes"][i]["color"]:
        _color_ok(board, f["color"])
        out.append(("set", ("routes", i, "color"), f["color"]))
        words.append(f"recolor {r.id} {f['color']}")
    for key in ("length", "kind", "overpass", "line"):
        if key not in f:
            continue
        value = f[key]
        if key == "length" and not 1 <= value <= 20:
            raise EditError("a route's length is 1 to 20 spaces")
        if key == "kind" and value not in ("", *KINDS):
            raise EditError(f"kind is one of {', '.join(KINDS)} (or empty: its color's kind)")
        changed = False
        for t in (tracks if key != "line" else [r]):
            j = _index(t.json_path)
            if data["routes"][j].get(key, False if key == "overpass" else "") != value:
                out.append(("set", ("routes", j, key), value if value not in ("", False) else DELETE))
                changed = True
        if changed:
            words.append(f"{key} of {r.id}" + (f" to {value}" if key == "length" else ""))
    if not out:
        raise EditError(f"route {r.id} already is so: nothing to change")
    return out, "; ".join(words) or f"edit route {r.id}"


def _delete_routes(data: dict, board: Board, routes: list) -> list:
    """Changes deleting these routes (last first); a double's track left alone loses its "double"."""
    gone = {r.id for r in routes}
    out = []
    for r in board.routes:
        if r.double and r.id not in gone and any(x.double == r.double for x in routes):
            rest = [x for x in board.routes if x.double == r.double and x.id not in gone]
            if len(rest) == 1:
                out.append(("set", ("routes", _index(r.json_path), "double"), DELETE))
    for r in sorted(routes, key=lambda r: -_index(r.json_path)):
        out.append(("set", ("routes", _index(r.json_path)), DELETE))
    return out


def delete_route(data: dict, board: Board, f: dict) -> tuple[list, str]:
    """One track (its double partner stays, single); whole=true deletes both tracks of a double."""
    r = _route(board, f["id"])
    routes = [x for x in board.routes if r.double and x.double == r.double] if f.get("whole") and r.double else [r]
    return _delete_routes(data, board, routes), f"delete route {r.id}" + (" (both tracks)" if len(routes) > 1 else "")


def make_double(data: dict, board: Board, f: dict) -> tuple[list, str]:
    """A second track beside a single route: the same ends, length, kind and waypoints, in color."""
    r = _route(board, f["id"])
    if r.double:
        raise EditError(f"route {r.id} is double already")
    _color_ok(board, f["color"])
    i = _index(r.json_path)
    raw = data["routes"][i]
    group = unique(f"{r.a}-{r.b}", {x.double for x in board.routes if x.double})
    twin = {**{k: v for k, v in raw.items() if k != "id"}, "color": f["color"], "double": group}
    out = [("set", ("routes", i, "double"), group), ("append", ("routes",), twin)]
    if "id" in raw:  # a file's own id: the second track gets its own
        twin["id"] = unique(f"{raw['id']}-2", {x.id for x in board.routes})
    return out, f"make {r.id} double"


# ---------------------------------------------------------------- bends (waypoints)

def _tracks(board: Board, r) -> list:
    """The route and, for a double, its partner tracks with as many waypoints (they bend together)."""
    if not r.double:
        return [r]
    return [r] + [x for x in board.routes if x.double == r.double and x.id != r.id and len(x.waypoints) == len(r.waypoints)]


def _point_of(layout: Layout, w) -> list:
    return list(layout.point(w))


def add_bend(data: dict, board: Board, layout: Layout, f: dict) -> tuple[list, str]:
    """A waypoint at (x, y), in the route's order: between the two points of its drawn path that
    it is nearest to. On a double route, on every track."""
    r = _route(board, f["id"])
    pos = _on_board(board, f["x"], f["y"])
    pts = [layout.positions[r.a], *[_point_of(layout, w) for w in r.waypoints], layout.positions[r.b]]
    best, j = math.inf, 0
    for k, (p, q) in enumerate(zip(pts, pts[1:])):
        d = _segment_distance((pos["x"], pos["y"]), p, q)
        if d < best:
            best, j = d, k
    out = []
    for t in _tracks(board, r):
        i = _index(t.json_path)
        raw = list(data["routes"][i].get("waypoints", []))
        raw.insert(j, pos)
        out.append(("set", ("routes", i, "waypoints"), raw))
    return out, f"add a bend to {r.id}"


def _segment_distance(p, a, b) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = 0.0 if not (dx or dy) else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)))
    return math.dist(p, (ax + t * dx, ay + t * dy))


def move_bend(data: dict, board: Board, f: dict) -> tuple[list, str]:
    """Waypoint j to (x, y): on a double route, on every track (they stay side by side)."""
    r = _route(board, f["id"])
    j = f["waypoint"]
    if not 0 <= j < len(r.waypoints):
        raise EditError(f"route {r.id} has {len(r.waypoints)} waypoint(s); there is no waypoint {j}")
    pos = _on_board(board, f["x"], f["y"])
    return ([("set", ("routes", _index(t.json_path), "waypoints", j), pos) for t in _tracks(board, r)],
            f"move waypoint {j} of route {r.id}")


def delete_bend(data: dict, board: Board, f: dict) -> tuple[list, str]:
    r = _route(board, f["id"])
    j = f["waypoint"]
    if not 0 <= j < len(r.waypoints):
        raise EditError(f"route {r.id} has {len(r.waypoints)} waypoint(s); there is no waypoint {j}")
    out = []
    for t in _tracks(board, r):
        i = _index(t.json_path)
        path = ("routes", i, "waypoints") if len(t.waypoints) == 1 else ("routes", i, "waypoints", j)
        out.append(("set", path, DELETE))
    return out, f"remove a bend of {r.id}"


# ---------------------------------------------------------------- palette

def add_color(data: dict, board: Board, f: dict) -> tuple[list, str]:
    name = f["name"].strip()
    if not 1 <= len(name) <= 40:
        raise EditError("a color's name is 1 to 40 characters")
    if not HEX.match(f["hex"]):
        raise EditError(f"'{f['hex']}' is not a color: write #rrggbb")
    kind = f.get("kind", "rail")
    if kind not in KINDS:
        raise EditError(f"kind is one of {', '.join(KINDS)}")
    cid = f.get("id") or unique(slug(name), {c.id for c in board.palette} | {"gray", "wild"})
    if not SLUG.match(cid) or cid in ("gray", "wild") or cid in {c.id for c in board.palette}:
        raise EditError(f"'{cid}' cannot be this color's id (taken, reserved, or not lowercase letters, digits and dashes)")
    return [("append", ("palette",), {"id": cid, "name": name, "hex": f["hex"].lower(), "kind": kind})], f"add color {cid}"


def edit_color(data: dict, board: Board, f: dict) -> tuple[list, str]:
    c = next((c for c in board.palette if c.id == f["id"]), None)
    if c is None:
        raise EditError(f"no color '{f['id']}' in the palette", 404)
    i = _index(c.json_path)
    out = []
    if "name" in f:
        if not 1 <= len(f["name"].strip()) <= 40:
            raise EditError("a color's name is 1 to 40 characters")
        out.append(("set", ("palette", i, "name"), f["name"].strip()))
    if "hex" in f:
        if not HEX.match(f["hex"]):
            raise EditError(f"'{f['hex']}' is not a color: write #rrggbb")
        out.append(("set", ("palette", i, "hex"), f["hex"].lower()))
    if "kind" in f:
        if f["kind"] not in KINDS:
            raise EditError(f"kind is one of {', '.join(KINDS)}")
        out.append(("set", ("palette", i, "kind"), f["kind"]))
    out = [o for o in out if data["palette"][i].get(o[1][2]) != o[2]]
    if not out:
        raise EditError(f"color {c.id} already is so: nothing to change")
    return out, f"edit color {c.id}"


def delete_color(data: dict, board: Board, f: dict) -> tuple[list, str]:
    c = next((c for c in board.palette if c.id == f["id"]), None)
    if c is None:
        raise EditError(f"no color '{f['id']}' in the palette", 404)
    used = [r.id for r in board.routes if r.color == c.id]
    if used:
        raise EditError(f"{len(used)} route(s) are {c.id} ({', '.join(used[:4])}{'…' if len(used) > 4 else ''}): "
                        "recolor or delete them first", 409)
    out = [("set", ("palette", _index(c.json_path)), DELETE)]
    deck = data.get("deck")
    if isinstance(deck, dict) and c.id in (deck.get("counts") or {}):
        out.insert(0, ("set", ("deck", "counts", c.id), DELETE))
    return out, f"delete color {c.id}"


# ---------------------------------------------------------------- tickets

def add_ticket(data: dict, board: Board, f: dict) -> tuple[list, str]:
    """A ticket from a to b in a deck (default "standard"); its points default to the length of the
    shortest connection (`mapkit tickets score`)."""
    a, b = _station(board, f["from"]).id, _station(board, f["to"]).id
    if a == b:
        raise EditError("a ticket joins two different stations")
    deck = f.get("deck", "standard")
    if not SLUG.match(deck):
        raise EditError(f"'{deck}' is not a deck name: lowercase letters, digits and dashes")
    points = f.get("points")
    if points is None:
        points = ticket_points(board, a, b)
    if not 1 <= points <= 200:
        raise EditError("a ticket is worth 1 to 200 points")
    item = {"from": a, "to": b, "points": points}
    decks = data.get("ticket_decks")
    if not isinstance(decks, dict):
        return [("set", ("ticket_decks",), {deck: [item]})], f"add ticket {a}-{b}"
    if deck not in decks:
        return [("set", ("ticket_decks", deck), [item])], f"add ticket {a}-{b}"
    return [("append", ("ticket_decks", deck), item)], f"add ticket {a}-{b}"


def ticket_points(board: Board, a: str, b: str) -> int:
    from mapkit.errors import MapkitError
    from mapkit.tickets import TicketScorer

    try:
        return max(1, min(200, TicketScorer(board).score(a, b).points))
    except MapkitError as exc:
        raise EditError(f"{a} and {b} are not connected yet ({exc}): join them first, or give the points", 409)


def delete_ticket(data: dict, board: Board, f: dict) -> tuple[list, str]:
    deck, j = f["deck"], f["index"]
    items = (data.get("ticket_decks") or {}).get(deck)
    if not isinstance(items, list) or not 0 <= j < len(items):
        raise EditError(f"no ticket {j} in deck '{deck}'", 404)
    t = items[j]
    return [("set", ("ticket_decks", deck, j), DELETE)], f"delete ticket {t.get('from')}-{t.get('to')}"


# ---------------------------------------------------------------- the board itself

def edit_board(data: dict, board: Board, f: dict) -> tuple[list, str]:
    """The board's name, size (mm) and the rules' trains per player and most players."""
    out, words = [], []
    if "name" in f and f["name"].strip() != data.get("name"):
        if not 1 <= len(f["name"].strip()) <= 120:
            raise EditError("a board's name is 1 to 120 characters")
        out.append(("set", ("name",), f["name"].strip()))
        words.append("rename the board")
    for key, field_ in (("width", "width_mm"), ("height", "height_mm")):
        if key in f:
            if not 100 <= f[key] <= 5000:
                raise EditError("the board is 100 to 5000 mm each way")
            physical = data.get("physical")
            if not isinstance(physical, dict):
                out.append(("set", ("physical",), {field_: _mm(f[key])}))
                data = {**data, "physical": {field_: _mm(f[key])}}
            elif physical.get(field_) != _mm(f[key]):
                out.append(("set", ("physical", field_), _mm(f[key])))
            else:
                continue
            words.append(f"board {key}")
    for key, top in (("trains", 500), ("max_players", 5)):
        if key not in f:
            continue
        if not 1 <= f[key] <= top:
            raise EditError(f"{key} is 1 to {top}")
        rules = data.get("rules")
        if not isinstance(rules, dict):
            out.append(("set", ("rules",), {"overrides": {key: f[key]}}))
            data = {**data, "rules": {"overrides": {key: f[key]}}}
        elif not isinstance(rules.get("overrides"), dict):
            out.append(("set", ("rules", "overrides"), {key: f[key]}))
            data = {**data, "rules": {**rules, "overrides": {key: f[key]}}}
        elif rules["overrides"].get(key) != f[key]:
            out.append(("set", ("rules", "overrides", key), f[key]))
        else:
            continue
        words.append(key.replace("_", " "))
    if not out:
        raise EditError("the board already is so: nothing to change")
    return out, "set " + ", ".join(words)
