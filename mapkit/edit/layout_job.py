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

import sys
import time

from mapkit.edit.child_job import ChildJob
from mapkit.edit.worker import receive, send

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


class LayoutJob(ChildJob):
    """One layout preview running in a child process. `finish(job, reply)` (given by the caller)
    turns the child's reply into the preview the page shows; it runs in the job's own thread."""

    module, what = "mapkit.edit.layout_job", "layout"

    def __init__(self, data: dict, digest: str, style: str, seed: int, finish, refine: bool = False):
        self.digest, self.style, self.seed, self.refine = digest, style, seed, refine
        self.name = f"{style} (refined)" if refine else style   # as the page and the undo history say it
        self.stations = len(data.get("stations") or [])
        self.expected = _LAST_SECONDS.get((digest, style, refine))
        self.estimated = self.expected is None and (style, refine) in _PER_STATION
        if self.estimated:  # another board (or this one before a change): scaled by its stations
            self.expected = _PER_STATION[(style, refine)] * max(1, self.stations)
        self._finish = finish
        super().__init__({"data": data, "style": style, "seed": seed, "refine": refine})

    def finished(self, reply: dict) -> dict:
        result = self._finish(self, reply)
        took = time.monotonic() - self.started
        _LAST_SECONDS[(self.digest, self.style, self.refine)] = took
        _PER_STATION[(self.style, self.refine)] = took / max(1, self.stations)
        return result

    def status(self) -> dict:
        with self._lock:
            out = {"job": self.id, "state": self.state, "elapsed": round(self.elapsed(), 2), "style": self.name,
                   "expected": round(self.expected, 1) if self.expected else None, "pid": self.pid,
                   "estimated": self.estimated}
            if self.state == "done":
                out["preview"] = self.result
            if self.error:
                out["error"] = self.error
            return out


if __name__ == "__main__":
    main()
