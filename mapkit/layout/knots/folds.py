"""After the untangling: a route bent round a station that the real map has on its other side.

A route stretched by a bend is often one that goes the long way round a station: the first
drawing put that station on the wrong side of the route's straight line (Seattle's Stride line
from TIBS to Renton bent north round Tukwila, which the real map has south of it, 2x stretched),
and every route of the station holds it there, so neither the repair's single moves nor the
untangling's kicks take it across. Here, for each route the checks call stretched that has a bend,
the stations inside the loop it makes with its chord are put on the chord's other side (the real
map's side, where the real map agrees), the bend is dropped, and the board around is optimized
again (the untangling's local re-optimization) and repaired; the change is kept only when the
whole board's checks find less. A board with no stretched bent route never comes here.
"""

from __future__ import annotations

import numpy as np
import shapely

from mapkit.layout.flights import route_flights
from mapkit.layout.overpass import overpass_gaps, rank
from mapkit.layout.repair import Repair
from mapkit.layout.knots.kicks import RELAX_ROUNDS, Untangle

REPAIR_TRIES = 200   # the repair after an unfolding: local moves judged by the checks, at most
UNFOLD_ROUNDS = RELAX_ROUNDS  # of the local re-optimization after it


def _loop_stations(net, dr, k) -> list[int]:
    """The free stations inside the loop of bundle k's polyline and its chord."""
    line = dr.lines[k]
    if len(line) < 3:
        return []
    ring = shapely.Polygon(dr.pos[line])
    if not ring.is_valid or ring.area < 1.0:
        return []
    ends = {line[0], line[-1]}
    pts = shapely.points(dr.pos[: net.n])
    inside = np.flatnonzero(shapely.contains(ring, pts))
    return [int(i) for i in inside if int(i) not in ends and dr.free[i]]


def _across(net, dr, k, stations) -> list[tuple[int, np.ndarray]]:
    """Each station reflected across the chord of bundle k, at least clear of its band; only
    stations that the real map has on the other side."""
    a, b = dr.lines[k][0], dr.lines[k][-1]
    pa, pb = dr.pos[a], dr.pos[b]
    ga, gb = net.geo[a], net.geo[b]
    d = pb - pa
    ln = float(np.linalg.norm(d))
    gd = gb - ga
    if ln < 1e-6 or float(np.linalg.norm(gd)) < 1e-12:
        return []
    nrm = np.array([-d[1], d[0]]) / ln
    gnrm = np.array([-gd[1], gd[0]])
    clear = net.radius + net.bundles[k].half_width + 3.0
    out = []
    for s in stations:
        off = float(np.dot(dr.pos[s] - pa, nrm))
        real = float(np.dot(net.geo[s] - ga, gnrm))
        if off * real >= 0:    # already on the real map's side: not this knot
            continue
        new_off = -np.sign(off) * max(abs(off), clear)
        out.append((s, dr.pos[s] + (new_off - off) * nrm))
    return out


def _drop_bends(dr, k) -> None:
    """The bundle drawn straight; its waypoints stay in dr.pos, frozen and unused (as flights' do)."""
    for p in dr.lines[k][1:-1]:
        dr.free[p] = False
    dr.lines[k] = [dr.lines[k][0], dr.lines[k][-1]]


def relax(rp, w, style, centres) -> None:
    """The untangling's local re-optimization (the points within its reach of the centres, the rest
    held, the rules at their heaviest), with an overpass free to cross the route whose station
    went across (an overpass's line may cross others; its spaces the checks still judge)."""
    Untangle(rp, w, style).relax(centres, rounds=UNFOLD_ROUNDS, extra={"overpass_crossings": True})


def _flip(dr, k) -> list[tuple[int, np.ndarray]]:
    """Bundle k's free waypoints reflected across its chord: the bend on the other side."""
    line = dr.lines[k]
    pa, pb = dr.pos[line[0]], dr.pos[line[-1]]
    d = pb - pa
    ln = float(np.linalg.norm(d))
    if ln < 1e-6:
        return []
    nrm = np.array([-d[1], d[0]]) / ln
    return [(i, dr.pos[i] - 2 * float(np.dot(dr.pos[i] - pa, nrm)) * nrm) for i in line[1:-1] if dr.free[i]]


def _kicks(rp, p) -> list[tuple[int, bool, list]]:
    """(bundle, drop its bend, point moves) to try for one problem: a stretched bent route's loop
    stations put across its chord (the bend dropped); a bent route over a station or another
    route's spaces, its bend put on the chord's other side."""
    net, dr, out = rp.net, rp.dr, []
    names = [p.subject[len("route "):]] if p.subject.startswith("route ") else []
    for rid in names:
        k = rp.bundle_of.get(rid)
        if k is None or net.bundles[k].flight or net.bundles[k].fixed_waypoints or len(dr.lines[k]) < 3:
            continue
        if p.code == "route-stretched":
            moves = _across(net, dr, k, _loop_stations(net, dr, k))
            if moves:
                out.append((k, True, moves))
        elif p.code in ("space-on-station", "space-overlap"):
            moves = _flip(dr, k)
            if moves:
                out.append((k, False, moves))
    return out


def unfold(net, dr, size_out, check, found, w, style):
    """What is left after unfolding the bent routes that go the wrong way round a station (the
    checks' problems, as found or fewer)."""
    current = rank(found)
    tried = set()
    for p in sorted(found, key=lambda q: (q.subject, q.code, q.message)):
        if not found:
            break
        rp = Repair(net, dr, size_out, check)
        for k, drop, moves in _kicks(rp, p):
            if (k, drop) in tried:
                continue
            tried.add((k, drop))
            saved = (dr.pos.copy(), dr.free.copy(), [list(line) for line in dr.lines])
            line = list(dr.lines[k])
            if drop:
                _drop_bends(dr, k)
            for s, xy in moves:
                dr.pos[s] = xy
            centres = np.array([dr.pos[line[0]], dr.pos[line[-1]]] + [xy for _, xy in moves])
            relax(rp, w, style, centres)
            route_flights(net, dr, size_out, even=rp.even)   # stations moved: the flights' paths round them again
            rp.tries, rp.max_tries = 0, REPAIR_TRIES
            new = rp.run()
            if new:   # an overpass now over the route: a gap of its spaces where it crosses (overpass.py)
                new = overpass_gaps(rp, new)
                if new:
                    rp.tries = 0
                    new = rp.run()
            if rank(new) < current:
                found, current = new, rank(new)
            else:
                dr.pos, dr.free, dr.lines = saved
    return found
