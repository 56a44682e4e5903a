"""One board file being edited: what is on disk, its problems, the last good drawing, writes and undo.

The file on disk is the truth. The session reads it whole (bytes, then the three gates of
`mapkit.validate`), remembers its SHA-256, and a watcher thread notices any change made by another
editor within a quarter of a second. Every write names the hash the page last loaded; when the file
on disk has another, the write is refused (`StaleError`) and the page reloads, so an edit made
elsewhere is never lost. A write replaces only the values it changes (`mapkit.textpatch`: the rest
of the file stays byte for byte, BOM and line endings too), is checked (JSON and schema; a board in
the making passes with its missing counts, see `edit.draft`) and goes through `mapkit.outputs` (a
temporary file, then a rename; mode and links kept; a read-only file refused). Undo and redo write
back the whole bytes a step replaced, so undoing every step gives back the file byte for byte.

A board that does not load (bad JSON, schema errors) keeps the last good drawing on show with its
problems. Moves are written even when they make a problem (a station dragged onto another): the
designer sees the problem drawn at once and can undo; refusing the write would make the editor
unable to pass through an awkward intermediate state.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mapkit.errors import MapkitError, Report
from mapkit.geometry import Layout
from mapkit.model import Board
from mapkit.textpatch import PatchError

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
    draft: bool = False          # a board in the making (edit.draft): drawn and written, not yet valid
    empty: bool = False          # the file holds nothing but white space (the page offers a new board)


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
    """One undoable write: the file's bytes before and after it (undo and redo write them back whole,
    so undoing every step gives back the file byte for byte)."""

    what: str
    before: bytes
    after: bytes
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
        self.problem_age: dict = {}           # problem_key -> the version it first showed in
        self._worker = None                   # edit.worker.Worker of the print drawing, once started
        self.refresh(force=True)

    # ------------------------------------------------------------ reading

    def _read(self) -> bytes | None:
        try:
            return self.path.read_bytes()
        except OSError:
            return None

    def refresh(self, force: bool = False, known: tuple | None = None, ours: bool = False) -> bool:
        """Read the file again; True when its content changed (a new version). known: (bytes,
        board, problems, draft, data) of a text the editor has just written and checked: when the
        file holds exactly those bytes, the gates are not run again. ours: the editor itself
        wrote the file (an undo), so the history stays."""
        from mapkit.boardfile import read_json
        from mapkit.edit import draft

        with self.lock:
            for _ in range(5):  # a writer may be halfway: read until the bytes hold still
                raw = self._read()
                digest = hashlib.sha256(raw).hexdigest() if raw is not None else ""
                if not force and self.snapshot is not None and digest == self.snapshot.digest:
                    self._stat = self._stat_now()
                    return False
                if known is not None and raw == known[0]:
                    break
                data, problems = read_json(self.path, self.source)  # validate's gate 1
                board, counts, is_draft = (None, problems, False) if data is None else draft.examine(data, self.source)
                again = self._read()
                if again == raw:
                    break
            version = (self.snapshot.version + 1) if self.snapshot else 1
            checked = known if known is not None and raw == known[0] else None
            if checked is None and not ours and (self.undo_steps or self.redo_steps):
                # changed by another editor: replaying a step now could overwrite that change, so
                # the history goes, and the page says so (rather than refusing the next undo)
                self.undo_steps, self.redo_steps = [], []
                self.history_note = ("the file was changed outside the editor, so undo and redo were cleared "
                                     "(replaying a step could overwrite that change)")
            if checked is not None:  # the gates passed on these bytes a moment ago
                _, board, found, is_draft, data = checked
            if board is not None and not is_draft and self.print_labels and self._print_asked != digest:
                # the print drawing starts now, in its own process, while this one runs the checks
                self._ask_print(version, data, digest)
            # validate's gate 3 (`mapkit.validate.validate_file` runs the same, in this order)
            if checked is None:
                found = draft.check(board, counts, is_draft) if board is not None else counts
            report = Report(self.source, found)
            # the version each problem first showed in, so the page can list the newest first
            self.problem_age = {key: self.problem_age.get(key, version)
                                for key in (problem_key(p) for p in found)}
            self.snapshot = Snapshot(version, digest, report, board, data, time.time(), is_draft,
                                     draft.is_empty(raw))
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
        """Stop the watcher and end the drawing process (also in the middle of a drawing)."""
        self._stop.set()
        self._print_ready.set()
        worker = self._worker
        if worker is not None and worker.proc is not None and worker.proc.poll() is None:
            worker.proc.kill()

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

        worker = self._worker = Worker()
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
        from mapkit.outputs import check_output

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
        try:
            check_output(self.path)  # a read-only file is refused before any work
        except MapkitError as exc:
            raise RefusedError(f"not written: {exc}")
        return raw, digest

    def write(self, changes, page_digest: str, what: str, record: bool = True, empty_ok: bool = False) -> Step:
        """Patch the file in place: only the values at these JSON paths change. changes: a dict
        {path: value} (`textpatch.patch_text` at once) or a list of edits made one after the other
        (`apply_edits`). The new text must pass the schema gate (a draft's counts aside: see
        `edit.draft`); a move may leave geometry problems, which the page then draws, but never a
        file that does not load. empty_ok: the edit fills an empty file (a new board)."""
        from mapkit.edit import draft

        with self.lock:
            raw, _ = self.check_writable(page_digest)
            snap = self.snapshot
            if not (empty_ok and draft.is_empty(raw)) and (snap.board is None or snap.data is None):
                raise RefusedError(f"{self.source} does not load (see the problems); fix it in your editor first")
            bom = codecs.BOM_UTF8 if raw.startswith(codecs.BOM_UTF8) else b""
            try:
                text = apply_edits(raw[len(bom):].decode("utf-8"), changes)
            except (UnicodeDecodeError, PatchError) as exc:
                raise RefusedError(f"not written: {exc}")
            new = bom + text.encode("utf-8")
            try:
                data = json.loads(text.removeprefix("\ufeff"))
            except ValueError as exc:
                raise RefusedError(f"not written: the change would break the file's JSON ({exc})")
            if not snap.draft and snap.board is not None and draft.values_pass(changes, snap.data):
                from mapkit.boardfile import build_board, whole_numbers  # the schema holds: only the values moved

                board, counts, is_draft = build_board(whole_numbers(data), self.source), [], False
            else:
                board, counts, is_draft = draft.examine(data, self.source)
            if board is None:
                raise RefusedError(f"not written: the change would break the file ({counts[0].format()})")
            digest = hashlib.sha256(new).hexdigest()
            if self.print_labels and not is_draft:
                # the print drawing of the new text starts before the checks (its result is
                # dropped if the write fails): a drag's drawing sooner by the checks
                self._ask_print(snap.version + 1, data, digest)
            found = draft.check(board, counts, is_draft)
            self._put(new)
            self.refresh(known=(new, board, found, is_draft, data))
            return self._record(what, raw, new, record)

    def _put(self, new: bytes) -> None:
        from mapkit.outputs import atomic_write_bytes

        try:
            atomic_write_bytes(self.path, new)
        except (MapkitError, OSError) as exc:
            self._print_asked = ""  # not written: the next version asks again
            raise RefusedError(f"not written: {exc}")

    def _record(self, what: str, before: bytes, after: bytes, record: bool) -> Step:
        step = Step(what, before, after, self.snapshot.digest)
        if record:
            self.undo_steps = (self.undo_steps + [step])[-HISTORY:]
            self.redo_steps = []
            self.history_note = ""
        return step

    def _replay(self, source: list, target: list, back: bool, page_digest: str, word: str) -> Step:
        """Undo or redo: the file's bytes before (or after) the step, written back whole, when the
        file is still exactly what that step left (so nothing made elsewhere is overwritten)."""
        with self.lock:
            if not source:
                raise RefusedError(f"nothing to {word}")
            step = source[-1]
            raw, _ = self.check_writable(page_digest)  # a page behind the file reloads first
            if step.digest_after != page_digest:
                source.clear()
                raise RefusedError(f"the file changed outside the editor since that step, so it cannot {word} it "
                                   "safely; the history was cleared")
            source.pop()
            new = step.before if back else step.after
            self._put(new)
            self.refresh(ours=True)
            done = Step(step.what, step.before, step.after, self.snapshot.digest)
            target.append(done)
            return done

    def undo(self, page_digest: str) -> Step:
        return self._replay(self.undo_steps, self.redo_steps, True, page_digest, "undo")

    def redo(self, page_digest: str) -> Step:
        return self._replay(self.redo_steps, self.undo_steps, False, page_digest, "redo")


def apply_edits(text: str, changes) -> str:
    """The text with the changes made: a dict at once (`patch_text`), or a list of
    ("set", path, value) / ("append", path, value) made one after the other (an array's later
    items deleted first keep the earlier indexes right), or ("whole", (), text) into an empty file."""
    from mapkit.textpatch import append_item, patch_text

    if isinstance(changes, dict):
        return patch_text(text, changes)
    for op, path, value in changes:
        if op == "whole":  # a new board into an empty file
            if text.strip():
                raise PatchError("the file is not empty: a new board is only written into an empty file")
            text = value
        elif op == "append":
            text = append_item(text, path, value)
        else:
            text = patch_text(text, {tuple(path): value})
    return text


def problem_key(p) -> tuple:
    """A problem's identity across versions (its JSON path moves when items before it go)."""
    return (p.severity, p.code, p.subject, p.message if not p.subject else "")
