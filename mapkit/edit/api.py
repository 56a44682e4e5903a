"""The editor's JSON endpoints: board state and problems, moves and the edits that make a board
(`edit.edits`: stations, routes, bends, palette, tickets, the board's size and trains; `new_board`
into an empty file; a generated ticket deck), undo and redo, layout preview, report overlays, and
the quick balance (`edit.balance_job`).

Each function takes the `Session` and the request's JSON body (a dict already parsed and size
bounded by the server) and returns a JSON-ready dict, or raises `ApiError` with the HTTP status
and a message for the page. Nothing here touches the filesystem except through the session (the
board file) and `find_report` (reading a report.json).
"""

from __future__ import annotations

import json
import math
import re
import threading
from pathlib import Path
from typing import Any

from mapkit.edit import edits
from mapkit.edit.session import RefusedError, Session, StaleError
from mapkit.errors import MapkitError, Problem

NAMES_A_FILE = ("path", "file", "filename", "target", "board_path", "out")
MAX_PROBLEMS = 200


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra):
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def fields(body: Any, required: dict, optional: dict | None = None) -> dict:
    """The body's fields, type-checked; unknown fields are refused, and any that would name a file
    is refused with the reason (the editor writes only the board it was started on)."""
    optional = optional or {}
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object")
    for key in body:
        if key.lower() in NAMES_A_FILE:
            raise ApiError(400, f"a request cannot name a file ('{key}'): the editor writes only the board file "
                                "it was started on")
        if key not in required and key not in optional:
            raise ApiError(400, f"unknown field '{key}' (expected {', '.join([*required, *optional])})")
    out = {}
    for key, kind in {**required, **optional}.items():
        if key not in body:
            if key in required:
                raise ApiError(400, f"missing field '{key}'")
            continue
        value = body[key]
        ok = isinstance(value, kind) and not isinstance(value, bool) if kind is not bool else isinstance(value, bool)
        if kind in ((int, float), float):
            ok = ok and math.isfinite(value)
        if not ok:
            raise ApiError(400, f"field '{key}' has the wrong type")
        out[key] = value
    return out


# ---------------------------------------------------------------- what the page shows

_INDEX = re.compile(r"^\$\.(stations|routes)\[(\d+)\]")
_TICKET = re.compile(r"^\$\.ticket_decks\.([^\[]+)\[(\d+)\]")
_QUOTED = re.compile(r"\b(station|route)s? '([^']+)'")
_AT = re.compile(r"at \((-?[\d.]+), (-?[\d.]+)\) mm")


def _ids(data: Any, key: str) -> list:
    """Ids of the file's stations or routes by index, from the parsed JSON (also of a board that
    fails the schema), so a problem's JSON path finds its subject."""
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    if key == "stations":
        return [s.get("id") if isinstance(s, dict) else None for s in items]
    from mapkit.boardfile import default_route_ids
    try:
        return default_route_ids(items)
    except (KeyError, TypeError, AttributeError):
        return [r.get("id") if isinstance(r, dict) else None for r in items]


def problem_targets(p: Problem, data: Any, known: dict) -> dict:
    """Where a problem is on the map: the stations and routes to highlight (from its JSON path, its
    subject and the ids its message quotes) and a point (a crossing's)."""
    stations, routes = [], []

    def add(kind: str, ident):
        if ident is None or ident not in known[kind]:
            return
        bucket = stations if kind == "station" else routes
        if ident not in bucket:
            bucket.append(ident)

    m = _INDEX.match(p.json_path)
    if m:
        ids = _ids(data, m.group(1))
        i = int(m.group(2))
        if i < len(ids):
            add("station" if m.group(1) == "stations" else "route", ids[i])
    m = _TICKET.match(p.json_path)
    if m and isinstance(data, dict):
        try:
            t = data["ticket_decks"][m.group(1)][int(m.group(2))]
            add("station", t.get("from"))
            add("station", t.get("to"))
        except (KeyError, IndexError, TypeError, AttributeError):
            pass
    kind, _, ident = p.subject.partition(" ")
    if kind in ("station", "route"):
        add(kind, ident)
    for kind, ident in _QUOTED.findall(p.message):
        add(kind, ident)
    at = _AT.search(p.message)
    return {"stations": stations, "routes": routes,
            "point": [float(at.group(1)), float(at.group(2))] if at else None}


def _tickets(board) -> list:
    return [(name, t) for name, deck in board.ticket_decks.items() for t in deck]


_PATHS_CACHE: dict = {}


def _ticket_paths(board) -> dict:
    """Each ticket's one shortest connection as route ids (every track of a double between the
    same two stations), from the ticket scorer. They depend on the network, not on positions, so
    a drag reuses them (the cache key is the routes and tickets)."""
    return _ticket_facts(board)[0]


def _ticket_facts(board) -> tuple[dict, dict]:
    """(paths, scores): scores[(deck, a, b)] is the shortest connection's length in spaces, or None
    when the two stations are not connected."""
    key = (tuple((r.id, r.a, r.b, r.length, r.color) for r in board.routes),
           tuple((n, t.a, t.b) for n, t in _tickets(board)))
    if key not in _PATHS_CACHE:
        _PATHS_CACHE.clear()
        _PATHS_CACHE[key] = _compute_ticket_paths(board)
    return _PATHS_CACHE[key]


def _compute_ticket_paths(board) -> tuple[dict, dict]:
    """The path `mapkit tickets score` reports (networkx's Dijkstra on `graph.station_graph`, one
    run per ticket source): the scorer's other figures (detours, cuts) are not shown here and
    cost ten times as much."""
    import networkx as nx

    from mapkit.graph import station_graph

    between: dict[frozenset, list] = {}
    for r in board.routes:
        between.setdefault(frozenset((r.a, r.b)), []).append(r)
    g = station_graph(board)
    runs: dict[str, tuple] = {}
    out, scores = {}, {}
    for name, t in _tickets(board):
        key = (name, t.a, t.b)
        if t.a not in g or t.b not in g:
            out[key], scores[key] = [], None
            continue
        if t.a not in runs:
            runs[t.a] = nx.single_source_dijkstra(g, t.a, weight="length")
        dist, paths = runs[t.a]
        if t.b not in paths or t.a == t.b:
            out[key], scores[key] = [], None
            continue
        path = paths[t.b]
        scores[key] = int(dist[t.b])
        ids = []
        for u, v in zip(path, path[1:]):
            options = between.get(frozenset((u, v)), [])
            shortest = min((r.length for r in options), default=0)
            ids += [r.id for r in options if r.length == shortest]
        out[key] = ids
    return out, scores


def board_info(board, layout) -> dict:
    """Stations and routes as the page hovers them: names, colors, lengths, what they are part of."""
    paths = _ticket_paths(board)
    on_route: dict[str, list] = {}
    for (name, a, b), ids in paths.items():
        for rid in ids:
            on_route.setdefault(rid, []).append(f"{a}–{b}")
    partner = {}
    for r in board.routes:
        if r.double:
            partner.setdefault(r.double, []).append(r.id)
    colors = {c.id: c for c in board.palette}
    stations = []
    for s in board.stations:
        x, y = layout.positions[s.id]
        tickets = [f"{t.a}–{t.b} ({t.points})" + (f" [{n}]" if len(board.ticket_decks) > 1 else "")
                   for n, t in _tickets(board) if s.id in (t.a, t.b)]
        stations.append({"id": s.id, "name": s.name, "index": int(s.json_path.split("[")[1].rstrip("]")),
                         "x": round(x, 2), "y": round(y, 2), "hub": s.hub, "placed": s.board is not None,
                         "lat": s.lat, "lon": s.lon, "pinned": s.pinned, "label": s.label or "",
                         "routes": [r.id for r in board.routes if s.id in (r.a, r.b)], "tickets": tickets})
    routes = []
    for r in board.routes:
        shape = layout.routes.get(r.id)
        color = colors.get(r.color)
        routes.append({
            "id": r.id, "index": int(r.json_path.split("[")[1].rstrip("]")), "from": r.a, "to": r.b,
            "color": r.color, "color_name": color.name if color else board.gray_name,
            "hex": color.hex if color else "#a0a0a0", "length": r.length, "kind": r.kind,
            "own_kind": r.kind if r.kind != (color.kind if color else board.gray_kind) else "",
            "overpass": bool(getattr(r, "overpass", False)),
            "double": [x for x in partner.get(r.double, []) if x != r.id] if r.double else [],
            "bonus": f"+{r.bonus.points} {r.bonus.name}" if r.bonus else None,
            "waypoints": [list(map(lambda v: round(v, 2), layout.point(w))) for w in r.waypoints],
            "centerline": [[round(x, 2), round(y, 2)] for x, y in shape.centerline] if shape else [],
            "tickets": list(dict.fromkeys(on_route.get(r.id, []))),
        })
    paths, scores = _ticket_facts(board)
    tickets = [{"deck": name, "index": int(t.json_path.rsplit("[", 1)[1].rstrip("]")), "from": t.a, "to": t.b,
                "points": t.points, "length": scores.get((name, t.a, t.b)), "routes": paths.get((name, t.a, t.b), [])}
               for name, t in _tickets(board)]
    palette = [{"id": c.id, "name": c.name, "hex": c.hex, "kind": c.kind,
                "routes": sum(1 for r in board.routes if r.color == c.id)} for c in board.palette]
    return {"stations": stations, "routes": routes, "tickets": tickets, "palette": palette, "cards": _cards(board),
            "pinned": [s.id for s in board.stations if s.pinned], "decks": list(board.ticket_decks) or ["standard"]}


def _cards(board) -> dict:
    """The train-card deck `mapkit cards` derives from the map's colors, with its warnings (or why
    there is none yet)."""
    from mapkit.cards import derive_deck

    if not board.palette or not board.routes:
        return {"error": "no deck yet: the board needs colors and routes"}
    try:
        deck = derive_deck(board)
    except (MapkitError, ValueError, ZeroDivisionError) as exc:
        return {"error": str(exc)}
    stored = board.deck.counts if board.deck is not None else None
    return {"total": deck.total, "wild": deck.wild, "warnings": list(deck.warnings),
            "colors": [{"id": c.color, "name": c.name, "spaces": c.spaces, "cards": c.cards,
                        "stored": stored.get(c.color) if stored else None, "note": c.note} for c in deck.colors]}


_INFO_CACHE: dict = {}


def state(session: Session, report: dict | None, layout_note: str) -> dict:
    with session.lock:
        snap, drawing = session.snapshot, session.drawing
        rev = session.rev
        undo, redo = len(session.undo_steps), len(session.redo_steps)
        history = {"undo_what": session.undo_steps[-1].what if undo else "",
                   "redo_what": session.redo_steps[-1].what if redo else "", "history_note": session.history_note}
    board = drawing.board if drawing else None
    info = None
    if drawing is not None:
        key = (id(session), drawing.version)
        if key not in _INFO_CACHE:
            _INFO_CACHE.clear()
            _INFO_CACHE[key] = board_info(drawing.board, drawing.layout)
        info = _INFO_CACHE[key]
    known = {"station": {s["id"] for s in info["stations"]} if info else set(),
             "route": {r["id"] for r in info["routes"]} if info else set()}
    # a broken generator can make 100,000 problems: the page lists the first ones (as validate does)
    # errors first, then the newest (the one just made at the top), then in the file's order
    from mapkit.edit.session import problem_key

    ages = session.problem_age
    ordered = sorted(enumerate(snap.report.problems),
                     key=lambda ip: (ip[1].severity != "error", -ages.get(problem_key(ip[1]), 0), ip[0]))
    problems = [{**p.as_dict(), "targets": problem_targets(p, snap.data, known), "new": ages.get(problem_key(p)) == snap.version
                 and snap.version > 1}
                for _, p in ordered[:MAX_PROBLEMS]]
    ph = board.physical if board else None
    return {
        "rev": rev, "version": snap.version, "hash": snap.digest, "file": session.source,
        "loads": snap.board is not None, "valid": snap.report.valid,
        "errors": len(snap.report.errors), "warnings": len(snap.report.warnings), "problems": problems,
        "problem_count": len(snap.report.problems),
        "read_only": session.read_only,
        "drawing": None if drawing is None else {
            "version": drawing.version, "stale": drawing.version != snap.version, "labels": drawing.labels,
            "print_labels": session.print_labels, "print_error": session.print_error,
            "quick_ms": round(drawing.seconds * 1000), "print_cpu_ms": round(drawing.print_cpu_s * 1000), "width": ph.width_mm, "height": ph.height_mm,
            "station_radius": ph.station_radius_mm, "space_width": ph.space_width_mm,
            "board": {"id": board.id, "name": board.name}},
        "draft": snap.draft, "empty": snap.empty, "kinds": list(edits.KINDS),
        "board_settings": _settings(snap.data) if board else {},
        "stations": info["stations"] if info else [], "routes": info["routes"] if info else [],
        "tickets": info["tickets"] if info else [], "palette": info["palette"] if info else [],
        "decks": info["decks"] if info else [], "pinned": info["pinned"] if info else [],
        "cards": info["cards"] if info else None,
        "undo": undo, "redo": redo, **history, "layout": layout_note, "report": report,
    }


def _settings(data) -> dict:
    """The rules' trains and most players as the file overrides them (empty when it does not)."""
    over = ((data or {}).get("rules") or {}).get("overrides") or {}
    return {k: over[k] for k in ("trains", "max_players") if isinstance(over, dict) and k in over}


def svg(session: Session) -> str:
    with session.lock:
        d = session.drawing
    return d.svg if d is not None else ""


# ---------------------------------------------------------------- writes

def _guard(fn, *args):
    try:
        return fn(*args)
    except StaleError as exc:
        raise ApiError(409, str(exc), stale=True)
    except RefusedError as exc:
        raise ApiError(403 if "read-only" in str(exc) or "bundled" in str(exc) else 409, str(exc))
    except MapkitError as exc:
        raise ApiError(500, str(exc))


def _round(v: float):
    """A position to 0.1 mm (finer than anyone places by hand), a whole number written as one."""
    v = round(float(v), 1)
    return int(v) if v.is_integer() else v


def move(session: Session, body: Any) -> dict:
    """Move a station (its "board" position) or one waypoint of a route, in board mm (a double
    route's waypoint on both tracks)."""
    f = fields(body, {"kind": str, "id": str, "x": (int, float), "y": (int, float), "hash": str}, {"waypoint": int})
    with session.lock:
        board = _current(session, f["hash"])
        ph = board.physical
        x, y = _round(f["x"]), _round(f["y"])
        if not (-ph.width_mm <= x <= 2 * ph.width_mm and -ph.height_mm <= y <= 2 * ph.height_mm):
            raise ApiError(400, f"({x}, {y}) mm is far outside the {ph.width_mm:g} × {ph.height_mm:g} mm board")
        if f["kind"] == "station":
            s = next((s for s in board.stations if s.id == f["id"]), None)
            if s is None:
                raise ApiError(404, f"no station '{f['id']}' in {session.source}")
            i = int(s.json_path.split("[")[1].rstrip("]"))
            changes, what = {("stations", i, "board"): {"x": x, "y": y}}, f"move station {s.id}"
        elif f["kind"] == "waypoint":
            if "waypoint" not in f:
                raise ApiError(400, "missing field 'waypoint'")
            changes, what = _edit(edits.move_bend, session.snapshot.data, board, f)
        else:
            raise ApiError(400, "kind must be 'station' or 'waypoint'")
        step = _guard(session.write, changes, f["hash"], what)
    return {"done": step.what, "hash": session.snapshot.digest, "rev": session.rev}


def _current(session: Session, page_hash: str):
    """The board the page's hash names (the session's, when the file still holds it)."""
    snap = session.snapshot
    if snap.digest != page_hash:
        _guard(session.check_writable, page_hash)  # the file moved on: a stale refusal, the page reloads
        raise ApiError(409, "the page is behind the file; it reloads", stale=True)
    if snap.board is None:
        raise ApiError(409, f"{session.source} does not load (see the problems); fix it in your editor first")
    return snap.board


def _edit(fn, *args):
    try:
        return fn(*args)
    except edits.EditError as exc:
        raise ApiError(exc.status, str(exc))


NUM = (int, float)
EDITS = {
    # endpoint: (edits function, required fields, optional fields, needs the layout)
    "/api/station/add": (edits.add_station, {"name": str}, {"id": str, "x": NUM, "y": NUM, "lat": NUM, "lon": NUM}, False),
    "/api/station/edit": (edits.edit_station, {"id": str}, {"name": str, "pinned": bool, "hub": bool, "label": str,
                                                            "lat": NUM, "lon": NUM}, True),
    "/api/station/delete": (edits.delete_station, {"id": str}, {}, False),
    "/api/route/add": (edits.add_route, {"from": str, "to": str, "color": str, "length": int},
                       {"double": bool, "color2": str, "kind": str, "overpass": bool, "line": str}, False),
    "/api/route/edit": (edits.edit_route, {"id": str}, {"color": str, "length": int, "kind": str, "overpass": bool,
                                                        "line": str}, False),
    "/api/route/delete": (edits.delete_route, {"id": str}, {"whole": bool}, False),
    "/api/route/double": (edits.make_double, {"id": str, "color": str}, {}, False),
    "/api/bend/add": (edits.add_bend, {"id": str, "x": NUM, "y": NUM}, {}, True),
    "/api/bend/delete": (edits.delete_bend, {"id": str, "waypoint": int}, {}, False),
    "/api/color/add": (edits.add_color, {"name": str, "hex": str}, {"id": str, "kind": str}, False),
    "/api/color/edit": (edits.edit_color, {"id": str}, {"name": str, "hex": str, "kind": str}, False),
    "/api/color/delete": (edits.delete_color, {"id": str}, {}, False),
    "/api/ticket/add": (edits.add_ticket, {"from": str, "to": str}, {"deck": str, "points": int}, False),
    "/api/ticket/delete": (edits.delete_ticket, {"deck": str, "index": int}, {}, False),
    "/api/board/edit": (edits.edit_board, {}, {"name": str, "width": NUM, "height": NUM, "trains": int,
                                              "max_players": int}, False),
}


def edit(path: str, session: Session, body: Any) -> dict:
    """One of the EDITS: checked, made as a patch of the file, checked again, one undo step."""
    fn, required, optional, needs_layout = EDITS[path]
    f = fields(body, {"hash": str, **required}, optional)
    with session.lock:
        board = _current(session, f["hash"])
        data = session.snapshot.data
        args = (data, board, session.drawing.layout, f) if needs_layout else (data, board, f)
        changes, what = _edit(fn, *args)
        step = _guard(session.write, changes, f["hash"], what)
    return {"done": step.what, "hash": session.snapshot.digest, "rev": session.rev}


def new_board(session: Session, body: Any) -> dict:
    """Fill an empty file with a new board (`edit.draft.skeleton`): its name, id and size."""
    from mapkit.edit import draft
    from mapkit.writer import dump_board_json

    f = fields(body, {"hash": str, "name": str}, {"id": str, "width": NUM, "height": NUM})
    name = f["name"].strip()
    if not 1 <= len(name) <= 120:
        raise ApiError(400, "a board's name is 1 to 120 characters")
    board_id = f.get("id") or edits.slug(name)
    if not edits.SLUG.match(board_id):
        raise ApiError(400, f"'{board_id}' is not a usable id: lowercase letters, digits and dashes")
    w, h = f.get("width", 800), f.get("height", 530)
    if not (100 <= w <= 5000 and 100 <= h <= 5000):
        raise ApiError(400, "the board is 100 to 5000 mm each way")
    with session.lock:
        if not session.snapshot.empty:
            raise ApiError(409, f"{session.source} is not empty: a new board is only written into an empty file")
        text = dump_board_json(draft.skeleton(board_id, name, _round(w), _round(h)))
        raw = session._read() or b""
        nl = "\r\n" if b"\r\n" in raw else "\n"
        changes = [("whole", (), text.replace("\n", nl))]
        step = _guard(session.write, changes, f["hash"], f"start board {board_id}", True, True)
    return {"done": step.what, "hash": session.snapshot.digest, "rev": session.rev}


def suggest_length(session: Session, query: dict) -> dict:
    """What a route between two stations holds as drawn (edits.lengths)."""
    with session.lock:
        d = session.drawing
        if d is None:
            raise ApiError(409, "nothing drawn yet")
        a, b = query.get("from", ""), query.get("to", "")
        return _edit(edits.lengths, d.board, d.layout, a, b)


def undo(session: Session, body: Any) -> dict:
    f = fields(body, {"hash": str})
    step = _guard(session.undo, f["hash"])
    return {"done": f"undid {step.what}", "hash": session.snapshot.digest, "rev": session.rev}


def redo(session: Session, body: Any) -> dict:
    f = fields(body, {"hash": str})
    step = _guard(session.redo, f["hash"])
    return {"done": f"redid {step.what}", "hash": session.snapshot.digest, "rev": session.rev}


# ---------------------------------------------------------------- layout preview

def layout_module():
    """(True, "") when this installation has mapkit.layout, else (None, why). Found without importing
    it: the import takes seconds, and the layout runs in a child process anyway."""
    import importlib.util

    try:
        found = importlib.util.find_spec("mapkit.layout") is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return True, ""
    return None, ("layout is not available: this mapkit has no mapkit.layout module "
                  "(install a version with `mapkit layout`)")


LAYOUT_STYLES = ("geographic", "schematic")   # mapkit.layout.STYLES (tests/test_edit_make.py checks they agree)


_PREVIEWS: dict = {}
_JOBS: dict = {}        # the layout jobs of this server, by id (one runs at a time)
_JOBS_LOCK = threading.Lock()


def layout_preview(session: Session, body: Any) -> dict:
    """Start laying the board out in a child process (`edit.layout_job`); the page follows it
    with layout_status and may cancel it. Nothing is written until layout_apply."""
    from mapkit.edit.layout_job import LayoutJob

    f = fields(body, {"hash": str}, {"style": str, "seed": int, "refine": bool})
    lay, why = layout_module()
    if lay is None:
        raise ApiError(501, why)
    style = f.get("style", "geographic")
    if style not in LAYOUT_STYLES:
        raise ApiError(400, f"unknown layout style '{style}' (use {' or '.join(LAYOUT_STYLES)})")
    with session.lock:
        snap = session.snapshot
        if snap.board is None:
            raise ApiError(409, f"{session.source} does not load (see the problems); fix it first")
        if snap.digest != f["hash"]:
            raise ApiError(409, "the file changed since the page loaded it; the page reloads", stale=True)
        data = json.loads(json.dumps(snap.data))
    with _JOBS_LOCK:  # two requests at once (two tabs) must not leave a job no one can stop
        for job in list(_JOBS.values()):  # a new preview replaces one still running
            job.cancel()
        _JOBS.clear()
        job = LayoutJob(data, snap.digest, style, f.get("seed", 0), lambda j, reply: _preview_of(session, j, reply),
                        refine=f.get("refine", False))
        _JOBS[job.id] = job
    return job.status()


def _preview_of(session: Session, job, reply: dict) -> dict:
    """The child's layout as the page previews it: drawn, checked, its changes kept for apply."""
    from mapkit.boardfile import build_board, schema_problems, whole_numbers
    from mapkit.checks import problems as check_problems
    from mapkit.edit.svg import board_svg
    from mapkit.geometry import Layout
    from mapkit.writer import DELETE

    bad = schema_problems(reply["data"], session.source)
    if bad:
        raise ApiError(500, "layout produced a board that fails the schema: " + bad[0].format())
    board = build_board(whole_numbers(reply["data"]), session.source)
    changes = {tuple(path): DELETE if value == {"$delete": True} else value for path, value in reply["changes"]}
    key = f"{job.digest[:12]}-{job.style}-{job.seed}" + ("-refine" if job.refine else "")
    _PREVIEWS.clear()
    _PREVIEWS[key] = (job.digest, changes, job.name)
    moved = sum(1 for path in changes if path[0] == "stations")
    return {"preview": key, "svg": board_svg(board, Layout(board)), "figures": reply["figures"],
            "layout_problems": [for_the_page(p) for p in reply["problems"]], "problems_after": [p.as_dict() for p in check_problems(board)],
            "changes": len(changes), "stations_moved": moved, "style": job.name}


_SIZE_FLAG = re.compile(r"\(?--size (\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)\)?")


def for_the_page(message: str) -> str:
    """A layout message with its command-line flags said as the page's controls."""
    message = _SIZE_FLAG.sub(r"(a board of \1 × \2 mm: set it under Edit › Board › size, then preview again)", message)
    return message.replace("--size auto", "the automatic size")


def _job(body_or_query: dict) -> Any:
    job = _JOBS.get(body_or_query.get("job", ""))
    if job is None:
        raise ApiError(404, "no such layout job (it was replaced by a newer one, or the editor restarted)")
    return job


def layout_status(session: Session, query: dict) -> dict:
    return _job(query).status()


def stop_jobs() -> None:
    """Stop every layout and quick balance still running (the server is stopping)."""
    with _JOBS_LOCK:
        for job in [*_JOBS.values(), *_BALANCE.values()]:
            job.cancel()
        _BALANCE.clear()


def layout_cancel(session: Session, body: Any) -> dict:
    f = fields(body, {"job": str})
    job = _job(f)
    job.cancel()
    return job.status()


def layout_apply(session: Session, body: Any) -> dict:
    f = fields(body, {"hash": str, "preview": str})
    if f["preview"] not in _PREVIEWS:
        raise ApiError(409, "that preview is gone (the file or the preview changed); preview again")
    digest, changes, style = _PREVIEWS.pop(f["preview"])
    if digest != f["hash"]:
        raise ApiError(409, "the file changed since the preview was made; preview again", stale=True)
    step = _guard(session.write, changes, f["hash"], f"{style} layout ({len(changes)} values)")
    return {"done": step.what, "hash": session.snapshot.digest, "rev": session.rev}


# ---------------------------------------------------------------- report overlays

def find_report(board_path: Path, board_id: str, given: Path | None = None) -> Path | None:
    """reports/<board id>/report.json: the one given, else beside the working folder, the board's
    folder or its parent (a checkout keeps boards/ and reports/ side by side)."""
    if given is not None:
        return given
    for base in (Path.cwd(), board_path.parent, board_path.parent.parent):
        p = base / "reports" / board_id / "report.json"
        if p.is_file():
            return p
    return None


def read_report(path: Path) -> dict:
    from mapkit.boardfile import MAX_FILE_BYTES

    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise ApiError(422, f"{path} is too large to be a report")
        rep = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise ApiError(422, f"cannot read the report {path}: {exc}")
    if not isinstance(rep, dict) or not isinstance(rep.get("runs"), list):
        raise ApiError(422, f"{path} is not a mapkit balance report (no 'runs'); run `mapkit report` again")
    return rep


def report_summary(path: Path | None, board_id: str) -> dict | None:
    if path is None:
        return {"available": False, "message": f"no report for '{board_id}': run `mapkit report` "
                                                f"(it writes reports/{board_id}/report.json)"}
    try:
        rep = read_report(path)
    except ApiError as exc:
        return {"available": False, "message": exc.message}
    stale = rep.get("board") != board_id
    return {"available": True, "path": str(path), "players": [r.get("players") for r in rep["runs"]],
            "message": (f"the report is of board '{rep.get('board')}', not '{board_id}'" if stale else "")}


def overlay(session: Session, path: Path | None, kind: str, players: int | None) -> dict:
    """One overlay's data from the report: claim shares per route, ticket paths with completion,
    or color use; every rate with its 95 % interval, and the agents that played (these are AI
    games: a verdict on them depends on the agents)."""
    if path is None:
        raise ApiError(404, "no report found: run `mapkit report BOARD` first")
    rep = read_report(path)
    runs = rep["runs"]
    run = next((r for r in runs if r.get("players") == players), runs[0] if runs else None)
    if run is None:
        raise ApiError(404, "the report has no runs")
    base = {"kind": kind, "players": run.get("players"), "games": run.get("games"), "agents": run.get("agents", []),
            "board": rep.get("board")}
    with session.lock:
        d = session.drawing
    if kind == "heatmap":
        return {**base, "routes": run.get("route_claim_share", {})}
    if kind == "colors":
        return {**base, "colors": run.get("color_use", {})}
    if kind == "tickets":
        if d is None:
            raise ApiError(409, "nothing drawn yet")
        paths = _ticket_paths(d.board)
        # the report names a ticket "a-b", or "deck:a-b" when its rules play several decks
        labels = {}
        for (name, a, b), ids in paths.items():
            labels.setdefault(f"{name}:{a}-{b}", (a, b, ids))
            labels.setdefault(f"{a}-{b}", (a, b, ids))
        out = []
        for t in run.get("tickets", []):
            a, b, ids = labels.get(t.get("ticket"), (None, None, []))
            out.append({"ticket": t.get("ticket"), "from": a, "to": b, "points": t.get("points"),
                        "completion": t.get("completion"), "low": t.get("low"), "high": t.get("high"),
                        "held": t.get("held"), "routes": ids})
        return {**base, "tickets": out}
    raise ApiError(400, "overlay must be heatmap, tickets or colors")


# ---------------------------------------------------------------- generated ticket decks


def _page_words(message: str) -> str:
    """A ticket_deck message with its command-line options said as the page's controls."""
    message = re.sub(r"ask for at most (\d+) tickets with --count", r"set the count to \1 or fewer", message)
    message = re.sub(r"ask for at least (\d+) with --count", r"set the count to \1 or more", message)
    return message.replace("choose another --style", "choose another style").replace(
        "--style cities", "the cities style")


def tickets_targets(session: Session, query: dict) -> dict:
    """What a generated deck of this style and count aims at on this board (`ticket_deck.make_targets`,
    as `generate` sets them): how many tickets of each length, the longest, and the limits on
    tickets at one station and through one connection."""
    from mapkit.sim.rules import board_rules
    from mapkit.ticket_deck import STYLES, default_count, make_targets
    from mapkit.tickets import TicketScorer

    style = query.get("style", "standard")
    if style not in STYLES:
        raise ApiError(400, f"unknown style '{style}' (use {', '.join(STYLES)})")
    try:
        count = int(query.get("count") or default_count(style))
    except ValueError:
        raise ApiError(400, "count must be a whole number")
    if not 1 <= count <= 500:
        raise ApiError(400, "a deck has 1 to 500 tickets")
    with session.lock:
        d = session.drawing
    if d is None or not d.board.routes:
        raise ApiError(409, "no routes yet: a deck's targets come from the routes")
    board = d.board
    rules = board_rules(board.rules.preset, board.rules.overrides)
    trains = rules.trains_for(rules.max_players)
    try:
        t = make_targets(TicketScorer(board), style, count, trains)
    except (MapkitError, ValueError) as exc:
        raise ApiError(409, _page_words(str(exc)))
    return {"style": style, "count": count, "trains": trains,
            "lengths": [{"low": lo, "high": hi, "tickets": want} for lo, hi, want in t.buckets],
            "longest_at_least": t.longest_at_least, "max_station_uses": t.max_station_uses,
            "max_route_load": t.max_route_load}


def tickets_generate(session: Session, body: Any) -> dict:
    """The deck `mapkit tickets generate` makes for this board (`ticket_deck.generate`: count,
    style, seed and required pairs as its options), written into the deck it names (default: the
    style's name, as `--write` does) as one undoable step: the deck's tickets replaced one a line,
    the rest of the file as it was. Replies with the deck's figures against its targets and, in
    words, each length target it misses."""
    from mapkit.ticket_deck import STYLES, _miss_text, generate
    from mapkit.tickets import resolve_station

    f = fields(body, {"hash": str}, {"count": int, "seed": int, "style": str, "deck": str, "require": str})
    style = f.get("style", "standard")
    if style not in STYLES:
        raise ApiError(400, f"unknown style '{style}' (use {', '.join(STYLES)})")
    count, seed = f.get("count"), f.get("seed", 0)
    if count is not None and not 1 <= count <= 500:
        raise ApiError(400, "a deck has 1 to 500 tickets")
    if not 0 <= seed <= 2 ** 32 - 1:
        raise ApiError(400, "the seed is a whole number from 0 to 4294967295")
    deck = f.get("deck") or style
    if not edits.SLUG.match(deck):
        raise ApiError(400, f"'{deck}' is not a deck name: lowercase letters, digits and dashes")
    with session.lock:
        board = _current(session, f["hash"])
        data = session.snapshot.data
    required = []
    for item in filter(None, (x.strip() for x in f.get("require", "").split(","))):
        a, sep, b = item.partition(":")
        if not sep:
            raise ApiError(400, f"required pair '{item}' is not FROM:TO (station ids or names)")
        try:
            required.append((resolve_station(board, a.strip()), resolve_station(board, b.strip())))
        except MapkitError as exc:
            raise ApiError(400, f"required pair '{item}': {exc}")
    try:   # seconds on a real board (Portland ~2.5 s), outside the lock: the write checks the hash
        g = generate(board, style=style, count=count, seed=seed, required=required)
    except MapkitError as exc:
        raise ApiError(409, _page_words(str(exc)))
    items = g.deck_json()
    decks = data.get("ticket_decks")
    path = ("ticket_decks", deck)
    if not isinstance(decks, dict):
        changes = [("set", ("ticket_decks",), {deck: []})]
    else:
        changes = [("set", path, [])]
    changes += [("append", path, t) for t in items]
    what = f"generate {deck} deck ({len(items)} tickets, seed {seed})"
    with session.lock:
        step = _guard(session.write, changes, f["hash"], what)
    t, fig = g.targets, g.figures
    return {"done": step.what, "hash": session.snapshot.digest, "rev": session.rev, "deck": deck,
            "style": style, "seed": seed, "count": len(items),
            "targets": [{"what": f"length {lo}-{hi}", "wanted": want, "got": got}
                        for (lo, hi, want), got in zip(t.buckets, fig["bucket_counts"])] +
                       [{"what": "longest ticket", "wanted": f"at least {t.longest_at_least}", "got": fig["longest"]},
                        {"what": "stations covered", "wanted": fig["stations_covered"] + len(fig["uncovered"]),
                         "got": fig["stations_covered"]},   # (those some ticket of the style can reach)
                        {"what": "near-duplicate pairs", "wanted": 0, "got": fig["near_duplicates"]}],
            "misses": [_miss_text(m) for m in fig["length_misses"]],
            "uncovered": fig["uncovered"], "mean_points": fig["mean_points"]}


# ---------------------------------------------------------------- quick balance

_BALANCE: dict = {}     # the quick balance jobs of this server, by id (one runs at a time)


def balance_run(session: Session, body: Any) -> dict:
    """Start a quick balance of the board as it is (`edit.balance_job`): `games` per player count
    (default balance_job.DEFAULT_GAMES), `players` ("2,3"; default every count from 2 the rules
    play), `seed`. A new run replaces one still running. The page follows it with balance_status."""
    from mapkit.edit.balance_job import DEFAULT_GAMES, BalanceJob
    from mapkit.sim.rules import rules_for_board

    f = fields(body, {"hash": str}, {"games": int, "players": str, "seed": int})
    games, seed = f.get("games", DEFAULT_GAMES), f.get("seed", 0)
    if not 10 <= games <= 20000:
        raise ApiError(400, "a quick balance plays 10 to 20000 games a player count (mapkit report plays more)")
    if not 0 <= seed <= 2 ** 32 - 1:
        raise ApiError(400, "the seed is a whole number from 0 to 4294967295")
    with session.lock:
        snap = session.snapshot
        board = _current(session, f["hash"])
        data = json.loads(json.dumps(snap.data))
    if not board.ticket_decks or not board.routes:
        raise ApiError(409, "a balance needs routes and tickets: add them (or Generate tickets) first")
    rules = rules_for_board(board)
    allowed = [n for n in range(max(2, rules.min_players), rules.max_players + 1)]
    if not allowed:
        raise ApiError(409, f"the {rules.name} rules are not for two players or more: nothing to balance")
    players = allowed
    if "players" in f:
        try:
            players = sorted({int(x) for x in f["players"].split(",") if x.strip()})
        except ValueError:
            raise ApiError(400, f"players '{f['players']}' is not a list of numbers such as 2,3")
        if not players or any(n not in allowed for n in players):
            raise ApiError(400, f"the {rules.name} rules of this board play {allowed[0]} to {allowed[-1]} players")

    def finish(report: dict) -> dict:
        from mapkit.edit.balance_job import findings

        return findings(report, board, _ticket_paths(board))

    with _JOBS_LOCK:
        for job in list(_BALANCE.values()):   # a new run replaces one still running
            job.cancel()
        _BALANCE.clear()
        job = BalanceJob(data, snap.digest, players, games, seed, finish, session.source)
        _BALANCE[job.id] = job
    return job.status(snap.digest)


def _balance_job(body_or_query: dict):
    """The job named, or (no job named) this server's last one: a page opened again shows it."""
    if "job" not in body_or_query and _BALANCE:
        return next(iter(_BALANCE.values()))
    job = _BALANCE.get(body_or_query.get("job", ""))
    if job is None:
        raise ApiError(404, "no such quick balance (a newer one replaced it, or the editor restarted): run it again")
    return job


def balance_status(session: Session, query: dict) -> dict:
    return _balance_job(query).status(session.snapshot.digest)


def balance_cancel(session: Session, body: Any) -> dict:
    f = fields(body, {"job": str})
    job = _balance_job(f)
    job.cancel()
    return job.status(session.snapshot.digest)
