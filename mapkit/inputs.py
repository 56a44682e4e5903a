"""Reading the files a user names: only regular files, never more than a stated bound.

`open_input` opens a file for reading without ever waiting: a FIFO (named pipe), a device
(`/dev/zero`, a terminal), a socket or a folder is refused, as is a symbolic link that loops. The
type is read from the opened file itself, so it cannot change between the check and the read.
`read_input` reads at most `limit` bytes of one and refuses a bigger file; the size the file system
reports is not trusted (`/proc` files say 0, a file may grow while it is read). Readers that
stream (a GTFS feed's members) open with `open_input` and bound what they read themselves.

Failures are `InputError` (exit 1): its `reason` says what is wrong and what to do, its `code` is
the board file's problem code for the same fault (`not-found`, `not-a-file`, `unreadable`,
`too-large`), its `kind` what a `not-a-file` is ('a folder', 'a FIFO (named pipe)'…).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from mapkit.errors import MapkitError


class InputError(MapkitError):
    """A file named as an input cannot be read: missing, not a regular file, unreadable, too big."""

    exit_code = 1

    def __init__(self, path: Path, code: str, reason: str, kind: str = ""):
        self.path, self.code, self.reason, self.kind = Path(path), code, reason, kind
        super().__init__(f"{path}: {reason}")


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def kind_of(mode: int) -> str:
    """What a file of this st_mode is, in words: 'a FIFO (named pipe)', 'a regular file'…"""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def size_text(limit: int) -> str:
    """A byte count as people write it: 20 MiB, 1 GiB, 64 KiB."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if limit >= size and limit % size == 0:
            return f"{limit // size} {unit}"
    return f"{limit} bytes"


def open_input(path: Path, what: str = "file") -> BinaryIO:
    """The regular file at path, open for binary reading; InputError for anything else.
    `what` names the file in messages ('board file', 'pairs file')."""
    path = Path(path)
    try:
        # O_NONBLOCK: opening a FIFO that no program writes to returns at once instead of waiting
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise InputError(path, "not-found", f"no such file; give the path of a {what}")
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(path, "not-a-file", f"the symbolic link loops back on itself; point it to a {what}")
        if exc.errno == errno.ENXIO:
            raise InputError(path, "not-a-file", f"is a socket, not a {what}; mapkit reads only regular files")
        raise InputError(path, "unreadable", f"cannot read the file: {exc.strerror or exc}")
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = kind_of(mode)
            hint = "give a file's path" if stat.S_ISDIR(mode) else "save it to a file and give that file's path"
            raise InputError(path, "not-a-file", f"is {kind}, not a {what}; mapkit reads only regular files: {hint}",
                             kind)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input(path: Path, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file at path, at most `limit` of them: a bigger file is an
    InputError (at most limit + 1 bytes are ever read, whatever the file claims its size is)."""
    with open_input(path, what) as handle:
        try:
            raw = handle.read(limit + 1)
        except OSError as exc:
            raise InputError(path, "unreadable", f"cannot read the file: {exc.strerror or exc}")
    if len(raw) > limit:
        raise InputError(path, "too-large", f"file is larger than {size_text(limit)}, the most a {what} may be")
    return raw
