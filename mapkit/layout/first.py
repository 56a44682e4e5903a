"""The first stage of a layout: the first drawing (first_drawing).

On output the Draft holds the network (build_network: every route's length on the board, its
bundle and its limits), a drawing of every station, and a bend in each route that cannot be drawn
straight (bends.needs_bend). Laid out anew (refine None), the drawing is the stress majorization
of the real map at the routes' lengths (stress.py), the flights left out of it, started from the
projected positions with a tiny seeded jitter (opts.seed), held opts.geo_anchor towards the real
map; refined, it is the file's own drawing (its stations' board positions and its routes'
waypoints in mm), held REFINE_GEO hard in the optimization after it. Nothing is on a board yet.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mapkit.layout.bends import bend_point, needs_bend
from mapkit.layout.draft import Draft
from mapkit.layout.network import build_network
from mapkit.layout.optimize import Drawing, Weights
from mapkit.layout.options import LayoutOptions
from mapkit.layout.project import initial_positions
from mapkit.layout.stress import majorize, target_distances

REFINE_GEO = 0.5   # --refine: the pull towards the file's drawing in the optimization (Weights.geo: 0.03)


def first_drawing(data: dict, opts: LayoutOptions, refine: str | None = None) -> Draft:
    """The network of data and its first drawing (see the module docstring)."""
    rng = np.random.default_rng(opts.seed)
    net = build_network(data, opts.keep, opts.gap_rule)
    pos0, _ = initial_positions(net)
    # a tiny seeded jitter breaks exact ties (stations at the same spot, collinear lines)
    jitter = rng.normal(0.0, 0.05, pos0.shape)
    jitter[net.fixed] = 0.0
    n = net.n
    # lengths first (stress majorization from the real map), then the exact rules
    # a flight holds a few spaces between far stations and may cross anything: counted as a short
    # link it pulls its ends together across the map
    ground = replace(net, bundles=[b for b in net.bundles if not b.flight]) if any(b.flight for b in net.bundles) else net
    if refine:
        # (check_refine: every station has its board position). No jitter: a clean drawing moved
        # by 0.05 mm can touch where it held by less (a route 0.05 mm short)
        pos0 = net.given.copy()
    else:
        pos0 = majorize(ground, pos0 + jitter, anchor=_stress_anchor(ground, opts.anchor_share))
    dr = Drawing(pos0, n, [[b.a, b.b] for b in net.bundles], ~net.fixed.copy(), anchor=pos0.copy())
    for k, line in enumerate(dr.lines):
        for wp in net.bundles[k].fixed_waypoints:
            dr.add_waypoint(k, (wp["x"], wp["y"]) if "x" in wp else pos0[line[0]], free=False)
    drawn = set()
    if refine:
        for k, b in enumerate(net.bundles):
            if b.fixed_waypoints:
                continue
            route = data["routes"][b.routes[0]]
            wps = [(w_["x"], w_["y"]) for w_ in route.get("waypoints", []) if "x" in w_ and "y" in w_]
            if route["from"] != net.ids[b.a]:
                wps.reverse()
            for xy in wps:
                dr.add_waypoint(k, xy)
            if wps:
                drawn.add(k)
    for k in (k for k in needs_bend(net) if k not in drawn):
        b = net.bundles[k]
        dr.add_waypoint(k, bend_point(dr.pos, b.a, b.b, b.lpref, n))
    w = _weights_for(opts.style)
    if refine:
        # the drawing the designer has is the anchor: held much harder than the real map is (geo)
        w = replace(w, geo=REFINE_GEO)
    any_fixed = bool(net.fixed.any()) or bool(refine)   # (the scale is the drawing's, as with pinned stations)
    return Draft(data, opts, refine, net, dr, w, any_fixed=any_fixed)


def _weights_for(style: str) -> Weights:
    if style == "schematic":
        return Weights(geo=0.01, bearing=2.0, octilinear=10.0)
    return Weights()


def _stress_anchor(net, share: float) -> float:
    """The pull towards the real map in the stress drawing, as a share of a typical station's stress
    weight (the weights are 1/d², so an absolute number would mean nothing across boards)."""
    if share <= 0:
        return 0.0
    d = target_distances(net)
    with np.errstate(divide="ignore"):
        w = np.where(d > 0, 1.0 / d ** 2, 0.0)
    return float(share * np.median(w.sum(1)))
