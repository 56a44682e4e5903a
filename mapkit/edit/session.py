"""One board file being edited: what is on disk, its problems, the last good drawing, writes and undo.

The file on disk is the truth. The session reads it whole (bytes, then the three gates of
`mapkit.validate`), remembers its SHA-256, and a watcher thread notices any change made by another
editor within a quarter of a second. Every write names the hash the page last loaded; when the file
on disk has another, the write is refused (`StaleError`) and the page reloads, so an edit made
elsewhere is never lost. A write replaces only the values it moves (`mapkit.writer.write_patches`:
the rest of the file stays byte for byte, BOM and line endings too) and goes through
`mapkit.outputs` (a temporary file, then a rename; mode and links kept; a read-only file refused).

A board that does not load (bad JSON, schema errors) keeps the last good drawing on show with its
problems. Moves are written even when they make a problem (a station dragged onto another): the
designer sees the problem drawn at once and can undo; refusing the write would make the editor
unable to pass through an awkward intermediate state.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from mapkit.errors import MapkitError, Report
from mapkit.geometry import Layout
from mapkit.model import Board

WATCH_INTERVAL_S = 0.25   # how often the file's stat is compared: a change shows within ~1 s
HISTORY = 200             # undo steps kept


class StaleError(MapkitError):
    """The file changed on disk since the page loaded it: nothing was written."""


class RefusedError(MapkitError):
    """A write the editor will not make (read-only board, a board that does not load, bad request)."""


@dataclass
class Snapshot:
    """The file as last read: its bytes' hash, its problems and, when it loads, the board."""

    version: int
    digest: str                  # sha256 hex of the file's bytes ("" when it cannot be read)
    report: Report
    board: Board | None
    data: Any = None             # the parsed JSON (also of a board that fails the schema), or None
    read_at: float = 0.0


@dataclass
class Drawing:
    """The drawing on show: of the last snapshot whose board loaded."""

    version: int
    board: Board
    layout: Layout
    svg: str
    labels: str = "quick"        # "quick" (each name on its preferred side) or "carried" (the last print's
                                 # labels, those the change touched placed again) until the print's
                                 # drawing of this version is ready, then "print"
    seconds: float = 0.0         # time to compute the quick drawing
    print_cpu_s: float = 0.0     # CPU time the drawing process spent on the print drawing


@dataclass
class Step:
    """One undoable write: each changed JSON path with its value before and after (DELETE when absent)."""

    what: str
    before: dict
    after: dict
    digest_after: str = ""


@dataclass
class Session:
    path: Path
    source: str
    read_only: str = ""                      # why writes are refused ("" when they are allowed)
    print_labels: bool = True                # compute the print's label placement in the background
    on_change: list = field(default_factory=list)

    def __post_init__(self):
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.rev = 0                          # bumped on anything the page should redraw for
        self.snapshot: Snapshot | None = None
        self.drawing: Drawing | None = None
        self.undo_steps: list[Step] = []
        self.redo_steps: list[Step] = []
        self.history_note = ""                # why the history was cleared, until the next step
        self._stat = None
        self._stop = threading.Event()
        self._print_wanted: tuple | None = None
        self._print_lock = threading.Lock()
        self._print_ready = threading.Event()
        self._print_done: tuple | None = None  # (version, digest, reply) of a print drawing made before its quick one
        self._print_asked = ""                 # the file hash the print drawing was last asked for
        self.last_print = None                 # svg.LastPrint: the labels of the last print drawing
        self.print_error = ""                 # why the print drawing could not be made, if it failed
        self.refresh(force=True)

    # ------------------------------------------------------------ reading

    def _read(self) -> bytes | None:
        try:
            return self.path.read_bytes()
        except OSError:
            return None

    def refresh(self, force: bool = False, known: tuple | None = None) -> bool:
        """Read the file again; True when its content changed (a new version). known: (bytes,
        report) of a text the editor has just written and checked (`write_patches` ran the three
        gates on it): when the file holds exactly those bytes, the gates are not run again."""
        from mapkit import checks
        from mapkit.boardfile import parse_board
        from mapkit.errors import sort_problems

        with self.lock:
            for _ in range(5):  # a writer may be halfway: read until the bytes hold still
                raw = self._read()
                digest = hashlib.sha256(raw).hexdigest() if raw is not None else ""
                if not force and self.snapshot is not None and digest == self.snapshot.digest:
                    self._stat = self._stat_now()
                    return False
                if known is not None and raw == known[0]:
                    break
                board, _, problems = parse_board(self.path, self.source)  # validate's gates 1 and 2
                again = self._read()
                if again == raw:
                    break
            data = None
            if raw is not None:
                try:
                    data = json.loads(raw.decode("utf-8-sig"))
                except (ValueError, RecursionError):
                    data = None
            version = (self.snapshot.version + 1) if self.snapshot else 1
            checked = known[1] if known is not None and raw == known[0] else None
            if checked is None and (self.undo_steps or self.redo_steps):
                # changed by another editor: replaying a step now could overwrite that change, so
                # the history goes, and the page says so (rather than refusing the next undo)
                self.undo_steps, self.redo_steps = [], []
                self.history_note = ("the file was changed outside the editor, so undo and redo were cleared "
                                     "(replaying a step could overwrite that change)")
            if checked is not None:  # the gates passed on these bytes a moment ago: only build the board
                from mapkit.boardfile import build_board, whole_numbers
                board = build_board(whole_numbers(data), self.source)
            if board is not None and self.print_labels and self._print_asked != digest:
                # the print drawing starts now, in its own process, while this one runs the checks
                self._ask_print(version, data, digest)
            # validate's gate 3 (`mapkit.validate.validate_file` runs the same, in this order)
            report = checked or Report(self.source, checks.problems(board) if board is not None
                                       else sort_problems(problems))
            self.snapshot = Snapshot(version, digest, report, board, data, time.time())
            self._stat = self._stat_now()
            if board is not None:
                self._redraw(version, board)
            self._bump()
            return True

    def _redraw(self, version: int, board: Board) -> None:
        from mapkit.edit.svg import board_svg

        t = time.perf_counter()
        layout = Layout(board)
        svg = board_svg(board, layout, last=self.last_print if self.print_labels else None)
        self.drawing = Drawing(version, board, layout, svg, "carried" if self.last_print and self.print_labels
                               else "quick", time.perf_counter() - t)
        done = self._print_done
        if done is not None and done[:2] == (version, self.snapshot.digest):  # the print drawing came first
            self._print_arrived(self.drawing, done[2])

    def _ask_print(self, version: int, data, digest: str) -> None:
        with self._print_lock:
            self._print_wanted = (version, data, digest)
            self._print_asked = digest
        self._print_ready.set()

    def _print_arrived(self, drawing: Drawing, reply: dict) -> None:
        from mapkit.edit.svg import last_print

        drawing.svg, drawing.labels = reply["svg"], "print"
        drawing.print_cpu_s = reply.get("cpu_s", 0.0)
        self.print_error = ""
        self.last_print = last_print(reply["placement"], drawing.layout)

    def _bump(self) -> None:
        self.rev += 1
        self.changed.notify_all()
        for fn in self.on_change:
            fn()

    def _stat_now(self):
        try:
            st = os.stat(self.path)
            return (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            return None

    # ------------------------------------------------------------ background threads

    def start(self) -> None:
        threading.Thread(target=self._watch, name="mapkit-edit-watch", daemon=True).start()
        if self.print_labels:
            threading.Thread(target=self._print_worker, name="mapkit-edit-print", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()
        self._print_ready.set()

    def _watch(self) -> None:
        while not self._stop.wait(WATCH_INTERVAL_S):
            if self._stat_now() != self._stat:
                try:
                    self.refresh()
                except Exception:  # noqa: BLE001 - the watcher must outlive one bad read
                    time.sleep(WATCH_INTERVAL_S)

    def _print_worker(self) -> None:
        """Make the print drawing of the newest version in a child process (`edit.worker`): the
        print's label placement is seconds of CPU and must not hold up the server's threads while
        the designer keeps dragging. A result for an older version is dropped."""
        from mapkit.edit.worker import Worker

        worker = Worker()
        try:
            while not self._stop.is_set():
                self._print_ready.wait()
                self._print_ready.clear()
                with self._print_lock:  # not self.lock: the checks of this same version hold it meanwhile
                    wanted, self._print_wanted = self._print_wanted, None
                if wanted is None or self._stop.is_set():
                    continue
                version, data, digest = wanted
                reply = worker.draw(json.dumps(data), digest[:8], self.source)
                with self.lock:
                    # a drawing asked for before its write was checked counts only if the write
                    # went ahead: the file then holds exactly those bytes (and that version)
                    current = self.snapshot is not None and (self.snapshot.version, self.snapshot.digest) == (version, digest)
                    if "error" in reply:
                        if current:
                            self.print_error = f"the print's label placement failed ({reply['error']})"
                            self._bump()
                    elif current and self.drawing is not None and self.drawing.version == version:
                        self._print_arrived(self.drawing, reply)
                        self._bump()
                    elif self.snapshot is None or self.snapshot.version < version:
                        self._print_done = (version, digest, reply)
        finally:
            worker.close()

    def wait(self, since: int, timeout: float) -> int:
        """Block until rev differs from since (or timeout); the rev then."""
        with self.changed:
            self.changed.wait_for(lambda: self.rev != since or self._stop.is_set(), timeout=timeout)
            return self.rev

    # ------------------------------------------------------------ writing

    def check_writable(self, page_digest: str) -> tuple[bytes, str]:
        """The file's bytes now, after checking that a write may go ahead."""
        if self.read_only:
            raise RefusedError(self.read_only)
        raw = self._read()
        if raw is None:
            raise RefusedError(f"cannot read {self.source} any more; nothing was written")
        digest = hashlib.sha256(raw).hexdigest()
        if digest != page_digest:
            self.refresh()
            raise StaleError(f"{self.source} changed on disk since the page loaded it; nothing was written "
                             "and the page shows the file as it is now")
        return raw, digest

    def write(self, changes: dict, page_digest: str, what: str, record: bool = True) -> Step:
        """Patch the file in place: only the values at these JSON paths change
        (`writer.write_patches` with the schema gate: a move may leave geometry problems, which
        the page then draws, but never a file that does not load)."""
        from mapkit.errors import BoardError
        from mapkit.writer import write_patches

        with self.lock:
            raw, _ = self.check_writable(page_digest)
            if self.snapshot.board is None or self.snapshot.data is None:
                raise RefusedError(f"{self.source} does not load (see the problems); fix it in your editor first")
            before = {p: value_at(self.snapshot.data, p) for p in changes}
            expected = _patched(raw, changes)
            if expected is not None and self.print_labels:
                # the print drawing of the new text starts before write_patches checks it (its
                # result is dropped if the write is refused): a drag's drawing sooner by the checks
                try:
                    self._ask_print(self.snapshot.version + 1, json.loads(expected.decode("utf-8-sig")),
                                    hashlib.sha256(expected).hexdigest())
                except ValueError:
                    pass
            try:
                report = write_patches(self.path, changes, self.source, gate="schema")
            except BoardError as exc:
                self._print_asked = ""  # not written: the next version asks again
                first = exc.problems[0].format() if exc.problems else str(exc)
                raise RefusedError(f"not written: the change would break the file ({first})")
            except BaseException:
                self._print_asked = ""
                raise
            self.refresh(known=(expected, report))
            step = Step(what, before, dict(changes), self.snapshot.digest)
            if record:
                self.undo_steps = (self.undo_steps + [step])[-HISTORY:]
                self.redo_steps = []
                self.history_note = ""
            return step

    def _replay(self, source: list, target: list, values: Callable[[Step], dict], page_digest: str, word: str) -> Step:
        with self.lock:
            if not source:
                raise RefusedError(f"nothing to {word}")
            step = source[-1]
            self.check_writable(page_digest)  # a page behind the file reloads first
            if step.digest_after != page_digest:
                source.clear()
                raise RefusedError(f"the file changed outside the editor since that step, so it cannot {word} it "
                                   "safely; the history was cleared")
            source.pop()
            done = self.write(values(step), page_digest, f"{word} {step.what}", record=False)
            target.append(Step(step.what, step.before, step.after, done.digest_after))
            return target[-1]

    def undo(self, page_digest: str) -> Step:
        return self._replay(self.undo_steps, self.redo_steps, lambda s: s.before, page_digest, "undo")

    def redo(self, page_digest: str) -> Step:
        return self._replay(self.redo_steps, self.undo_steps, lambda s: s.after, page_digest, "redo")


def _patched(raw: bytes, changes: dict) -> bytes | None:
    """The bytes `write_patches` writes for these changes (its BOM kept, the text patched), or
    None when they cannot be told (the refresh then runs the gates itself)."""
    import codecs

    from mapkit.textpatch import PatchError, patch_text

    bom = codecs.BOM_UTF8 if raw.startswith(codecs.BOM_UTF8) else b""
    try:
        return bom + patch_text(raw[len(bom):].decode("utf-8"), changes).encode("utf-8")
    except (UnicodeDecodeError, PatchError):
        return None


def value_at(data: Any, path: tuple):
    """The value at a JSON path in parsed data, or writer.DELETE when it is absent (so undo removes
    a key the move added)."""
    from mapkit.writer import DELETE

    cur = data
    for part in path:
        if isinstance(cur, dict) and isinstance(part, str) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur):
            cur = cur[part]
        else:
            return DELETE
    return cur

