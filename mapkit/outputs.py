"""Writing files without losing what was there: the one place mapkit writes to the filesystem.

Every output goes to a temporary file in the target's own folder and is renamed over the target
(`os.replace`) only once it is complete and on disk, so a full disk, a kill or an exception leaves
the previous file as it was and no partial file behind. Replacing an existing file keeps what
its owner set on it:

- its permission bits (a fresh temporary file is 0600; a new file gets 0666 minus the umask, as
  `open()` would have given it), and its owner and group when we may set them;
- a symbolic link stays a link: the write goes to the file it points to (the link is the user's
  way of saying where the data lives);
- a hard link stays linked: renaming would detach this name from the file's other names, so the
  complete temporary copy (which proves the disk has room) is copied into the same inode, and the
  old bytes are written back if that copy fails;
- a file whose owner has no write bit is refused: the user protected it. Root ignores mode bits,
  so the bits are read here instead of relying on the kernel's refusal.

Only regular files are replaced. An output that is a character device or a FIFO (`/dev/null`, a
terminal, a named pipe a program reads from) is streamed to instead: the complete output is
staged in the system's temporary folder, then written into the device or pipe, which stays what it
was; a FIFO that no program reads from is refused at once rather than waited on. Any other kind of
file (a block device, a socket) and a symbolic link that loops are refused. A write that fails
because the disk is full is reported as such even when the library that was writing fails
differently on the way out (matplotlib's PDF writer raises a zlib error after the disk's).

No output may be one of the command's inputs (`refuse_input_paths`): paths are compared after
resolving links, and by inode (`os.path.samefile`) when both exist, which catches hard links.

Failures are `OutputError` (exit 1) naming the path; bad choices of path are `UsageError` (exit 2).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

from mapkit.errors import MapkitError, UsageError


class OutputError(MapkitError):
    """An output file could not be written (full disk, read-only folder, protected file)."""

    exit_code = 1


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def target_of(path: Path) -> Path:
    """Where writing `path` really writes: through any symbolic links (also a dangling one)."""
    return Path(os.path.realpath(path))


def _umask() -> int:
    # the only portable way to read the umask is to set it and put it back
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _existing(path: Path) -> os.stat_result | None:
    """What is at path, through links; None when nothing is (a dangling link included)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UsageError(f"{path} is a symbolic link that loops back on itself; choose another output")
        raise OutputError(f"cannot write {path}: {_reason(exc)}")


def _streamed(st: os.stat_result | None) -> bool:
    """A device or FIFO: written into, never replaced."""
    return st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode))


def check_output(path: Path) -> None:
    """Refuse, before any work is done, an output path that cannot or must not be replaced."""
    from mapkit.inputs import kind_of

    path = Path(path)
    st = _existing(path)
    if st is None or _streamed(st):
        return
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{path} is a folder; give a file name")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{path} is {kind_of(st.st_mode)}; mapkit writes only regular files (or into a device or "
                         f"FIFO): choose another output")
    if not st.st_mode & stat.S_IWUSR:
        raise OutputError(f"{path} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); mapkit will not replace a "
                          f"protected file: make it writable (chmod u+w {path}) or choose another output")


def refuse_input_paths(outputs: Iterable[Path], inputs: Iterable[Path], what: str = "--out",
                       given: str | None = None) -> None:
    """UsageError when an output would replace an input (same path after links, or same file).
    `given` is what the option names, for the hint: "folder" (the default for --out, whose files
    are written into it) or "file"."""
    given = given or ("folder" if what == "--out" else "file")
    inputs = [Path(p) for p in inputs]
    for out in outputs:
        out = Path(out)
        for src in inputs:
            same = target_of(out) == target_of(src)
            if not same and out.exists() and src.exists():
                try:
                    same = os.path.samefile(out, src)
                except OSError:
                    same = False
            if same:
                raise UsageError(f"{what}: writing {out} would overwrite the input {src}; "
                                 f"choose another {given}")


def make_folder(path: Path) -> None:
    """mkdir -p, with a clean message when it cannot be made."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UsageError(f"{path} is a file, not a folder; give a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the folder {path}: {_reason(exc)}")


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _copy_into(tmp: str, target: Path) -> None:
    """Put tmp's bytes into target's own inode (a hard-linked file), restoring it on failure."""
    new = Path(tmp).read_bytes()
    old = target.read_bytes()
    try:
        with open(target, "r+b") as f:
            f.write(new)
            f.truncate()
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        try:
            with open(target, "r+b") as f:
                f.write(old)
                f.truncate()
        except OSError:
            kept = target.with_name(target.name + ".mapkit-new")
            with contextlib.suppress(OSError):
                shutil.copyfile(tmp, kept)
            raise OutputError(f"cannot write {target}: {_reason(exc)}; it may be damaged — the complete new "
                              f"content is in {kept}")
        raise OutputError(f"cannot write {target}: {_reason(exc)}; it was left as it was")


def _stream_into(tmp: str, path: Path) -> None:
    """Write tmp's bytes into the device or FIFO at path, which stays what it is."""
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        # O_NONBLOCK: opening a FIFO that no program reads from fails at once (ENXIO) instead of waiting
        fd = os.open(path, flags | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OutputError(f"cannot write {path}: no program is reading from this FIFO; start the reader first "
                              f"(for example `cat {path} &`) and run the command again")
        raise
    with os.fdopen(fd, "wb") as dst:
        if not _streamed(os.fstat(fd)):
            raise OutputError(f"{path} was replaced while mapkit was writing it; nothing was written")
        os.set_blocking(fd, True)
        with open(tmp, "rb") as src:
            shutil.copyfileobj(src, dst)


def _commit(tmp: str, target: Path) -> None:
    st = _existing(target)
    if st is not None and not stat.S_ISREG(st.st_mode):
        # it was a regular file (or nothing) when check_output looked: never rename over anything else
        raise OutputError(f"{target} is no longer a regular file; it was not replaced")
    if st is not None and st.st_nlink > 1:
        _copy_into(tmp, target)
        os.unlink(tmp)
        return
    if st is None:
        os.chmod(tmp, 0o666 & ~_umask())
    else:
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if hasattr(os, "chown") and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
            with contextlib.suppress(OSError):  # only root may give a file away; keep ours otherwise
                os.chown(tmp, st.st_uid, st.st_gid)
    os.replace(tmp, target)
    with contextlib.suppress(OSError):  # make the rename itself durable where the platform allows
        _fsync(str(target.parent))


_DISK_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS}


def _write_failure(exc: BaseException) -> OSError | None:
    """The OSError a write failed with: exc itself, or a full disk (or a like fault) that the
    writing library met before it failed some other way on the way out."""
    if isinstance(exc, OSError):
        return exc
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, OSError) and exc.errno in _DISK_ERRNOS:
            return exc
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


@contextlib.contextmanager
def atomic_output(path: Path) -> Iterator[Path]:
    """A temporary path for a writer that streams (matplotlib's PdfPages, savefig); on a clean
    exit it replaces `path` (or is written into it, a device or FIFO), on any error it is removed
    and `path` is left as it was."""
    path = Path(path)
    check_output(path)
    stream = _streamed(_existing(path))
    target = target_of(path)
    folder = tempfile.gettempdir() if stream else str(target.parent)
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
        os.close(fd)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_reason(exc)}")
    try:
        yield Path(tmp)
        if stream:
            _stream_into(tmp, path)
        else:
            _fsync(tmp)
            _commit(tmp, target)
    except MapkitError:
        raise
    except Exception as exc:
        failure = _write_failure(exc)
        if failure is None:
            raise
        kept = "" if stream else "; the previous file, if any, is unchanged"
        raise OutputError(f"cannot write {path}: {_reason(failure)}{kept}") from exc
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace path's content with data, atomically, keeping its mode and links."""
    with atomic_output(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)


def atomic_write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    """atomic_write_bytes of the text, with its line endings exactly as given."""
    atomic_write_bytes(path, text.encode(encoding))


@contextlib.contextmanager
def staged_folder(out_dir: Path) -> Iterator[Path]:
    """A temporary folder inside out_dir for a writer that writes several files by name
    (write_report); on a clean exit each file is moved over its namesake in out_dir as
    atomic_output would, on error nothing in out_dir changes."""
    out_dir = Path(out_dir)
    make_folder(out_dir)
    try:
        stage = tempfile.mkdtemp(dir=str(out_dir), prefix=".mapkit-")
    except OSError as exc:
        raise OutputError(f"cannot write into {out_dir}: {_reason(exc)}")
    try:
        yield Path(stage)
        names = sorted(os.listdir(stage))
        for name in names:
            check_output(out_dir / name)
        # a device or FIFO first: one that cannot be written (a FIFO nobody reads) fails before any rename
        names.sort(key=lambda name: not _streamed(_existing(out_dir / name)))
        for name in names:
            tmp = os.path.join(stage, name)
            if _streamed(_existing(out_dir / name)):
                _stream_into(tmp, out_dir / name)
                continue
            _fsync(tmp)
            _commit(tmp, target_of(out_dir / name))
    except MapkitError:
        raise
    except Exception as exc:
        failure = _write_failure(exc)
        if failure is None:
            raise
        raise OutputError(f"cannot write into {out_dir}: {_reason(failure)}; the previous files are unchanged") from exc
    finally:
        shutil.rmtree(stage, ignore_errors=True)
