"""The last stage of a layout (layout_result): the Draft as the board dict, its changes, its figures
and the problems left, in the designer's words.

The figures: size_chosen, bends, routes_gap_widened (gap rule), labels_without_room_10pt and
polished, tightened, reseated, octilinear (where the finishing ran), figures.measure's (errors,
warnings, gaps, fill, label room, directions), smaller_board (board_size.py) and fill_note (gap rule,
a board the stations do not fill). The problems: the notes (a shrink) where something is left,
what does not fit and by how much (_fit_report), and why the knot steps were left out
(_too_many_note).
"""

from __future__ import annotations

import re

from mapkit.layout import fit
from mapkit.layout.draft import Draft
from mapkit.layout.figures import measure
from mapkit.layout.network import MAX_GAP_MM
from mapkit.layout.result import build_result


def layout_result(d: Draft):
    """(the new board dict, its changes, its figures, the problems left) of the Draft."""
    net, dr, found, size_out, opts = d.net, d.dr, d.found, d.size_out, d.opts
    size, gap_rule = opts.size, opts.gap_rule
    W, H = d.board_mm
    notes, crowded_out, picked = d.notes, d.crowded_out, d.picked
    new, changes = build_result(net, dr, size_out)
    problems = (notes if found else []) + _fit_report(found, net, size_out or (W, H))
    if found and crowded_out:
        problems.insert(len(notes), _too_many_note(crowded_out, net, picked if size != "auto" and picked != (W, H) else None))
    # routes allowed gaps wider than MAX_GAP_MM: at a crowded station (crowding.py) or relaxed (checked_repairs._relax_gaps)
    widened = {"routes_gap_widened": sum(len(b.routes) for b in net.bundles if b.gap_max > MAX_GAP_MM
                                         and not b.flight)} if gap_rule else {}
    # labels_without_room_10pt: the stations the layout's label-room model (labelroom.py) finds no room
    # for at 10 pt — the renderer draws those smaller; labels_unplaced(_at), from measure, are the
    # ones with no room even at its smallest size
    lacking, tightened = d.lacking, d.tightened
    figures = {"size_chosen": size == "auto", "bends": sum(len(line) - 2 for line in dr.lines), **widened,
               **({"labels_without_room_10pt": lacking, "polished": d.polished} if lacking is not None else {}),
               **({"tightened": tightened} if tightened is not None else {}),
               **({"reseated": d.reseated} if d.reseated is not None else {}),
               **({"octilinear": d.octilinear} if d.octilinear is not None else {}),
               **measure(new, labels=False)}
    if tightened is not None:
        for key in ("routes_over_gap", "largest_gap_mm"):
            tightened[key].append(figures[key])
    if d.resized:
        figures["smaller_board"] = d.resized   # the finished drawing moved onto a smaller board (board_size.py)
    note = _fill_note(figures, net.board.physical.margin_mm) if gap_rule else None
    if note:
        figures["fill_note"] = note
    return new, changes, figures, problems


def _fill_note(figures: dict, margin: float) -> str | None:
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


def _too_many_note(errors: list[int], net, auto=None) -> str:
    """The line that says the knot steps were left out, and why; with a fixed size, the size
    --size auto would start from (auto), when it is another."""
    pick = f"; --size auto would start from {auto[0]:g} x {auto[1]:g} mm" if auto else ""
    return (f"{max(errors)} errors on {len(net.route_ids)} routes after the repair: the board is too small for the"
            f" network rather than knotted, so the steps that undo local knots (untangling, unfolding, uncrossing)"
            f" were left out{pick}")


def _fit_report(found, net=None, board_mm=None) -> list[str]:
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
            out.append(f"{p.subject}: {p.message}{_crowded(p, routes_at)}")
        elif p.severity == "warning":
            out.append(f"{p.subject}: {p.message} (warning)")
    if found and board_mm is not None:
        bigger = fit.next_size(*board_mm)
        more = f"; a larger board (--size {bigger[0]:g}x{bigger[1]:g}) gives the stations more room" if bigger else ""
        out.append(f"{len(found)} problem{'s' if len(found) > 1 else ''} left that the repair's moves could not undo"
                   f" on {board_mm[0]:g} x {board_mm[1]:g} mm{more}")
    return out


def _crowded(p, routes_at) -> str:
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
