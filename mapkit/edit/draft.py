"""A board in the making: the file the editor opens, draws and writes before the schema accepts it.

The schema asks for at least two stations, one route and one palette color. A designer who starts
from an empty board passes through files with fewer: the editor treats a file whose only schema
problems are those counts ("needs at least N items" at `$.stations`, `$.routes` or `$.palette`)
as a *draft*. A draft is drawn and checked (every check that can run on it; each count is listed
as an error saying what to add) and written to, but it is not valid: `mapkit validate` reports
the same counts. Any other schema problem makes the file one that does not load, as before.

An empty file (nothing but white space) is offered a skeleton (`skeleton`): the fields the schema
requires, with empty lists, in mapkit's layout.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from mapkit.errors import ERROR, Problem, sort_problems
from mapkit.model import Board

DRAFT_PATHS = {"$.stations": "station", "$.routes": "route", "$.palette": "palette color"}


def _is_count(p: Problem) -> bool:
    return p.code == "schema" and p.json_path in DRAFT_PATHS and p.message.startswith("needs at least")


def examine(data: Any, source: str) -> tuple[Board | None, list[Problem], bool]:
    """Gate 2 of `mapkit validate` with drafts let through: (board or None, schema problems, draft).
    The board is None when the schema fails for anything but the counts."""
    from mapkit.boardfile import build_board, schema_problems, whole_numbers

    problems = schema_problems(data, source)
    if problems and not all(_is_count(p) for p in problems):
        return None, sort_problems(problems), False
    board = build_board(whole_numbers(data), source)
    return board, problems, bool(problems)


def check(board: Board, counts: list[Problem], draft: bool) -> list[Problem]:
    """Gate 3: `checks.problems` on a board; on a draft, each check that can run on so few items,
    and each count said as what to add."""
    from mapkit import checks

    if not draft:
        return checks.problems(board)
    found = [Problem(ERROR, "schema", _count_message(p), json_path=p.json_path, source=p.source) for p in counts]
    for fn in checks.CHECKS:
        try:
            found.extend(fn(board))
        except Exception:  # noqa: BLE001 - a check written for whole boards, run on a part of one
            continue  # a check that needs the items the board does not have yet
    return sort_problems(found)


def _count_message(p: Problem) -> str:
    what = DRAFT_PATHS[p.json_path]
    return f"a board needs {p.message.removeprefix('needs ').replace('items', what + 's').replace('item', what)} " \
           f"(the board is in the making: add {'them' if 'items' in p.message else 'one'} in the editor)"


# keywords of a container whose verdict depends on more than each child alone: a change below one of
# them is checked with the whole file
_ACROSS = {"uniqueItems", "contains", "minContains", "maxContains", "oneOf", "anyOf", "allOf", "not", "if",
           "patternProperties", "dependentRequired", "dependentSchemas", "unevaluatedProperties",
           "unevaluatedItems", "minProperties", "maxProperties", "prefixItems"}


@lru_cache(maxsize=1)
def _schema_validator():
    import jsonschema

    from mapkit.boardfile import board_schema

    return jsonschema.Draft202012Validator(board_schema())


def _subschema(path: tuple):
    """The schema a value at this JSON path must pass, or None when its verdict also depends on
    its neighbours (then the whole file is checked)."""
    v = _schema_validator()
    node = v.schema
    for part in path:
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if not ref.startswith("#/$defs/") or set(node) - {"$ref", "description"}:
                return None
            node = v.schema["$defs"][ref[len("#/$defs/"):]]
        if not isinstance(node, dict) or _ACROSS & set(node):
            return None
        if isinstance(part, str):
            props = node.get("properties", {})
            if part in props:
                node = props[part]
            elif isinstance(node.get("additionalProperties"), dict):
                node = node["additionalProperties"]
            else:
                return None
        elif isinstance(node.get("items"), dict):
            node = node["items"]
        else:
            return None
    return node


def values_pass(changes, old: Any) -> bool:
    """True when the file stays schema-valid after these changes, told from the changed values
    alone: old (the parsed file, schema-valid) has every path already, no change removes or adds
    anything, and each new value passes the schema at its path. False means: check the whole file
    (that is also how a failing value gets its message). The editor's drags take this path."""
    from mapkit.textpatch import DELETE

    items = [("set", p, v) for p, v in changes.items()] if isinstance(changes, dict) else list(changes)
    validator = _schema_validator()
    for op, path, value in items:
        if op != "set" or value is DELETE or not path:
            return False
        cur = old
        for part in path:  # the value is there already: a replacement, not an insertion
            if isinstance(cur, dict) and isinstance(part, str) and part in cur:
                cur = cur[part]
            elif isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur):
                cur = cur[part]
            else:
                return False
        sub = _subschema(tuple(path))
        if sub is None or not validator.evolve(schema=sub).is_valid(value):
            return False
    return True


def is_empty(raw: bytes | None) -> bool:
    """The file holds nothing but white space (and maybe a byte-order mark)."""
    return raw is not None and not raw.removeprefix(b"\xef\xbb\xbf").strip()


def skeleton(board_id: str, name: str, width_mm: float, height_mm: float) -> dict:
    """A new board's file: what the schema requires, with no stations, routes or colors yet."""
    return {"schema_version": 1, "id": board_id, "name": name,
            "physical": {"width_mm": width_mm, "height_mm": height_mm},
            "palette": [], "wild": {"name": "Locomotive"}, "stations": [], "routes": [],
            "ticket_decks": {"standard": []}}
