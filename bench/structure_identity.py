"""Does a change of structure keep every behaviour? Record what the program does, then compare.

    python bench/structure_identity.py record DIR   # before the change
    python bench/structure_identity.py check DIR    # after it: exit 0 when every file is byte-identical

It records, each as one file in DIR:
- the golden game digests (tests/test_game_identity.py's cases, computed afresh, not read from the test),
- `mapkit --help` and `mapkit CMD [SUB] --help` for every command and subcommand (found by reading the
  "Commands:" section of each help page, so the check does not depend on how the CLI is organised),
- the layouts (`mapkit layout ... --out`, and its JSON output) of boards/portland.json and of the
  60-station synthetic bench network (mapkit.layout.synthetic, seed 0),
- `mapkit report portland --games 40 --seed 0 --format json` (stdout, report.json and report.md).

Asked for by name only (`record DIR more-layouts`, `check DIR more-layouts`; several minutes of CPU), the
layouts the layout's tests lean on: seattle and north-america, portland schematic, --no-gap-rule, on a
fixed size and --refine from its own drawing, and synthetic networks of 14, 20 and 40 stations.

Layouts and games are the same for the same seed on one machine only (floating point differs between CPUs
and numpy builds), so compare records made on the same machine. About a minute of CPU in all.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAPKIT = [sys.executable, "-m", "mapkit"]


def _run(args: list[str], cwd: Path) -> str:
    env = dict(os.environ, COLUMNS="100", PYTHONHASHSEED="0")
    p = subprocess.run(MAPKIT + args, cwd=cwd, capture_output=True, text=True, env=env)
    return f"exit {p.returncode}\n--- stdout\n{p.stdout}--- stderr\n{p.stderr}"


def _commands(help_text: str) -> list[str]:
    if "\nCommands:\n" not in help_text:
        return []
    block = help_text.split("\nCommands:\n", 1)[1]
    return [m.group(1) for m in re.finditer(r"^  (\S+)", block, re.M)]


def record_help(out: dict, cwd: Path) -> None:
    todo = [[]]
    while todo:
        cmd = todo.pop(0)
        text = _run(cmd + ["--help"], cwd)
        out["help/" + ("-".join(cmd) or "mapkit") + ".txt"] = text
        todo.extend(cmd + [c] for c in _commands(text))


def record_digests(out: dict) -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    import test_game_identity as t

    out["digests.txt"] = "".join(f"{case!r}: {t.game_digest(*case)}\n" for case in t.CASES)


def record_layouts(out: dict, cwd: Path) -> None:
    from mapkit.layout.synthetic import layout_board_data

    bench = cwd / "bench60.json"
    bench.write_text(json.dumps(layout_board_data(60, seed=0), indent=2), encoding="utf-8")
    for name, src in (("portland", str(ROOT / "boards" / "portland.json")), ("bench60", str(bench))):
        dest = cwd / f"{name}.laid.json"
        out[f"layout/{name}.stdout.txt"] = _run(["layout", src, "--out", str(dest), "--format", "json"], cwd)
        out[f"layout/{name}.json"] = dest.read_text(encoding="utf-8") if dest.exists() else "(not written)"


MORE_LAYOUTS = (
    ("seattle", "boards/seattle.json", []),
    ("north-america", "boards/north-america.json", []),
    ("portland-schematic", "boards/portland.json", ["--style", "schematic"]),
    ("portland-soft", "boards/portland.json", ["--no-gap-rule"]),
    ("portland-size", "boards/portland.json", ["--size", "600x900"]),
    ("portland-refine", "boards/portland.json", ["--refine"]),
    ("synthetic14-3", (14, 3), []),
    ("synthetic20-0", (20, 0), []),
    ("synthetic40-1", (40, 1), ["--no-gap-rule"]),
)


def record_more_layouts(out: dict, cwd: Path) -> None:
    from mapkit.layout.synthetic import layout_board_data

    for name, src, extra in MORE_LAYOUTS:
        if isinstance(src, tuple):
            path = cwd / f"{name}.json"
            path.write_text(json.dumps(layout_board_data(src[0], seed=src[1]), indent=2), encoding="utf-8")
            src = str(path)
        else:
            src = str(ROOT / src)
        dest = cwd / f"{name}.laid.json"
        out[f"layout/{name}.stdout.txt"] = _run(["layout", src, "--out", str(dest), "--format", "json"] + extra, cwd)
        out[f"layout/{name}.json"] = dest.read_text(encoding="utf-8") if dest.exists() else "(not written)"


def record_report(out: dict, cwd: Path) -> None:
    rep = cwd / "report"
    out["report/stdout.txt"] = _run(["report", "portland", "--games", "40", "--seed", "0", "--format", "json",
                                     "--out", str(rep), "--quiet"], cwd)
    for f in ("report.json", "report.md"):
        p = rep / f
        out[f"report/{f}"] = p.read_text(encoding="utf-8") if p.exists() else "(not written)"


def record(only: set[str] | None = None) -> dict:
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        steps = {"help": lambda: record_help(out, cwd), "digests": lambda: record_digests(out),
                 "layouts": lambda: record_layouts(out, cwd), "report": lambda: record_report(out, cwd),
                 "more-layouts": lambda: record_more_layouts(out, cwd)}
        for name, step in steps.items():
            if (only is None and name != "more-layouts") or (only is not None and name in only):
                step()
    # temporary paths differ from run to run: name them the same way
    return {k: v.replace(tmp, "<tmp>") for k, v in out.items()}


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("record", "check"):
        print(__doc__)
        return 2
    mode, where = argv[0], Path(argv[1])
    only = set(argv[2:]) or None
    out = record(only)
    if mode == "record":
        for k, v in out.items():
            (where / k).parent.mkdir(parents=True, exist_ok=True)
            (where / k).write_text(v, encoding="utf-8")
        print(f"recorded {len(out)} files in {where}")
        return 0
    bad = 0
    for k, v in sorted(out.items()):
        old = where / k
        if not old.exists():
            print(f"NEW   {k}")
            bad += 1
        elif old.read_text(encoding="utf-8") != v:
            print(f"DIFF  {k}  ({hashlib.sha256(v.encode()).hexdigest()[:12]} now)")
            bad += 1
    if only is None:
        for old in sorted(where.rglob("*")):
            if old.is_file() and str(old.relative_to(where)) not in out and not any(
                    str(old.relative_to(where)) == f"layout/{n}.{e}" for n, _, _ in MORE_LAYOUTS for e in ("json", "stdout.txt")):
                print(f"GONE  {old.relative_to(where)}")
                bad += 1
    print(f"{len(out) - bad} of {len(out)} identical" if bad else f"all {len(out)} identical")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
