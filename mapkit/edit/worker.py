"""The print drawing, made in a child process: `python -m mapkit.edit.worker`.

The print's label placement is seconds of CPU on a large board. In the server's own process it
would hold the interpreter lock while the designer keeps dragging, so the editor hands it to one
long-lived child (a plain subprocess: multiprocessing's spawn would re-run `python -m mapkit`'s
main module in the child). Requests and replies are JSON, each framed by its length (8 bytes,
big-endian) on the child's stdin and stdout; the child exits when its stdin closes.
"""

from __future__ import annotations

import gc
import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import BinaryIO

_LEN = struct.Struct(">Q")


def send(stream: BinaryIO, value: dict) -> None:
    raw = json.dumps(value, ensure_ascii=False).encode("utf-8")
    stream.write(_LEN.pack(len(raw)) + raw)
    stream.flush()


def receive(stream: BinaryIO) -> dict | None:
    head = stream.read(_LEN.size)
    if len(head) < _LEN.size:
        return None
    (n,) = _LEN.unpack(head)
    return json.loads(stream.read(n).decode("utf-8"))


def draw(request: dict) -> dict:
    """{"text": a schema-valid board's JSON, "hash": 8 hex digits} → {"svg": ..., "placement": ...}
    or {"error": ...}."""
    from mapkit.boardfile import build_board, whole_numbers
    from mapkit.edit.svg import print_svg

    import time

    start = time.process_time()
    try:
        board = build_board(whole_numbers(json.loads(request["text"])), request.get("source", ""))
        svg, placement = print_svg(board, request["hash"])
        return {"svg": svg, "placement": placement, "cpu_s": time.process_time() - start}
    except Exception as exc:  # noqa: BLE001 - reported to the editor, which keeps the quick drawing
        return {"error": f"{type(exc).__name__}: {exc}"}


def main() -> None:
    from mapkit.edit import flightcache

    flightcache.install()  # this process draws one board again and again: keep the flight search's result
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # anything a library prints must not corrupt the replies
    first = True
    while (request := receive(inp)) is not None:
        send(out, {"id": request.get("id"), **draw(request)})
        if first:   # the imports and the first drawing's caches live as long as the process: out of
            gc.collect()   # the full collections, which each later drawing would otherwise pay now and then
            gc.freeze()
            first = False


def child_command(module: str) -> list[str]:
    """`python -P -m module`: -P keeps the working folder off the child's sys.path, so a folder
    holding another `mapkit` (a checkout, an old copy) cannot stand in for this one."""
    return [sys.executable, "-P", "-m", module]


def child_env() -> dict:
    """The environment of a child that imports this same mapkit, wherever the parent's came from."""
    import mapkit

    env = dict(os.environ)
    here = str(Path(mapkit.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class Worker:
    """The child process, started on first use and restarted if it dies."""

    def __init__(self):
        self.proc: subprocess.Popen | None = None
        self.count = 0

    def draw(self, text: str, short_hash: str, source: str = "") -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(child_command("mapkit.edit.worker"), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=child_env())
        self.count += 1
        try:
            send(self.proc.stdin, {"id": self.count, "text": text, "hash": short_hash, "source": source})
            reply = receive(self.proc.stdout)
        except (OSError, ValueError) as exc:
            reply = {"error": f"the drawing process failed ({exc})"}
        if reply is None:
            reply = {"error": "the drawing process stopped"}
        return reply

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()


if __name__ == "__main__":
    main()
