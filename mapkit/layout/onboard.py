"""The second stage of a layout: the drawing optimized and put on its board (onto_board).

On output the drawing has had the optimization's rounds without a board (laid out anew: with the
gap rule, _first_rounds), the board size is chosen (opts.size, or with "auto" the smallest standard
size that holds the drawing, fit.pick_size; a refined or pinned drawing keeps its own scale on at
least the file's size), the drawing is centred on the board (shrunk in steps where a fixed size is
too small, said in draft.notes), held inside its inner area (dr.bounds) and asked to fill it
(dr.fill_box), has had the optimization's rounds on the board (not for --refine's local steps),
and every flight has its path round the rest of the board. The checks have not judged it yet.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mapkit.layout import fit
from mapkit.layout.draft import Draft
from mapkit.layout.flights import route_flights
from mapkit.layout.judge import geometry_problems
from mapkit.layout.optimize import run_rounds
from mapkit.layout.result import build_result

SHRINK_STEP = 0.95  # a network too big for its board is shrunk by about this factor at a time


def onto_board(d: Draft) -> None:
    """The drawing optimized and put on its board (see the module docstring)."""
    net, dr, w, style, n = d.net, d.dr, d.w, d.style, d.n
    size, gap_rule, any_fixed = d.opts.size, d.opts.gap_rule, d.any_fixed
    if not any_fixed:
        if gap_rule:
            _first_rounds(net, dr, w, style)
        else:
            run_rounds(net, dr, w, style, rounds=3)
    ph = net.board.physical
    st = dr.pos[:n]
    span = st.max(0) - st.min(0)
    picked = fit.pick_size(float(span[0]), float(span[1]), ph.margin_mm, prefer_fill=gap_rule)   # what --size auto starts from
    if size == "auto":
        W, H = picked
        if any_fixed:
            W, H = max(W, ph.width_mm), max(H, ph.height_mm)
        size_out = (W, H)
    else:
        W, H = size
        size_out = (W, H) if (W, H) != (ph.width_mm, ph.height_mm) else None
    box = fit.inner_box(W, H, ph.margin_mm)
    if not any_fixed:
        # centre the natural layout on the board; shrink it when a fixed size is too small
        bw, bh = box[2] - box[0], box[3] - box[1]
        s = min(1.0, bw / max(span[0], 1e-9), bh / max(span[1], 1e-9))
        if s < 0.999:
            d.notes.append(f"the network wants about {span[0] + 2 * (W - bw) / 2:.0f} x {span[1] + 2 * (H - bh) / 2:.0f} mm"
                           f" at its routes' lengths; on {W:g} x {H:g} mm it had to shrink to {s:.0%}")
        c = (st.min(0) + st.max(0)) / 2
        centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
        dr.anchor = (dr.anchor - (dr.anchor.min(0) + dr.anchor.max(0)) / 2) * s + centre
        if s < 0.999:
            _shrink_gradually(net, dr, w, style, s, c, centre, box)
        else:
            dr.pos = (dr.pos - c) * s + centre
    dr.bounds = box
    inner_w, inner_h = W - 2 * ph.margin_mm, H - 2 * ph.margin_mm
    dr.fill_box = (fit.FILL * inner_w + 4, fit.FILL * inner_h + 4)
    if d.refine != "local":
        run_rounds(net, dr, w, style, rounds=4)
    route_flights(net, dr, size_out)
    d.size_out, d.board_mm, d.picked = size_out, (W, H), picked


def _first_rounds(net, dr, w, style) -> None:
    """The first rounds of the optimization (before the board) with the gap rule; where they leave
    routes crossing, the same rounds from the same drawing with the rule's limits lifted (the network
    as the soft layout has it: each route held only by the checks' stretch limit, its 6 mm gaps a
    preference), and that drawing kept if it has fewer crossings. A network whose every route is held
    at its 6 mm length keeps knots the soft rounds undo (60 stations, seed 0: seven crossings after
    the rule's first rounds, two after the soft ones, from the same stress drawing; the repairs never
    undid the rule's); where the rule's rounds leave none, they are kept (Seattle: the soft ones
    would give it two crossings the later steps spend 20 s on). The rule holds from the board's
    rounds on either way; the board's size is picked from the drawing kept."""
    start = dr.pos.copy()
    run_rounds(net, dr, w, style, rounds=3)
    held = _crossings(net, dr)
    if not held:
        return
    ruled, dr.pos = dr.pos, start
    run_rounds(replace(net, gap_rule=False), dr, w, style, rounds=3)
    if len(_crossings(net, dr)) >= len(held):
        dr.pos = ruled


def _crossings(net, dr) -> list:
    """The crossings the checks find in the drawing as it is (on the file's board: no size yet)."""
    return [p for p in geometry_problems(build_result(net, dr, None)[0]) if p.code == "crossing"]


def _shrink_gradually(net, dr, w, style, s, c, centre, box) -> None:
    """A network too big for the board, taken down to its size in steps of about SHRINK_STEP with a
    round of the optimization after each, inside a box that closes in on the board's: shrunk at
    once, every route is too short together and the rules pull the map into knots (Seattle's north
    on 600 x 900 mm); a step at a time, each round only has a few per cent to take up."""
    steps = max(1, int(np.ceil(np.log(s) / np.log(SHRINK_STEP))))
    half = np.array([(box[2] - box[0]) / 2, (box[3] - box[1]) / 2])
    prev = 1.0
    dr.pos = dr.pos - c + centre
    for k in range(1, steps + 1):
        sk = s ** (k / steps)
        dr.pos = (dr.pos - centre) * (sk / prev) + centre
        prev = sk
        if k < steps:
            h = half * (sk / s)
            dr.bounds = (centre[0] - h[0], centre[1] - h[1], centre[0] + h[0], centre[1] + h[1])
            run_rounds(net, dr, w, style, rounds=1, start=1)
