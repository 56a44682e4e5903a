"""`mapkit import`: draft boards from other people's data. `mapkit import gtfs FEED --out FILE`."""

from __future__ import annotations

import time
from pathlib import Path

import click

from mapkit.cli.common import FORMAT, SEED, _echo_json, printable
from mapkit.cli.layout import Size
from mapkit.errors import MapkitError, UsageError
from mapkit.texttable import text_table


# layouts tried at most (each 5-30 s), and on one board size before the next size up: the drafts
# with the most spaces first, see import_attempts
MAX_LAYOUTS = 6
MAX_PER_BOARD = 2


@click.group("import")
def import_group():
    """Make a draft board from open data (a GTFS transit feed)."""


def _ids(text: str | None) -> tuple[str, ...] | None:
    if not text:
        return None
    return tuple(x.strip() for x in text.split(",") if x.strip()) or None


@import_group.command("gtfs")
@click.argument("feed", type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(path_type=Path), required=True,
              help="The board file to write (.json); its preview goes beside it (the same name, .png).")
@click.option("--modes", default=None, metavar="LIST",
              help="Modes to take, comma-separated: rail, subway, tram, light-rail, commuter-rail, monorail, cable, "
                   "ferry, bus, trolleybus. Default: the rail-like modes when the feed has any, else all.")
@click.option("--route", "routes", default=None, metavar="IDS", help="Only these routes (route_id or short name, comma-separated).")
@click.option("--agency", default=None, help="Only this agency's routes (agency_id or name).")
@click.option("--stations", type=click.IntRange(3, 500), default=None,
              help="Target number of stations (default: of 60, 50, 42 and 35, the draft that holds the most "
                   "spaces on the board).")
@click.option("--names", "names_file", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="A CSV with a header 'stop,name': a stop_id or station name, and the name to print on the board.")
@click.option("--colors", type=click.IntRange(2, 12), default=None, metavar="N",
              help="Card colors of the deck (default: the line families' count, from 5 to 8).")
@click.option("--size", type=Size(), default="auto", show_default=True,
              help="auto: the smallest standard size from 800x530 mm up that two players can play, the next "
                   "size up while the layout leaves problems; or WIDTHxHEIGHT in mm.")
@click.option("--games", type=click.IntRange(0, 5000), default=200, show_default=True,
              help="Games played at each player count to check the draft (0: none).")
@click.option("--name", default=None, help="The board's title (default: the agency's name).")
@click.option("--style", type=click.Choice(["geographic", "schematic"]), default="geographic", show_default=True,
              help="Layout style (see `mapkit layout`).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the layout, the ticket deck and the games.")
@click.option("--force", is_flag=True, help="Replace --out and its preview when they exist.")
@click.option("--lenient", is_flag=True, help="Write the board when it has warnings but no errors (default: only a "
                                               "board that passes `mapkit validate --strict` is written).")
@FORMAT
def import_gtfs(feed, out, modes, routes, agency, stations, names_file, colors, size, games, name, style, seed, force,
                lenient, fmt):
    """Import a GTFS feed (zip or folder) as a draft board: stations, routes, colors, layout, the
    train-card deck and a ticket deck, played a few hundred times, with a summary of every decision
    to look at and a preview image beside the board.

    Exit 0 when written, 1 when the feed is broken or the board would not validate (nothing is
    written), 2 on bad usage (an unknown route or mode, an existing --out without --force, a broken
    --names file, the GTFS extra not installed)."""
    from mapkit.importers.gtfs.board import finish_board, import_attempts
    from mapkit.importers.gtfs.names import read_names_file
    from mapkit.importers.gtfs.select import parse_modes
    from mapkit.importers.gtfs.service import require_extra
    from mapkit.outputs import atomic_write_text, check_output, refuse_input_paths

    require_extra()
    started = time.perf_counter()
    mode_list = parse_modes(modes)
    preview = out.with_suffix(".png") if out.suffix.lower() != ".png" else out.with_name(out.name + ".png")
    for path, what in ((out, "--out"), (preview, "the preview")):
        if path.exists() and not force:
            raise UsageError(f"{what}: {path} exists; pass --force to replace it, or choose another --out")
        check_output(path)
    inputs = [feed] + (sorted(feed.iterdir()) if feed.is_dir() else []) + ([names_file] if names_file else [])
    refuse_input_paths([out, preview], inputs, given="file")
    if not out.parent.exists():
        raise UsageError(f"--out: the folder {out.parent} does not exist")
    names = read_names_file(names_file) if names_file else None
    attempts, laid, done_data, per_board = [], None, [], {}
    drafts = import_attempts(feed, modes=mode_list, routes=_ids(routes), agency=agency, stations=stations, name=name,
                             names=names, colors=colors, size=size)
    for result in drafts:
        board_mm = tuple(result.summary["lengths"]["board_mm"])
        if result.data in done_data or per_board.get(board_mm, 0) >= MAX_PER_BOARD:
            continue         # the same board again, or this size had its turns: the next size up
        if len(attempts) == MAX_LAYOUTS:
            break
        per_board[board_mm] = per_board.get(board_mm, 0) + 1
        done_data.append(result.data)
        laid = result
        done = finish_board(result.data, seed=seed, style=style, source=str(out), size=board_mm)
        report = done.report
        ok = report.valid and (lenient or not report.warnings)
        attempts.append({"board_mm": list(board_mm), "fit_tolerance": result.summary["lengths"]["fit_tolerance"],
                         "stations": result.summary["stations"]["kept"],
                         "trains": result.summary["trains"], "spaces": result.summary["lengths"]["spaces"],
                         "errors": len(report.errors), "warnings": len(report.warnings), "valid": ok,
                         "first_problems": [p.format() for p in report.problems[:3]]})
        if ok:
            break
    summary = dict(laid.summary)
    summary["notes"] = list(summary["notes"]) + list(done.notes)
    summary["attempts"] = attempts
    summary["layout"] = done.layout
    summary["board"] = board_figures(done.data, done.layout.get("figures", {}))
    text, data = done.text, done.data
    if ok and games:
        from mapkit.importers.gtfs.playtest import playtest
        from mapkit.writer import dump_board_json, validate_text

        played = playtest(data, games=games, seed=seed)
        summary["playtest"] = {"games": games, "agent": "route-focus", "seconds": played.seconds,
                               "by_players": played.by_players, "fixes": played.fixes, "left": played.left}
        if played.data != data:
            new_text = dump_board_json(played.data)
            new_report = validate_text(new_text, str(out))
            if new_report.valid and (lenient or not new_report.warnings):
                text, data, report = new_text, played.data, new_report
            else:
                summary["playtest"]["left"].append("the fixes made the board fail validate: not applied; "
                                                   + "; ".join(p.format() for p in new_report.problems[:3]))
        over = data.get("rules", {}).get("overrides", {})
        summary["players"] = [over.get("min_players", 2), over.get("max_players", 5)]
        summary["deck"] = data["deck"]
    else:
        summary["deck"] = done.deck
    summary["tickets"] = len(data.get("ticket_decks", {}).get("standard", []))
    summary["seconds"] = round(time.perf_counter() - started, 2)
    summary["out"] = str(out)
    summary["written"] = ok
    summary["problems"] = [p.as_dict() for p in report.problems[:200]]
    if ok:
        atomic_write_text(out, text)
        try:
            summary["preview"] = _write_preview(out, preview)
        except (MapkitError, OSError) as exc:     # the board is written; the picture is a convenience
            summary["notes"].append(f"the preview {preview} was not drawn: {exc}")
    if fmt == "json":
        _echo_json(summary)
    else:
        click.echo(printable(format_summary(summary)))
        for p in report.problems[:200]:
            click.echo(printable(p.format()), err=True)
    if not ok:
        click.echo(f"error: {out} was not written: the board has {len(report.errors)} error(s) and "
                   f"{len(report.warnings)} warning(s)" + ("" if report.errors else "; pass --lenient to write it anyway")
                   + lenient_hint(attempts if report.errors and not lenient else []), err=True)
        raise SystemExit(1)


def lenient_hint(attempts: list[dict]) -> str:
    """Where an earlier layout had warnings but no errors: which, and that --lenient writes it (the
    command then stops at that layout)."""
    for a in attempts:
        if not a["errors"]:
            return (f"; the draft for {a['board_mm'][0]:g} x {a['board_mm'][1]:g} mm with {a['stations']} stations "
                    f"had no errors and {a['warnings']} warning(s): pass --lenient to write that one")
    return ""


def _write_preview(out: Path, preview: Path) -> str:
    """The board as an image beside it (mapkit.render's board.png), or why not."""
    from mapkit.boardfile import load_board
    from mapkit.geometry import Layout
    from mapkit.render.board import write_board_png
    from mapkit.render.kit import content_hash
    from mapkit.render.scene import build_scene

    board = load_board(out)
    write_board_png(build_scene(board, Layout(board), content_hash(out)), preview)
    return str(preview)


def board_figures(data: dict, figures: dict) -> dict:
    """The layout's figures a designer looks at first: size, empty share, routes drawn more than
    90 degrees off, the largest gap between spaces."""
    from mapkit.model import Physical

    b = data.get("physical", {})
    size = [b.get("width_mm", Physical().width_mm), b.get("height_mm", Physical().height_mm)]
    return {"size_mm": size, "empty_share": figures.get("empty_share"),
            "routes_over_90deg": figures.get("routes_over_90deg"), "largest_gap_mm": figures.get("largest_gap_mm"),
            "auto_sizes_tried": figures.get("auto_sizes_tried")}


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
    rows = []
    for ln in s["lines"]:
        other = f"; {ln['other_pattern_trips']} trips on {ln['patterns'] - 1} other pattern(s) not drawn" if ln["patterns"] > 1 else ""
        rows.append([ln["route_id"], ln["name"][:40], ln["mode"], f"{ln['trips']} trips", f"→ {ln['color']}{other}"])
    out += text_table(["line", "name", "mode", "trips", "card color"], rows, "lllrl") if rows else []
    m = st.get("merge", {})
    out.append(f"stations: {st['stops_used']} stops merged into {st['merged_stations']} stations ("
               f"{m.get('by_parent', 0)} by parent station, {m.get('by_same_name_nearby', 0)} of one name within "
               f"{m.get('same_name_m', 0):.0f} m ({m.get('same_name_rail_m', 0):.0f} m for rail and named places), "
               f"{m.get('by_proximity', 0)} by proximity within {m.get('proximity_m', 0):.0f} m); "
               f"{st['kept']} kept (target {st['target']}) of {st['network_stations']} on the lines' patterns: "
               f"{st['terminals']} terminals, {st['junctions_kept']} of {st['junctions']} junctions")
    ln = s["lengths"]
    out.append(f"routes: {s['routes']} tracks, {s['doubles']} double routes; {ln['spaces']} spaces for "
               f"{s['players'][1] * s['trains']} trains ({s['players'][1]} players × {s['trains']}), "
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
    for g in s.get("color_groups", []):
        out.append(f"  family {g['family']} (lines {', '.join(g['lines'][:8])}{' ...' if len(g['lines']) > 8 else ''}) "
                   f"-> {', '.join(g['colors'])}")
    out += text_table(["color", "hex", "name", "kind", "from"],
                      [[c["id"], c["hex"], c["name"][:40], c["kind"], c["source"]] for c in s["colors"]],
                      "lllll") if s["colors"] else []
    for n in s["notes"]:
        out.append(f"note: {n}")
    for a in s.get("attempts", [])[:-1]:
        w, h = a.get("board_mm", (0, 0))
        out.append(f"layout: the draft for {w:.0f} x {h:.0f} mm with lengths for {a['fit_tolerance']}x the board "
                   f"({a['stations']} stations, {a['trains']} trains each) left {a['errors']} error(s) and "
                   f"{a['warnings']} warning(s): the next draft (fewer spaces, or the next size up) laid out"
                   + ("" if a["errors"] else " (--lenient writes a board with warnings)"))
        for p in a.get("first_problems", []):
            out.append(f"  {p}")
    lay = s.get("layout", {})
    for p in lay.get("problems", []):
        out.append(f"layout: {p}")
    b = s.get("board") or {}
    if b.get("size_mm") and b["size_mm"][0]:
        gap = b.get("largest_gap_mm")
        out.append(f"board: {b['size_mm'][0]:.0f} x {b['size_mm'][1]:.0f} mm, "
                   + (f"{100 * b['empty_share']:.0f} % empty, " if b.get("empty_share") is not None else "")
                   + f"{b.get('routes_over_90deg') or 0} route(s) drawn more than 90 degrees off the real map, "
                   + (f"largest gap between spaces {gap} mm" if gap is not None else "no gaps measured"))
    lo, hi = s["players"]
    out.append(f"players: {lo}-{hi}" if hi > lo else f"players: {lo}")
    out[-1] += f" with {s['trains']} trains each"
    out.append(f"deck: {s['deck']['total']} cards, {s['deck']['wild']} wild; tickets: {s['tickets']}"
               + (" (too few station pairs fit for the usual 30)" if s["tickets"] < 30 else ""))
    pt = s.get("playtest")
    if pt:
        out.append(f"playtest: {pt['games']} {pt['agent']} games at each player count in {pt['seconds']} s")
        for p, r in sorted(pt["by_players"].items()):
            gaps = ", ".join(f"{k} in {v} games" for k, v in r["gaps"].items()) or "no rules gaps"
            out.append(f"  {p} players: {gaps}; tickets completed {100 * (r['completion'] or 0):.0f} %")
        for f in pt["fixes"]:
            out.append(f"  fixed: {f}")
        for f in pt["left"]:
            out.append(f"  to do: {f}")
    if s.get("preview"):
        out.append(f"preview: {s['preview']}")
    out.append(("wrote " if s["written"] else "not written: ") + s["out"] + f" in {s['seconds']} s")
    return "\n".join(out)
