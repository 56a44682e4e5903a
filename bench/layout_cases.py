"""The 18 layout cases of docs/design/layout.md, one JSON line each: the three bundled boards stripped
of every board position and waypoint (Portland on 900 x 600 and north-america on 800 x 530, both
with geo_anchor 1.0 as shipped; Seattle on --size auto) and the synthetic networks of 20, 40, 60,
100 and 200 stations, seeds 0-2, on --size auto.

    OPENBLAS_NUM_THREADS=1 python bench/layout_cases.py [OUT_DIR] [--soft] [--seed N] [--jobs 2] [--only CASE,...]

The rows go to OUT_DIR/layout-cases-seed<N>[-soft].jsonl (OUT_DIR: out/bench by default; the file is
replaced) and to the terminal; a summary line (routes over 6 mm, errors, CPU) closes the run.

--soft lays out without the gap rule (--no-gap-rule); --seed is the layout's seed (the networks are
the same). CPU seconds are each case's own process time; the figures are
mapkit.layout.figures.measure of the written board, plus the layout's figure gap_rule, over_mm
(routes with gaps between spaces over 6, 7, 8 and 10 mm) and over_held (of the routes over 6 mm,
the one-space routes as short as their crowded stations allow: mapkit.layout.figures.loose_routes)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CASES = ["portland", "north-america", "seattle"] + [f"{n}:{s}" for n in (20, 40, 60, 100, 200) for s in (0, 1, 2)]
KEYS = ["board_mm", "routes_over_gap", "routes_drawn", "largest_gap_mm", "end_gaps_over_need", "largest_end_gap_mm",
        "routes_over_gap_even", "fill_w", "fill_h", "direction_error_deg_mean", "labels_with_room", "labels_total",
        "label_pt_smallest", "errors", "warnings", "within_45deg", "routes_over_90deg", "order_kept", "order_stations"]


def case_data(name: str):
    from mapkit.layout import stripped
    from mapkit.layout.synthetic import layout_board_data
    if name in ("portland", "north-america", "seattle"):
        data = stripped(json.loads((ROOT / "boards" / f"{name}.json").read_text(encoding="utf-8")))
        kw = {"portland": dict(size=(900, 600), geo_anchor=1.0), "north-america": dict(size=(800, 530), geo_anchor=1.0),
              "seattle": dict(size="auto")}[name]
        return data, kw
    n, s = map(int, name.split(":"))
    return layout_board_data(n, seed=s), dict(size="auto")


OVER_MM = (6.0, 7.0, 8.0, 10.0)


def over_by(loose: list) -> dict:
    """How many routes (flights aside) have gaps between spaces over each of OVER_MM, as rounded
    (the figure routes_over_gap is the first): how far over 6 mm what is left is. loose: the
    board's mapkit.layout.figures.loose_routes (every route over 6 mm, its gap as rounded)."""
    return {f"{t:g}": sum(x["gap_mm"] > t for x in loose) for t in OVER_MM}


def run(name: str, rule: bool, seed: int) -> dict:
    from mapkit.layout import layout_board
    from mapkit.layout.figures import loose_routes, measure
    data, kw = case_data(name)
    t = time.process_time()
    res = layout_board(data, seed=seed, gap_rule=rule, **kw)
    cpu = time.process_time() - t
    m = measure(res.data)
    out = {k: m.get(k) for k in KEYS}
    loose = loose_routes(res.data)
    out["over_mm"] = over_by(loose)
    # of routes_over_gap, the one-space routes already as short as their crowded ends allow
    # (figures.loose_routes: their centred space shows the needy end's gap at the other end too)
    out["over_held"] = sum(x["held"] for x in loose)
    out.update(cpu=round(cpu, 1), case=name, rule=rule, seed=seed, gap_rule=res.figures.get("gap_rule"))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    ap.add_argument("out_dir", nargs="?", default="out/bench", help="folder for the rows (default out/bench)")
    ap.add_argument("--soft", action="store_true", help="without the gap rule")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="processes (at least 1)")
    ap.add_argument("--only", default="", help="cases, comma-separated, of: " + ", ".join(CASES))
    a = ap.parse_args()
    cases = [c for c in a.only.split(",") if c] or CASES
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        ap.error(f"--only: unknown case '{unknown[0]}'; the cases are {', '.join(CASES)}")
    if a.jobs < 1:
        ap.error("--jobs: give at least 1")
    out = Path(a.out_dir) / f"layout-cases-seed{a.seed}{'-soft' if a.soft else ''}.jsonl"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fh = open(out, "w", encoding="utf-8")
    except OSError as e:
        ap.error(f"{out}: cannot write there ({e.strerror}); give a folder you can write to")
    rows = []
    with fh, ProcessPoolExecutor(a.jobs) as pool:
        for row in pool.map(run, cases, [not a.soft] * len(cases), [a.seed] * len(cases)):
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(f"{len(rows)} cases: {sum(r['routes_over_gap'] for r in rows)} of {sum(r['routes_drawn'] for r in rows)} routes"
          f" over 6 mm, {sum(r['errors'] for r in rows)} errors, {sum(r['warnings'] for r in rows)} warnings,"
          f" labels {sum(r['labels_with_room'] for r in rows)}/{sum(r['labels_total'] for r in rows)} with room,"
          f" {sum(r['routes_over_90deg'] for r in rows)} routes over 90 deg, CPU {sum(r['cpu'] for r in rows):.1f} s -> {out}")


if __name__ == "__main__":
    main()
