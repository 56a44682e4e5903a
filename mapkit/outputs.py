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

No output may be one of the command's inputs (`refuse_input_paths`): paths are compared after
resolving links, and by inode (`os.path.samefile`) when both exist, which catches hard links.

Failures are `OutputError` (exit 1) naming the path; bad choices of path are `UsageError` (exit 2).
"""

from __future__ import annotations

import contextlib
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


def check_output(path: Path) -> None:
    """Refuse, before any work is done, an output path that cannot or must not be replaced."""
    path = Path(path)
    target = target_of(path)
    if target.is_dir():
        raise UsageError(f"{path} is a folder; give a file name")
    try:
        st = target.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_reason(exc)}")
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


def _commit(tmp: str, target: Path) -> None:
    try:
        st = target.stat()
    except FileNotFoundError:
        st = None
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


@contextlib.contextmanager
def atomic_output(path: Path) -> Iterator[Path]:
    """A temporary path beside `path` for a writer that streams (matplotlib's PdfPages, savefig);
    on a clean exit it replaces `path`, on any error it is removed and `path` is left as it was."""
    path = Path(path)
    check_output(path)
    target = target_of(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=str(target.parent), prefix=f".{target.name}.", suffix=".tmp")
        os.close(fd)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_reason(exc)}")
    try:
        yield Path(tmp)
        _fsync(tmp)
        _commit(tmp, target)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_reason(exc)}; the previous file, if any, is unchanged") from exc
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
        for name in names:
            tmp = os.path.join(stage, name)
            _fsync(tmp)
            _commit(tmp, target_of(out_dir / name))
    except OSError as exc:
        raise OutputError(f"cannot write into {out_dir}: {_reason(exc)}; the previous files are unchanged") from exc
    finally:
        shutil.rmtree(stage, ignore_errors=True)
