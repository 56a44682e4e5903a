"""How octilinear a layout is: the share of route segments (a route's straight pieces, station to
bend, bend to bend, bend to station) drawn within 5° of a multiple of 45°, and whether the board is
strict-clean (`mapkit validate --strict`: no geometry error or warning).

    OPENBLAS_NUM_THREADS=1 python bench/octilinear.py                    # schematic, the three boards
    OPENBLAS_NUM_THREADS=1 python bench/octilinear.py --style geographic
    OPENBLAS_NUM_THREADS=1 python bench/octilinear.py --only portland --size 900x600

Boards: boards/north-america.json and boards/portland.json stripped to lat/lon, and the synthetic
planar network of mapkit/layout/synthetic.py (--synthetic N stations, seed 0).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mapkit.layout import layout_board, stripped  # noqa: E402
from mapkit.layout.octilinear import octilinear_share, segments  # noqa: E402
from mapkit.layout.synthetic import layout_board_data  # noqa: E402


def boards(n_synthetic: int) -> dict[str, dict]:
    out = {}
    for name in ("north-america", "portland"):
        out[name] = stripped(json.loads((ROOT / "boards" / f"{name}.json").read_text()))
    out[f"synthetic-{n_synthetic}"] = layout_board_data(n_synthetic, seed=0)
    return out


def strict_clean(data: dict) -> bool:
    from mapkit.boardfile import build_board
    from mapkit.checks import check_geometry

    return not list(check_geometry(build_board(data)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--style", default="schematic", choices=("geographic", "schematic"))
    ap.add_argument("--size", default="auto", help="auto or WxH in mm")
    ap.add_argument("--synthetic", type=int, default=30, help="stations of the synthetic network")
    ap.add_argument("--only", default=None, help="one board by name")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from mapkit.layout.fit import parse_size
    try:
        size = parse_size(args.size)
    except ValueError as e:
        ap.error(f"--size: {e}")
    known = boards(args.synthetic)
    if args.only and args.only not in known:
        ap.error(f"--only: unknown board '{args.only}'; use one of {', '.join(known)}")
    print(f"style {args.style}, size {args.size}, seed {args.seed}")
    print(f"{'board':<16} {'stations':>8} {'segments':>8} {'within 5°':>9} {'strict':>7} {'board mm':>12}"
          f" {'over 6 mm':>9} {'largest gap':>11} {'cpu s':>6}")
    for name, data in known.items():
        if args.only and args.only != name:
            continue
        t = time.process_time()
        res = layout_board(data, style=args.style, size=size, seed=args.seed)
        cpu = time.process_time() - t
        segs = segments(res.data)
        share = octilinear_share(res.data)
        mm = "x".join(f"{v:g}" for v in res.figures["board_mm"])
        print(f"{name:<16} {len(data['stations']):>8} {len(segs):>8} {share:>9.0%} "
              f"{'clean' if strict_clean(res.data) else 'NOT':>7} {mm:>12} {res.figures['routes_over_gap']:>9}"
              f" {res.figures['largest_gap_mm']:>11.1f} {cpu:>6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
