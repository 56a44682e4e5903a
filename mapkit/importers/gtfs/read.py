"""Reading a GTFS feed (a zip or a folder) row by row, only the columns asked for.

Why the stdlib csv reader here and partridge only for the service calendar (see
docs/design/import.md): stop_times.txt has millions of rows in a city's feed; partridge and gtfs-kit
load every column of it into pandas (gigabytes) and report a broken row as a pandas exception
without its line. Streaming keeps memory to what the selected trips need and every problem names
`file:line`. The service calendar (calendar.txt with its weekday flags and date ranges,
calendar_dates.txt with additions and removals) is small, and easy to get subtly wrong: that part
is partridge's (`service.py`).

Tolerated as real feeds do: a UTF-8 byte-order mark, spaces around header names and values, blank
lines, CRLF line endings, files inside one subfolder of the zip, optional files missing.
"""

from __future__ import annotations

import csv
import io
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from mapkit.errors import MapkitError

REQUIRED_FILES = ("agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt")
MAX_PROBLEMS = 20  # a broken export repeats its fault on every row; the first ones say enough


class FeedError(MapkitError):
    """The feed cannot be read: a missing file or column, broken rows (each with file:line)."""

    exit_code = 1

    def __init__(self, problems: list[str]):
        self.problems = problems
        more = ""
        if len(problems) > MAX_PROBLEMS:
            more = f"\n... and {len(problems) - MAX_PROBLEMS} more"
        super().__init__("\n".join(problems[:MAX_PROBLEMS]) + more)


@dataclass(frozen=True)
class Column:
    """A column to read: its name, whether the file must have it, whether every row must have a
    value in it, and how to check that value (returns an error text or None)."""

    name: str
    required: bool = True
    nonempty: bool = True
    check: object = None


def as_int(value: str) -> str | None:
    try:
        int(value)
    except ValueError:
        return f"'{value}' is not a whole number"
    return None


def as_float(value: str) -> str | None:
    try:
        float(value)
    except ValueError:
        return f"'{value}' is not a number"
    return None


class Feed:
    """A GTFS feed on disk, a zip file or a folder; `rows` streams one file."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.label = str(path)
        if not self.path.exists():
            raise FeedError([f"{path}: no such file or folder; give a GTFS zip file or a folder of GTFS .txt files"])
        self._zip = None
        self._names: dict[str, str] = {}
        if self.path.is_dir():
            for name in os.listdir(self.path):
                if name.endswith(".txt") and (self.path / name).is_file():
                    self._names[name.lower()] = name
        else:
            try:
                self._zip = zipfile.ZipFile(self.path)
            except (zipfile.BadZipFile, OSError) as exc:
                raise FeedError([f"{path}: not a zip file ({exc}); give a GTFS zip file or a folder of GTFS .txt files"])
            members = [m for m in self._zip.namelist() if m.endswith(".txt") and not m.startswith("__MACOSX")]
            # some agencies zip the folder itself: accept one level of subfolder
            tops = [m for m in members if "/" not in m]
            if not tops:
                folders = {m.split("/")[0] for m in members if m.count("/") == 1}
                if len(folders) == 1:
                    tops = [m for m in members if m.count("/") == 1]
            for m in tops:
                self._names[m.rsplit("/", 1)[-1].lower()] = m
        missing = [f for f in REQUIRED_FILES if f not in self._names]
        if "calendar.txt" not in self._names and "calendar_dates.txt" not in self._names:
            missing.append("calendar.txt or calendar_dates.txt")
        if missing:
            raise FeedError([f"{path}: not a complete GTFS feed: missing {', '.join(missing)} (a feed needs "
                             f"{', '.join(REQUIRED_FILES)} and a calendar)"])

    def has(self, name: str) -> bool:
        return name in self._names

    def where(self, name: str) -> str:
        """How a file of the feed is named in messages."""
        return f"{self.label}/{self._names.get(name, name)}" if self._zip is None else f"{self.label}:{self._names.get(name, name)}"

    def open_binary(self, name: str):
        member = self._names[name]
        if self._zip is not None:
            return self._zip.open(member)
        return open(self.path / member, "rb")

    def rows(self, name: str, columns: list[Column]) -> Iterator[tuple[int, dict]]:
        """(line number, {column: value}) for each row, values stripped, '' when absent.

        Raises FeedError listing every broken row (up to MAX_PROBLEMS shown) after the whole file
        was read, so one run shows them all."""
        if name not in self._names:
            return
        where = self.where(name)
        problems: list[str] = []
        with self.open_binary(name) as raw:
            text = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
            reader = csv.reader(text)
            try:
                header = next(reader, None)
            except (UnicodeDecodeError, csv.Error) as exc:
                raise FeedError([f"{where}:1: cannot read the header: {exc}"])
            if header is None:
                if any(c.required for c in columns):
                    raise FeedError([f"{where}: the file is empty; it needs a header with "
                                     f"{', '.join(c.name for c in columns if c.required)}"])
                return
            header = [h.strip().lstrip("\ufeff") for h in header]
            index = {h: i for i, h in enumerate(header)}
            lacking = [c.name for c in columns if c.required and c.name not in index]
            if lacking:
                raise FeedError([f"{where}:1: no column {', '.join(repr(c) for c in lacking)} (the header has "
                                 f"{', '.join(header)})"])
            wanted = [(c, index.get(c.name)) for c in columns]
            width = len(header)
            while True:
                try:
                    row = next(reader)
                except StopIteration:
                    break
                except UnicodeDecodeError as exc:
                    problems.append(f"{where}:{reader.line_num + 1}: not UTF-8 text ({exc.reason}); save the file as UTF-8")
                    break
                except csv.Error as exc:
                    problems.append(f"{where}:{reader.line_num}: broken CSV: {exc}")
                    break
                line = reader.line_num
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                if len(row) != width:
                    # a trailing empty field is what many exporters add; only missing or extra values count
                    if not (len(row) == width + 1 and not row[-1].strip()):
                        problems.append(f"{where}:{line}: {len(row)} values, but the header names {width} columns")
                        continue
                values = {}
                bad = False
                for col, i in wanted:
                    v = row[i].strip() if i is not None and i < len(row) else ""
                    if not v:
                        if col.nonempty and col.required:
                            problems.append(f"{where}:{line}: {col.name} is empty")
                            bad = True
                    elif col.check is not None:
                        err = col.check(v)
                        if err:
                            problems.append(f"{where}:{line}: {col.name} {err}")
                            bad = True
                    values[col.name] = v
                if not bad and not problems:
                    yield line, values
        if problems:
            raise FeedError(problems)

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
