"""`mapkit layout`: station board positions (and route waypoints) computed from geography and route
lengths, so that a board passes every geometry check (see docs/board-format.md, "Laying out a board").

    from mapkit.layout import layout_board
    res = layout_board(data, style="geographic", size="auto", seed=0, keep=frozenset())
    res.data, res.changes, res.figures, res.problems
"""

from __future__ import annotations

import gc
import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field

from mapkit.layout.options import STYLES, LayoutOptions
from mapkit.layout.pipeline import LayoutError, layout_board_impl


def stripped(data: dict) -> dict:
    """A copy of a board dict with every station's board position and every route's waypoints taken
    out (lat/lon only): what a designer starts from, and how the bundled boards are laid out anew in
    the tests and reports/layout."""
    out = json.loads(json.dumps(data))
    for s in out["stations"]:
        s.pop("board", None)
    for r in out["routes"]:
        r.pop("waypoints", None)
    return out


@dataclass
class LayoutResult:
    data: dict                      # the new board dict
    changes: dict                   # {json path tuple: value or writer.DELETE}
    figures: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)   # what could not fit, and by how much


def layout_board(data: dict, *, style: str = "geographic", size="auto", seed: int = 0,
                 keep: frozenset = frozenset(), geo_anchor: float | None = None, gap_rule: bool = True,
                 refine: bool = False) -> LayoutResult:
    """Lay out a schema-valid board dict (stations with lat/lon). See the module docstring.

    geo_anchor: how strongly the first (stress) drawing is held to the real map, as a share of a
    typical station's pull towards its route lengths (None: the default, 0, only the lengths). 1
    keeps Portland and North America nearer their geography and clean; Seattle, whose real map
    does not fit its routes' lengths on 600 x 900 mm, comes out clean with it but two labels
    without room (reports/layout).

    gap_rule: True (the default, --gap-rule): gaps between spaces held to network.MAX_GAP_MM (or
    what a crowded station needs) as a rule, not a preference, and --size auto preferring a size the
    network fills; where the rule leaves a problem on every size, the soft layout is kept if cleaner
    (figure gap_rule). False (--no-gap-rule): the layout only prefers 6 mm gaps during the
    optimization. Either way the clean board's over-long routes are then drawn in where the checks,
    the labels' room, the fill and the directions allow (tighten.py, figure tightened; once more
    after the label step, tightened.again), and in the geographic style stations of one or two
    neighbours drawn across them are first seated on their bearings, and branches drawn turned round
    their station turned back (seats.py, figure reseated).
    Measured on 18 cases (`python bench/layout_cases.py`): the rule leaves about a quarter as many
    routes over 6 mm (114 against 445 of 3094, seed 0), every case clean, at about 1.2 times the
    CPU (the 60-station bench board: about 9.5 s against 7.9 s; `mapkit bench --only layout`).

    refine: start from the board as the file draws it (every station's board position, its
    routes' waypoints in mm) on the board's own size, instead of from the real map: after a
    designer moved or pinned a few stations, the others stay near where they were and only what
    the checks, the gaps and the labels ask is changed (pipeline.layout_once)."""
    if style not in STYLES:
        raise LayoutError(f"unknown style '{style}': use geographic or schematic")
    if geo_anchor is not None and not 0 <= geo_anchor <= 10:
        raise LayoutError(f"geo_anchor {geo_anchor}: use a share from 0 to 10")
    with fewer_collections():
        opts = LayoutOptions(style=style, size=size, seed=seed, keep=frozenset(keep), geo_anchor=geo_anchor,
                             gap_rule=gap_rule, refine=bool(refine))
        new, changes, figures, problems = layout_board_impl(data, opts)
    return LayoutResult(new, changes, figures, problems)


# The layout makes millions of small tuples and keeps tens of thousands in its caches (mapkit.geometry,
# repair.PartBoards): with Python's default threshold (a young collection every 700 allocations,
# each tenth one older, and a full one each tenth of those) the cyclic garbage collector took about
# 8 % of the 60-station bench board's time, mostly full collections walking the caches. A young
# collection every GC_THRESHOLD0 allocations instead: the same objects are freed (by reference
# counting, as before, or by a later collection: nothing of the layout depends on when), the
# results are the same (mapkit keys no cache by id() of an object that could be freed), and the
# bench board takes about 5 % less CPU (docs/design/speed.md).
GC_THRESHOLD0 = 10_000
_GC_LOCK = threading.Lock()
_GC_DEPTH = [0, None]   # layouts running in this process, the threshold they found


@contextmanager
def fewer_collections():
    """gc's young-generation threshold raised to GC_THRESHOLD0 while a layout runs (nested and
    concurrent layouts: set by the first, put back by the last)."""
    with _GC_LOCK:
        if _GC_DEPTH[0] == 0:
            _GC_DEPTH[1] = gc.get_threshold()
            if _GC_DEPTH[1][0] and _GC_DEPTH[1][0] < GC_THRESHOLD0:   # (0: collection turned off, left so)
                gc.set_threshold(GC_THRESHOLD0, *_GC_DEPTH[1][1:])
        _GC_DEPTH[0] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_DEPTH[0] -= 1
            if _GC_DEPTH[0] == 0:
                gc.set_threshold(*_GC_DEPTH[1])


__all__ = ["layout_board", "LayoutResult", "LayoutError", "LayoutOptions", "STYLES"]
