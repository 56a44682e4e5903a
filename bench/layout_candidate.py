"""A computed layout of a bundled board as a candidate to ship, written the way `mapkit layout --write`
would change the file: only the station positions and route waypoints differ, every other character
of boards/<board>.json stays as it is. The board file itself is not touched.

    python bench/layout_candidate.py portland [OUT_DIR] [--geo-anchor 1.0]
        -> OUT_DIR/portland.computed.json (OUT_DIR: out/bench by default), its checks and figures;
           exit 0 when the geometry checks find nothing, 1 otherwise
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mapkit.layout import layout_board  # noqa: E402
from mapkit.layout.figures import measure  # noqa: E402
from mapkit.layout.judge import geometry_problems  # noqa: E402
from mapkit.outputs import atomic_write_text  # noqa: E402
from mapkit.textpatch import patch_text  # noqa: E402

BOARDS = ROOT / "boards"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("board", help="a bundled board: " + ", ".join(sorted(p.stem for p in BOARDS.glob("*.json"))))
    ap.add_argument("out_dir", nargs="?", default="out/bench", help="folder for <board>.computed.json (default out/bench)")
    ap.add_argument("--geo-anchor", type=float, default=None, help="hold the first drawing to the real map (as layout's)")
    a = ap.parse_args(argv)
    src = BOARDS / f"{a.board}.json"
    if not src.is_file():
        ap.error(f"no bundled board '{a.board}'")
    text = src.read_text(encoding="utf-8")
    hand = json.loads(text)
    ph = hand.get("physical", {})
    size = (ph.get("width_mm", 800), ph.get("height_mm", 530))
    res = layout_board(hand, size=size, geo_anchor=a.geo_anchor)
    new_text = patch_text(text, res.changes)
    new = json.loads(new_text)
    # the same board as the layout's own result, and nothing but positions and waypoints changed
    assert new == res.data, "the patched text reads back as a different board"
    for key in hand:
        if key not in ("stations", "routes"):
            assert new[key] == hand[key], key
    for x, y in zip(hand["stations"], new["stations"]):
        assert {k: v for k, v in x.items() if k != "board"} == {k: v for k, v in y.items() if k != "board"}
    for x, y in zip(hand["routes"], new["routes"]):
        assert {k: v for k, v in x.items() if k != "waypoints"} == {k: v for k, v in y.items() if k != "waypoints"}
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    dest = out / f"{a.board}.computed.json"
    atomic_write_text(dest, new_text)
    found = geometry_problems(new)
    print(f"{dest}: {len(res.changes)} changes, {sum(p.severity == 'error' for p in found)} errors,"
          f" {sum(p.severity == 'warning' for p in found)} warnings")
    print(json.dumps(dict(measure(new)), indent=1))
    return 0 if not found else 1


if __name__ == "__main__":
    sys.exit(main())
