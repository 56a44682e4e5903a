"""A layout as a row of stages over one Draft (draft.py), each stage a module whose docstring states
what holds on its output:

    first_drawing -> onto_board -> checked_repairs -> untie_knots (even spread)
        -> untie_knots (as printed) -> finish_board -> smaller_board -> layout_result

first.py (the network and its first drawing, from the real map or the file's), onboard.py (the
optimization, the board size, the drawing on it), checked_repairs.py (the rounds of checks and targeted
repairs, spaces spread evenly), knots/ (local moves judged by the checks: the repair, then kicks,
folds, crossings and leftovers), the same knot steps on the drawing as printed (spaces placed by
their ends' needs), finishing.py (on a board without errors: bearings, seats, tightening, labels,
45°), board_size.py (--size auto: the smallest standard board that holds the finished drawing) and
report.py (the board dict, its figures and the problems left). layout_once is that row on one
size; layout_sizes, layout_rule_or_soft and layout_board_impl choose among such layouts (the next
size up, the soft layout, the file's drawing refined by the local steps or the rounds).

The three bundled boards laid out anew, and the 60-station bench network (mapkit.layout.synthetic,
seed 0), come out with no geometry problem (`mapkit layout boards/seattle.json --out OUT` exits 0;
likewise portland, north-america, portland --style schematic, --no-gap-rule, --size 600x900 and
--refine). `python bench/structure_identity.py record DIR layouts more-layouts` before a change and
`... check DIR layouts more-layouts` after it compare those layouts byte for byte (one machine)."""

from __future__ import annotations

from dataclasses import replace

from mapkit.boardfile import build_board
from mapkit.errors import UsageError
from mapkit.layout import fit
from mapkit.layout.finishing import finish_board
from mapkit.layout.first import first_drawing
from mapkit.layout.judge import even_problems, geometry_problems
from mapkit.layout.knots import untie_knots
from mapkit.layout.onboard import onto_board
from mapkit.layout.options import LayoutOptions
from mapkit.layout.checked_repairs import checked_repairs
from mapkit.layout.report import layout_result
from mapkit.layout.board_size import smaller_board
from mapkit.layout.result import build_result


AUTO_LARGER = 1  # --size auto: larger standard sizes tried after one that leaves problems


class LayoutError(UsageError):
    """Bad input for a layout (an unknown --keep id, a kept station with no position): exit 2."""


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
    floating point (docs/design/layout.md). The figure gap_rule says which was kept."""
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
    """One layout on one size (opts.size; "auto": the smallest standard size that holds the network):
    the stages in their order (the module docstring); (the new board dict, its changes, its figures,
    the problems left).

    refine ("local" or "rounds"): the first drawing is the file's (its board positions, and its
    routes' waypoints given in mm), not the stress drawing from the real map, neither centred nor
    scaled (as with pinned stations), and judged as printed (spaces placed by their ends' needs);
    no polish and no seats (the drawing's directions are the designer's), and no move of one side
    of the board or of all of it (the tightening's cuts and shrink, the label step's slides): the
    tightening moves only the points of routes over 6 mm, the label step a station without room or
    the bends beside it, so a station that moves is one the checks, the gaps or the labels name.
    "local": the local steps alone (the knot steps where the checks find something, the
    finishing); "rounds": the optimization's rounds and the checked repairs first, its anchor that
    drawing, held first.REFINE_GEO hard. A designer who moved or pinned a few stations gets the
    rest near where it was."""
    d = first_drawing(data, opts, refine)
    onto_board(d)
    if refine != "local":
        # spaces spread evenly: the checked repairs and the knot steps after them (--refine's
        # local steps judge the designer's drawing as printed only)
        checked_repairs(d)
        untie_knots(d, even_problems)
    # as printed: each end at a narrow fan gets its need (mapkit.geometry.space_placement)
    d.found = geometry_problems(build_result(d.net, d.dr, d.size_out)[0])
    if d.found:
        untie_knots(d, geometry_problems)
    if not any(p.severity == "error" for p in d.found):
        finish_board(d)
    if opts.size == "auto" and not d.any_fixed and not d.found:
        # the finished drawing is often smaller than the first one its size was picked from (board_size.py)
        first = d.size_out
        d.size_out = smaller_board(d.net, d.dr, first, geometry_problems)
        if d.size_out != first:
            d.resized = f"{first[0]:g}x{first[1]:g} -> {d.size_out[0]:g}x{d.size_out[1]:g}"
        d.board_mm = d.size_out
    return layout_result(d)
