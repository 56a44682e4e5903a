"""`mapkit layout`: station positions (and waypoints) from geography and route lengths."""

from __future__ import annotations

from pathlib import Path

import click

from mapkit.boardfile import source_name
from mapkit.cli.common import FORMAT, SEED, BoardPath, _echo_json, printable

# what a layout needs right before it can place anything: every route between two known stations
NETWORK_CODES = {"duplicate-id", "unknown-station", "self-loop", "bad-double"}


class Size(click.ParamType):
    name = "auto|WxH"

    def convert(self, value, param, ctx):
        from mapkit.layout.fit import parse_size

        try:
            return parse_size(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def _load(path: Path):
    """The board's dict and model; exit 1 on syntax, schema or non-geometry errors (a layout
    cannot mend a route to an unknown station)."""
    from mapkit.boardfile import parse_board
    from mapkit.checks import problems

    source = source_name(path)
    board, data, found = parse_board(path, source)
    if board is not None:
        found = [p for p in problems(board) if p.code in NETWORK_CODES and p.severity == "error"]
    if found:
        for p in found[:200]:
            click.echo(printable(p.format()), err=True)
        click.echo(f"{source}: fix these first; layout places stations, it does not mend the network", err=True)
        raise SystemExit(1)
    return data


OWN_NOTE = " (the file's size; --size auto picks the smallest standard size that fits)"


def _path_text(path: tuple) -> str:
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


@click.command()
@click.argument("board", type=BoardPath())
@click.option("--out", "out", type=click.Path(path_type=Path), default=None, help="Write the laid-out board to this new file.")
@click.option("--write", is_flag=True, help="Change the positions and waypoints in BOARD itself (the rest stays byte for byte).")
@click.option("--style", type=click.Choice(["geographic", "schematic"]), default="geographic", show_default=True,
              help="geographic stays close to the real map; schematic prefers 0/45/90° directions.")
@click.option("--size", type=Size(), default=None,
              help="auto: the smallest standard board size that fits (and says so); or WIDTHxHEIGHT in mm. "
                   "Default: a board the file already draws keeps its size (physical width_mm and height_mm); "
                   "one not drawn yet gets auto.")
@click.option("--keep", default="", metavar="ID,...", help="Stations that stay where the file has them (as \"pinned\": true does).")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--geo-anchor", "geo_anchor", type=click.FloatRange(0, 10), default=None, metavar="SHARE",
              help="How strongly the first drawing is held to the real map (0 to 10; default: the layout's "
                   "own, 0). 1.0 keeps Portland and north-america nearer their geography; the Seattle "
                   "network on its 600 x 900 mm leaves two labels without room at 1.0.")
@click.option("--gap-rule/--no-gap-rule", "gap_rule", default=True, show_default=True,
              help="--gap-rule (the default): hold the gaps between spaces to 6 mm as a rule (wider only "
                   "where a crowded station or a knot the repair could not undo needs it) and let --size auto "
                   "prefer a size the network fills 80 % each way; where the rule leaves a problem the soft "
                   "layout is kept if cleaner (figure gap_rule; docs/design/layout.md). --no-gap-rule: the "
                   "layout only prefers 6 mm gaps (faster, more routes over 6 mm); either way the clean "
                   "board's over-long routes are then drawn in where the checks allow (figure tightened, and "
                   "again after the label step), and stations of one or two neighbours drawn across them "
                   "are seated on their bearings and branches drawn turned round their station turned "
                   "back (geographic style, figure reseated).")
@click.option("--refine", is_flag=True,
              help="Start from the board as the file draws it (every station's position, waypoints in mm) on "
                   "its own size, not from the real map: after moving or pinning a few stations by hand, the "
                   "others stay near where they were and only what the checks, the gaps and the labels ask "
                   "changes. Without it, each run lays the whole board out anew.")
@FORMAT
def layout(board, out, write, style, size, keep, seed, geo_anchor, gap_rule, refine, fmt):
    """Compute station board positions (and route waypoints) from lat/lon and route lengths, so that
    the board passes the geometry checks.

    Prints what changed and the figures (stretched routes, largest gap, label size, empty area,
    direction error, fill), then the routes still drawn with gaps over 6 mm (each with how much
    too long and the length that would fit), the routes drawn more than 90° off the real map (with
    the station to move and the side the real map has it on) and any station label without room. Exit 0 when the result has no geometry problem at all (no error, no
    warning: what `mapkit validate --strict` asks of the geometry), 1 when something does not fit
    (it says what and by how much), 2 on bad usage.
    """
    from mapkit.errors import UsageError
    from mapkit.layout import layout_board
    from mapkit.layout.fit import drawn_size
    from mapkit.layout.figures import loose_routes, measure, routes_across
    from mapkit.outputs import atomic_write_text, check_output, refuse_input_paths
    from mapkit.writer import dump_board_json, write_patches

    if out is not None and write:
        raise UsageError("give --out FILE or --write, not both")
    if out is not None:
        refuse_input_paths([out], [board], given="file")
        check_output(out)
    keep_ids = frozenset(k.strip() for k in keep.split(",") if k.strip())
    data = _load(board)
    own = size is None and not refine and drawn_size(data)
    if size is None:
        size = own or "auto"
    res = layout_board(data, style=style, size=size, seed=seed, keep=keep_ids, geo_anchor=geo_anchor,
                       gap_rule=gap_rule, refine=refine)
    figures = {**res.figures, **measure(res.data)}  # with the label figures (the renderer's placement)
    from mapkit.layout.judge import geometry_problems
    left = geometry_problems(res.data)
    written = None
    if write:
        write_patches(board, res.changes, source_name(board), gate="schema")
        written = str(board)
    elif out is not None:
        atomic_write_text(out, dump_board_json(res.data))
        written = str(out)
    passes = not left
    loose = loose_routes(res.data)
    across = routes_across(res.data)
    if fmt == "json":
        _echo_json({"board": data["id"], "style": style, "seed": seed, "written": written,
                    "changes": [{"path": _path_text(p), "value": None if not isinstance(v, (dict, list, int, float)) else v}
                                for p, v in res.changes.items()],
                    "figures": figures, "loose_routes": loose, "routes_across": across, "problems": res.problems, "passes_strict": passes,
                    "remaining": [p.as_dict() for p in left]})
    else:
        moved = sum(1 for p in res.changes if p[0] == "stations")
        wps = [p for p in res.changes if p[0] == "routes"]
        click.echo(f"{data['id']}: {moved} station positions, {len(wps)} route waypoint changes"
                   + (f", board {figures['board_mm'][0]:g} x {figures['board_mm'][1]:g} mm"
                      f"{_auto_note(figures) if size == 'auto' and not refine else ''}{OWN_NOTE if own else ''}"))
        for line in figure_lines(figures):
            click.echo(printable(f"  {line}"))
        _echo_loose(loose)
        _echo_across(across, {s_["id"]: s_.get("name", s_["id"]) for s_ in res.data["stations"]})
        if figures.get("labels_unplaced_at"):
            at = figures["labels_unplaced_at"]
            click.echo(printable(f"{len(at)} station {'label has' if len(at) == 1 else 'labels have'} no room even at 7 pt"
                                 f" (the renderer draws {'it' if len(at) == 1 else 'them'} over what is there): {', '.join(at)};"
                                 " move the station or its neighbours, pin them and run layout --refine, or try another --seed"))
        # a board far too small has hundreds of problems (200 stations on 841 x 594 mm: 517 errors),
        # each said twice, in the designer's words and as `validate` says it: the first FIT_SHOWN of each
        _echo_first([printable(f"does not fit: {p}") for p in res.problems], FIT_SHOWN,
                    "... and {n} more lines of what does not fit")
        _echo_first([printable(p.format()) for p in left], FIT_SHOWN, "... and {n} more problems left")
        click.echo(f"geometry {'passes' if passes else 'does not pass'} mapkit validate --strict"
                   + (f"; written to {written}" if written else "; nothing written (give --out FILE or --write)"))
    if not passes:
        raise SystemExit(1)


LOOSE_SHOWN = 12   # loose routes named in the text output (--format json lists them all)
FIT_SHOWN = 40     # lines of the fit report, and problems left, in the text output (--format json: all)


def _echo_first(lines: list[str], limit: int, more: str) -> None:
    """The first `limit` lines, then how many more ({n} in more) and where all of them are."""
    for line in lines[:limit]:
        click.echo(line)
    if len(lines) > limit:
        click.echo(more.format(n=len(lines) - limit) + " (--format json lists them all)")


def _echo_loose(loose: list[dict]) -> None:
    """The routes whose gaps between spaces are over 6 mm (figures.loose_routes), widest first, with
    what would draw each in; then those already as short as their crowded ends allow. Not a
    geometry problem (validate --strict passes): a route that reads as dashes is the designer's
    call, so the layout names them rather than failing."""
    held = [x for x in loose if x["held"]]
    loose = [x for x in loose if not x["held"]]
    if loose:
        click.echo(f"{len(loose)} {'route reads' if len(loose) == 1 else 'routes read'} as dashes"
                   " (gaps between spaces over 6 mm), widest first:")
        _echo_first([printable(f"  route {x['route']} ({x['a']} - {x['b']}, {_spaces(x['length'])}): gaps {x['gap_mm']:g}"
                               f" mm, drawn {x['over_mm']:g} mm longer than 6 mm gaps need"
                               + (f"; {x['fits']} spaces would read as one line here" if x["fits"] else ""))
                     for x in loose], LOOSE_SHOWN, "  ... and {n} more")
        click.echo("  to draw one in: move its stations closer and pin them (\"pinned\": true or --keep), then run"
                   " layout --refine; or give the route the length named")
    if held:
        names = ", ".join(x["route"] for x in held[:LOOSE_SHOWN]) + (" ..." if len(held) > LOOSE_SHOWN else "")
        one = len(held) == 1
        click.echo(printable(f"{len(held)} {'route' if one else 'routes'} of one space {'has' if one else 'have'} more than"
                             f" 6 mm round {'its space but is' if one else 'their space but are'} as short as the crowded"
                             f" stations allow (an end needs the room to clear its neighbours): {names}"))


def _echo_across(across: list[dict], names: dict) -> None:
    """The routes drawn more than 90° off their real bearing (figures.routes_across), each with the
    station on the wrong side and the side the real map has it on. Not a geometry problem either:
    the layout could not seat it there (docs/design/layout.md, seats), the designer can."""
    if not across:
        return
    one = len(across) == 1
    click.echo(f"{len(across)} {'route is' if one else 'routes are'} drawn more than 90° off the real map"
               f" (a station on the wrong side of its neighbour), farthest first:")
    def other(x):
        return x["b"] if x["move"] == x["a"] else x["a"]
    _echo_first([printable(f"  route {x['route']}: {names.get(x['move'], x['move'])} drawn {x['drawn']} of"
                           f" {names.get(other(x), other(x))} ({x['off_deg']:g}° off); the real map has it {x['real']}")
                 for x in across], LOOSE_SHOWN, "  ... and {n} more")
    click.echo("  to turn one round: move the station named first to the real map's side and pin it, then run"
               " layout --refine (the others stay where they are)")


def _pct(x) -> str:
    return "?" if x is None else f"{100 * x:.0f} %"


def _plural(n, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _steps(values: list, unit: str = "") -> str:
    """[18, 4, 3] -> '18 -> 4 -> 3' (before the tightening, between its passes, at the end)."""
    return " -> ".join(f"{v:g}{unit}" for v in values)


def _counts(d: dict) -> str:
    """{'cut': 3, 'point': 2, 'pull': 0} -> 'cut 3, point 2' (what happened, not what did not)."""
    return ", ".join(f"{k} {v}" for k, v in d.items() if v) or "none"


def _tightened(t: dict) -> str:
    parts = [f"routes with gaps over 6 mm {_steps(t['routes_over_gap'])}",
             f"largest gap {_steps(t['largest_gap_mm'], ' mm')}",
             f"{_plural(t['moves'], 'move')} kept of {t['tries']} tried in {_plural(t['sweeps'], 'sweep')}"
             f" ({_counts(t['kinds'])})"]
    if t.get("undone"):
        parts.append(f"{t['undone']} undone")
    if t.get("refused") and any(t["refused"].values()):
        parts.append(f"refused for {_counts(t['refused'])}")
    if t.get("shrunk"):
        parts.append(f"the whole drawing shrunk by {t['shrunk']:g}")
    if t.get("again"):
        a = t["again"]
        parts.append(f"second pass: {_plural(a['moves'], 'move')} kept of {a['tries']} tried")
    return "; ".join(parts)


# the figures figure_lines says in sentences; any other is listed after them as it is
_SAID = {"size_chosen", "board_mm", "fill_w", "fill_h", "empty_share", "fill_note", "smaller_board", "auto_sizes_tried",
         "refined", "errors", "warnings", "crossings", "stretched_routes", "largest_gap_mm", "routes_over_gap",
         "routes_drawn", "routes_over_gap_even", "end_gaps_over_need", "largest_end_gap_mm", "routes_gap_widened",
         "gap_rule", "direction_error_deg_mean", "direction_error_deg_max", "within_45deg", "routes_over_90deg",
         "order_kept", "order_stations", "trunk_sides_swapped", "trunk_sides_swapped_raw", "label_pt_smallest",
         "labels_unplaced", "labels_unplaced_at", "labels_below_12pt", "labels_total", "labels_with_room",
         "labels_without_room_10pt", "bends", "polished", "tightened", "reseated"}


def figure_lines(f: dict) -> list[str]:
    """The layout's figures (mapkit.layout.figures, and the steps' own) as sentences a designer
    reads, one topic a line; --format json has every figure under its name."""
    lines = []
    if "board_mm" in f:
        w, h = f["board_mm"]
        lines.append(f"board: {w:g} x {h:g} mm; the stations span {_pct(f.get('fill_w'))} x {_pct(f.get('fill_h'))}"
                     f" of its playing area (aim: 80 % each way); {_pct(f.get('empty_share'))} of it is empty")
    if f.get("fill_note"):
        lines.append(f"fill: {f['fill_note']}")
    if f.get("smaller_board"):
        lines.append(f"moved onto a smaller board: {f['smaller_board']} mm")
    if f.get("auto_sizes_tried"):
        lines.append(f"sizes tried: {f['auto_sizes_tried']}")
    if f.get("refined"):
        lines.append(f"refined by the {f['refined']}")
    if "errors" in f:
        lines.append(f"geometry: {_plural(f['errors'], 'error')}, {_plural(f['warnings'], 'warning')}"
                     f" ({_plural(f.get('crossings', 0), 'crossing')}, {_plural(f.get('stretched_routes', 0), 'stretched route')})")
    if "largest_gap_mm" in f:
        text = (f"gaps between spaces: the largest {f['largest_gap_mm']:g} mm; {f.get('routes_over_gap', 0)} of"
                f" {_plural(f.get('routes_drawn', 0), 'route')} over 6 mm")
        if "routes_over_gap_even" in f:
            text += f" ({f['routes_over_gap_even']} with the spaces spread evenly)"
        if "routes_gap_widened" in f:
            text += f"; {f['routes_gap_widened']} allowed wider at a crowded station"
        lines.append(text)
    if "largest_end_gap_mm" in f:
        lines.append(f"route ends: the largest gap to a station {f['largest_end_gap_mm']:g} mm;"
                     f" {f.get('end_gaps_over_need', 0)} wider than 6 mm and what the end needs")
    if f.get("gap_rule"):
        lines.append(f"gap rule (at most 6 mm): {f['gap_rule']}")
    if f.get("direction_error_deg_mean") is not None:
        lines.append(f"directions against the real map: {f['direction_error_deg_mean']:g}° off on average, at most"
                     f" {f['direction_error_deg_max']:g}°; {_pct(f.get('within_45deg'))} within 45°;"
                     f" {f.get('routes_over_90deg', 0)} over 90°")
    if f.get("order_stations"):
        lines.append(f"stations of 3 or more routes whose routes leave in the real order: {f['order_kept']} of"
                     f" {f['order_stations']}")
    if "trunk_sides_swapped" in f:
        lines.append(f"lines changing sides along shared doubles: {f['trunk_sides_swapped']} as drawn"
                     f" ({f.get('trunk_sides_swapped_raw', 0)} before the sides are kept)")
    if "labels_total" in f:
        text = (f"labels: {f['labels_with_room']} of {f['labels_total']} with room; the smallest size needed"
                f" {f['label_pt_smallest']:g} pt; {f.get('labels_below_12pt', 0)} below 12 pt;"
                f" {f.get('labels_unplaced', 0)} with no room even at 7 pt")
        lines.append(text)
    if f.get("labels_without_room_10pt"):
        lines.append(f"no label room at 10 pt (drawn smaller): {', '.join(f['labels_without_room_10pt'])}")
    steps = []
    if "bends" in f:
        steps.append(_plural(f["bends"], "bend"))
    if "polished" in f:
        steps.append(f"{_plural(f['polished'], 'nudge')} towards the real bearings")
    if f.get("reseated"):
        r = f["reseated"]
        steps.append(f"{r['reseated']} of {_plural(r['tried'], 'seat')} tried kept, {_plural(r.get('turned', 0), 'branch', 'branches')} turned back")
    if steps:
        lines.append("drawing: " + "; ".join(steps))
    if f.get("tightened"):
        lines.append("tightened: " + _tightened(f["tightened"]))
    for k, v in f.items():
        if k not in _SAID:
            lines.append(f"{k.replace('_', ' ')}: {_counts(v) if isinstance(v, dict) else v}")
    return lines


def _spaces(n: int) -> str:
    return f"{n} space" if n == 1 else f"{n} spaces"


def _auto_note(figures: dict) -> str:
    """What --size auto chose: the smallest standard size that holds the network, or, when that
    one left problems, a larger one the layout came out better on (figure auto_sizes_tried)."""
    if "auto_sizes_tried" in figures and not figures["auto_sizes_tried"].startswith(
            f"{figures['board_mm'][0]:g}x{figures['board_mm'][1]:g} "):
        return " (chosen: the smallest standard size that fits left problems; this larger one has fewer)"
    return " (chosen: smallest standard size that fits)"
