"""The layout preview as a job in a child process: started, watched, cancelled.

`mapkit layout` takes seconds to a minute on a real board (Portland ~15 s of CPU). In the server's
own process it would hold the interpreter while the page waits, and it could not be stopped. So
each preview runs `python -m mapkit.edit.layout_job` (requests and replies framed as in
`edit.worker`); the page asks for the job's state four times a second, shows how long it has run
(against how long the last layout of this board took, when there was one: mapkit.layout reports
no stages, so that is the honest measure of progress), and *Cancel* kills the child. Nothing is
written by a job: its result is a preview, written only by `layout_apply`.
"""

from __future__ import annotations

import secrets
import os
import signal
import subprocess
import sys
import threading
import time

from mapkit.edit.worker import child_command, child_env, receive, send

_DELETE_TAG = {"$delete": True}   # writer.DELETE in a reply (JSON has no such value)


def run(request: dict) -> dict:
    """In the child: {"data", "style", "seed"[, "refine"]} → {"data", "changes", "figures", "problems"} or
    {"error"}. A board the file already draws keeps its size, one not drawn yet gets the smallest
    standard size that fits (as `mapkit layout`); refine: from the board as drawn, on its own size
    (mapkit layout --refine)."""
    from mapkit.errors import MapkitError
    from mapkit.layout import layout_board
    from mapkit.layout.fit import drawn_size
    from mapkit.writer import DELETE

    refine = bool(request.get("refine"))
    try:
        res = layout_board(request["data"], style=request["style"], seed=request["seed"], refine=refine,
                           size=(None if refine else drawn_size(request["data"])) or "auto")
    except MapkitError as exc:
        return {"error": f"layout could not run: {exc}"}
    except Exception as exc:  # noqa: BLE001 - reported on the page, the server carries on
        return {"error": f"layout failed: {type(exc).__name__}: {exc}"}
    return {"data": res.data, "figures": res.figures, "problems": [str(p) for p in res.problems],
            "changes": [[list(path), _DELETE_TAG if value is DELETE else value] for path, value in res.changes.items()]}


def main() -> None:
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # anything a library prints must not corrupt the reply
    request = receive(inp)
    if request is not None:
        send(out, run(request))


# how long the last layout of a board took, by (file hash, style, refine): what the page measures progress by
_LAST_SECONDS: dict = {}
_PER_STATION: dict = {}   # seconds a station of the last layout of any file, by (style, refine): a first run's estimate


class LayoutJob:
    """One layout preview running in a child process. `finish(reply)` (given by the caller) turns
    the child's reply into the preview the page shows; it runs in the job's own thread."""

    def __init__(self, data: dict, digest: str, style: str, seed: int, finish, refine: bool = False):
        self.id = secrets.token_hex(8)
        self.digest, self.style, self.seed, self.refine = digest, style, seed, refine
        self.name = f"{style} (refined)" if refine else style   # as the page and the undo history say it
        self.started = time.monotonic()
        self.seconds = 0.0
        self.state = "running"            # running, done, failed, cancelled
        self.result: dict | None = None
        self.error = ""
        self.stations = len(data.get("stations") or [])
        self.expected = _LAST_SECONDS.get((digest, style, refine))
        self.estimated = self.expected is None and (style, refine) in _PER_STATION
        if self.estimated:  # another board (or this one before a change): scaled by its stations
            self.expected = _PER_STATION[(style, refine)] * max(1, self.stations)
        self._finish = finish
        self._lock = threading.Lock()
        # its own process group, so that cancelling ends it with anything it started
        self.proc = subprocess.Popen(child_command("mapkit.edit.layout_job"), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=child_env(),
                                     start_new_session=True)
        self.pid = self.proc.pid
        threading.Thread(target=self._wait, args=(data,), name="mapkit-edit-layout", daemon=True).start()

    def _wait(self, data: dict) -> None:
        try:
            send(self.proc.stdin, {"data": data, "style": self.style, "seed": self.seed, "refine": self.refine})
            self.proc.stdin.close()
            reply = receive(self.proc.stdout)
        except (OSError, ValueError):
            reply = None
        self.proc.wait()
        with self._lock:
            if self.state == "cancelled":
                return
        if reply is None:
            self._end("failed", error="the layout process stopped without a result")
        elif "error" in reply:
            self._end("failed", error=reply["error"])
        else:
            try:
                result = self._finish(self, reply)
            except Exception as exc:  # noqa: BLE001 - reported on the page
                self._end("failed", error=getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")
                return
            took = time.monotonic() - self.started
            _LAST_SECONDS[(self.digest, self.style, self.refine)] = took
            _PER_STATION[(self.style, self.refine)] = took / max(1, self.stations)
            self._end("done", result=result)

    def _end(self, state: str, result: dict | None = None, error: str = "") -> None:
        with self._lock:
            if self.state != "running":
                return
            self.state, self.result, self.error = state, result, error
            self.seconds = time.monotonic() - self.started

    def cancel(self) -> bool:
        """Kill the child (nothing was written, nothing will be); False when the job had ended."""
        with self._lock:
            if self.state != "running":
                return False
            self.state = "cancelled"
            self.seconds = time.monotonic() - self.started
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        return True

    def status(self) -> dict:
        with self._lock:
            elapsed = self.seconds if self.state != "running" else time.monotonic() - self.started
            out = {"job": self.id, "state": self.state, "elapsed": round(elapsed, 2), "style": self.name,
                   "expected": round(self.expected, 1) if self.expected else None, "pid": self.pid,
                   "estimated": self.estimated}
            if self.state == "done":
                out["preview"] = self.result
            if self.error:
                out["error"] = self.error
            return out


if __name__ == "__main__":
    main()
