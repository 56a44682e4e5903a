"""A job of the editor in a child process: started, followed, cancelled.

`ChildJob` runs `python -m MODULE` (requests and replies framed as in `edit.worker`) in its own
process group, sends it one request and reads its frames in a thread: {"progress": ...} frames go
to `progress(frame)`, the first other frame is the reply ({"error": ...} or the result, which
`result(reply)` turns into what the page shows). The child's stdin stays open until the reply: a
child may stop when it closes (the server gone). `cancel` kills the group and waits for it, and the
job says "cancelled" only once its process is gone. States: running, done, failed, cancelled.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import threading
import time

from mapkit.edit.worker import child_command, child_env, receive, send


class ChildJob:
    module = ""   # the child's module (python -m)
    what = ""     # what the child does, as a failure says it ("the layout process stopped ...")

    def __init__(self, request: dict):
        self.id = secrets.token_hex(8)
        self.started = time.monotonic()
        self.seconds = 0.0
        self.state = "running"
        self.result = None
        self.error = ""
        self._lock = threading.Lock()
        self._cancelling = False
        self.proc = subprocess.Popen(child_command(self.module), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=child_env(),
                                     start_new_session=True)   # its own process group: cancel ends it whole
        self.pid = self.proc.pid
        threading.Thread(target=self._follow, args=(request,), name=f"mapkit-edit-{self.what}", daemon=True).start()

    def progress(self, frame: dict) -> None:
        """A progress frame from the child (in the job's thread)."""

    def finished(self, reply: dict):
        """The page's result of the child's reply (in the job's thread); an exception fails the job."""
        raise NotImplementedError

    def elapsed(self) -> float:
        return self.seconds if self.state != "running" else time.monotonic() - self.started

    def _follow(self, request: dict) -> None:
        reply = None
        try:
            send(self.proc.stdin, request)
            while (frame := receive(self.proc.stdout)) is not None:
                if "progress" in frame:
                    with self._lock:
                        self.progress(frame)
                    continue
                reply = frame
                break
        except (OSError, ValueError):
            reply = None
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait()
        with self._lock:
            if self._cancelling:
                return
        if reply is None:
            self._end("failed", error=f"the {self.what} process stopped without a result")
        elif "error" in reply:
            self._end("failed", error=reply["error"])
        else:
            try:
                result = self.finished(reply)
            except Exception as exc:  # noqa: BLE001 - reported on the page
                self._end("failed", error=getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")
                return
            self._end("done", result=result)

    def _end(self, state: str, result=None, error: str = "") -> None:
        with self._lock:
            if self.state != "running":
                return
            self.state, self.result, self.error = state, result, error
            self.seconds = time.monotonic() - self.started

    def cancel(self) -> bool:
        """Kill the child and wait for it; False when the job had ended (nothing was written, nothing
        will be)."""
        with self._lock:
            if self.state != "running" or self._cancelling:
                return False
            self._cancelling = True
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        with self._lock:
            if self.state == "running":   # (a run that had just ended keeps its result)
                self.state = "cancelled"
                self.seconds = time.monotonic() - self.started
        return True
