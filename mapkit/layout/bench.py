"""`mapkit bench --only layout`: the time to lay out synthetic planar boards of 60 and 200 stations
(mapkit.layout.synthetic), in CPU seconds of one core, with what the geometry checks say of each and
how many routes have gaps over 6 mm between spaces: the default layout (the gap rule) and, beside
it, the soft one (`--no-gap-rule`), which is faster and leaves more routes over 6 mm."""

from __future__ import annotations

import time

from mapkit.layout import layout_board
from mapkit.layout.synthetic import layout_board_data

SIZES = ((60, 10.0), (200, 60.0))  # stations, and the seconds a layout of that size should take at most


def run_layout_bench(seed: int = 0, sizes=SIZES, rules=(True, False)) -> list[dict]:
    rows = []
    for stations, target in sizes:
        data = layout_board_data(stations, seed=seed)
        for rule in rules:
            t0 = time.process_time()
            res = layout_board(data, seed=seed, gap_rule=rule)
            secs = time.process_time() - t0
            f = res.figures
            rows.append({"stations": stations, "routes": len(data["routes"]), "cpu_seconds": round(secs, 1),
                         "layout": "gap rule (default)" if rule else "--no-gap-rule",
                         "target_seconds": target, "within_target": secs <= target,
                         "board_mm": f.get("board_mm"), "errors": f.get("errors"), "warnings": f.get("warnings"),
                         "routes_over_gap": f.get("routes_over_gap"), "routes_drawn": f.get("routes_drawn"),
                         "largest_gap_mm": f.get("largest_gap_mm"), "within_45deg": f.get("within_45deg")})
    return rows


def format_layout_bench(rows: list[dict]) -> str:
    lines = ["layout (synthetic planar boards, CPU seconds of one core)"]
    for r in rows:
        lines.append(f"  {r['stations']:>4} stations {r['routes']:>4} routes  {r['layout']:<18}  {r['cpu_seconds']:>6.1f} s "
                     f"(target {r['target_seconds']:g} s: {'met' if r['within_target'] else 'NOT met'})  "
                     f"board {r['board_mm'][0]:g} x {r['board_mm'][1]:g} mm, {r['errors']} errors, {r['warnings']} warnings, "
                     f"{r['routes_over_gap']}/{r['routes_drawn']} routes over 6 mm")
    return "\n".join(lines)
