"""How many verdicts the published map gets against itself: the published North America board with
its 30 published tickets, reported on a seed other than the shipped reference's, once with the
fixed cut-offs (--reference none) and once judged against the published reference.

    python bench/calibration_check.py [--games 2000] [--seed 1] [--jobs 2]
"""

import argparse
import json
from collections import Counter

from mapkit.balance.panel import default_panel
from mapkit.balance.reference import published_board, shipped
from mapkit.balance.report import balance_report

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--games", type=int, default=2000)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--jobs", type=int, default=2)
args = ap.parse_args()
board = published_board()
rows = {}
for name, ref in (("fixed cut-offs", None), ("published reference", shipped())):
    r = balance_report(board, [2, 3, 4, 5], args.games, default_panel(), args.seed, args.jobs, reference=ref, tested=0)
    flagged = [v for v in r["verdicts"] if v["finding"] is True]
    rows[name] = {"verdicts listed": len([v for v in r["verdicts"] if v["kind"] != "seat-advantage"]),
                  "decided problems": len(flagged),
                  "robust problems": sum(v["verdict"] == "robust" for v in flagged),
                  "by kind": dict(Counter(v["kind"] for v in flagged))}
print(json.dumps(rows, indent=1))
