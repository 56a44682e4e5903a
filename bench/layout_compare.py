"""The bundled boards as shipped against `mapkit layout` from lat/lon alone, as a Markdown table.

For each bundled board: measure the shipped drawing, then strip every station's board position and
every waypoint and lay it out on the shipped board size, with --size auto, and on the shipped size
with the first drawing held to the real map (geo_anchor 1.0), and measure each with
mapkit.layout.figures. Writes into OUT_DIR (default out/bench/layout-compare): <board>.json (shipped
size), <board>-auto.json, <board>-near.json, <board>.rows.json, comparison.json and comparison.md.

    python bench/layout_compare.py [OUT_DIR]                 (every bundled board, about a minute of CPU)
    python bench/layout_compare.py [OUT_DIR] --board seattle (one board; its rows go to seattle.rows.json)
    python bench/layout_compare.py [OUT_DIR] --table         (the table from the boards' rows files)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mapkit.layout import layout_board, stripped  # noqa: E402
from mapkit.layout.figures import measure  # noqa: E402
from mapkit.outputs import atomic_write_text  # noqa: E402
from mapkit.writer import dump_board_json  # noqa: E402

BOARDS = ROOT / "boards"
COLUMNS = ("board_mm", "errors", "warnings", "stretched_routes", "largest_gap_mm", "routes_over_gap", "label_pt_smallest",
           "labels_with_room", "empty_share", "direction_error_deg_mean", "direction_error_deg_max", "within_45deg",
           "routes_over_90deg", "order_kept", "trunk_sides_swapped", "fill_w", "fill_h", "seconds")
NEAR = 1.0   # the third layout: the stress drawing held to the real map (layout_board's geo_anchor)
PAIRS = {"routes_over_gap": "routes_drawn", "labels_with_room": "labels_total", "order_kept": "order_stations",
         "trunk_sides_swapped": "trunk_sides_swapped_raw"}   # shown as "a/b" (swapped: as drawn/raw)
INTRO = [
    "The bundled boards as shipped against `mapkit layout` from lat/lon alone (`python bench/layout_compare.py`;",
    "the default layout with the 6 mm gap rule; seconds: CPU). The first row of each board is the drawing in boards/.",
    "routes_over_gap: routes with gaps between spaces over 6 mm, of those drawn.",
    ""]


def cell(r: dict, c: str) -> str:
    if c == "board_mm":
        return f"{r[c][0]:g}x{r[c][1]:g}"
    if r.get(c) is None:
        return ""
    return f"{r[c]}/{r[PAIRS[c]]}" if c in PAIRS else str(r[c])


def run(name: str, out: Path) -> list[dict]:
    """Shipped and computed rows of one board; also written to <board>.rows.json (boards can run in
    parallel processes, then `--table` gathers them)."""
    hand = json.loads((BOARDS / f"{name}.json").read_text(encoding="utf-8"))
    ph = hand.get("physical", {})
    size = (ph.get("width_mm", 800), ph.get("height_mm", 530))
    rows = [{"board": name, "layout": "shipped", **measure(hand), "seconds": None}]
    runs = (("computed, shipped size", size, "", None), ("computed, size auto", "auto", "-auto", None),
            (f"computed, shipped size, geo_anchor {NEAR}", size, "-near", NEAR))
    for label, sz, suffix, anchor in runs:
        t0 = time.process_time()
        res = layout_board(stripped(hand), size=sz, geo_anchor=anchor)
        secs = round(time.process_time() - t0, 1)
        atomic_write_text(out / f"{name}{suffix}.json", dump_board_json(res.data))
        rows.append({"board": name, "layout": label, **measure(res.data), "seconds": secs,
                     "problems": res.problems})
        print(name, label, secs, "s", flush=True)
    atomic_write_text(out / f"{name}.rows.json", json.dumps(rows, indent=2) + "\n")
    return rows


def table(names, out: Path) -> None:
    rows = [r for name in names for r in json.loads((out / f"{name}.rows.json").read_text(encoding="utf-8"))]
    atomic_write_text(out / "comparison.json", json.dumps(rows, indent=2) + "\n")
    head = "| board | layout | " + " | ".join(COLUMNS) + " |"
    lines = INTRO + [head, "|" + "---|" * (len(COLUMNS) + 2)]
    for r in rows:
        lines.append(f"| {r['board']} | {r['layout']} | " + " | ".join(cell(r, c) for c in COLUMNS) + " |")
    atomic_write_text(out / "comparison.md", "\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", nargs="?", default="out/bench/layout-compare",
                    help="folder for the layouts, rows and table (default out/bench/layout-compare)")
    ap.add_argument("--board", action="append", default=[],
                    help="a bundled board (repeat for more; default: portland, seattle, north-america)")
    ap.add_argument("--table", action="store_true", help="only gather the rows files already in OUT_DIR")
    a = ap.parse_args(argv)
    names = a.board or ["portland", "seattle", "north-america"]
    unknown = [n for n in names if not (BOARDS / f"{n}.json").is_file()]
    if unknown:
        ap.error(f"--board: no bundled board '{unknown[0]}'; the boards are "
                 + ", ".join(sorted(p.stem for p in BOARDS.glob("*.json"))))
    out = Path(a.out_dir)
    if a.table:
        missing = [n for n in names if not (out / f"{n}.rows.json").is_file()]
        if missing:
            ap.error(f"--table: no rows of '{missing[0]}' in {out} yet; run"
                     f" `python bench/layout_compare.py {out} --board {missing[0]}` first")
    else:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            ap.error(f"{out}: cannot make that folder ({e.strerror})")
        for name in names:
            run(name, out)
    table(names, out)


if __name__ == "__main__":
    main()
