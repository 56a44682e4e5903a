"""The finishing stage of a layout (finish_board): a board without errors drawn in, its labels given
room and its directions seen to, with no more problems than the knot steps left (the clean board
stays clean, a warning they could not remove may stay).

On output, in turn: the bearings (geographic, not refined: stations nudged towards their routes' real
bearings, bearings.py), the seats (not refined: stations of one or two neighbours drawn across them seated
on their bearings, branches turned back, seats.py), the tightening (routes whose gaps between
spaces are over 6 mm drawn in where the checks, the label room, the fill and the directions allow,
tighten.py), the label step (stations without room for their name moved or given room by sliding a
line, labels.py), the tightening once more where routes are still over 6 mm, and in the schematic
style (not refined) the route segments turned to multiples of 45° where the checks and the labels
allow (octilinear.py). The figures of each step are kept on the Draft (polished, reseated,
tightened, lacking, octilinear); draft.rp is the board's judge (repair.Repair) and draft.found what
it finds. --refine: the drawing's directions are the designer's (no polish, seats or 45° turns) and
no move of one side of the board or all of it (the tightening's cuts and shrink, the label step's
slides).

Portland laid out anew: 20 of its 92 routes over 6 mm before the tightening, 14 before its second
pass, 10 at the end, every label with room at 10 pt (`mapkit layout boards/portland.json --out OUT
--format json`, figures tightened and labels_without_room_10pt; the counts are one machine's: the
drawing's floating point differs between processors).
"""

from __future__ import annotations

from mapkit.layout.draft import Draft
from mapkit.layout.figures import gap_figures
from mapkit.layout.judge import geometry_problems, score
from mapkit.layout.labelroom import ROOM_SIZES
from mapkit.layout.labels import label_repair
from mapkit.layout.octilinear import octilinear
from mapkit.layout.bearings import polish
from mapkit.layout.repair import Repair
from mapkit.layout.seats import reseat
from mapkit.layout.tighten import tighten


def finish_board(d: Draft) -> None:
    """The finishing steps on a board the checks find no error on (see the module docstring)."""
    net, dr, w, style, refine, found = d.net, d.dr, d.w, d.style, d.refine, d.found
    # the board's judge for every step below: no more problems than the knot steps left (nothing,
    # or a warning they could not remove)
    rp = d.rp = Repair(net, dr, d.size_out, geometry_problems)
    rp.baseline = score(found)
    # (schematic: its own directions; --refine: the drawing's directions are the designer's)
    d.polished = polish(rp) if style == "geographic" and not refine else 0
    # (--refine: no seats either: a station the designer drew across its neighbour stays there,
    # named by routes_across)
    d.reseated = reseat(rp, w, style) if not refine else None
    # gaps between spaces of at most about 6 mm: the optimization only prefers them (its
    # clearances win); on a board the checks pass, the over-long routes drawn in
    over = gap_figures(rp.full_data())
    tightened = d.tightened = {"routes_over_gap": [over["routes_over_gap"]], "largest_gap_mm": [over["largest_gap_mm"]],
                               **tighten(rp, w, style, sides=not refine)}   # (with the figures after it, the layout's last: report.py)
    # (the label step's slides lengthen routes: it tightens again the same way after them)
    d.lacking = label_repair(rp, retighten=(w, style), sides=not refine)
    # a second pass where the first one and the label step left the board: its targets from
    # this board, its slides tried again, no point banned; every label size's room kept, as
    # after the label step's slides. The figure's lists get the counts before it: [before the
    # first pass, before the second, at the end]
    left = gap_figures(rp.full_data())
    if left["routes_over_gap"]:
        for key in ("routes_over_gap", "largest_gap_mm"):
            tightened[key].append(left[key])
        tightened["again"] = tighten(rp, w, style, sizes=ROOM_SIZES, sides=not refine)
    if found:
        found = rp.full()   # the same count, maybe other words (a warning's figures moved)
    if style == "schematic" and not refine:
        # the route segments turned to multiples of 45° where the checks and the labels allow
        d.octilinear = octilinear(rp)
        if found:
            found = rp.full()
    d.found = found
