"""Writing board files: mapkit's stable JSON layout, and in-place updates of one section.

`--write` must leave the rest of a designer's file as it was, so a section is spliced into the
file's own text: the old value's characters are replaced (or the key is added before the closing
brace) and nothing else moves. The new section uses the file's own line ending (CRLF files stay
CRLF) and a UTF-8 byte-order mark is kept. The new text is validated in memory (syntax, schema,
checks) before anything is written, so a file is never left in a state that no longer validates;
the write itself goes through `mapkit.outputs` (atomic, keeps mode and links, refuses a
read-only file).
"""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any

from mapkit.errors import BoardError, MapkitError, Report
from mapkit.textpatch import DELETE, PatchError, patch_text  # noqa: F401  (DELETE: for callers)

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


def splice_section(text: str, key: str, value: Any, newline: str = "\n") -> str:
    """The file's text with one top-level key set to value, everything else untouched; the new
    lines end with `newline` (the file's own)."""
    spans = top_level_spans(text)
    formatted = format_value(key, value, 1).replace("\n", newline)
    if key in spans:
        start, end = spans[key]
        return text[:start] + formatted + text[end:]
    close = text.rstrip().rfind("}")
    body = text[:close].rstrip()
    sep = "," if spans else ""
    return body + f"{sep}{newline}  {json.dumps(key)}: {formatted}{newline}" + text[close:]


def line_ending(text: str) -> str:
    """The file's line ending: CRLF when every line break is one, else LF."""
    return "\r\n" if "\r\n" in text and text.count("\n") == text.count("\r\n") else "\n"


def validate_text(text: str, source: str) -> Report:
    """The three gates on a board's text in memory (nothing is read from or written to disk)."""
    from mapkit import checks
    from mapkit.boardfile import build_board, schema_problems
    from mapkit.errors import ERROR, Problem, sort_problems

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return Report(source, [Problem(ERROR, "json-syntax", f"invalid JSON: {exc.msg.lower()}",
                                       f"{exc.lineno}:{exc.colno}", source=source)])
    problems = schema_problems(data, source)
    if problems:
        return Report(source, sort_problems(problems))
    return Report(source, checks.problems(build_board(data, source)))


def _read_text(path: Path, source: str) -> tuple[bytes, str]:
    """A board file's UTF-8 byte-order mark (kept on write) and its text."""
    from mapkit.boardfile import MAX_FILE_BYTES
    from mapkit.inputs import read_input

    raw = read_input(path, MAX_FILE_BYTES, "board file")  # a regular file, bounded like the board reader's
    bom = codecs.BOM_UTF8 if raw.startswith(codecs.BOM_UTF8) else b""
    try:
        return bom, raw[len(bom):].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MapkitError(f"{source}: not UTF-8 text (byte {exc.start}); nothing was written")


def write_section(path: Path, key: str, value: Any, source: str | None = None) -> Report:
    """Set one top-level section of a board file in place, keeping BOM, line endings, mode and
    links. Raises BoardError (nothing written) when the new text would not validate; returns the
    new text's report (warnings) otherwise."""
    from mapkit.outputs import atomic_write_bytes, check_output

    source = source or str(path)
    check_output(path)  # a read-only file is refused before any work
    bom, text = _read_text(path, source)
    new = splice_section(text, key, value, line_ending(text))
    report = validate_text(new, source)
    if not report.valid:
        raise BoardError(source, report.problems)
    atomic_write_bytes(path, bom + new.encode("utf-8"))
    return report


def write_patches(path: Path, changes: dict, source: str | None = None, gate: str = "valid") -> Report:
    """Change values at JSON paths of a board file in place (`mapkit.textpatch.patch_text`): only
    those characters change; BOM, line endings, mode and links are kept. Returns the new text's
    report. Raises MapkitError when a path cannot be changed, and BoardError (nothing written) when
    the new text fails the gate: "valid" (the default: no errors at all) or "schema" (JSON syntax
    and schema only: the editor moves stations of a board that still has geometry errors, which
    is how a designer fixes them)."""
    from mapkit.outputs import atomic_write_bytes, check_output

    source = source or str(path)
    check_output(path)
    bom, text = _read_text(path, source)
    try:
        new = patch_text(text, changes)
    except PatchError as exc:
        raise MapkitError(f"{source}: {exc}; nothing was written")
    report = validate_text(new, source)
    if gate not in ("valid", "schema"):
        raise ValueError(f"unknown gate {gate!r}")
    failed = not report.valid if gate == "valid" else any(p.code in ("json-syntax", "schema") for p in report.problems)
    if failed:
        raise BoardError(source, report.problems)
    if new != text:
        atomic_write_bytes(path, bom + new.encode("utf-8"))
    return report
