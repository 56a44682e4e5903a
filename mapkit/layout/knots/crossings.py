"""After the unfolding: two routes that cross on a planar network.

A crossing the checks report between two routes of a planar network is a layout defect, not a
property of the network: one of the two routes goes round a station on the wrong side, or a
station sits across the other route from where the real map has it. The synthetic 40-station
board (seed 2) drew its long route s7-s23 with a bend on the west of its chord, round station
s15, so that s15's route to s22 had to cross it; 60/2 has a station (s0) on the far side of a
bent route from its own route to s11, and a one-route station (s22) turned north of its neighbour
across a bent route the real map has it south of. Every single move the repair tries makes the
crossing worse before it gets better (a station has to pass through the route), so none is taken.

Here, for each crossing left, a few moves, each followed by the untangling's local
re-optimization and the repair (as in the unfolding): either route's bend put on the other side of
its chord (the route then goes round the station on the other side), each end of one route put
across the other route's segment it crosses (reflected, at least clear of its band), and the other
route taken round that end on its far side (a waypoint moved or added there); the moves of an end
the real map has on the other side come first, and the crossings take turns. A move is kept only
when the whole board's checks find less (errors first, mapkit.layout.overpass.rank). Bounded
moves, a fixed order: a seed gives one result; a board with no crossing left never comes here
(Portland and north-america come out as before).
"""

from __future__ import annotations

import re
from itertools import zip_longest

import numpy as np
import shapely

from mapkit.layout.flights import route_flights
from mapkit.layout.overpass import _insert as insert, rank
from mapkit.layout.repair import Repair
from mapkit.layout.knots.folds import _flip, relax

REPAIR_TRIES = 200   # the repair after a move: local moves judged by the checks, at most
MAX_MOVES = 24       # moves (each with its re-optimization and repair) over one uncrossing
EXTRA_MM = (0.0,)   # an end put across: this much more than its band's clearance (6 mm more: the same results)
ROUND_EXTRA_MM = (0.0, 20.0)   # a route taken round an end: this much farther out than its band's clearance. Just
# clear of the end, its segments run close along the end's own routes and their first spaces
# touch where they meet (60/2 with the gap rule: s1-s10 round s0, whose routes to s1 and s10 are
# held short); 20 mm out, the angles at those stations open


def _pair(rp, p) -> tuple[int, int] | None:
    """The two bundles of a crossing (subject, and the route its message names)."""
    if p.code != "crossing" or not p.subject.startswith("route "):
        return None
    m = re.search(r"route '([^']+)'", p.message)
    a, b = rp.bundle_of.get(p.subject[len("route "):]), rp.bundle_of.get(m.group(1)) if m else None
    if a is None or b is None or a == b:
        return None
    return a, b


def _crossed_segment(dr, k, other) -> tuple[np.ndarray, np.ndarray] | None:
    """The segment of bundle k's line that bundle other's line crosses (the first one)."""
    far = shapely.LineString(dr.pos[dr.lines[other]])
    line = dr.lines[k]
    for j in range(len(line) - 1):
        a, b = dr.pos[line[j]], dr.pos[line[j + 1]]
        if shapely.LineString([a, b]).intersects(far):
            return a, b
    return None


def _end_moves(net, dr, k, other) -> list[tuple[bool, str, list]]:
    """(the station is on the wrong side, what, point moves) for each end s of bundle other that
    is not an end of k: s put across k's crossed segment (reflected, but at least clear of k's
    band), and k taken round s on its far side (the nearest free waypoint of k moved there, or
    for a straight k a new one: the way round a station that sits beyond k's line from its own
    routes, 60/2's s0). "Wrong side": the real map has s on the other side of k's chord."""
    seg = _crossed_segment(dr, k, other)
    if seg is None:
        return []
    a, b = seg
    d = b - a
    ln = float(np.linalg.norm(d))
    if ln < 1e-6:
        return []
    nrm = np.array([-d[1], d[0]]) / ln
    bk = net.bundles[k]
    ga, gb = net.geo[bk.a], net.geo[bk.b]
    gd = gb - ga
    gnrm = np.array([-gd[1], gd[0]])
    # the crossed segment runs the way of k's chord (a→b as on the real map) unless a bend turns it
    along = np.sign(np.dot(dr.pos[dr.lines[k][-1]] - dr.pos[dr.lines[k][0]], d)) or 1.0
    clear = net.radius + bk.half_width + 3.0
    line, out = dr.lines[k], []
    free_wps = [i for i in line[1:-1] if dr.free[i]]
    for s in (net.bundles[other].a, net.bundles[other].b):
        if s in (bk.a, bk.b):
            continue
        off = float(np.dot(dr.pos[s] - a, nrm))
        wrong = bool(float(np.dot(net.geo[s] - ga, gnrm)) * along * off < 0)
        t = float(np.clip(np.dot(dr.pos[s] - a, d) / ln ** 2, 0.0, 1.0))
        foot = a + t * d
        side = np.sign(off or 1.0)
        if dr.free[s]:
            for n, extra in enumerate(EXTRA_MM):
                new_off = -side * max(min(abs(off), 3 * clear), clear + extra)
                out.append((wrong, f"across {s} {n}", [(int(s), foot + new_off * nrm)]))
        for n, extra in enumerate(ROUND_EXTRA_MM):
            xy = dr.pos[s] + side * nrm * (clear + extra)
            if free_wps:
                i = min(free_wps, key=lambda i: float(np.linalg.norm(dr.pos[i] - dr.pos[s])))
                out.append((wrong, f"around {k} {s}{' far' * n}", [(int(i), xy)]))
            elif len(line) == 2 and not bk.fixed_waypoints:
                out.append((wrong, f"around {k} {s}{' far' * n}", [(("new", k), xy)]))
    return out


def _moves(rp, p) -> list[tuple[str, list]]:
    """(what, point moves) to try for one crossing: the bends flipped, then the moves of the
    stations the real map has on the other side, then the others."""
    pair = _pair(rp, p)
    if pair is None:
        return []
    net, dr = rp.net, rp.dr
    out = []
    for k in pair:
        b = net.bundles[k]
        if len(dr.lines[k]) > 2 and not b.flight and not b.fixed_waypoints:
            moves = _flip(dr, k)
            if moves:
                out.append((f"flip {k}", moves))
    ends = []
    for k, other in (pair, pair[::-1]):
        if not net.bundles[k].flight:
            ends += _end_moves(net, dr, k, other)
    out += [(what, m) for _, what, m in sorted(ends, key=lambda e: not e[0])]   # stable: the order above
    return [(what, m) for what, m in out if all(rp._inside(xy) for _, xy in m)]


def _apply(dr, moves) -> None:
    for s, xy in moves:
        if isinstance(s, tuple):   # ("new", k): a waypoint of bundle k, inserted in its only segment
            insert(dr, s[1], 0, xy)
        else:
            dr.pos[s] = xy


def uncross(net, dr, size_out, check, found, w, style):
    """What is left after the moves for the crossings (the checks' problems, as found or fewer).
    The crossings' moves are taken in turns (the first of each, then the second of each...): one
    crossing's fix often needs another's first (60/2), and the moves are few."""
    current = rank(found)
    moves_made, improved = 0, True
    while improved and moves_made < MAX_MOVES:
        improved = False
        rp = Repair(net, dr, size_out, check)
        lists = [_moves(rp, p) for p in sorted(found, key=lambda q: (q.subject, q.code, q.message))
                 if p.code == "crossing"]
        turns = [m for row in zip_longest(*lists) for m in row if m is not None]
        for what, moves in turns:
            if moves_made >= MAX_MOVES:
                break
            moves_made += 1
            saved = (dr.pos.copy(), dr.free.copy(), [list(line) for line in dr.lines])
            _apply(dr, moves)
            relax(rp, w, style, np.array([xy for _, xy in moves]))
            route_flights(net, dr, size_out, even=rp.even)   # stations moved: the flights' paths round them again
            rp.tries, rp.max_tries = 0, REPAIR_TRIES
            new = rp.run()
            if rank(new) < current:
                found, current, improved = new, rank(new), True
                break   # a new board: the moves of the crossings left are new moves
            dr.pos, dr.free, dr.lines = saved
    return found
