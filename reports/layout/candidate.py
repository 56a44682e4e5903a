"""A computed layout of a bundled board as a candidate to ship, written the way `mapkit layout
--write` would change the file: only the station positions and route waypoints differ, every other
character of boards/<board>.json stays as it is. The board file itself is not touched.

    python reports/layout/candidate.py portland [--geo-anchor 1.0]
        -> reports/layout/portland.computed.json, and its validate verdict and figures
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mapkit.layout import layout_board
from mapkit.layout.figures import measure
from mapkit.layout.pipeline import geometry_problems
from mapkit.outputs import atomic_write_text
from mapkit.textpatch import patch_text

HERE = Path(__file__).resolve().parent
BOARDS = HERE.parent.parent / "boards"


def main(argv) -> int:
    args = [a for a in argv if not a.startswith("--")]
    anchor = None
    if "--geo-anchor" in argv:
        anchor = float(argv[argv.index("--geo-anchor") + 1])
        args = [a for a in args if a != argv[argv.index("--geo-anchor") + 1]]
    name = args[0]
    src = BOARDS / f"{name}.json"
    text = src.read_text(encoding="utf-8")
    hand = json.loads(text)
    ph = hand.get("physical", {})
    size = (ph.get("width_mm", 800), ph.get("height_mm", 530))
    res = layout_board(hand, size=size, geo_anchor=anchor)
    new_text = patch_text(text, res.changes)
    new = json.loads(new_text)
    # the same board as the layout's own result, and nothing but positions and waypoints changed
    assert new == res.data, "the patched text reads back as a different board"
    for key in hand:
        if key not in ("stations", "routes"):
            assert new[key] == hand[key], key
    for a, b in zip(hand["stations"], new["stations"]):
        assert {k: v for k, v in a.items() if k != "board"} == {k: v for k, v in b.items() if k != "board"}
    for a, b in zip(hand["routes"], new["routes"]):
        assert {k: v for k, v in a.items() if k != "waypoints"} == {k: v for k, v in b.items() if k != "waypoints"}
    out = HERE / f"{name}.computed.json"
    atomic_write_text(out, new_text)
    found = geometry_problems(new)
    print(f"{out.name}: {len(res.changes)} changes, {sum(p.severity == 'error' for p in found)} errors,"
          f" {sum(p.severity == 'warning' for p in found)} warnings")
    print(json.dumps({k: v for k, v in measure(new).items()}, indent=1))
    return 0 if not found else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
