"""Profile the editor's print drawing of a board, as its drawing process makes it.

    PYTHONPATH=. python bench/flights_profile.py [BOARD] [--top N]

BOARD is a bundled board's name or a board file (default: seattle). It makes the print drawing
twice through `mapkit.edit.worker.draw` (the call the editor's drawing process makes for each
version; the first pays for imports and caches), prints the CPU of each, then profiles a third
and prints the N functions with the most cumulative time, and the CPU spent in
`mapkit.render.flights.reroute` on its own.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path

from mapkit.boardfile import parse_board
from mapkit.edit.worker import draw
from mapkit.render import flights


def board_text(name: str) -> str:
    path = Path(name)
    if not path.is_file():
        path = Path(__file__).resolve().parent.parent / "boards" / f"{name}.json"
    if not path.is_file():
        raise SystemExit(f"{name}: no such board file or bundled board (portland, seattle, north-america)")
    board, _, problems = parse_board(path, name)
    if board is None or any(p.severity == "error" for p in problems):
        raise SystemExit("\n".join(p.format() for p in problems[:5]) + "\n(give a board that `mapkit validate` reads)")
    return path.read_text(encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("board", nargs="?", default="seattle")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    request = {"text": board_text(args.board), "hash": "00000000", "source": args.board}
    for i in range(2):
        reply = draw(request)
        if "error" in reply:
            raise SystemExit(reply["error"])
        print(f"print drawing {i + 1}: {reply['cpu_s']:.2f} s CPU")

    spent = []
    inner = flights.reroute

    def timed(*a, **k):
        t = time.process_time()
        try:
            return inner(*a, **k)
        finally:
            spent.append(time.process_time() - t)

    flights.reroute = timed
    try:
        prof = cProfile.Profile()
        prof.enable()
        reply = draw(request)
        prof.disable()
    finally:
        flights.reroute = inner
    print(f"print drawing, profiled: {reply['cpu_s']:.2f} s CPU; flights.reroute: "
          + ", ".join(f"{s:.2f} s" for s in spent))
    pstats.Stats(prof).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
