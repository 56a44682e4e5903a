"""An overpass over another route: a gap of its spaces where its line crosses.

A route flagged `"overpass": true` may cross other routes' lines; the checks ask only that its
spaces stay clear of theirs. Its spaces are spread evenly along its line, so where it crosses a
route it needs a gap between two of its spaces wide enough for the other route's band, and at the
right place: that is set by how long the overpass is drawn and where the crossing falls along it,
two things the optimizer's smooth terms do not see. Here, for each space overlap the checks find
between an overpass and a route it crosses, the overpass gets one bend (a waypoint off one of its
segments, many offsets and places tried): a longer line spreads its spaces wider and moves them
along, and the bend whose part of the board the checks find best is kept when the whole board's
checks find less (errors first). Bounded tries, a fixed order: a seed gives one result.
"""

from __future__ import annotations

import re

import numpy as np
import shapely

FRACTIONS = (0.2, 0.35, 0.5, 0.65, 0.8)             # where along a segment the bend goes
OFFSETS_MM = (4.0, 8.0, 12.0, 16.0, 22.0, 30.0, 40.0, 52.0)   # how far off the segment, either side
MOVE_MM = (2.0, 4.0, 6.0, 9.0, 13.0, 18.0)   # steps of the overpass's own waypoints
ROUNDS = 3        # of bends and moves, while they help
UNDER_OFFSETS_MM = (3.0, 6.0, 9.0)   # the same for the route under the overpass
REACH_MM = 25.0   # routes and stations this close to the overpass are judged with it


def rank(found) -> tuple[int, int, float]:
    """(errors, problems, how bad): an error is never traded for a smaller figure."""
    from mapkit.layout.judge import score

    n, size = score(found)
    return sum(p.severity == "error" for p in found), n, size


def _crossing_pairs(rp, found) -> list[tuple[int, int]]:
    """(overpass, route) of each space overlap between an overpass (no flight: flights have their
    own path) and a route whose line it crosses."""
    net, dr, out = rp.net, rp.dr, []
    for p in found:
        if p.code != "space-overlap":
            continue
        m = re.search(r"route '([^']+)'", p.message)
        ks = [rp.bundle_of.get(p.subject[len("route "):]), rp.bundle_of.get(m.group(1)) if m else None]
        if None in ks or ks[0] == ks[1]:
            continue
        for o, x in (ks, ks[::-1]):
            b = net.bundles[o]
            if b.overpass and not b.flight and not b.fixed_waypoints and (o, x) not in out:
                if shapely.LineString(dr.pos[dr.lines[o]]).crosses(shapely.LineString(dr.pos[dr.lines[x]])):
                    out.append((o, x))
    return out


def _bends(dr, o, offsets) -> list[tuple[int, np.ndarray]]:
    """(segment index, waypoint) candidates off each segment of bundle o's line."""
    line, out = dr.lines[o], []
    for j in range(len(line) - 1):
        a, b = dr.pos[line[j]], dr.pos[line[j + 1]]
        d = b - a
        ln = float(np.linalg.norm(d))
        if ln < 1e-6:
            continue
        nrm = np.array([-d[1], d[0]]) / ln
        for f in FRACTIONS:
            for h in offsets:
                for sign in (1.0, -1.0):
                    out.append((j, a + f * d + sign * h * nrm))
    return out


def _insert(dr, o, j, xy) -> None:
    dr.pos = np.vstack([dr.pos, np.asarray(xy, dtype=float)[None, :]])
    dr.free = np.append(dr.free, True)
    dr.lines[o].insert(j + 1, len(dr.pos) - 1)


def _remove_last(dr, o) -> None:
    dr.lines[o].remove(len(dr.pos) - 1)
    dr.pos, dr.free = dr.pos[:-1], dr.free[:-1]


def _moves(dr, o) -> list[tuple[int, np.ndarray]]:
    """(point, new position) candidates: the overpass's own free waypoints moved a little, which
    slides its spaces along and changes its length."""
    out = []
    for i in dr.lines[o][1:-1]:
        if dr.free[i]:
            for step in MOVE_MM:
                for a in np.arange(8) * np.pi / 4:
                    out.append((i, dr.pos[i] + step * np.array([np.cos(a), np.sin(a)])))
    return out


def _try(rp, pair, found, current):
    """The best bend or waypoint move, of the overpass or of the route it crosses, on their part of
    the board, kept when the whole board's checks find less; (found, current, kept)."""
    dr, net = rp.dr, rp.net
    movable = [k for k in pair if not net.bundles[k].flight and not net.bundles[k].fixed_waypoints]
    seg = []
    for k in pair:
        line = dr.pos[dr.lines[k]]
        seg += [line[i] + (line[i + 1] - line[i]) * t for i in range(len(line) - 1) for t in np.linspace(0, 1, 9)]
    part = rp.select(np.array(seg), REACH_MM + max(OFFSETS_MM))
    part = (part[0], sorted(set(part[1]) | set(pair)))
    base = rank(rp.check(rp.part_data(part)))
    best = None
    # the overpass bends as far as it likes; the route under it only a little (a wide bend would
    # trade the overlap for a stretched route)
    tries = [(k, kind, c) for k in movable
             for kind, c in (("bend", _bends(dr, k, OFFSETS_MM if k == pair[0] else UNDER_OFFSETS_MM)), ("move", _moves(dr, k)))]
    for o, kind, cands in tries:
        for j, xy in cands:
            if not rp._inside(xy):
                continue
            if kind == "bend":
                _insert(dr, o, j, xy)
            else:
                old = dr.pos[j].copy()
                dr.pos[j] = xy
            r = rank(rp.check(rp.part_data(part)))
            if kind == "bend":
                _remove_last(dr, o)
            else:
                dr.pos[j] = old
            if r < base and (best is None or r < best[0]):
                best = (r, o, kind, j, xy)
    if best is None:
        return found, current, False
    _, o, kind, j, xy = best
    if kind == "bend":
        _insert(dr, o, j, xy)
    else:
        old = dr.pos[j].copy()
        dr.pos[j] = xy
    new = rp.full()
    if rank(new) < current:
        return new, rank(new), True
    if kind == "bend":
        _remove_last(dr, o)
    else:
        dr.pos[j] = old
    return found, current, False


def overpass_gaps(rp, found):
    """Bends and waypoint moves on overpasses whose spaces overlap a route they cross, a few
    rounds while they help; what the checks find after."""
    current = rank(found)
    for _ in range(ROUNDS):
        better = False
        for pair in _crossing_pairs(rp, found):
            found, current, ok = _try(rp, pair, found, current)
            better |= ok
        if not better or not found:
            break
    return found
