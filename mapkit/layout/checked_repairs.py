"""The third stage of a layout: the checked repairs (checked_repairs), judged with every route's
spaces spread evenly (judge.even_problems: the models and moves of this stage and of the knot
steps after it are made for the even spread).

Up to REPAIRS rounds (GAP_RULE_REPAIRS more with the gap rule), each while the checks find
something: the pairs of routes whose spaces touch asked for a wider angle or more clearance in the
optimization (_widen); with the gap rule, from round RELAX_FROM, wider gaps for the routes whose
first spaces still touch at their station and the rule lifted from those a crossing or a space
over a station names twice (_relax_gaps, _release_gaps); a bend in each straight route still too
short, or (from the second round) still over a station or touching its neighbour at their
station; two rounds of the optimization with the real map's pull a third as strong; the flights'
paths anew. On output draft.found is what the even spread's checks still find (the knot steps,
knots.untie_knots, take it from there).
"""

from __future__ import annotations

from dataclasses import replace

import networkx as nx

from mapkit.layout.bends import bend_point
from mapkit.layout.crowding import drawn_pair_gap
from mapkit.layout.draft import Draft
from mapkit.layout.flights import route_flights
from mapkit.layout.judge import even_problems, problem_bundles
from mapkit.layout.network import GAP_MARGIN_MM, drawn_mm_at_gap
from mapkit.layout.optimize import run_rounds
from mapkit.layout.result import build_result

REPAIRS = 4  # rounds of real checks and targeted repairs
GAP_RULE_REPAIRS = 2  # more of them with the gap rule: each relaxes the gaps of routes still touching (_relax_gaps)
RELAX_FROM = 1  # the round of repairs from which those routes get wider gaps (_relax_gaps)
GAP_RELAX_MM = 1.0  # a route whose first space still touches a neighbour's at their station: this much wider a gap
GAP_JUMP_MM = 2.0   # ... or up to this much, where the drawn angle asks for it (crowding.pair_gap)


def checked_repairs(d: Draft) -> None:
    """The rounds of checks and targeted repairs (see the module docstring)."""
    net, dr, w, style, n, size_out, gap_rule = d.net, d.dr, d.w, d.style, d.n, d.size_out, d.opts.gap_rule
    for rnd in range(REPAIRS + (GAP_RULE_REPAIRS if gap_rule else 0)):
        new, changes = build_result(net, dr, size_out)
        found = even_problems(new)
        short = {p.subject[len("route "):] for p in found if p.code == "route-too-short"}
        if not found:
            break
        _widen(net, dr, found)
        if rnd >= RELAX_FROM:  # still touching after widenings asked for a wider angle: wider gaps too
            if gap_rule:
                _relax_gaps(net, found, dr)
        if rnd:  # still covering a station after more room was asked: go round it
            short |= {p.subject[len("route "):] for p in found if p.code == "space-on-station"}
        bend = [k for k, b in enumerate(net.bundles)
                if any(net.route_ids[r] in short for r in b.routes) and len(dr.lines[k]) == 2 and not b.flight]
        for k in bend:
            b = net.bundles[k]
            dr.add_waypoint(k, bend_point(dr.pos, b.a, b.b, b.lpref, n))
        if rnd >= 1:  # neighbours at a station still touching after more room was asked: bend one away
            for k, j in _shared_overlaps(net, found):
                if len(dr.lines[k]) == 2 and k not in bend and not net.bundles[k].flight:
                    b, o = net.bundles[k], net.bundles[j]
                    far = o.b if o.a in (b.a, b.b) else o.a
                    dr.add_waypoint(k, bend_point(dr.pos, b.a, b.b, min(b.lsoft, b.lpref * 1.1), n, away=dr.pos[far]))
        run_rounds(net, dr, replace(w, geo=w.geo / 3, bearing=w.bearing / 3), style, rounds=2, escalate=3.0,
                   start=2)
        route_flights(net, dr, size_out, even=True)
    d.found = found


def _widen(net, dr, found) -> None:
    """Where the real check still finds spaces touching, ask those pairs for more room."""
    bundle_of = {net.route_ids[r]: k for k, b in enumerate(net.bundles) for r in b.routes}
    station_of = {sid: i for i, sid in enumerate(net.ids)}
    angle, clear, station = (dr.extra.setdefault(k, {}) for k in ("angle", "clear", "station"))
    for p in found:
        subject = p.subject.split(" ", 1)[-1]
        if p.code == "space-overlap":
            other = p.message.split("'")[1]
            a, b = bundle_of.get(subject), bundle_of.get(other)
            if a is None or b is None or a == b:
                continue
            key = frozenset((a, b))
            ba, bb = net.bundles[a], net.bundles[b]
            if {ba.a, ba.b} & {bb.a, bb.b}:
                angle[key] = angle.get(key, 0.0) + 0.06
            else:
                clear[key] = clear.get(key, 0.0) + 1.5
        elif p.code == "space-on-station":
            k, s = bundle_of.get(subject), station_of.get(p.message.split("'")[1])
            if k is not None and s is not None:
                station[(s, k)] = station.get((s, k), 0.0) + 1.5


def _shared_overlaps(net, found) -> list[tuple[int, int]]:
    """(longer bundle, other) of each space overlap between two routes that share a station."""
    bundle_of = {net.route_ids[r]: k for k, b in enumerate(net.bundles) for r in b.routes}
    out = []
    for p in found:
        if p.code != "space-overlap":
            continue
        a, b = bundle_of.get(p.subject.split(" ", 1)[-1]), bundle_of.get(p.message.split("'")[1])
        if a is None or b is None or a == b:
            continue
        ba, bb = net.bundles[a], net.bundles[b]
        if {ba.a, ba.b} & {bb.a, bb.b}:
            out.append((a, b) if ba.length >= bb.length else (b, a))
    return out


def _relax_gaps(net, found, dr) -> None:
    """Where two routes' first spaces still overlap at the station they share, let both be drawn
    with wider gaps (GAP_RELAX_MM more, or at once the gap their drawn angle needs,
    crowding.pair_gap; within the checks' stretch limit): the gaps are held to 6 mm as a rule, but
    a station whose routes leave it close together may need its first spaces farther out
    (crowding.py reckons that for evenly spread routes; the drawing's real angles can ask for more).
    A route still too short whose ends the routes of a cycle hold too close (each at its widest):
    those routes get GAP_RELAX_MM more (_cycle_gaps)."""
    named: dict[int, float] = {}
    released = _release_gaps(net, found, dr)
    for k, j in _shared_overlaps(net, found):
        if k in released or j in released:
            continue   # no gap limit left to widen
        need = drawn_pair_gap(net, dr, k, j)
        if need <= max(net.bundles[k].gap_max, net.bundles[j].gap_max):
            continue   # the drawn angle already clears their first spaces: they touch farther out, not a gap's doing
        for i in (k, j):   # once per round however many of its neighbours it touches
            named[i] = max(named.get(i, 0.0), need)
    for i in _cycle_gaps(net, found):
        named.setdefault(i, 0.0)
    for i in sorted(set(named) - released):
        b = net.bundles[i]
        if not b.flight:
            # at most GAP_JUMP_MM at once: a narrow drawn angle would ask for far wider gaps than the
            # optimization needs once the angle term opens it a little (Portland's largest gap 7 -> 17 mm)
            _set_gap_max(net, b, max(b.gap_max + GAP_RELAX_MM, min(named[i], b.gap_max + GAP_JUMP_MM)))


RELEASE_CODES = ("crossing", "space-on-station")   # the problems wider gaps (_relax_gaps) do not address


def _release_gaps(net, found, dr) -> set[int]:
    """The bundles named by a crossing or a space over a station that the round before found too
    (the same problem, by its code and the routes and station it names): the gap rule lifted from
    them, drawn as long as the checks' stretch limit allows (gap_max unbounded, lsoft = lmax), as the
    soft layout draws every route. The rule is a preference the checks outrank: a route held to
    6 mm gaps that must pass round a station, or round the end of a route it crosses, cannot be
    drawn long enough to (60 stations, seed 2: s2-s11 at its longest straight over s12, whose
    routes leave it on both sides of s2-s11); the other routes keep the rule. Returns the bundles
    released (before or now)."""
    def same(p):   # a problem's identity across rounds: its code, subject and the other thing it names
        return p.code, p.subject, p.message.split("'")[1] if "'" in p.message else ""

    seen = dr.extra.setdefault("rule_seen", set())
    now = {same(p) for p in found if p.code in RELEASE_CODES}
    again = [p for p in found if p.code in RELEASE_CODES and same(p) in seen]
    dr.extra["rule_seen"] = now
    out = dr.extra.setdefault("rule_released", set())
    for k in sorted(problem_bundles(net, again)):
        b = net.bundles[k]
        if not b.flight and k not in out:
            out.add(k)
            b.gap_max = float("inf")
            b.lsoft = b.lmax
    return set(out)


def _set_gap_max(net, b, gap: float) -> None:
    """A bundle's widest gap, and the longest drawing (lsoft) it allows, no shorter than before and
    inside the checks' stretch limit (lmax)."""
    b.gap_max = gap
    b.lsoft = min(b.lmax, max(b.lsoft, drawn_mm_at_gap(b.length, net.board.physical, gap - GAP_MARGIN_MM)))


def _cycle_gaps(net, found) -> list[int]:
    """For each route still too short (not a flight): the bundles of the shortest other path between
    its ends at their widest drawings (lsoft), the cycle that holds its ends too close."""
    bundle_of = {net.route_ids[r]: k for k, b in enumerate(net.bundles) for r in b.routes}
    short = {bundle_of.get(p.subject.split(" ", 1)[-1]) for p in found if p.code == "route-too-short"} - {None}
    if not short:
        return []
    g = nx.Graph()
    for k, b in enumerate(net.bundles):
        if not b.flight and (not g.has_edge(b.a, b.b) or g[b.a][b.b]["w"] < b.lsoft):
            g.add_edge(b.a, b.b, w=b.lsoft, k=k)
    out: set[int] = set()
    for k in sorted(short):
        b = net.bundles[k]
        if b.flight or not g.has_edge(b.a, b.b):
            continue
        saved = g[b.a][b.b]
        g.remove_edge(b.a, b.b)
        try:
            path = nx.dijkstra_path(g, b.a, b.b, weight="w")
            out |= {g[p][q]["k"] for p, q in zip(path, path[1:])}
        except nx.NetworkXNoPath:
            pass
        g.add_edge(b.a, b.b, **saved)
    return sorted(out)
