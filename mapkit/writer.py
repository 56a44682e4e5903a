"""Writing board files: mapkit's stable JSON layout, and in-place updates of one section.

`--write` must leave the rest of a designer's file as it was, so a section is spliced into the
file's own text: the old value's characters are replaced (or the key is added before the closing
brace) and nothing else moves. The file is replaced atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

LINE_ITEM_KEYS = ("stations", "routes", "palette")


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def format_value(key: str, value: Any, indent: int = 1) -> str:
    """A value in mapkit's layout: objects one key a line, arrays of objects one item a line."""
    pad = "  " * indent
    if key == "ticket_decks" and isinstance(value, dict):
        if not value:
            return "{}"
        decks = [f"{pad}  {json.dumps(k, ensure_ascii=False)}: {format_value('routes', v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(decks) + f"\n{pad}}}"
    if isinstance(value, dict) and value:
        if key == "counts" or all(not isinstance(v, (dict, list)) for v in value.values()) and indent > 1:
            return _compact(value)
        inner = [f"{pad}  {json.dumps(k, ensure_ascii=False)}: {format_value(k, v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(inner) + f"\n{pad}}}"
    if isinstance(value, list) and value and (key in LINE_ITEM_KEYS or any(isinstance(v, dict) for v in value)):
        return "[\n" + ",\n".join(f"{pad}  {_compact(v)}" for v in value) + f"\n{pad}]"
    return _compact(value)


def dump_board_json(data: dict) -> str:
    """A whole board in mapkit's layout: 2-space indent, one station, route or ticket a line."""
    inner = [f"  {json.dumps(k, ensure_ascii=False)}: {format_value(k, v, 1)}" for k, v in data.items()]
    return "{\n" + ",\n".join(inner) + "\n}\n"


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def top_level_spans(text: str) -> dict[str, tuple[int, int]]:
    """Character span of each top-level key's value in a JSON object's text."""
    decoder = json.JSONDecoder()
    i = _skip_ws(text, 0)
    if text[i:i + 1] == "\ufeff":
        i = _skip_ws(text, i + 1)
    if text[i:i + 1] != "{":
        raise ValueError("not a JSON object")
    i = _skip_ws(text, i + 1)
    spans = {}
    while i < len(text) and text[i] != "}":
        key, i = decoder.raw_decode(text, i)
        i = _skip_ws(text, i)
        if text[i] != ":":
            raise ValueError("expected ':'")
        start = _skip_ws(text, i + 1)
        _, end = decoder.raw_decode(text, start)
        spans[key] = (start, end)
        i = _skip_ws(text, end)
        if text[i:i + 1] == ",":
            i = _skip_ws(text, i + 1)
    return spans


def splice_section(text: str, key: str, value: Any) -> str:
    """The file's text with one top-level key set to value, everything else untouched."""
    spans = top_level_spans(text)
    formatted = format_value(key, value, 1)
    if key in spans:
        start, end = spans[key]
        return text[:start] + formatted + text[end:]
    close = text.rstrip().rfind("}")
    body = text[:close].rstrip()
    sep = "," if spans else ""
    return body + f"{sep}\n  {json.dumps(key)}: {formatted}\n" + text[close:]


def write_section(path: Path, key: str, value: Any) -> None:
    """Set one top-level section of a board file in place (atomically)."""
    text = path.read_text(encoding="utf-8")
    new = splice_section(text, key, value)
    json.loads(new)  # never write a file that no longer parses
    fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
