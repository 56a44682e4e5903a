"""Reading and writing board files: bytes → JSON → JSON Schema → model.

Gate 1 (JSON syntax) and gate 2 (schema) live here; each collects every problem it can before
reporting. Only when both pass is the model built, so the model code can trust its input.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from mapkit import model
from mapkit.errors import ERROR, BoardError, Problem, did_you_mean
from mapkit.inputs import InputError, read_input
from mapkit.resources import schema_path

MAX_FILE_BYTES = 20 * 1024 * 1024

_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
               int: "an integer", float: "a number", type(None): "null"}
_SCHEMA_TYPES = {"object": "an object", "array": "an array", "string": "a string",
                 "integer": "an integer", "number": "a number", "boolean": "a boolean", "null": "null"}


@lru_cache(maxsize=1)
def board_schema() -> dict:
    return json.loads(schema_path().read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(board_schema())


def json_path(parts) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


_C1 = re.compile("[\x7f-\x9f]")


def _quote(value: Any, limit: int = 60) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "an infinite number"  # what json reads for a literal like 1e999
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)  # json.dumps escapes C0 controls, not these
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- gate 1: bytes and JSON syntax

def read_json(path: Path, source: str) -> tuple[Any, list[Problem]]:
    """Parse a board file. Returns (data, problems); data is None when there are problems."""

    def problem(code: str, message: str, where: str = "$") -> tuple[None, list[Problem]]:
        return None, [Problem(ERROR, code, message, json_path=where, source=source)]

    try:
        # only a regular file, opened without waiting (a FIFO with no writer is refused at once),
        # and at most one byte more than allowed is read, whatever size the file claims
        raw = read_input(path, MAX_FILE_BYTES, "board file")
    except InputError as exc:
        if exc.code == "not-found":
            return problem("not-found", "no such file; give a board file's path or a bundled board's name"
                                        " (see `mapkit validate --help`)")
        if exc.kind == "a folder":
            return problem("not-a-file", "is a directory, not a board file; give a .json file or a bundled board's name")
        return problem(exc.code, exc.reason)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return problem("not-json", f"not UTF-8 text (byte {exc.start}); a board file is JSON in UTF-8")
    if not text.strip():
        return problem("empty", "the file is empty; a board file is a JSON object (see schemas/board.schema.json)")

    def reject_constant(name: str):
        raise ValueError(f"{name} is not allowed in a board file")

    try:
        data = json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as exc:
        hint = ""
        if path.suffix.lower() in (".yaml", ".yml") or text.lstrip()[:1] not in ("{", "["):
            hint = " (mapkit reads JSON board files; is this YAML or another format?)"
        return problem("json-syntax", f"invalid JSON: {exc.msg.lower()}{hint}", f"{exc.lineno}:{exc.colno}")
    except RecursionError:
        return problem("json-syntax", "invalid JSON: nested too deeply")
    except ValueError as exc:
        if "digits" in str(exc):
            return problem("json-syntax", "a number in the file is too large (over 4300 digits)")
        return problem("json-syntax", f"invalid JSON: {str(exc).lower()}")
    # UTF-8 bytes cannot hold a surrogate, so only a \uD800-\uDFFF escape can make one: without
    # such an escape in the text there is nothing to look for
    bad = _lone_surrogates(data) if _SURROGATE_ESCAPE.search(text) else []
    if bad:
        return None, [Problem(ERROR, "bad-text", f"text holds a lone surrogate escape ('\\u{ord(ch):04x}'), half of a"
                              " UTF-16 pair that is no character; write the character itself or both halves of its pair",
                              json_path=json_path(parts), source=source) for parts, ch in bad[:MAX_TEXT_PROBLEMS]]
    return data, []


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
MAX_TEXT_PROBLEMS = 20  # one broken escape is usually copied around; a few show the pattern


def _lone_surrogates(data: Any) -> list[tuple[list, str]]:
    """(path, character) of every lone surrogate in a key or string of parsed JSON.

    JSON's grammar allows `"\\ud800"`, but it is no Unicode text: it cannot be printed, written as
    UTF-8 or drawn, so it is refused at the first gate rather than crashing a later one.
    """
    found, stack = [], [([], data)]
    while stack:
        parts, value = stack.pop()
        if isinstance(value, str):
            ch = _surrogate_in(value)
            if ch:
                found.append((parts, ch))
        elif isinstance(value, dict):
            for key, item in value.items():
                ch = _surrogate_in(key)
                if ch:
                    found.append((parts + [_printable(key)], ch))
                stack.append((parts + [_printable(key)], item))
        elif isinstance(value, list):
            stack.extend((parts + [i], item) for i, item in enumerate(value))
    return sorted(found, key=lambda f: json_path(f[0]))


def _surrogate_in(text: str) -> str:
    try:
        text.encode("utf-8")
        return ""
    except UnicodeEncodeError as exc:
        return text[exc.start]


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# ---------------------------------------------------------------- gate 2: JSON Schema

def _subject(data: Any, parts: list) -> str:
    """The designer's name for what a path points into: `route parkrose-pdx`, `station pdx`."""
    if len(parts) < 2 or not isinstance(data, dict):
        return ""
    section, index = parts[0], parts[1]
    if section == "rules":
        return "rules"
    items = data.get(section)
    if not isinstance(items, list) or not isinstance(index, int) or index >= len(items):
        if section == "ticket_decks" and len(parts) >= 3 and isinstance(parts[2], int):
            deck = data.get("ticket_decks", {}).get(index)
            if isinstance(deck, list) and parts[2] < len(deck) and isinstance(deck[parts[2]], dict):
                t = deck[parts[2]]
                return f"ticket {t.get('from', '?')}-{t.get('to', '?')}"
        return ""
    item = items[index]
    if not isinstance(item, dict):
        return ""
    if section == "stations":
        return f"station {item.get('id', index)}"
    if section == "palette":
        return f"color {item.get('id', index)}"
    if section == "routes":
        if isinstance(item.get("id"), str):
            return f"route {item['id']}"
        return f"route {item.get('from', '?')}-{item.get('to', '?')}"
    return ""


def _schema_message(error: jsonschema.ValidationError) -> tuple[str, list]:
    """A plain message for one schema error, and the path it is best reported at."""
    parts = list(error.absolute_path)
    v, value, inst = error.validator, error.validator_value, error.instance
    if v == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"missing required field '{missing}'", parts
    if v == "additionalProperties":
        allowed = list(error.schema.get("properties", {}))
        extras = [k for k in inst if k not in allowed] if isinstance(inst, dict) else []
        name = extras[0] if extras else "?"
        more = f" (and {len(extras) - 1} more)" if len(extras) > 1 else ""
        return f"unknown field '{name}'{did_you_mean(name, allowed)}{more}", parts + [name]
    if v == "type":
        want = value if isinstance(value, str) else value[0]
        got = _JSON_TYPES.get(type(inst), type(inst).__name__)
        shown = _quote(inst)
        return (f"expected {_SCHEMA_TYPES.get(want, want)}, got {shown}" if shown.startswith("an infinite")
                else f"expected {_SCHEMA_TYPES.get(want, want)}, got {got} {shown}"), parts
    if v == "enum":
        choices = ", ".join(f"'{c}'" if isinstance(c, str) else _quote(c) for c in value)
        return f"{_quote(inst)} is not one of {choices}{did_you_mean(str(inst), [str(c) for c in value])}", parts
    if v == "const":
        if parts == ["schema_version"]:
            return f"unsupported schema version {_quote(inst)}; this mapkit reads version {value}", parts
        return f"{_quote(inst)} must be {_quote(value)}", parts
    if v == "not" and isinstance(value, dict) and "pattern" in value and isinstance(inst, str):
        found = re.search(value["pattern"], inst)
        ch = found.group() if found else "?"
        return (f"{_quote(inst)} holds the control character U+{ord(ch):04X} at character {found.start() + 1 if found else '?'};"
                " printed text may not hold control characters (a line break, a tab, NUL, BEL, ESC…): remove it"), parts
    if v == "not":
        return f"{_quote(inst)} is reserved and cannot be used here", parts
    if v == "pattern":
        return (f"{_quote(inst)} is not a valid id: use lowercase letters, digits and dashes"
                f" (like 'pioneer-square')", parts)
    if v in ("minimum", "exclusiveMinimum"):
        return f"{_quote(inst)} is too small (the least allowed is {value}{', exclusive' if v.startswith('excl') else ''})", parts
    if v in ("maximum", "exclusiveMaximum"):
        return f"{_quote(inst)} is too large (the most allowed is {value})", parts
    if v == "minLength":
        return ("must not be empty" if value == 1 else f"{_quote(inst)} is shorter than {value} characters"), parts
    if v == "maxLength":
        return f"{_quote(inst, 40)} is longer than {value} characters", parts
    if v == "minItems":
        return f"needs at least {value} item{'s' if value != 1 else ''}, has {len(inst)}", parts
    if v == "maxItems":
        return f"has {len(inst)} items; at most {value} are allowed", parts
    if v == "oneOf" and "waypoints" in parts:
        return f"{_quote(inst)} is not a point: give {{\"lat\", \"lon\"}} or {{\"x\", \"y\"}} in mm", parts
    if v == "propertyNames":
        return f"{_quote(inst)} is not a valid name: use lowercase letters, digits and dashes", parts
    return error.message[:1].lower() + error.message[1:], parts


@lru_cache(maxsize=1)
def _ruleset_validator() -> jsonschema.protocols.Validator:
    schema = board_schema()
    return jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/ruleset"})


def ruleset_problems_of_overrides(overrides: Any) -> list[tuple[str, str]]:
    """(field, message) for each ruleset override the schema's `$defs/ruleset` refuses: the one
    statement of every rule field's type and range, for the board file and for library callers."""
    found = []
    for error in _ruleset_validator().iter_errors(overrides):
        message, parts = _schema_message(error)
        found.append((str(parts[0]) if parts else "", message))
    return found


MAX_SCHEMA_PROBLEMS = 1000  # a 20 MiB file of broken routes has ~10^5; finding them all took minutes


def schema_problems(data: Any, source: str) -> list[Problem]:
    problems = []
    for error in _validator().iter_errors(data):
        if len(problems) == MAX_SCHEMA_PROBLEMS:
            problems.append(Problem(ERROR, "schema", f"the schema check stopped after {MAX_SCHEMA_PROBLEMS} problems;"
                                    " fix these and run it again for the rest", json_path="$", source=source))
            break
        message, parts = _schema_message(error)
        problems.append(Problem(ERROR, "schema", message, json_path=json_path(parts),
                                subject=_subject(data, parts), source=source))
    return problems


# ---------------------------------------------------------------- the model

def _point(raw: dict) -> model.Point:
    if "x" in raw:
        return model.Point(x=float(raw["x"]), y=float(raw["y"]))
    return model.Point(lat=float(raw["lat"]), lon=float(raw["lon"]))


def default_route_ids(routes: list[dict]) -> list[str]:
    """Route ids: the file's own, or `<from>-<to>`, with `#1`, `#2` for the tracks of a double."""
    ids, seen_in_group = [], {}
    for raw in routes:
        if "id" in raw:
            ids.append(raw["id"])
            continue
        base = f"{raw['from']}-{raw['to']}"
        if "double" in raw:
            n = seen_in_group.get(raw["double"], 0) + 1
            seen_in_group[raw["double"]] = n
            ids.append(f"{base}#{n}")
        else:
            ids.append(base)
    return ids


def station_model(s: dict, i: int) -> model.Station:
    """The model of station s, the i-th of its file (the layout builds parts of a board from these)."""
    return model.Station(
        id=s["id"], name=s["name"], lat=float(s["lat"]), lon=float(s["lon"]),
        board=_point(s["board"]) if "board" in s else None, label=s.get("label"),
        hub=bool(s.get("hub", False)), pinned=bool(s.get("pinned", False)), json_path=f"$.stations[{i}]",
    )


def route_model(r: dict, i: int, route_id: str, kinds: dict, gray_kind: str) -> model.Route:
    """The model of route r, the i-th of its file; kinds: the palette's kind of each color id."""
    return model.Route(
        id=route_id, a=r["from"], b=r["to"], color=r["color"], length=r["length"],
        kind=r.get("kind") or (gray_kind if r["color"] == model.GRAY else kinds.get(r["color"], gray_kind)),
        double=r.get("double"), line=r.get("line"),
        bonus=model.Bonus(**r["bonus"]) if "bonus" in r else None,
        waypoints=tuple(_point(w) for w in r.get("waypoints", [])),
        overpass=bool(r.get("overpass", False)), json_path=f"$.routes[{i}]",
    )


def build_board(data: dict, source: str = "") -> model.Board:
    """The model of a schema-valid board file."""
    palette = tuple(
        model.Color(
            id=c["id"], name=c["name"], hex=c["hex"], kind=c["kind"], symbol=c.get("symbol"),
            cards=model.CardConstraint(**c.get("cards", {})), json_path=f"$.palette[{i}]",
        )
        for i, c in enumerate(data["palette"])
    )
    kinds = {c.id: c.kind for c in palette}
    gray = data.get("gray", {})
    gray_kind = gray.get("kind", "rail")
    stations = tuple(station_model(s, i) for i, s in enumerate(data["stations"]))
    route_ids = default_route_ids(data["routes"])
    routes = tuple(route_model(r, i, route_ids[i], kinds, gray_kind) for i, r in enumerate(data["routes"]))
    deck = None
    if "deck" in data:
        d = data["deck"]
        deck = model.Deck(total=d["total"], wild=d["wild"], counts=dict(d["counts"]))
    ticket_decks = {
        name: tuple(
            model.Ticket(a=t["from"], b=t["to"], points=t["points"], transit_points=t.get("transit_points"),
                         json_path=f"$.ticket_decks.{name}[{i}]")
            for i, t in enumerate(tickets)
        )
        for name, tickets in data.get("ticket_decks", {}).items()
    }
    rules = data.get("rules", {})
    return model.Board(
        id=data["id"], name=data["name"], palette=palette,
        wild=model.Wild(name=data["wild"]["name"], hex=data["wild"].get("hex", "#c0c0c0")),
        stations=stations, routes=routes,
        route_points=tuple(data.get("route_points", model.STANDARD_ROUTE_POINTS)),
        physical=model.Physical(**{k: float(v) for k, v in data.get("physical", {}).items()}),
        rules=model.RulesRef(preset=rules.get("preset", "standard"), overrides=dict(rules.get("overrides", {})),
                             for_presets={k: dict(v) for k, v in rules.get("for_presets", {}).items()}),
        gray_name=gray.get("name", "Gray (any one color)"), gray_kind=gray_kind,
        version=data.get("version", ""), credits=data.get("credits", ""), disclaimer=data.get("disclaimer", ""),
        deck=deck, ticket_decks=ticket_decks, source=source,
    )


def parse_board(path: Path, source: str | None = None) -> tuple[model.Board | None, Any, list[Problem]]:
    """Gates 1 and 2. Returns (board, raw data, problems); board is None when a gate failed."""
    source = source if source is not None else str(path)
    data, problems = read_json(path, source)
    if problems:
        return None, None, problems
    problems = schema_problems(data, source)
    if problems:
        return None, data, problems
    return build_board(whole_numbers(data), source), data, []


def whole_numbers(value: Any) -> Any:
    """A copy of parsed JSON with every whole float (`4.0`, `1e2`) as an int.

    JSON Schema counts 4.0 as an integer (it compares numbers by value), so the schema gate lets
    `"length": 4.0` through; this is where that is settled once for every later stage: whatever
    the schema accepts as an integer is an int in the model, the checks and the simulator. Fields
    that are real numbers (mm, lat/lon) are converted with float() by the model anyway. The file
    itself is never changed (see docs/board-format.md, "Numbers").
    """
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {k: whole_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [whole_numbers(v) for v in value]
    return value


def load_board(path: Path, source: str | None = None) -> model.Board:
    """The board in a file, or BoardError with every syntax or schema problem."""
    board, _, problems = parse_board(path, source)
    if board is None:
        raise BoardError(source or str(path), problems)
    return board


def source_name(path: Path) -> str:
    """How a board file is named in messages: as given, or `boards/name.json` for a bundled board."""
    from mapkit.errors import MapkitError
    from mapkit.resources import boards_dir

    try:
        if path.resolve().parent == boards_dir().resolve():
            return f"boards/{path.name}"
    except (MapkitError, OSError, RuntimeError):
        pass  # a symbolic link loop (RuntimeError in Python 3.11): named as given; reading it says why
    return str(path)
