"""The knot stage of a layout (untie_knots): what the rounds of repairs leave, undone by local moves
judged by the checks.

On output draft.found is what the checks (the check given: judge.even_problems after the checked
repairs, judge.geometry_problems on the drawing as printed) still find after, in turn: the repair's
local moves (repair.py; tries bounded by the board's size), the flights' paths anew where it moved
stations under one (and the repair once more), and where problems are left, unless they are errors
on more than KNOT_SHARE of the routes (the board too small for the network rather than knotted:
those counted in draft.crowded_out and the steps below left out), the untangling (kicks with a
local re-optimization, kicks.py) and the repair once more, the unfolding (a station across a
route stretched round it, folds.py), the uncrossing (crossings.py, for crossings) and the
finishing (leftovers.py: the leftovers of 1 mm or 2 mm²). No step leaves the drawing worse by the
checks than it found it.
"""

from __future__ import annotations

from mapkit.layout.draft import Draft
from mapkit.layout.flights import route_flights
from mapkit.layout.judge import even_problems, problem_bundles
from mapkit.layout.knots.crossings import uncross
from mapkit.layout.knots.folds import unfold
from mapkit.layout.knots.kicks import untangle
from mapkit.layout.knots.leftovers import finish
from mapkit.layout.repair import repair

REPAIR_TRIES = 700  # local moves judged by the checks at most (mapkit.layout.repair)
REPAIR_TRIES_PER_STATION = 25
KNOT_SHARE = 1 / 3   # errors on more than this share of the routes after the repair: the board is too small (_too_many)


def untie_knots(d: Draft, check) -> None:
    """The local steps, from the repair to the finishing, on what the checks find (check:
    judge.even_problems or judge.geometry_problems, the spread they judge the spaces by)."""
    net, dr, size_out, w, style, n = d.net, d.dr, d.size_out, d.w, d.style, d.n
    found = repair(net, dr, size_out, check, max_tries=min(REPAIR_TRIES, REPAIR_TRIES_PER_STATION * n))
    if any(net.bundles[k].flight for k in problem_bundles(net, found)):
        # the repair moved stations under a flight: a new path, and the repair once more
        route_flights(net, dr, size_out, even=check is even_problems)
        found = repair(net, dr, size_out, check, max_tries=min(REPAIR_TRIES, REPAIR_TRIES_PER_STATION * n) // 2)
    if _too_many(found, net):
        # errors on a good share of the routes after the repair: the board is too small for the
        # network, not knotted. The steps below undo a few local knots each (their budgets are
        # per problem); the fit report says what does not fit without them
        d.crowded_out.append(sum(p.severity == "error" for p in found))
        d.found = found
        return
    if found:
        # a knot no single move undoes: kicks with a local re-optimization, then the repair once more
        found = untangle(net, dr, size_out, check, found, w, style)
        if found:
            found = repair(net, dr, size_out, check, max_tries=min(REPAIR_TRIES, REPAIR_TRIES_PER_STATION * n))
    if found:
        # a route stretched round a station the real map has on its other side: that station across (knots/folds.py)
        found = unfold(net, dr, size_out, check, found, w, style)
    if any(p.code == "crossing" for p in found):
        # two routes crossing on a planar network: a bend round the wrong side, a station across a route
        found = uncross(net, dr, size_out, check, found, w, style)
    if found:
        # the leftovers the steps above leave by the luck of the floating point (1 mm short, 2 mm²)
        found = finish(net, dr, size_out, check, found, w, style)
    d.found = found


def _too_many(found, net) -> bool:
    """Whether the repair left errors on more than KNOT_SHARE of the routes: then the board is too
    small for the network, and the knot steps (untangling, unfolding, uncrossing, finishing), each
    made to undo a few local knots with a budget per problem, are left out. On the 18 test cases
    the most any layout brings to them is 14 errors on 464 routes (200/0); 20 stations on 300 x 200
    mm bring 39 on 40."""
    return sum(p.severity == "error" for p in found) > KNOT_SHARE * len(net.route_ids)
