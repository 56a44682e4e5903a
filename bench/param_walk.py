"""The walk of one parameter: `mapkit report`'s board argument, through mapkit's modules.

    python bench/param_walk.py            # text: the modules in the order the board first reaches them
    python bench/param_walk.py --json

Runs `mapkit report portland --games 2 --players 2 --agents random` in this process under a
sys.setprofile tracer. The board is followed as a value: the path the command line resolves, the name
it is shown under, and the Board loaded from it (anything a mapkit function returns of those kinds
after being given one of them). A call "carries the board" when one of its arguments is such a value.
For the calls that carry it, it reports the modules entered (in order), how many module-to-module
steps the board takes, and how many of those climb back up: a call into a module that is already on
the call stack below the caller (a lower layer calling back into the layer that called it).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path


def walk(board: str = "portland") -> dict:
    from mapkit.model import Board
    from mapkit.resources import resolve_board

    board_path = resolve_board(board).resolve()
    tracked: set[int] = set()
    keep: list = []  # holds tracked values alive so their ids stay theirs

    def is_board(v) -> bool:
        if id(v) in tracked or isinstance(v, Board):
            return True
        if isinstance(v, str):
            return v == board or v.endswith(f"/{board_path.name}") or v == str(board_path)
        if isinstance(v, Path):
            try:
                return v.resolve() == board_path
            except OSError:
                return False
        return False

    stack: list[tuple[str, bool]] = []  # (module, carries the board) for every Python frame
    order: list[str] = []
    steps = climbs = 0
    climb_pairs: dict[str, int] = {}

    def prof(frame, event, arg):
        nonlocal steps, climbs
        if event == "call":
            mod = frame.f_globals.get("__name__", "")
            carries = False
            if mod.startswith("mapkit"):
                code = frame.f_code
                n = code.co_argcount + code.co_kwonlyargcount
                loc = frame.f_locals
                carries = any(is_board(loc.get(name)) for name in code.co_varnames[:n])
            if carries:
                caller = next((m for m, _ in reversed(stack) if m.startswith("mapkit")), None)
                if mod not in order:
                    order.append(mod)
                if caller and caller != mod:
                    steps += 1
                    below = [m for m, _ in stack]
                    if mod in below:
                        climbs += 1
                        key = f"{caller} -> {mod}"
                        climb_pairs[key] = climb_pairs.get(key, 0) + 1
            stack.append((mod, carries))
        elif event == "return":
            if stack:
                mod, carries = stack.pop()
                if carries and arg is not None:
                    vals = arg if isinstance(arg, tuple) else (arg,)
                    for v in vals:
                        if isinstance(v, (Board, Path)) and id(v) not in tracked:
                            tracked.add(id(v))
                            keep.append(v)

    from mapkit.cli import main

    with tempfile.TemporaryDirectory() as tmp:
        args = ["report", board, "--games", "2", "--players", "2", "--agents", "random", "--quiet",
                "--format", "json", "--out", tmp]
        sys.setprofile(prof)
        try:
            main.main(args, prog_name="mapkit", standalone_mode=False)
        finally:
            sys.setprofile(None)
    return {"command": "mapkit report " + board + " --games 2 --players 2 --agents random",
            "modules": order, "module_count": len(order), "steps": steps, "climbs_back_up": climbs,
            "climbs": climb_pairs}


def main(argv: list[str]) -> int:
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):
        res = walk()
    if "--json" in argv:
        print(json.dumps(res, indent=2))
        return 0
    print(res["command"])
    print(f"the board reaches {res['module_count']} modules, in {res['steps']} module-to-module steps, "
          f"{res['climbs_back_up']} of them back up into a module already on the call stack:")
    for m in res["modules"]:
        print(f"  {m}")
    for k, v in sorted(res["climbs"].items()):
        print(f"  climbs back up: {k} ({v}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
