"""Make mapkit/balance/published-reference.json: the published North America map (its 30
published tickets, standard rules) played by the default panel, 2000 games per player count,
seed 0. The balance report reads it as its reference (mapkit/balance/reference.py).

    python bench/published_reference.py [--games 2000] [--jobs 2] [--out PATH]
"""

import argparse
import json
import time
from pathlib import Path

from mapkit.balance.panel import default_panel
from mapkit.balance.reference import SHIPPED, play_reference
from mapkit.errors import MapkitError
from mapkit.outputs import atomic_write_text, check_output

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--games", type=int, default=2000)
ap.add_argument("--jobs", type=int, default=2)
ap.add_argument("--seed", type=int, default=0)
ap.add_argument("--out", type=Path, default=SHIPPED)
args = ap.parse_args()
t0 = time.monotonic()
try:
    if not args.out.parent.is_dir():
        raise MapkitError(f"{args.out.parent} is not a folder: give --out a path in an existing folder")
    check_output(args.out)   # before the games: they take minutes
    ref = play_reference(default_panel(), [2, 3, 4, 5], args.games, args.seed, args.jobs)
    ref["source"] = "shipped"
    atomic_write_text(args.out, json.dumps(ref, indent=1) + "\n")
except MapkitError as exc:
    raise SystemExit(f"error: {exc}")
print(f"wrote {args.out} in {time.monotonic() - t0:.0f} s")
