"""`mapkit tune`: propose changes from the panel's evidence, prove them by simulation, write them back."""

from __future__ import annotations

import codecs
import sys
from pathlib import Path

import click

from mapkit.boardfile import source_name
from mapkit.cli.common import FORMAT, SEED, BoardPath, _echo_json, load_or_exit, printable
from mapkit.errors import MapkitError


def _kinds(value: str) -> list[str]:
    from mapkit.errors import did_you_mean
    from mapkit.tune.propose import KINDS

    kinds = [v.strip() for v in value.split(",") if v.strip()]
    for k in kinds:
        if k not in KINDS:
            raise click.BadParameter(f"unknown kind '{k}'{did_you_mean(k, KINDS)}; kinds: {', '.join(KINDS)} "
                                     f"(colors changes the map)", param_hint="--change")
    if not kinds:
        raise click.BadParameter("name at least one kind: " + ", ".join(KINDS), param_hint="--change")
    return kinds


def _read(path: Path) -> tuple[bytes, str]:
    raw = path.read_bytes()
    bom = codecs.BOM_UTF8 if raw.startswith(codecs.BOM_UTF8) else b""
    return bom, raw[len(bom):].decode("utf-8")


def report_games(panel: list, counts: list, step_games: int) -> int:
    """Games the tuned board's balance report plays (mapkit.balance.report's split: whole seat
    rotations per table), kept back from --budget."""
    import math

    tables = len(panel) + (1 if len(panel) > 1 else 0)
    rot = len(panel) if len(panel) > 1 else 1
    return math.ceil(math.ceil(step_games / tables) / rot) * rot * tables * len(counts)


@click.command()
@click.argument("board", type=BoardPath())
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the tuned board to this new file (the input is never changed without --write).")
@click.option("--write", is_flag=True, help="Change the board file itself: only the changed fields move.")
@click.option("--aim", "aim_opts", multiple=True, metavar="NAME=VALUE",
              help="Override an aim (repeatable): ticket-worth=0.1, value-rises=0.5, completion=0.4:0.9, "
                   "color-wilds=0.5, seat-edge=0.03, route-claimed=0.05; NAME=off turns one off. See docs/guide/tune.md.")
@click.option("--change", "change", default="tickets,cards,doubles", show_default=True,
              help="What may change, comma-separated: tickets (points, then replacing a ticket), cards "
                   "(train-card counts), doubles (a double's second track), colors (a map change, never by "
                   "default: a starved one- or two-route color made gray or a neighbouring line's color, a "
                   "rarely claimed route made gray). Never stations or route lengths.")
@click.option("--budget", type=click.IntRange(10, 100_000_000), default=8000, show_default=True,
              help="Most games to play in all, the tuned board's report included.")
@click.option("--step-games", type=click.IntRange(10, 1_000_000), default=100, show_default=True,
              help="Games per player count of a confirmation (split over the panel's tables); the tuned "
                   "board's report plays as many.")
@click.option("--screen-games", type=click.IntRange(1, 1_000_000), default=None,
              help="Games per player count on which each proposed change is screened (default: an eighth "
                   "of --step-games, at least one seat rotation per table).")
@click.option("--margin", "margin_opts", multiple=True, metavar="NAME=VALUE",
              help="Non-inferiority margin of an aim (repeatable): how much its total miss may grow in a kept "
                   "change, e.g. ticket-worth=0.05. See docs/guide/tune.md for the defaults.")
@click.option("--players", "player_counts", default="2,3,4,5", show_default=True,
              help="Player counts, comma-separated (limited to what the rules allow).")
@click.option("--agents", default=None,
              help="The agent panel, comma-separated (default: the balance report's panel).")
@click.option("--rules", "preset", default=None, help="Ruleset preset (default: the board's).")
@click.option("--variant", "variants", multiple=True, help="A variant on top of the preset (repeatable).")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(1, 256), default=1, show_default=True, help="Worker processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Play on a Dask cluster (needs the dask extra).")
@click.option("--report-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the tuned board's balance report goes (default: reports/<board id>-tuned/).")
@click.option("--no-report", is_flag=True, help="Do not play and write the tuned board's report.")
@click.option("--quiet", is_flag=True, help="No progress on stderr (shown only on a terminal anyway).")
@FORMAT
def tune(board, out_file, write, aim_opts, change, budget, step_games, screen_games, margin_opts, player_counts,
         agents, preset, variants, seed, jobs, scheduler, report_dir, no_report, quiet, fmt):
    """Tune a board's tickets, train cards and doubles (and, with --change colors, route colors)
    toward stated aims, proving every change.

    Each round proposes changes from the agent panel's evidence, screens them on a few seeded
    games, confirms the best on fresh ones (the same seeds before and after, the train cards
    shuffled so that a card change keeps the games paired) and keeps a change only when its aim
    improves and no aim grows beyond its non-inferiority margin (--margin); an undecided change
    is extended on the next games of the same seeds. Alpha is spent in proportion to games, so
    the whole run's error stays at 5 %. Repeats until every
    aim is met, nothing more helps or --budget games (the tuned board's report included) are
    spent. Prints the change log; --out writes the tuned board to a new file, --write changes the
    board file in place (only the changed fields). The same seed gives the same result whatever
    --jobs or --scheduler.
    """
    import json

    from mapkit.balance.panel import default_panel
    from mapkit.cli.sim import _agent_names, check_report_outputs, write_report_files
    from mapkit.outputs import atomic_write_bytes, check_output, refuse_input_paths
    from mapkit.cli.sim import player_counts_of
    from mapkit.sim.rules import rules_for_board
    from mapkit.tune import changelog
    from mapkit.tune.aims import read_aims
    from mapkit.tune.loop import tune as run_tune

    if write and out_file is not None:
        raise click.BadParameter("give --out FILE or --write, not both", param_hint="--out")
    kinds = _kinds(change)
    b = load_or_exit(board)
    source = source_name(board)
    rules = rules_for_board(b, preset, tuple(variants))
    counts = player_counts_of(player_counts, rules)
    panel = list(dict.fromkeys(_agent_names(agents) if agents else default_panel()))
    try:
        bom, original = _read(board)
    except (OSError, UnicodeDecodeError) as exc:
        raise MapkitError(f"cannot read {source}: {exc}")
    data = json.loads(original)
    groups = {r.double for r in b.routes if r.double}
    aims = read_aims(data, aim_opts, [r.id for r in b.routes], groups, source, margin_opts)
    # every output is refused before the games: they take minutes
    if out_file is not None:
        refuse_input_paths([out_file], [board], given="file")
        check_output(out_file)
    if write:
        check_output(board)
    if not no_report:
        report_dir = report_dir or Path("reports") / f"{b.id}-tuned"
        if report_dir.exists() and not report_dir.is_dir():
            raise click.BadParameter(f"{report_dir} is a file", param_hint="--report-dir")
        check_report_outputs(report_dir, [board] + ([out_file] if out_file else []))
    show = not quiet and sys.stderr.isatty()

    def progress(what, games, most):
        if show:
            click.echo(f"\r{what}: {games}/{most} games   ", nl=False, err=True)

    # the tuned board's report is played inside --budget: its games are kept back from the loop
    reserve = 0 if no_report else report_games(panel, counts, step_games)
    result = run_tune(data, source, aims, counts, panel, allowed=kinds, budget=budget, step_games=step_games,
                      screen_games=screen_games, reserve=reserve, seed=seed, jobs=jobs, scheduler=scheduler,
                      preset=preset, variants=tuple(variants), progress=progress)
    if show:
        click.echo("", err=True)
    files = {}
    if result.kept:
        new_text = result.patches.check(original, result.data)
        if write:
            from mapkit.writer import write_patches

            if _read(board) != (bom, original):
                raise MapkitError(f"{source} changed while tuning; nothing was written (run tune again)")
            write_patches(board, result.patches.changes, source)
            files["board"] = str(board)
        elif out_file is not None:
            atomic_write_bytes(out_file, bom + new_text.encode("utf-8"))
            files["board"] = str(out_file)
    elif out_file is not None:
        atomic_write_bytes(out_file, bom + original.encode("utf-8"))  # nothing kept: the same board
        files["board"] = str(out_file)
    if not no_report:
        from mapkit.balance.report import balance_report, write_report
        from mapkit.tune.loop import board_of

        tuned, _ = board_of(result.data, source)
        r = balance_report(tuned, counts, step_games, panel, seed, jobs, preset, tuple(variants), scheduler, tested=0)
        result.report_games = sum(x.get("games", 0) for x in r.get("runs", ())) or reserve
        try:
            made = write_report_files(lambda rep, where: write_report(rep, where, tuned), r, report_dir)
        except OSError as exc:
            raise MapkitError(f"cannot write the report into {report_dir}: {exc.strerror or exc}")
        files.update({f"report {k}": v for k, v in made.items()})
    if fmt == "json":
        _echo_json(changelog.as_json(result, aims, b.id, files))
    else:
        click.echo(printable(changelog.format_text(result, aims, b.id, files)))
    if not (write or out_file) and result.kept:
        click.echo("the board file was not changed: give --out FILE or --write to keep the changes", err=True)



