"""Changing values inside a JSON file's own text, leaving every other character as it was.

A designer's board file has their formatting, key order, line endings and spacing. When a command
moves one station (`layout`, the editor) or changes one ticket's points (`tune`), the file must
differ from the old one only where that value was. So the text is scanned once into the character
span of every value (by JSON path), and each change replaces one span, inserts one key into its
object, appends one item to its array, or removes one key or item with its comma. New values are
written compactly on one line (`{"x": 12.5, "y": 40}`), new keys and items copy the indentation of
their neighbours.

A path is a tuple of object keys and array indexes from the top: ("stations", 3, "board"). A path
whose parent does not exist is an error (patch the parent instead); so are two changes of which one
contains the other.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

Path = tuple  # of str | int


class _Delete:
    def __repr__(self) -> str:
        return "DELETE"


DELETE = _Delete()
"""A change's value that removes the key (or array item) at its path."""


class PatchError(ValueError):
    """A change that cannot be made to this text (bad path, overlapping changes, not JSON)."""


@dataclass
class _Node:
    start: int
    end: int
    kind: str  # "object", "array" or "scalar"
    # object: key -> (start of the key's string, child); array: the children in order
    members: dict = field(default_factory=dict)
    items: list = field(default_factory=list)


_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


def _skip(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _WS:
        i += 1
    return i


def _scan(text: str, i: int, depth: int = 0) -> _Node:
    if depth > 200:
        raise PatchError("JSON nested more than 200 levels deep")
    i = _skip(text, i)
    if i >= len(text):
        raise PatchError("unexpected end of the JSON text")
    c = text[i]
    if c == "{":
        node = _Node(i, i, "object")
        j = _skip(text, i + 1)
        if text[j:j + 1] == "}":
            node.end = j + 1
            return node
        while True:
            j = _skip(text, j)
            try:
                key, after = _DECODER.raw_decode(text, j)
            except json.JSONDecodeError as exc:
                raise PatchError(f"invalid JSON at character {exc.pos}") from None
            if not isinstance(key, str):
                raise PatchError(f"invalid JSON at character {j}: expected a key")
            k = _skip(text, after)
            if text[k:k + 1] != ":":
                raise PatchError(f"invalid JSON at character {k}: expected ':'")
            child = _scan(text, k + 1, depth + 1)
            node.members[key] = (j, child)
            k = _skip(text, child.end)
            if text[k:k + 1] == ",":
                j = k + 1
                continue
            if text[k:k + 1] == "}":
                node.end = k + 1
                return node
            raise PatchError(f"invalid JSON at character {k}: expected ',' or '}}'")
    if c == "[":
        node = _Node(i, i, "array")
        j = _skip(text, i + 1)
        if text[j:j + 1] == "]":
            node.end = j + 1
            return node
        while True:
            child = _scan(text, j, depth + 1)
            node.items.append(child)
            k = _skip(text, child.end)
            if text[k:k + 1] == ",":
                j = k + 1
                continue
            if text[k:k + 1] == "]":
                node.end = k + 1
                return node
            raise PatchError(f"invalid JSON at character {k}: expected ',' or ']'")
    try:
        _, end = _DECODER.raw_decode(text, i)
    except json.JSONDecodeError as exc:
        raise PatchError(f"invalid JSON at character {exc.pos}") from None
    return _Node(i, end, "scalar")


def _root(text: str) -> tuple[_Node, int]:
    offset = 1 if text.startswith("\ufeff") else 0
    root = _scan(text, offset)
    if _skip(text, root.end) != len(text):
        raise PatchError(f"invalid JSON at character {root.end}: extra data after the value")
    return root, offset


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _line_start(text: str, i: int) -> int:
    return text.rfind("\n", 0, i) + 1


def _indent_at(text: str, i: int) -> str:
    """The whitespace before position i on its line, when only whitespace precedes it."""
    start = _line_start(text, i)
    before = text[start:i]
    return before if before.strip() == "" else ""


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text and text.count("\n") == text.count("\r\n") else "\n"


def _edits_for(text: str, root: _Node, path: Path, value: Any) -> tuple[int, int, str] | None:
    if not path:
        raise PatchError("an empty path (the whole file) cannot be patched")
    parent = root
    for depth, part in enumerate(path[:-1]):
        parent = _child(parent, part, path[:depth + 1])
    last = path[-1]
    nl = _newline(text)
    if parent.kind == "object":
        if not isinstance(last, str):
            raise PatchError(f"{_show(path)}: {last!r} is not a key of an object")
        keys = list(parent.members)
        if last in parent.members:
            key_start, child = parent.members[last]
            if value is DELETE:
                index = keys.index(last)
                if len(keys) == 1:
                    return parent.start + 1, parent.end - 1, ""
                if index > 0:  # remove from the end of the previous value to the end of this one
                    prev = parent.members[keys[index - 1]][1]
                    return prev.end, child.end, ""
                nxt_key_start = parent.members[keys[1]][0]
                return key_start, nxt_key_start, ""
            return child.start, child.end, _compact(value)
        if value is DELETE:
            return None  # nothing to remove
        entry = f"{json.dumps(last, ensure_ascii=False)}: {_compact(value)}"
        if not keys:
            return parent.start + 1, parent.end - 1, entry
        last_key_start, last_child = parent.members[keys[-1]]
        if len(keys) >= 2:
            prev_child = parent.members[keys[-2]][1]
            sep = text[_skip(text, prev_child.end):last_key_start]  # ",\n    " or ", "
        else:
            indent = _indent_at(text, last_key_start)
            sep = "," + (nl + indent if indent or "\n" in text[parent.start:last_key_start] else " ")
        return last_child.end, last_child.end, sep + entry
    if parent.kind == "array":
        if not isinstance(last, int) or isinstance(last, bool):
            raise PatchError(f"{_show(path)}: {last!r} is not an index of an array")
        items = parent.items
        if 0 <= last < len(items):
            child = items[last]
            if value is DELETE:
                if len(items) == 1:
                    return parent.start + 1, parent.end - 1, ""
                if last > 0:
                    return items[last - 1].end, child.end, ""
                return child.start, items[1].start, ""
            return child.start, child.end, _compact(value)
        if last == len(items) and value is not DELETE:
            entry = _compact(value)
            if not items:
                return parent.start + 1, parent.end - 1, entry
            if len(items) >= 2:
                sep = text[items[-2].end:items[-1].start]
            else:
                indent = _indent_at(text, items[-1].start)
                sep = "," + (nl + indent if indent else " ")
            return items[-1].end, items[-1].end, sep + entry
        raise PatchError(f"{_show(path)}: index {last} is outside the array of {len(items)} items"
                         + (" (append at index {len(items)})" if value is not DELETE else ""))
    raise PatchError(f"{_show(path[:-1])} is not an object or an array")


def _child(node: _Node, part: Any, path: Path) -> _Node:
    if node.kind == "object" and isinstance(part, str):
        if part in node.members:
            return node.members[part][1]
        raise PatchError(f"{_show(path)}: no such key (patch its parent to add it)")
    if node.kind == "array" and isinstance(part, int) and not isinstance(part, bool):
        if 0 <= part < len(node.items):
            return node.items[part]
        raise PatchError(f"{_show(path)}: index outside the array of {len(node.items)} items")
    raise PatchError(f"{_show(path)}: the value there is not an {'object' if isinstance(part, str) else 'array'}")


def _show(path: Path) -> str:
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def patch_text(text: str, changes: Mapping[Path, Any]) -> str:
    """The JSON text with each path's value replaced, inserted or (value DELETE) removed, and
    every other character unchanged. Raises PatchError for a path that cannot be changed or
    for changes that overlap (one path inside another, or two appends to one array)."""
    if not changes:
        return text
    paths = [tuple(p) for p in changes]
    for p in paths:
        for q in paths:
            if p != q and len(p) < len(q) and q[:len(p)] == p:
                raise PatchError(f"{_show(q)} is inside {_show(p)}: change one or the other")
    root, _ = _root(text)
    edits: dict[tuple[int, int], tuple[str, Path]] = {}
    for path in sorted(paths, key=_show):
        edit = _edits_for(text, root, path, changes[path])
        if edit is None:
            continue
        start, end, new = edit
        if start == end and (start, end) in edits:  # two new keys or items at one place: in path order
            before, first = edits[start, end]
            edits[start, end] = (before + new, first)
        elif (start, end) in edits:
            raise PatchError(f"changes at {_show(edits[start, end][1])} and {_show(path)} touch the same text")
        else:
            edits[start, end] = (new, path)
    ordered = sorted(edits.items(), reverse=True)  # from the end, so earlier spans keep their places
    for ((s1, e1), (_, p1)), ((s2, e2), (_, p2)) in zip(ordered, ordered[1:]):
        if e2 > s1:
            raise PatchError(f"changes at {_show(p1)} and {_show(p2)} touch the same text")
    out = text
    for (start, end), (new, _) in ordered:
        out = out[:start] + new + out[end:]
    return out


def append_item(text: str, path: Path, value: Any) -> str:
    """The JSON text with value appended to the array at path, every other character unchanged.
    Items go where `patch_text` puts them (the separator of their neighbours), except the first
    item of an empty array in a text of several lines: it goes on a line of its own, two spaces
    deeper than the line the array opens on, and the closing bracket on the next line (so a
    board built item by item from empty arrays keeps one station, route or ticket a line)."""
    root, _ = _root(text)
    node = root
    for depth, part in enumerate(path):
        node = _child(node, part, tuple(path[:depth + 1]))
    if node.kind != "array":
        raise PatchError(f"{_show(tuple(path))} is not an array")
    if node.items or "\n" not in text:
        return patch_text(text, {(*path, len(node.items)): value})
    nl = _newline(text)
    start = _line_start(text, node.start)
    line = text[start:node.start]
    indent = line[:len(line) - len(line.lstrip(" \t"))]
    return (text[:node.start] + "[" + nl + indent + "  " + _compact(value) + nl + indent + "]"
            + text[node.end:])
