"""`mapkit import`: draft boards from other people's data. `mapkit import gtfs FEED --out FILE`."""

from __future__ import annotations

import time
from pathlib import Path

import click

from mapkit.cli.common import FORMAT, SEED, _echo_json, printable
from mapkit.errors import UsageError


# layouts tried at most (each 5-30 s): the drafts with the most spaces first, see import_attempts
MAX_LAYOUTS = 5


@click.group("import")
def import_group():
    """Make a draft board from open data (a GTFS transit feed)."""


def _ids(text: str | None) -> tuple[str, ...] | None:
    if not text:
        return None
    return tuple(x.strip() for x in text.split(",") if x.strip()) or None


@import_group.command("gtfs")
@click.argument("feed", type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(path_type=Path), required=True, help="The board file to write (.json).")
@click.option("--modes", default=None, metavar="LIST",
              help="Modes to take, comma-separated: rail, subway, tram, light-rail, commuter-rail, monorail, cable, "
                   "ferry, bus, trolleybus. Default: the rail-like modes when the feed has any, else all.")
@click.option("--route", "routes", default=None, metavar="IDS", help="Only these routes (route_id or short name, comma-separated).")
@click.option("--agency", default=None, help="Only this agency's routes (agency_id or name).")
@click.option("--stations", type=click.IntRange(3, 500), default=None,
              help="Target number of stations (default: of 60, 50, 42 and 35, the draft that holds the most "
                   "spaces on the largest board the layout draws).")
@click.option("--name", default=None, help="The board's title (default: the agency's name).")
@click.option("--style", type=click.Choice(["geographic", "schematic"]), default="geographic", show_default=True,
              help="Layout style (see `mapkit layout`).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the layout and the ticket deck.")
@click.option("--force", is_flag=True, help="Replace --out when it exists.")
@click.option("--lenient", is_flag=True, help="Write the board when it has warnings but no errors (default: only a "
                                               "board that passes `mapkit validate --strict` is written).")
@FORMAT
def import_gtfs(feed, out, modes, routes, agency, stations, name, style, seed, force, lenient, fmt):
    """Import a GTFS feed (zip or folder) as a draft board: stations, routes, colors, layout, the
    train-card deck and a ticket deck, with a summary of every decision to look at.

    Exit 0 when written, 1 when the feed is broken or the board would not validate (nothing is
    written), 2 on bad usage (an unknown route or mode, an existing --out without --force, the
    GTFS extra not installed)."""
    from mapkit.importers.gtfs.board import finish_board, import_attempts
    from mapkit.importers.gtfs.select import parse_modes
    from mapkit.importers.gtfs.service import require_extra
    from mapkit.outputs import atomic_write_text, check_output, refuse_input_paths

    require_extra()
    started = time.perf_counter()
    mode_list = parse_modes(modes)
    if out.exists() and not force:
        raise UsageError(f"--out: {out} exists; pass --force to replace it, or choose another file")
    check_output(out)
    inputs = [feed] + (sorted(feed.iterdir()) if feed.is_dir() else [])
    refuse_input_paths([out], inputs, given="file")
    if not out.parent.exists():
        raise UsageError(f"--out: the folder {out.parent} does not exist")
    # lengths for a little more board than the estimate says fits, then less while the layout
    # leaves problems (see importers/gtfs/fit.py); a draft that comes out the same is not redone
    attempts, laid, done_data = [], None, []
    drafts = import_attempts(feed, modes=mode_list, routes=_ids(routes), agency=agency, stations=stations, name=name)
    for result in drafts:
        if result.data in done_data:
            continue         # the same board at another tolerance: not laid out again
        if len(attempts) == MAX_LAYOUTS:
            break
        done_data.append(result.data)
        laid = result
        done = finish_board(result.data, seed=seed, style=style, source=str(out))
        report = done.report
        ok = report.valid and (lenient or not report.warnings)
        attempts.append({"fit_tolerance": result.summary["lengths"]["fit_tolerance"],
                         "stations": result.summary["stations"]["kept"],
                         "trains": result.summary["trains"], "spaces": result.summary["lengths"]["spaces"],
                         "errors": len(report.errors), "warnings": len(report.warnings), "valid": ok,
                         "first_problems": [p.format() for p in report.problems[:3]]})
        if ok:
            break
    summary = dict(laid.summary)
    summary["attempts"] = attempts
    summary["layout"] = done.layout
    summary["deck"] = done.deck
    summary["tickets"] = done.tickets
    summary["seconds"] = round(time.perf_counter() - started, 2)
    summary["out"] = str(out)
    summary["written"] = ok
    summary["problems"] = [p.as_dict() for p in report.problems[:200]]
    if ok:
        atomic_write_text(out, done.text)
    if fmt == "json":
        _echo_json(summary)
    else:
        click.echo(printable(format_summary(summary)))
        for p in report.problems[:200]:
            click.echo(printable(p.format()), err=True)
    if not ok:
        click.echo(f"error: {out} was not written: the board has {len(report.errors)} error(s) and "
                   f"{len(report.warnings)} warning(s)" + ("" if report.errors else "; pass --lenient to write it anyway"),
                   err=True)
        raise SystemExit(1)


def drawable_lines(d: dict) -> list[str]:
    """What the importer changed so that the network can be drawn: the decisions a designer may
    undo (see mapkit/importers/gtfs/planar.py)."""
    out = []
    for x in d.get("kept_at_crossing", []):
        out.append(f"drawable: kept {x['station']} where {x['routes'][0]} crossed {x['routes'][1]} (a stop both lines serve)")
    for x in d.get("merged_at_crossing", []):
        out.append(f"drawable: merged stop {x['merged']} into {x['station']} ({x['metres']} m apart) where "
                   f"{x['routes'][0]} crossed {x['routes'][1]}")
    for x in d.get("kept_to_uncross", []):
        out.append(f"drawable: kept {x['station']} so that {x['routes'][0]} and {x['routes'][1]} follow their streets "
                   f"without crossing")
    for x in d.get("dropped", []):
        out.append(f"drawable: dropped route {x['route'][0]} - {x['route'][1]} ({', '.join(x['lines'])}): it crossed "
                   f"{x['crosses']} away from any stop (the lines still run on their other routes)")
    for x in d.get("overpass", []):
        out.append(f"drawable: route {x['route'][0]} - {x['route'][1]} ({', '.join(x['lines'])}) flagged overpass: it "
                   f"crosses {x['crosses']} away from any stop and the network needs it")
    merged = d.get("merged_side_by_side", [])
    if merged:
        out.append(f"drawable: {len(merged)} route(s) that ran beside a shorter one merged into it: "
                   + "; ".join(f"{x['route'][0]} - {x['route'][1]} through {x['through']} ({', '.join(x['lines'])})"
                               for x in merged[:8]) + (" ..." if len(merged) > 8 else ""))
    if d.get("crossings_left"):
        out.append(f"drawable: {d['crossings_left']} crossing(s) left unresolved (the repair stopped at its bound of "
                   f"fixes): expect the layout to fail there")
    return out


def format_summary(s: dict) -> str:
    st = s["stations"]
    out = [f"feed {s['feed']}: service day {s['service_day']}, modes {', '.join(s['modes'])}",
           f"lines: {len(s['lines'])} kept" + (f", {len(s['dropped'])} left out" if s["dropped"] else "")]
    for d in s["dropped"][:20]:
        out.append(f"  left out {d['line']}: {d['why']}")
    for ln in s["lines"]:
        other = f", {ln['other_pattern_trips']} trips on {ln['patterns'] - 1} other pattern(s) not drawn" if ln["patterns"] > 1 else ""
        out.append(f"  {ln['route_id']:<12} {ln['name'][:40]:<40} {ln['mode']:<13} {ln['trips']:>4} trips → {ln['color']}{other}")
    out.append(f"stations: {st['kept']} kept (target {st['target']}) of {st['network_stations']} on the lines' patterns "
               f"({st['stops_used']} stops merged into {st['merged_stations']} stations); {st['terminals']} terminals, "
               f"{st['junctions_kept']} of {st['junctions']} junctions")
    ln = s["lengths"]
    out.append(f"routes: {s['routes']} tracks, {s['doubles']} double routes; {ln['spaces']} spaces for "
               f"{5 * s['trains']} trains (5 players × {s['trains']}), "
               + (f"{ln['spaces_per_km']} spaces per km^0.6" if ln["spaces_per_km"] else "lengths at their longest")
               + (f" ({ln['cut_to_longest']} cut to the longest)" if ln.get('cut_to_longest') else "")
               + f"; lengths {', '.join(f'{k}: {v}' for k, v in ln['histogram'].items())}; route points {s['route_points']}")
    if ln.get("board_mm"):
        out.append(f"  drawn about {ln['drawn_mm'][0]} x {ln['drawn_mm'][1]} mm (estimate): a {ln['board_mm'][0]:.0f} x "
                   f"{ln['board_mm'][1]:.0f} mm board" + (f"; at full lengths it would be {ln['shrunk_from_mm'][0]} x "
                                                           f"{ln['shrunk_from_mm'][1]} mm" if ln.get("shrunk_from_mm") else ""))
    if s["crowded_segments"]:
        out.append(f"  {len(s['crowded_segments'])} segment(s) with more than two lines, the one or two most frequent drawn:")
        for c in s["crowded_segments"][:5]:
            out.append(f"    {c['between'][0]} - {c['between'][1]}: {', '.join(c['lines'])} (drawn: {', '.join(c['drawn'])})")
    if s.get("shared_single"):
        out.append(f"  {len(s['shared_single'])} segment(s) of two lines drawn single (a double only beside a frequent line, "
                   f"on at most a fifth of the segments): " + ", ".join(f"{c['between'][0]} - {c['between'][1]}"
                                                                        for c in s["shared_single"][:6])
                   + (" ..." if len(s["shared_single"]) > 6 else ""))
    out.extend(drawable_lines(s.get("drawable") or {}))
    out.append(f"colors: {len(s['colors'])}" + (f", gray for {', '.join(s['gray_lines'])}" if s["gray_lines"] else ""))
    for c in s["colors"]:
        out.append(f"  {c['id']:<14} {c['hex']} {c['name'][:40]:<40} {c['kind']:<13} {c['source']}")
    for n in s["notes"]:
        out.append(f"note: {n}")
    for a in s.get("attempts", [])[:-1]:
        out.append(f"layout: the draft with lengths for {a['fit_tolerance']}x the board ({a['stations']} stations, "
                   f"{a['trains']} trains each) left {a['errors']} error(s) and {a['warnings']} warning(s): "
                   f"the next draft (fewer spaces) laid out" + ("" if a["errors"] else " (--lenient writes a "
                                                                          "board with warnings)"))
        for p in a.get("first_problems", []):
            out.append(f"  {p}")
    lay = s.get("layout", {})
    for p in lay.get("problems", []):
        out.append(f"layout: {p}")
    out.append(f"deck: {s['deck']['total']} cards, {s['deck']['wild']} wild; tickets: {s['tickets']}"
               + (" (too few station pairs fit for the usual 30)" if s["tickets"] < 30 else ""))
    out.append(("wrote " if s["written"] else "not written: ") + s["out"] + f" in {s['seconds']} s")
    return "\n".join(out)
