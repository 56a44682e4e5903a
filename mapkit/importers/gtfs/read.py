"""Reading a GTFS feed (a zip or a folder) row by row, only the columns asked for.

Why the stdlib csv reader here and partridge only for the service calendar (see
docs/design/import.md): stop_times.txt has millions of rows in a city's feed; partridge and gtfs-kit
load every column of it into pandas (gigabytes) and report a broken row as a pandas exception
without its line. Streaming keeps memory to what the selected trips need and every problem names
`file:line`. The service calendar (calendar.txt with its weekday flags and date ranges,
calendar_dates.txt with additions and removals) is small, and easy to get subtly wrong: that part
is partridge's (`service.py`).

Tolerated as real feeds do: a UTF-8 byte-order mark, spaces around header names and values, blank
lines, CRLF line endings, files inside one subfolder of the zip, optional files missing; a control
character in a value (a tab in a stop's name) is read as a space.

Bounded whatever the feed holds: the feed is a regular zip file or a folder (a FIFO or a device is
refused without waiting), each of its files is at most MAX_FILE_BYTES once unzipped (a zip
member's declared size is checked before a byte is unzipped, and zipfile never unzips more than
it declares; a folder's file is counted as it is read), and a line is at most MAX_LINE_BYTES
(a line of padding is refused, not gathered). A damaged zip member (a zlib error, a
bad CRC) is a FeedError naming it.
"""

from __future__ import annotations

import csv
import io
import os
import re
import sys
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from mapkit.errors import MapkitError
from mapkit.inputs import InputError, open_input, size_text

REQUIRED_FILES = ("agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt")
MAX_PROBLEMS = 20  # a broken export repeats its fault on every row; the first ones say enough
# a big city's stop_times.txt is hundreds of MB (about 70 bytes a row: 2 GiB is some 30 million
# stop times); read at about 30 MB/s
MAX_FILE_BYTES = 2 << 30
# control characters (a tab, BEL, ESC…) no board may print (the schema's $defs/text): a space in a value
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]+")
MAX_LINE_BYTES = 64 << 10  # a GTFS row is well under 1 KiB; csv's own field limit is 128 KiB


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
        if not self.path.exists() and not self.path.is_symlink():  # a link that loops is named as such below
            raise FeedError([f"{path}: no such file or folder; give a GTFS zip file or a folder of GTFS .txt files"])
        self._zip = self._handle = None
        self._names: dict[str, str] = {}
        if self.path.is_dir():
            for name in os.listdir(self.path):
                if name.endswith(".txt") and not (self.path / name).is_dir():
                    self._names[name.lower()] = name
        else:
            try:
                handle = open_input(self.path, "GTFS zip file")
            except InputError as exc:
                raise FeedError([str(exc)])
            self._handle = handle
            try:
                self._zip = zipfile.ZipFile(handle)
            except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
                handle.close()
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
            self.close()
            raise FeedError([f"{path}: not a complete GTFS feed: missing {', '.join(missing)} (a feed needs "
                             f"{', '.join(REQUIRED_FILES)} and a calendar)"])

    def has(self, name: str) -> bool:
        return name in self._names

    def where(self, name: str) -> str:
        """How a file of the feed is named in messages."""
        return f"{self.label}/{self._names.get(name, name)}" if self._zip is None else f"{self.label}:{self._names.get(name, name)}"

    def open_binary(self, name: str):
        """One file of the feed, unzipped, as a binary stream of at most MAX_FILE_BYTES; reading
        it raises FeedError (naming it) when it is bigger or damaged."""
        member = self._names[name]
        where = self.where(name)
        if self._zip is not None:
            info = self._zip.getinfo(member)
            if info.file_size > MAX_FILE_BYTES:
                raise FeedError([_too_big(where)])
            try:
                raw = self._zip.open(info)
            except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, OSError) as exc:
                raise FeedError([_damaged(where, exc)])
        else:
            try:
                raw = open_input(self.path / member, "GTFS file")
            except InputError as exc:
                raise FeedError([str(exc)])
        return io.BufferedReader(_Bounded(raw, where), buffer_size=1 << 16)

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
                    if not v.isprintable():  # rare: the regular expression runs only then
                        v = _CONTROLS.sub(" ", v).strip()
                    if not v:
                        if col.nonempty and col.required:
                            problems.append(f"{where}:{line}: {col.name} is empty")
                            bad = True
                    elif col.check is not None:
                        err = col.check(v)
                        if err:
                            problems.append(f"{where}:{line}: {col.name} {err}")
                            bad = True
                    values[col.name] = sys.intern(v)
                if not bad and not problems:
                    yield line, values
        if problems:
            raise FeedError(problems)

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
        if self._handle is not None:
            self._handle.close()


def _too_big(where: str) -> str:
    return (f"{where}: larger than {size_text(MAX_FILE_BYTES)} unzipped, the most mapkit reads of one GTFS file; "
            "cut the feed to the routes of the board (for example with gtfstidy or onebusaway's "
            "GTFS transformer) and import that")


def _damaged(where: str, exc: BaseException) -> str:
    return f"{where}: the file is damaged in the zip ({exc}); download the feed again"


class _Bounded(io.RawIOBase):
    """A feed file's bytes, refused (FeedError) past MAX_FILE_BYTES, at a line longer than
    MAX_LINE_BYTES (checked here, on whole chunks, so no reader ever gathers such a line), or where
    the zip is damaged."""

    def __init__(self, raw, where: str):
        self._raw, self._where, self._count = raw, where, 0
        self._lines, self._run = 0, 0  # line breaks seen; bytes since the last one

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        try:
            n = self._raw.readinto(buffer)
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise FeedError([_damaged(self._where, exc)])
        except OSError as exc:
            raise FeedError([f"{self._where}: cannot read the file ({exc.strerror or exc})"])
        self._count += n
        if self._count > MAX_FILE_BYTES:
            raise FeedError([_too_big(self._where)])
        data = bytes(buffer[:n])
        last = max(data.rfind(b"\n"), data.rfind(b"\r"))
        self._run = self._run + n if last < 0 else n - 1 - last
        if self._run > MAX_LINE_BYTES:
            raise FeedError([f"{self._where}:{self._lines + 1}: a line longer than {size_text(MAX_LINE_BYTES)}; a GTFS "
                             "row is a few hundred bytes at most: is this file a GTFS table?"])
        self._lines += data.count(b"\n")
        return n

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()
