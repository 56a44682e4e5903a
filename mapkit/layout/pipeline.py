"""The steps of a layout, in order: the real map at the routes' scale, a first optimization with
no board around it, the board size, the optimization on the board, then the real checks and
targeted repairs (bends where a route cannot be straight) until nothing is left to repair."""

from __future__ import annotations

import re

import numpy as np

from mapkit.boardfile import build_board
from mapkit.errors import UsageError
from mapkit.layout import fit
from dataclasses import replace

import networkx as nx

from mapkit.layout.bends import bend_point, needs_bend
from mapkit.layout.crowding import drawn_pair_gap
from mapkit.layout.finish import finish
from mapkit.layout.flights import route_flights
from mapkit.layout.octilinear import octilinear
from mapkit.layout.network import GAP_MARGIN_MM, MAX_GAP_MM, build_network, drawn_mm_at_gap
from mapkit.layout.optimize import Drawing, Weights, run_rounds
from mapkit.layout.options import LayoutOptions
from mapkit.layout.project import initial_positions
from mapkit.layout.stress import majorize
from mapkit.layout.judge import even_problems, geometry_problems
from mapkit.layout.labelroom import ROOM_SIZES
from mapkit.layout.labels import label_repair
from mapkit.layout.figures import gap_figures
from mapkit.layout.polish import polish
from mapkit.layout.judge import score
from mapkit.layout.repair import Repair, repair
from mapkit.layout.resize import smaller_board
from mapkit.layout.result import build_result
from mapkit.layout.reseat import reseat
from mapkit.layout.tighten import tighten
from mapkit.layout.uncross import uncross
from mapkit.layout.unfold import unfold
from mapkit.layout.untangle import untangle


REPAIRS = 4  # rounds of real checks and targeted repairs
GAP_RULE_REPAIRS = 2  # more of them with the gap rule: each relaxes the gaps of routes still touching (relax_gaps)
REPAIR_TRIES = 700  # local moves judged by the checks at most (mapkit.layout.repair)
REPAIR_TRIES_PER_STATION = 25
AUTO_LARGER = 1  # --size auto: larger standard sizes tried after one that leaves problems
SHRINK_STEP = 0.95  # a network too big for its board is shrunk by about this factor at a time


class LayoutError(UsageError):
    """Bad input for a layout (an unknown --keep id, a kept station with no position): exit 2."""


def weights_for(style: str) -> Weights:
    if style == "schematic":
        return Weights(geo=0.01, bearing=2.0, octilinear=10.0)
    return Weights()


def check_keep(data: dict, keep: frozenset) -> None:
    ids = {s["id"] for s in data["stations"]}
    unknown = sorted(set(keep) - ids)
    if unknown:
        from mapkit.errors import did_you_mean
        raise LayoutError(f"--keep: unknown station '{unknown[0]}'{did_you_mean(unknown[0], ids)}")
    for s in data["stations"]:
        if (s["id"] in keep or s.get("pinned")) and "board" not in s:
            what = "--keep names" if s["id"] in keep else "pinned"
            raise LayoutError(f"station '{s['id']}' is {'kept' if s['id'] in keep else 'pinned'} ({what}) but has no"
                              " \"board\" position to keep; give it one or leave it free")


REFINE_GEO = 0.5   # --refine: the pull towards the file's drawing in the optimization (Weights.geo: 0.03)


def check_refine(data: dict) -> None:
    """--refine starts from the file's drawing: every station needs its board position."""
    missing = [s["id"] for s in data["stations"] if "board" not in s]
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise LayoutError(f"--refine starts from the board positions in the file, but station"
                          f"{'s' if len(missing) > 1 else ''} {', '.join(repr(m) for m in missing[:3])}{more}"
                          " have none; run layout without --refine first (it lays the board out from lat/lon)")


RULE_LARGER = 0  # larger sizes the rule tries before the soft layout (which tries AUTO_LARGER)


def layout_board_impl(data: dict, opts: LayoutOptions):
    """The layout (layout_rule_or_soft). opts.refine: from the file's drawing (every station's board
    position) on the board's own size (with --size auto), first by the local steps alone
    ("local": the repairs, the tightening, the labels; layout_once), and where they
    leave a problem once more with the optimization's rounds too ("rounds"), the one whose checks
    find less kept (figure refined)."""
    if not opts.refine:
        return layout_rule_or_soft(data, opts)
    check_refine(data)
    if opts.size == "auto":   # the drawing's own board (a file may leave the size to its default)
        ph = build_board(data).physical
        opts = replace(opts, size=(ph.width_mm, ph.height_mm))
    out = layout_rule_or_soft(data, opts, refine="local")
    out[2]["refined"] = "local steps"
    if tally(out) == (0, 0):
        return out
    again = layout_rule_or_soft(data, opts, refine="rounds")
    if tally(again) < tally(out):
        again[2]["refined"] = f"with the optimization's rounds (the local steps left {said(out)})"
        return again
    out[2]["refined"] = f"local steps ({said(out)} left; with the optimization's rounds no less)"
    return out


def tally(res) -> tuple[int, int]:
    """A layout's (errors, warnings): the fewer, the better (the first wins a tie)."""
    return res[2]["errors"], res[2]["warnings"]


def said(res) -> str:
    return f"{res[2]['errors']} error(s), {res[2]['warnings']} warning(s)"


def layout_rule_or_soft(data: dict, opts: LayoutOptions, refine: str | None = None):
    """The layout (layout_sizes); with the gap rule, where it leaves a geometry problem on every size
    tried, the layout once more without it (gaps only preferred, the default layout) and that one kept if its checks find less: a board that holds its gaps but does not pass the
    checks is of no use to a designer, and which boards the rule leaves a knot on is the luck of the
    floating point (docs/layout-gaps.md). The figure gap_rule says which was kept."""
    if not opts.gap_rule:
        return layout_sizes(data, opts, refine=refine)
    # with the fallback, the rule gets one size (RULE_LARGER more): a layout the rule leaves a
    # problem on costs several times a clean one (its uncrossing and finishing spend their budgets),
    # and the soft layout after it tries the larger size anyway
    out = layout_sizes(data, opts, larger=RULE_LARGER, refine=refine)
    out[2]["gap_rule"] = "held"
    if tally(out) == (0, 0):
        return out
    soft = layout_sizes(data, replace(opts, gap_rule=False), refine=refine)
    if tally(soft) < tally(out):
        soft[2]["gap_rule"] = f"not held: with it {said(out)} left; without it less"
        return soft
    out[2]["gap_rule"] = f"held ({said(out)} left; without it no less)"
    return out


def layout_sizes(data: dict, opts: LayoutOptions, larger: int | None = None, refine: str | None = None):
    """The layout; with --size auto, a size that leaves problems is followed by the next standard
    size up (AUTO_LARGER times at most), and the first clean one (or the least bad) is kept: the
    smallest size that holds the routes' lengths may still leave a knot the larger one has not
    (Seattle on 841 x 1189 mm keeps its TIBS-Renton route stretched round Tukwila, the unfolding
    leaving 1 mm² where the Sounder crosses; on 1000 x 1400 mm the unfolding clears it). A board
    the smallest size gets clean lays out once; the price is a second layout where it does not."""
    check_keep(data, opts.keep)
    out = layout_once(data, opts, refine=refine)
    if opts.size != "auto" or opts.keep or any(s.get("pinned") for s in data["stations"]):
        return out   # pinned stations fix the scale: a larger board would not give them more room
    def status(res) -> str:
        f = res[2]
        return f"{f['board_mm'][0]:g}x{f['board_mm'][1]:g} " + (
            "clean" if not res[3] else f"{f['errors']} error(s), {f['warnings']} warning(s)")

    def worse(res) -> tuple[int, int]:
        return res[2]["errors"], res[2]["warnings"]

    tried, last = [status(out)], out
    for _ in range(AUTO_LARGER if larger is None else larger):
        # a board only short of its fill is not helped by a larger one (fill_note): errors and warnings are
        bigger = fit.next_size(*last[2]["board_mm"]) if worse(last) != (0, 0) else None
        if bigger is None:
            break
        last = layout_once(data, replace(opts, size=bigger), refine=refine)
        tried.append(status(last))
        if worse(last) < worse(out):
            out = last
    new, changes, figures, problems = out
    figures["size_chosen"] = True
    if len(tried) > 1:
        figures["auto_sizes_tried"] = "; ".join(tried)
    return new, changes, figures, problems


def layout_once(data: dict, opts: LayoutOptions, refine: str | None = None):
    """One layout on one size (opts.size; "auto": the smallest standard size that holds the network).

    refine ("local" or "rounds"): the first drawing is the file's (its board positions, and its
    routes' waypoints given in mm), not the stress drawing from the real map, neither centred nor
    scaled (as with pinned stations), and judged as printed (spaces placed by their ends' needs);
    no polish and no seats (the drawing's directions are the designer's), and no move of one side
    of the board or of all of it (the tightening's cuts and shrink, the label step's slides): the
    tightening moves only the points of routes over 6 mm, the label step a station without room or
    the bends beside it, so a station that moves is one the checks, the gaps or the labels name.
    "local": the local steps alone (the repairs and the knot steps where the checks find
    something, the tightening, the labels); "rounds": the optimization's rounds and the even-spread repairs first, its anchor that
    drawing, held REFINE_GEO hard. A designer who moved or pinned a few stations gets the rest near
    where it was: laid out from the real map again, the optimization's path, and with it every
    station, comes out elsewhere (Seattle, White Center pinned south-east of Alaska Junction as
    `mapkit layout` advised: every free station moved, median 61 mm, and Alaska Junction drawn
    round it, the same route 90° off again)."""
    style, size, gap_rule = opts.style, opts.size, opts.gap_rule
    rng = np.random.default_rng(opts.seed)
    net = build_network(data, opts.keep, gap_rule)
    pos0, _ = initial_positions(net)
    # a tiny seeded jitter breaks exact ties (stations at the same spot, collinear lines)
    jitter = rng.normal(0.0, 0.05, pos0.shape)
    jitter[net.fixed] = 0.0
    n = net.n
    # lengths first (stress majorization from the real map), then the exact rules
    # a flight holds a few spaces between far stations and may cross anything: counted as a short
    # link it pulls its ends together across the map (Seattle's Paine Field to SeaTac)
    ground = replace(net, bundles=[b for b in net.bundles if not b.flight]) if any(b.flight for b in net.bundles) else net
    if refine:
        # (check_refine: every station has its board position). No jitter: a clean drawing moved
        # by 0.05 mm can touch where it held by less (a route 0.05 mm short)
        pos0 = net.given.copy()
    else:
        pos0 = majorize(ground, pos0 + jitter, anchor=stress_anchor(ground, opts.anchor_share))
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
    w = weights_for(style)
    if refine:
        # the drawing the designer has is the anchor: held much harder than the real map is (geo)
        w = replace(w, geo=REFINE_GEO)
    any_fixed = bool(net.fixed.any()) or bool(refine)   # (the scale is the drawing's, as with pinned stations)
    notes: list[str] = []
    if not any_fixed:
        if gap_rule:
            first_rounds(net, dr, w, style)
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
            notes.append(f"the network wants about {span[0] + 2 * (W - bw) / 2:.0f} x {span[1] + 2 * (H - bh) / 2:.0f} mm"
                         f" at its routes' lengths; on {W:g} x {H:g} mm it had to shrink to {s:.0%}")
        c = (st.min(0) + st.max(0)) / 2
        centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
        dr.anchor = (dr.anchor - (dr.anchor.min(0) + dr.anchor.max(0)) / 2) * s + centre
        if s < 0.999:
            shrink_gradually(net, dr, w, style, s, c, centre, box)
        else:
            dr.pos = (dr.pos - c) * s + centre
    dr.bounds = box
    inner_w, inner_h = W - 2 * ph.margin_mm, H - 2 * ph.margin_mm
    dr.fill_box = (fit.FILL * inner_w + 4, fit.FILL * inner_h + 4)
    if refine != "local":
        run_rounds(net, dr, w, style, rounds=4)
    route_flights(net, dr, size_out)
    crowded_out: list[int] = []   # the errors each time the knot steps were left out (too_many)

    def fix(found, check):
        """The local steps, from the repair to the finishing, on what the checks find (check:
        judge.even_problems or geometry_problems, the spread they judge the spaces by)."""
        # what the smooth terms cannot undo (a station on a neighbour's route): local moves, judged by the checks
        # (tries bounded by the board's size, so that a board too small to hold it gives up soon)
        found = repair(net, dr, size_out, check, max_tries=min(REPAIR_TRIES, REPAIR_TRIES_PER_STATION * n))
        if any(net.bundles[k].flight for k in problem_bundles(net, found)):
            # the repair moved stations under a flight: a new path, and the repair once more
            route_flights(net, dr, size_out, even=check is even_problems)
            found = repair(net, dr, size_out, check, max_tries=min(REPAIR_TRIES, REPAIR_TRIES_PER_STATION * n) // 2)
        if too_many(found, net):
            # errors on a good share of the routes after the repair: the board is too small for the
            # network, not knotted. The steps below undo a few local knots each (their budgets are
            # per problem: on 20 stations at 300 x 200 mm they took about 65 s and undid 3 of 39
            # errors); the fit report says what does not fit without them
            crowded_out.append(sum(p.severity == "error" for p in found))
            return found
        if found:
            # a knot no single move undoes: kicks with a local re-optimization, then the repair once more
            found = untangle(net, dr, size_out, check, found, w, style)
            if found:
                found = repair(net, dr, size_out, check, max_tries=min(REPAIR_TRIES, REPAIR_TRIES_PER_STATION * n))
        if found:
            # a route stretched round a station the real map has on its other side: that station across (unfold.py)
            found = unfold(net, dr, size_out, check, found, w, style)
        if any(p.code == "crossing" for p in found):
            # two routes crossing on a planar network: a bend round the wrong side, a station across a route
            found = uncross(net, dr, size_out, check, found, w, style)
        if found:
            # the leftovers the steps above leave by the luck of the floating point (1 mm short, 2 mm²)
            found = finish(net, dr, size_out, check, found, w, style)
        return found

    # the steps up to the finishing judge the board with every route's spaces spread evenly (their
    # models and moves were made for it); then each end at a narrow fan gets its need
    # (mapkit.geometry.space_placement) and what that leaves, the same local steps once more
    # (--refine's local steps: the designer's drawing judged as printed, spaces placed by their ends'
    # needs: spread evenly, a clean board can have problems the repairs would move stations for)
    if refine != "local":
        # the real checks, and the repairs they point at: a bend where a route is still too short
        for attempt in range(REPAIRS + (GAP_RULE_REPAIRS if gap_rule else 0)):
            new, changes = build_result(net, dr, size_out)
            found = even_problems(new)
            short = {p.subject[len("route "):] for p in found if p.code == "route-too-short"}
            if not found:
                break
            widen(net, dr, found)
            if attempt >= RELAX_FROM:  # still touching after widenings asked for a wider angle: wider gaps too
                if gap_rule:
                    relax_gaps(net, found, dr)
            if attempt:  # still covering a station after more room was asked: go round it
                short |= {p.subject[len("route "):] for p in found if p.code == "space-on-station"}
            bend = [k for k, b in enumerate(net.bundles)
                    if any(net.route_ids[r] in short for r in b.routes) and len(dr.lines[k]) == 2 and not b.flight]
            for k in bend:
                b = net.bundles[k]
                dr.add_waypoint(k, bend_point(dr.pos, b.a, b.b, b.lpref, n))
            if attempt >= 1:  # neighbours at a station still touching after more room was asked: bend one away
                for k, j in shared_overlaps(net, found):
                    if len(dr.lines[k]) == 2 and k not in bend and not net.bundles[k].flight:
                        b, o = net.bundles[k], net.bundles[j]
                        far = o.b if o.a in (b.a, b.b) else o.a
                        dr.add_waypoint(k, bend_point(dr.pos, b.a, b.b, min(b.lsoft, b.lpref * 1.1), n, away=dr.pos[far]))
            run_rounds(net, dr, replace(w, geo=w.geo / 3, bearing=w.bearing / 3), style, rounds=2, escalate=3.0,
                       start=2)
            route_flights(net, dr, size_out, even=True)
        found = fix(found, even_problems)
    found = geometry_problems(build_result(net, dr, size_out)[0])
    if found:
        found = fix(found, geometry_problems)
    lacking = tightened = resized = reseated = octilinear_moves = rp = None
    if not any(p.severity == "error" for p in found):
        # labels as obstacles: stations left no room for their name move a little, where the checks
        # allow (no more than the repair left: nothing, or a warning it could not remove)
        rp = Repair(net, dr, size_out, geometry_problems)
        rp.baseline = score(found)
        # (schematic: its own directions; --refine: the drawing's directions are the designer's)
        nudged = polish(rp) if style == "geographic" and not refine else 0
        # (--refine: no seats either: a station the designer drew across its neighbour stays there,
        # named by routes_across; seated, 20/0's s10 jumped 83 mm)
        reseated = reseat(rp, w, style) if not refine else None
        # gaps between spaces of at most about 6 mm: the optimization only prefers them (its
        # clearances win); on a board the checks pass, the over-long routes drawn in
        over = gap_figures(rp.full_data())
        tightened = {"routes_over_gap": [over["routes_over_gap"]], "largest_gap_mm": [over["largest_gap_mm"]],
                     **tighten(rp, w, style, sides=not refine)}   # (with the figures after it, the layout's last, below)
        # (the label step's slides lengthen routes: it tightens again the same way after them)
        lacking = label_repair(rp, retighten=(w, style), sides=not refine)
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
    if style == "schematic" and not refine and rp is not None:
        # the route segments turned to multiples of 45° where the checks and the labels allow
        # (--refine: the drawing's directions are the designer's)
        octilinear_moves = octilinear(rp)
        if found:
            found = rp.full()
    if size == "auto" and not any_fixed and not found:
        # the drawing is often smaller than the first one its size was picked from (resize.py)
        first = size_out
        size_out = smaller_board(net, dr, size_out, geometry_problems)
        if size_out != first:
            resized = f"{first[0]:g}x{first[1]:g} -> {size_out[0]:g}x{size_out[1]:g}"
        W, H = size_out
    new, changes = build_result(net, dr, size_out)
    problems = (notes if found else []) + fit_report(found, net, size_out or (W, H))
    if found and crowded_out:
        problems.insert(len(notes), too_many_note(crowded_out, net, picked if size != "auto" and picked != (W, H) else None))
    from mapkit.layout.figures import measure

    # routes allowed gaps wider than MAX_GAP_MM: at a crowded station (crowding.py) or relaxed (relax_gaps)
    widened = {"routes_gap_widened": sum(len(b.routes) for b in net.bundles if b.gap_max > MAX_GAP_MM
                                         and not b.flight)} if gap_rule else {}
    # labels_without_room_10pt: the stations the layout's label-room model (labelroom.py) finds no room
    # for at 10 pt — the renderer draws those smaller; labels_unplaced(_at), from measure, are the
    # ones with no room even at its smallest size
    figures = {"size_chosen": size == "auto", "bends": sum(len(line) - 2 for line in dr.lines), **widened,
               **({"labels_without_room_10pt": lacking, "polished": nudged} if lacking is not None else {}),
               **({"tightened": tightened} if tightened is not None else {}),
               **({"reseated": reseated} if reseated is not None else {}),
               **({"octilinear": octilinear_moves} if octilinear_moves is not None else {}),
               **measure(new, labels=False)}
    if tightened is not None:
        for key in ("routes_over_gap", "largest_gap_mm"):
            tightened[key].append(figures[key])
    if resized:
        figures["smaller_board"] = resized   # the finished drawing moved onto a smaller board (resize.py)
    note = fill_note(figures, ph.margin_mm) if gap_rule else None
    if note:
        figures["fill_note"] = note
    return new, changes, figures, problems


def fill_note(figures: dict, margin: float) -> str | None:
    """A board the stations do not fill FILL each way, said with the size they would fill (figure
    fill_note, beside fill_w and fill_h): the routes' gaps are held to network.MAX_GAP_MM, so a network
    too small for its board is not stretched to it. Not a problem of the geometry: the board is valid."""
    fw, fh = figures["fill_w"], figures["fill_h"]
    if fw >= fit.FILL and fh >= fit.FILL:
        return None
    W, H = figures["board_mm"]
    span_w, span_h = fw * (W - 2 * margin), fh * (H - 2 * margin)
    sw, sh = fit.filled_size(span_w, span_h, margin)
    return (f"the stations fill {fw:.0%} x {fh:.0%} of {W:g} x {H:g} mm at gaps between spaces of at most"
            f" {MAX_GAP_MM:g} mm (asked: {fit.FILL:.0%} each way): a {min(W, sw):g} x {min(H, sh):g} mm board would be"
            " filled, or lengthen routes")


def shrink_gradually(net, dr, w, style, s, c, centre, box) -> None:
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


KNOT_SHARE = 1 / 3   # errors on more than this share of the routes after the repair: the board is too small (too_many)


def too_many(found, net) -> bool:
    """Whether the repair left errors on more than KNOT_SHARE of the routes: then the board is too
    small for the network, and the knot steps (untangling, unfolding, uncrossing, finishing), each
    made to undo a few local knots with a budget per problem, are left out. On the 18 test cases
    the most any layout brings to them is 14 errors on 464 routes (200/0); 20 stations on 300 x 200
    mm bring 39 on 40."""
    return sum(p.severity == "error" for p in found) > KNOT_SHARE * len(net.route_ids)


def too_many_note(errors: list[int], net, auto=None) -> str:
    """The line that says the knot steps were left out, and why; with a fixed size, the size
    --size auto would start from (auto), when it is another."""
    pick = f"; --size auto would start from {auto[0]:g} x {auto[1]:g} mm" if auto else ""
    return (f"{max(errors)} errors on {len(net.route_ids)} routes after the repair: the board is too small for the"
            f" network rather than knotted, so the steps that undo local knots (untangling, unfolding, uncrossing)"
            f" were left out{pick}")


def fit_report(found, net=None, board_mm=None) -> list[str]:
    """What does not fit, in the designer's words, with by how much where the check measured it,
    which station is crowded where two routes leave it too close together, and (problems left)
    what would give the stations more room."""
    out = []
    routes_at: dict[str, list] = {}
    if net is not None:
        for b in net.bundles:
            for i in (b.a, b.b):
                routes_at.setdefault(net.ids[i], []).append(b)
    for p in found:
        if p.code == "route-too-short":
            need, drawn = (float(x) for x in re.findall(r"(\d+(?:\.\d+)?) mm", p.message)[:2])
            short = f"short by {need - drawn:.0f} mm" if need - drawn >= 1 else "short by less than 1 mm"
            out.append(f"{p.subject}: its spaces need {need:g} mm, drawn {drawn:g} mm ({short})")
        elif p.code in ("space-overlap", "space-on-station", "station-overlap", "off-board"):
            out.append(f"{p.subject}: {p.message}{crowded(p, routes_at)}")
        elif p.severity == "warning":
            out.append(f"{p.subject}: {p.message} (warning)")
    if found and board_mm is not None:
        bigger = fit.next_size(*board_mm)
        more = f"; a larger board (--size {bigger[0]:g}x{bigger[1]:g}) gives the stations more room" if bigger else ""
        out.append(f"{len(found)} problem{'s' if len(found) > 1 else ''} left that the repair's moves could not undo"
                   f" on {board_mm[0]:g} x {board_mm[1]:g} mm{more}")
    return out


def crowded(p, routes_at) -> str:
    """For two routes' spaces overlapping at the station they share: that station and how many
    routes (and doubles) leave it, the reason their first spaces cannot clear each other."""
    if p.code != "space-overlap" or not routes_at:
        return ""
    ends = [set(re.sub(r"#\d+$", "", rid).split("-")) for rid in
            [p.subject.split(" ", 1)[-1]] + re.findall(r"route '([^']+)'", p.message)[:1]]
    shared = sorted(ends[0] & ends[1]) if len(ends) == 2 else []
    if len(shared) != 1 or shared[0] not in routes_at:
        return ""
    at = routes_at[shared[0]]
    doubles = sum(1 for b in at if len(b.routes) == 2)
    return (f", where both leave station '{shared[0]}' ({len(at)} routes leave it{f', {doubles} of them doubles' if doubles else ''};"
            " their first spaces need a wider angle between them than the drawing gives)")


def stress_anchor(net, share: float) -> float:
    """The pull towards the real map in the stress drawing, as a share of a typical station's stress
    weight (the weights are 1/d², so an absolute number would mean nothing across boards)."""
    if share <= 0:
        return 0.0
    from mapkit.layout.stress import target_distances

    d = target_distances(net)
    with np.errstate(divide="ignore"):
        w = np.where(d > 0, 1.0 / d ** 2, 0.0)
    return float(share * np.median(w.sum(1)))


def problem_bundles(net, found) -> set[int]:
    """The bundles the problems name (as subject or in their message)."""
    bundle_of = {net.route_ids[r]: k for k, b in enumerate(net.bundles) for r in b.routes}
    out = set()
    for p in found:
        for rid in [p.subject.split(" ", 1)[-1]] + re.findall(r"route '([^']+)'", p.message):
            if rid in bundle_of:
                out.add(bundle_of[rid])
    return out


def shared_overlaps(net, found) -> list[tuple[int, int]]:
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


def first_rounds(net, dr, w, style) -> None:
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
    held = crossings(net, dr)
    if not held:
        return
    ruled, dr.pos = dr.pos, start
    run_rounds(replace(net, gap_rule=False), dr, w, style, rounds=3)
    if len(crossings(net, dr)) >= len(held):
        dr.pos = ruled


def crossings(net, dr) -> list:
    """The crossings the checks find in the drawing as it is (on the file's board: no size yet)."""
    return [p for p in geometry_problems(build_result(net, dr, None)[0]) if p.code == "crossing"]


RELAX_FROM = 1  # the repair attempt from which those routes get wider gaps (relax_gaps)
GAP_RELAX_MM = 1.0  # a route whose first space still touches a neighbour's at their station: this much wider a gap
GAP_JUMP_MM = 2.0   # ... or up to this much, where the drawn angle asks for it (crowding.pair_gap)


def relax_gaps(net, found, dr) -> None:
    """Where two routes' first spaces still overlap at the station they share, let both be drawn
    with wider gaps (GAP_RELAX_MM more, or at once the gap their drawn angle needs,
    crowding.pair_gap; within the checks' stretch limit): the gaps are held to 6 mm as a rule, but
    a station whose routes leave it close together may need its first spaces farther out
    (crowding.py reckons that for evenly spread routes; the drawing's real angles can ask for more).
    A route still too short whose ends the routes of a cycle hold too close (each at its widest):
    those routes get GAP_RELAX_MM more (cycle_gaps)."""
    named: dict[int, float] = {}
    released = release_gaps(net, found, dr)
    for k, j in shared_overlaps(net, found):
        if k in released or j in released:
            continue   # no gap limit left to widen
        need = drawn_pair_gap(net, dr, k, j)
        if need <= max(net.bundles[k].gap_max, net.bundles[j].gap_max):
            continue   # the drawn angle already clears their first spaces: they touch farther out, not a gap's doing
        for i in (k, j):   # once per round however many of its neighbours it touches
            named[i] = max(named.get(i, 0.0), need)
    for i in cycle_gaps(net, found):
        named.setdefault(i, 0.0)
    for i in sorted(set(named) - released):
        b = net.bundles[i]
        if not b.flight:
            # at most GAP_JUMP_MM at once: a narrow drawn angle would ask for far wider gaps than the
            # optimization needs once the angle term opens it a little (Portland's largest gap 7 -> 17 mm)
            set_gap_max(net, b, max(b.gap_max + GAP_RELAX_MM, min(named[i], b.gap_max + GAP_JUMP_MM)))


RELEASE_CODES = ("crossing", "space-on-station")   # the problems wider gaps (relax_gaps) do not address


def release_gaps(net, found, dr) -> set[int]:
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


def set_gap_max(net, b, gap: float) -> None:
    """A bundle's widest gap, and the longest drawing (lsoft) it allows, no shorter than before and
    inside the checks' stretch limit (lmax)."""
    b.gap_max = gap
    b.lsoft = min(b.lmax, max(b.lsoft, drawn_mm_at_gap(b.length, net.board.physical, gap - GAP_MARGIN_MM)))


def cycle_gaps(net, found) -> list[int]:
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


def widen(net, dr, found) -> None:
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


