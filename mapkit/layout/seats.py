"""Stations of one or two neighbours drawn on the wrong side of them, seated again where the real
map has them.

A station with one or two neighbours hangs on its routes: its routes' lengths come from their
spaces, not from the map, so the optimization's clearances can leave it anywhere on the circle its
route allows round a lone neighbour, or on the wrong side of the chord of two (60/0's s37 drawn 169°
off its bearing below its only neighbour, with gaps of 16.7 mm; 200/2's s44 169° off between its
two). The tightening then moves it only by small steps that must not turn its routes farther, the
repair and the untangling only where the checks find something: none of them puts it across.

Here, on a board the checks pass, each such station (free, no flight, one route or double to each
neighbour) whose routes are drawn more than RESEAT_DEG off their real bearings, or with gaps over
6 mm, is tried at the places its routes' lengths allow:

- one neighbour: on circles round it (the route's length at gaps of GAP_AIM_MM and shorter), at the
  route's real bearing and turned by up to 90° either way;
- two neighbours: where two such circles round them meet, on both sides of their chord.

Its routes' bends go straight onto the new lines (evenly spaced: a straight bend is harmless, the
tightening may take it out). The candidates nearest the real bearings are judged first, at most
RESEAT_TRIES per station, each the way the tightening judges a move (Tighten.judge_group: nothing
more for the checks on the part of the board it changes, every station near it keeps its label
room at 7, 8 and 10 pt, the fill holds — except for a station drawn across its neighbour, see
reseat), and confirmed on the whole board. A seat is kept when its
routes come nearer their bearings by RESEAT_GAIN_DEG (rms) with no more routes over 6 mm and no
more gap excess (beyond EXCESS_SLACK_MM), or with fewer over 6 mm and no farther from their
bearings. The order is the stations' (worst first, then index): a seed gives one layout.
Stations of three or more neighbours are held by them: a seat by least squares for those seated
one station in 36 layouts (`python bench/layout_cases.py`) and was taken out. A branch of
stations hanging on one station is turned round it as one piece instead (turn_branches).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from mapkit.layout.network import drawn_mm_at_gap
from mapkit.layout.overpass import rank
from mapkit.layout.judge import station_span
from mapkit.layout.tighten import GAP_AIM_MM, LMIN_MARGIN_MM, Tighten

RESEAT_DEG = 45.0          # a route this far off its real bearing makes its station a candidate
RESEAT_GAIN_DEG = 10.0     # a seat kept for the bearings must bring its routes this much nearer (rms)
EXCESS_SLACK_MM = 0.5      # ... with at most this much more gap excess (and no more routes over 6 mm)
RESEAT_TRIES = 6           # candidates judged per station at most
TURNS_DEG = (0, 15, -15, 30, -30, 45, -45, 60, -60, 75, -75, 90, -90)   # one neighbour: the turns tried
GAPS_MM = (GAP_AIM_MM, 4.5, 3.0)   # the lengths tried: each route's at these gaps between spaces


def _errors(t: Tighten, ks) -> np.ndarray:
    """Each bundle's direction off its real bearing (radians, absolute), station to station."""
    return np.abs(t.bearing_errors(ks))


def candidates_of(t: Tighten, i: int) -> tuple[list[int], list[np.ndarray]]:
    """Station i's bundles and the places their lengths allow it (see the module's docstring), or
    ([], []) where i is not a station this step seats (pinned, a flight, more than two neighbours,
    two bundles to one neighbour)."""
    net, dr = t.net, t.dr
    if not dr.free[i]:
        return [], []
    ks = net.at_station(i)
    if not ks or any(b.flight and i in (b.a, b.b) for b in net.bundles):
        return [], []   # a flight ends here: its path is its own step's (flights.py)
    other = [net.bundles[k].b if net.bundles[k].a == i else net.bundles[k].a for k in ks]
    if len(set(other)) != len(other) or len(other) > 2 or i in other:
        return [], []
    ph = net.board.physical
    radii = []
    for k in ks:
        b = net.bundles[k]
        low = b.lmin + LMIN_MARGIN_MM + 0.5
        radii.append(sorted({max(drawn_mm_at_gap(b.length, ph, g), low) for g in GAPS_MM}, reverse=True))
    pos = dr.pos
    out = []
    if len(other) == 1:
        j = other[0]
        g = net.geo[i] - net.geo[j]
        if float(np.hypot(*g)) < 1e-12:
            return [], []
        bearing = math.atan2(g[1], g[0])
        for turn in TURNS_DEG:
            a = bearing + math.radians(turn)
            for r in radii[0]:
                out.append(pos[j] + r * np.array([math.cos(a), math.sin(a)]))
        return ks, out
    j1, j2 = other
    p1, p2 = pos[j1], pos[j2]
    d = p2 - p1
    dist = float(np.hypot(*d))
    if dist < 1e-6:
        return [], []
    u = d / dist
    nrm = np.array([-u[1], u[0]])
    for r1 in radii[0]:
        for r2 in radii[1]:
            if dist > r1 + r2 or dist < abs(r1 - r2):
                continue
            x = (dist * dist + r1 * r1 - r2 * r2) / (2 * dist)
            h = math.sqrt(max(r1 * r1 - x * x, 0.0))
            for side in (1.0, -1.0):
                out.append(p1 + x * u + side * h * nrm)
    return ks, out


def _straighten(t: Tighten, i: int, ks, xy) -> tuple[np.ndarray, np.ndarray]:
    """Station i at xy and its bundles' free bends evenly on the straight lines to their other
    ends: (the points' indices, their new positions)."""
    dr = t.dr
    idx, new = [i], [np.asarray(xy, dtype=float)]
    for k in ks:
        line = dr.lines[k]
        inner = line[1:-1]
        if not inner:
            continue
        a = np.asarray(xy, dtype=float) if line[0] == i else dr.pos[line[0]]
        b = np.asarray(xy, dtype=float) if line[-1] == i else dr.pos[line[-1]]
        m = len(inner)
        for step, q in enumerate(inner, start=1):
            if not dr.free[q]:
                return np.array([], dtype=int), np.empty((0, 2))   # a bend the designer fixed
            idx.append(q)
            new.append(a + (b - a) * step / (m + 1))
    return np.array(idx, dtype=int), np.array(new)


def reseat(rp, w=None, style: str = "geographic", branches: bool = True) -> dict:
    """Seat again the stations of one or two neighbours drawn off their bearings or over 6 mm,
    then (branches) turn back the branches drawn turned round their station (turn_branches)
    (rp: the board's mapkit.layout.repair.Repair, passing the checks). The geographic style only:
    the schematic one has its own directions. Returns {"reseated": stations moved, "tried":
    candidates judged, "turned": branches turned}; every move confirmed against the board as this
    step found it (its checks and label room)."""
    out = {"reseated": 0, "tried": 0}
    if style != "geographic":
        return {**out, "turned": 0} if branches else out
    t = Tighten(rp, w, style)
    base = rank(rp.full())
    room = t.lacking()
    _seats(t, base, room, out)
    if branches:
        out["turned"] = 0
        _branches(t, base, room, out)
    return out


def _seats(t: Tighten, base, room, out: dict) -> None:
    """reseat's seats, counted into out."""
    net, dr = t.net, t.dr
    limit = math.radians(RESEAT_DEG)
    gain = math.radians(RESEAT_GAIN_DEG)

    def wanted(i) -> float | None:
        """How far station i's worst route is off its bearing, where this step tries it (else None)."""
        ks = t.through(i)
        if not ks or not dr.free[i]:
            return None
        if len(ks) > 2:
            return None   # held by three or more neighbours (tried: one seat in the 36 layouts, docs)
        worst = float(_errors(t, ks).max())
        return worst if worst > limit or t.over(ks) else None

    work = sorted((-w_, i) for i in range(net.n) if (w_ := wanted(i)) is not None)
    for _, i in work:
        if wanted(i) is None:
            continue   # a seat before it took this one's trouble away (its neighbour moved)
        ks, cands = candidates_of(t, i)
        if not cands:
            continue
        if not len(_straighten(t, i, ks, dr.pos[i])[0]):
            continue   # a bend of its routes the designer fixed: left as drawn
        before = t.badness(ks)
        err0 = _errors(t, ks)
        rms0 = float(np.sqrt((err0 ** 2).mean()))
        # the fill: a station hung across its neighbour is often what spans the board (60/0's s37
        # the lowest station, 169° off its only route's bearing): a seat that brings every route of
        # such a station within 90° may take the span below what the board asks (the layout's fill
        # figures and fill_note then say so); any other seat keeps the fill (judge.fill_kept)
        across = float(err0.max()) > math.pi / 2
        keep = dr.pos.copy()
        scored = []
        for xy in cands:
            idx, new = _straighten(t, i, ks, t._clipped(xy))
            dr.pos[idx] = new
            bad = t.badness(ks)
            err = _errors(t, ks)
            dr.pos[:] = keep
            rms = float(np.sqrt((err ** 2).mean()))
            nearer = rms <= rms0 - gain and bad[0] <= before[0] and bad[1] <= before[1] + EXCESS_SLACK_MM
            tighter = bad[0] < before[0] and rms <= rms0 + 1e-9
            if nearer or tighter:
                scored.append((rms, bad, len(scored), idx, new, across and float(err.max()) <= math.pi / 2))
        span = station_span(dr)
        for rms, bad, _, idx, new, unfilled in sorted(scored, key=lambda s: (s[0], s[1], s[2]))[:RESEAT_TRIES]:
            out["tried"] += 1
            if not t.judge_group(idx, new, np.zeros(2) if unfilled else span):
                continue
            if t._confirmed(base, room):
                out["reseated"] += 1
                break
            dr.pos[:] = keep   # the whole board refuses it (a label far off, a problem the part missed)


BRANCH_SHARE = 0.25   # a branch turned round its station holds at most this share of the stations


def _wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


def turn_branches(rp, w=None, style: str = "geographic") -> dict:
    """Branches hanging on one station (the stations cut off by it: networkx's articulation
    points), of two stations or more and at most BRANCH_SHARE of the board, drawn with a route
    more than 90° off its real bearing: turned round that station as one piece (their routes'
    lengths kept) by the angle that brings their routes nearest their bearings (the circular mean
    of their errors) or half of it; judged as a seat is, on the whole board too. 20/0's tail of
    five stations was drawn a quarter turn round to span the board: no one station of it is across
    its neighbours, so no seat turns it. (reseat does this after its seats; here alone.)"""
    out = {"turned": 0, "tried": 0}
    if style != "geographic":
        return out
    t = Tighten(rp, w, style)
    _branches(t, rank(rp.full()), t.lacking(), out)
    return out


def _branches(t: Tighten, base, room, out: dict) -> None:
    """turn_branches' turns, counted into out."""
    net, dr = t.net, t.dr
    g = nx.Graph()
    g.add_nodes_from(range(net.n))
    flights = set()
    for k, b in enumerate(net.bundles):
        if b.flight:
            flights.update((b.a, b.b))
        elif b.a != b.b:
            g.add_edge(b.a, b.b)
    limit = max(2, int(BRANCH_SHARE * net.n))
    for v in sorted(nx.articulation_points(g)):
        rest = g.subgraph(set(g) - {v})
        for comp in sorted((sorted(c) for c in nx.connected_components(rest)), key=lambda c: c[0]):
            if not 2 <= len(comp) <= limit:
                continue
            cs = set(comp)
            if cs & flights or not all(dr.free[s] for s in comp):
                continue
            # (a component of the graph without v: every route touching it ends in it or at v)
            ks = [k for k in t.ks if (net.bundles[k].a in cs or net.bundles[k].b in cs)]
            if not ks:
                continue
            err0 = _errors(t, ks)
            if float(err0.max()) <= math.pi / 2:
                continue
            a = np.array([net.bundles[k].a for k in ks])
            b = np.array([net.bundles[k].b for k in ks])
            d, gg = dr.pos[b] - dr.pos[a], net.geo[b] - net.geo[a]
            e = _wrap(np.arctan2(gg[:, 1], gg[:, 0]) - np.arctan2(d[:, 1], d[:, 0]))
            theta = math.atan2(float(np.sin(e).sum()), float(np.cos(e).sum()))
            pts = sorted(cs | {q for k in ks for q in dr.lines[k][1:-1]})
            if not all(dr.free[q] for q in pts):
                continue
            idx = np.array(pts, dtype=int)
            rms0 = float(np.sqrt((err0 ** 2).mean()))
            before = t.badness(ks)
            keep = dr.pos.copy()
            span = station_span(dr)
            for f in (1.0, 0.5):
                c, s_ = math.cos(f * theta), math.sin(f * theta)
                rot = np.array([[c, -s_], [s_, c]])
                new = dr.pos[v] + (dr.pos[idx] - dr.pos[v]) @ rot.T
                dr.pos[idx] = new
                err = _errors(t, ks)
                bad = t.badness(ks)
                dr.pos[:] = keep
                if float(np.sqrt((err ** 2).mean())) > rms0 - math.radians(RESEAT_GAIN_DEG) or bad[0] > before[0]:
                    continue
                out["tried"] += 1
                unfilled = float(err.max()) <= math.pi / 2
                if not t.judge_group(idx, new, np.zeros(2) if unfilled else span):
                    continue
                if t._confirmed(base, room):
                    out["turned"] += 1
                    break
                dr.pos[:] = keep

