"""Hand layouts of the bundled boards against `mapkit layout` from lat/lon alone.

For each bundled board: strip every station "board" position and every waypoint, lay it out on the
hand layout's board size, with --size auto, and on the hand size with the first drawing held to
the real map (geo_anchor NEAR), and measure them with mapkit.layout.figures. Writes
reports/layout/<board>.json (hand size), <board>-auto.json, <board>-near.json, and
comparison.md / comparison.json.

    python reports/layout/compare.py            (from the repository root)
    python reports/layout/compare.py seattle     (one board; its rows go to seattle.rows.json)
    python reports/layout/compare.py --table     (the table from the boards' rows files)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from mapkit.layout import layout_board, stripped
from mapkit.layout.figures import measure
from mapkit.outputs import atomic_write_text
from mapkit.writer import dump_board_json

HERE = Path(__file__).resolve().parent
BOARDS = HERE.parent.parent / "boards"
COLUMNS = ("board_mm", "errors", "warnings", "stretched_routes", "largest_gap_mm", "routes_over_gap", "label_pt_smallest",
           "labels_with_room", "empty_share", "direction_error_deg_mean", "direction_error_deg_max", "within_45deg",
           "routes_over_90deg", "order_kept", "trunk_sides_swapped", "fill_w", "fill_h", "seconds")
NEAR = 1.0   # the third layout: the stress drawing held to the real map (layout_board's geo_anchor)
PAIRS = {"routes_over_gap": "routes_drawn", "labels_with_room": "labels_total", "order_kept": "order_stations",
         "trunk_sides_swapped": "trunk_sides_swapped_raw"}   # shown as "a/b" (swapped: as drawn/raw)


INTRO = [   # comparison.md's first lines
    "The bundled boards as shipped against `mapkit layout` from lat/lon alone (`PYTHONPATH=. python reports/layout/compare.py`,",
    "or one board at a time and then `--table`; stop 27 for Seattle, stop 26 for the others, this host, the default layout with",
    'the 6 mm gap rule; seconds: CPU). The first row of each board is the layout that was in boards/ when the rows were made.',
    'Portland and north-america ship their "computed, hand size, geo_anchor 1.0" layouts (`mapkit layout boards/B.json --size',
    'WxH --geo-anchor 1.0 --write`, re-made at stop 26: the rows are the same layout; docs/board-format.md says why and what it',
    "cost); Seattle its hand layout refined (`mapkit layout boards/seattle.json --refine --write`, stop 27: the hand layout's",
    "drawing kept, its routes drawn in; before it, 63 of 115 routes over 6 mm, the largest gap 17.5 mm, labels from 11 pt).",
    "routes_over_gap: routes with gaps between spaces over 6 mm, of those drawn. Earlier tables: git history of this file.",
    ""]


def cell(r: dict, c: str) -> str:
    if c == "board_mm":
        return f"{r[c][0]:g}x{r[c][1]:g}"
    if r.get(c) is None:
        return ""
    return f"{r[c]}/{r[PAIRS[c]]}" if c in PAIRS else str(r[c])


def run(name: str, sizes: tuple[str, ...]) -> list[dict]:
    """Hand and computed rows of one board; also written to <board>.rows.json (boards can run in
    parallel processes, then `--table` gathers them)."""
    hand = json.loads((BOARDS / f"{name}.json").read_text(encoding="utf-8"))
    ph = hand.get("physical", {})
    size = (ph.get("width_mm", 800), ph.get("height_mm", 530))
    rows = [{"board": name, "layout": "shipped", **measure(hand), "seconds": None}]
    runs = {"hand": ("computed, hand size", size, "", None), "auto": ("computed, size auto", "auto", "-auto", None),
            "near": (f"computed, hand size, geo_anchor {NEAR}", size, "-near", NEAR)}
    for label, sz, suffix, anchor in (runs[k] for k in sizes):
        t0 = time.process_time()
        res = layout_board(stripped(hand), size=sz, geo_anchor=anchor)
        secs = round(time.process_time() - t0, 1)
        atomic_write_text(HERE / f"{name}{suffix}.json", dump_board_json(res.data))
        rows.append({"board": name, "layout": label, **measure(res.data), "seconds": secs,
                     "problems": res.problems})
        print(name, label, secs, "s", flush=True)
    atomic_write_text(HERE / f"{name}.rows.json", json.dumps(rows, indent=2) + "\n")
    return rows


def table(names) -> None:
    rows = [r for name in names for r in json.loads((HERE / f"{name}.rows.json").read_text(encoding="utf-8"))]
    atomic_write_text(HERE / "comparison.json", json.dumps(rows, indent=2) + "\n")
    head = "| board | layout | " + " | ".join(COLUMNS) + " |"
    lines = INTRO + [head, "|" + "---|" * (len(COLUMNS) + 2)]
    for r in rows:
        lines.append(f"| {r['board']} | {r['layout']} | " + " | ".join(cell(r, c) for c in COLUMNS) + " |")
    atomic_write_text(HERE / "comparison.md", "\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv) -> None:
    args = [a for a in argv if not a.startswith("--")]
    names = args or ["portland", "seattle", "north-america"]
    unknown = [n for n in names if not (BOARDS / f"{n}.json").is_file()]
    if unknown:
        raise SystemExit(f"compare.py: no bundled board '{unknown[0]}'; the boards are "
                         + ", ".join(sorted(p.stem for p in BOARDS.glob("*.json"))))
    if "--table" in argv:
        missing = [n for n in names if not (HERE / f"{n}.rows.json").is_file()]
        if missing:
            raise SystemExit(f"compare.py --table: no rows of '{missing[0]}' yet; run"
                             f" `python reports/layout/compare.py {missing[0]}` first")
    if "--table" not in argv:
        sizes = ("hand",) if "--hand-size-only" in argv else ("hand", "auto", "near")
        for name in names:
            run(name, sizes)
    table(names)


if __name__ == "__main__":
    main(sys.argv[1:])
