"""`mapkit simulate` and `mapkit bench`: seeded games between AI players, and their speed."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mapkit.cli.common import FORMAT, SEED, BoardPath, _echo_json, load_or_exit
from mapkit.errors import MapkitError, UsageError
from mapkit.sim.rules import deck_hint, players_text


def _agent_list(value: str, players: int) -> list[str]:
    names = _agent_names(value)
    if len(names) == 1:
        return names * players
    if len(names) != players:
        raise click.BadParameter(f"{len(names)} agents for {players} players: name one per seat or one for all",
                                 param_hint="--agents")
    return names


def _agent_names(value: str) -> list[str]:
    """Known agent names in `value` (comma-separated), or a usage error naming the unknown one."""
    from mapkit.sim.agents import AGENTS
    from mapkit.errors import did_you_mean

    names = [v.strip() for v in value.split(",") if v.strip()]
    for n in names:
        if n not in AGENTS:
            raise click.BadParameter(f"unknown agent '{n}'{did_you_mean(n, AGENTS)}; agents: {', '.join(AGENTS)}",
                                     param_hint="--agents")
    if not names:
        raise click.BadParameter("no agent named", param_hint="--agents")
    return names


def format_summary(s: dict) -> str:
    lines = [
        f"{s['games']} games on {s['board']}, {s['players']} players, rules {s['rules']}, seed {s['seed']}",
        f"  agents: {', '.join(s['agents'])}",
        "  wins: " + ", ".join(f"seat {i} {w} ({r:.1%})" for i, (w, r) in enumerate(zip(s["wins"], s["win_rate"])))
        + f"; shared {s['shared_wins']}",
        "  win share, ties split: " + ", ".join(f"seat {i} {x:.1%}" for i, x in enumerate(s["win_share"])),
        f"  ticket completion: {s['ticket_completion']:.1%} ({s['tickets_completed']} of {s['tickets_held']})"
        if s["ticket_completion"] is not None else "  ticket completion: no tickets held",
        "  mean score: " + ", ".join(f"{k} {v:g}" for k, v in s["mean_score"].items()),
        f"  turns per game: mean {s['turns']['mean']}, min {s['turns']['min']}, max {s['turns']['max']}",
        "  trains left: " + ", ".join(f"{x:g}" for x in s["trains_left"]),
        "  game ends: " + ", ".join(f"{k} {v}" for k, v in s["ends"].items()),
    ]
    if s["rules_gaps"]:
        lines.append("  rules gaps: " + ", ".join(f"{k} {v['events']} in {v['games']} games" for k, v in s["rules_gaps"].items()))
    else:
        lines.append("  rules gaps: none")
    claims = sorted(s["route_claims"].items(), key=lambda kv: kv[1])
    lines.append("  least claimed routes: " + ", ".join(f"{k} {v}" for k, v in claims[:5]))
    tickets = sorted(s["tickets"].items(), key=lambda kv: (kv[1]["completed"] / kv[1]["held"]) if kv[1]["held"] else 0)
    lines.append("  hardest tickets: " + ", ".join(
        f"{k} {v['completed']}/{v['held']}" for k, v in tickets[:5]))
    return "\n".join(lines)


def player_counts_of(text: str, rules) -> list[int]:
    """The --players list of `report` and `tune` ("2,3,4,5"), keeping the counts the rules play."""
    try:
        counts = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise click.BadParameter(f"'{text}' is not a list of numbers", param_hint="--players")
    counts = [n for n in counts if rules.min_players <= n <= rules.max_players]
    if not counts:
        raise click.BadParameter(f"the {rules.name} rules are for {players_text(rules)}", param_hint="--players")
    return counts


@click.command()
@click.argument("board", type=BoardPath())
@click.option("--players", type=click.IntRange(1, 5), default=2, show_default=True)
@click.option("--games", type=click.IntRange(1, 10_000_000), default=1000, show_default=True)
@click.option("--agents", default="route-focus", show_default=True,
              help="One agent per seat, comma-separated, or one for every seat: random, route-focus, "
                   "ticket-hungry, long-route, one-step, expert.")
@click.option("--rules", "preset", default=None, help="Ruleset preset (default: the board's).")
@click.option("--variant", "variants", multiple=True,
              help="A variant on top of the preset (repeatable): open-tickets, family, relaxed-wilds, "
                   "ticket-market, friendly-protection, quick, long, teams, teams-shared, solo.")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(1, 256), default=1, show_default=True, help="Worker processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Play on a Dask cluster (e.g. tcp://10.0.0.5:8786); needs the dask extra.")
@click.option("--log", "log_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Write one JSON line per game (seed, actions, final scores) for exact replay.")
@FORMAT
def simulate(board, players, games, agents, preset, variants, seed, jobs, scheduler, log_file, fmt):
    """Play seeded games between AI players and summarize them.

    Results are identical for the same seed whatever --jobs is, and on a Dask cluster.
    """
    from mapkit.sim.batch import pool_labels, run_games, summarize
    from mapkit.sim.rules import rules_for_board
    from mapkit.sim.tables import build_tables

    b = load_or_exit(board)
    rules = rules_for_board(b, preset, tuple(variants))
    if not rules.min_players <= players <= rules.max_players:
        raise click.BadParameter(f"the {rules.name} rules are for {players_text(rules)}",
                                 param_hint="--players")
    names = _agent_list(agents, players)
    t = build_tables(b)
    for deck in rules.ticket_decks:
        if deck not in t.ticket_decks:
            raise UsageError(f"the {rules.name} rules need a ticket deck named '{deck}' in {b.id}; "
                             f"make one with {deck_hint(b.id, deck)}")
    if log_file is not None and log_file.exists() and log_file.is_dir():
        raise click.BadParameter(f"{log_file} is a directory", param_hint="--log")
    if log_file is not None:
        # checked before the games are played: the log must not be the board, nor protected
        from mapkit.outputs import check_output, refuse_input_paths
        refuse_input_paths([log_file], [board], what="--log")
        check_output(log_file)
    show = games >= 200 and sys.stderr.isatty()
    with click.progressbar(length=games, label="games", file=sys.stderr) if show else _NoBar() as bar:
        totals, lines = run_games(t, rules, names, games, seed, jobs=jobs, log=log_file is not None,
                                  progress=bar.update, scheduler=scheduler)
    summary = summarize(t, rules, names, seed, totals, pool_labels(t, rules))
    if log_file is not None:
        from mapkit.outputs import atomic_write_text
        # atomic: a full disk leaves the previous log whole rather than truncated
        atomic_write_text(log_file, "\n".join(lines) + "\n")
    if fmt == "json":
        _echo_json(summary)
    else:
        click.echo(format_summary(summary))


# what write_report writes into its folder (plus heatmap-<n>p.png, one per player count)
REPORT_FILES = ("report.md", "report.json", "report.html", "completion-vs-points.png", "seat-shares.png",
                "margins.png")


def check_report_outputs(out_dir: Path, inputs) -> None:
    """Refuse a report folder where writing the report would replace an input or a protected file."""
    from mapkit.outputs import check_output, refuse_input_paths

    refuse_input_paths([out_dir / name for name in REPORT_FILES], inputs)
    for name in REPORT_FILES:
        check_output(out_dir / name)


def write_report_files(write_report, r: dict, out_dir: Path) -> dict:
    """write_report into a staging folder inside out_dir, then each file renamed over its old
    copy: a full disk leaves the previous report whole, never a 0-byte report.json. The paths
    returned name out_dir, not the staging folder."""
    from mapkit.outputs import staged_folder

    with staged_folder(out_dir) as stage:
        files = write_report(r, stage)
    return {k: str(out_dir / Path(v).name) for k, v in files.items()}


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n):
        pass


@click.command()
@click.argument("board", type=BoardPath(), required=False)
@click.option("--games", type=click.IntRange(1, 100000), default=None,
              help="Games per run (default: 400 random, 150 planner games).")
@click.option("--only", type=click.Choice(["layout"]), default=None,
              help="layout: only the time `mapkit layout` takes on synthetic 60- and 200-station boards.")
@FORMAT
def bench(board, games, only, fmt):
    """Games per second on one core, by agent and player count, longest-path and pipeline times."""
    from mapkit.sim.bench import run_bench, format_bench
    from mapkit.resources import resolve_board

    if only == "layout":
        from mapkit.layout.bench import format_layout_bench, run_layout_bench

        rows = run_layout_bench()
        _echo_json({"layout": rows}) if fmt == "json" else click.echo(format_layout_bench(rows))
        return

    path = board or resolve_board("north-america")
    result = run_bench(load_or_exit(path), games)
    if fmt == "json":
        _echo_json(result)
    else:
        click.echo(format_bench(result))


@click.command()
@click.argument("board", type=BoardPath())
@click.option("--max-games", type=click.IntRange(10, 10_000_000), default=2000, show_default=True,
              help="Games per player count (over all the panel's tables, rounded down to whole seat rotations).")
@click.option("--batch", type=click.IntRange(10, 1_000_000), default=200, show_default=True,
              help="Games per player count between two updates of the progress line (the games played do not change).")
@click.option("--games", type=click.IntRange(1, 10_000_000), default=None,
              help="A number of games per player count instead of --max-games, split over the "
                   "tables and rounded up to whole seat rotations.")
@click.option("--players", "player_counts", default="2,3,4,5", show_default=True,
              help="Player counts, comma-separated (limited to what the rules allow).")
@click.option("--agents", default=None,
              help="The agent panel, comma-separated (default: route-focus, ticket-hungry, one-step and, where "
                   "it exists, expert: mapkit.balance.panel.PANEL); one name gives a single-agent report.")
@click.option("--rules", "preset", default=None, help="Ruleset preset (default: the board's).")
@click.option("--variant", "variants", multiple=True, help="A variant on top of the preset (repeatable).")
@click.option("--seed", type=SEED, default=0, show_default=True)
@click.option("--jobs", type=click.IntRange(1, 256), default=1, show_default=True)
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Play on a Dask cluster (needs the dask extra).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where report.md and report.json go (default: reports/<board id>/).")
@click.option("--reference", type=click.Choice(["published", "none"]), default="published", show_default=True,
              help="Judge against the published North America map played by the same panel (its shipped figures "
                   "when the panel and variants are the defaults, else played first: about twice the time), or "
                   "against fixed cut-offs (none).")
@click.option("--quiet", is_flag=True, help="No progress on stderr (it is shown only on a terminal anyway).")
@FORMAT
def report(board, max_games, batch, games, player_counts, agents, preset, variants, seed, jobs, scheduler,
           reference, out_dir, quiet, fmt):
    """Balance report: what to change on a board, judged against the published map.

    The panel (each agent in self-play, and all of them at a mixed table with the seats rotated)
    plays --max-games games per player count (--games N: exactly N; --batch only paces the progress
    line). Each finding (seat advantage, tickets too hard, too easy or whose holders lose, routes
    rarely claimed, starved colors) is judged against what the published North America map does
    with the same panel (--reference), and is robust, agent-dependent, the AI players disagreeing,
    or not yet decided (with the games it would need). Findings are grouped into causes, each with
    the smallest change, and the top three changes are played on the same seeds to show what they do.
    Results are the same for the same seed whatever --jobs is.
    """
    from mapkit.balance.panel import default_panel
    from mapkit.balance.report import balance_report, format_markdown, write_report
    from mapkit.sim.rules import rules_for_board

    b = load_or_exit(board)
    rules = rules_for_board(b, preset, tuple(variants))
    counts = player_counts_of(player_counts, rules)
    panel = _agent_names(agents) if agents else default_panel()
    panel = list(dict.fromkeys(panel))
    out_dir = out_dir or Path("reports") / b.id
    if out_dir.exists() and not out_dir.is_dir():
        raise click.BadParameter(f"{out_dir} is a file", param_hint="--out")
    check_report_outputs(out_dir, [board])  # before the games: they can take minutes
    progress = None if quiet or not sys.stderr.isatty() else _Progress()
    ref = None
    if reference == "published":
        from mapkit.balance.reference import reference_for

        ref = reference_for(panel, counts, games or max_games, seed, jobs, tuple(variants), scheduler, progress)
    r = balance_report(b, counts, games, panel, seed, jobs, preset, tuple(variants), scheduler,
                       max_games=max_games, batch=batch, progress=progress, reference=ref, strategies=True)
    if progress:
        progress.done()
    try:
        files = write_report_files(lambda rep, where: write_report(rep, where, b), r, out_dir)
    except OSError as exc:
        raise MapkitError(f"cannot write the report into {out_dir}: {exc.strerror or exc}")
    if fmt == "json":
        _echo_json(r | {"files": files})
    else:
        click.echo(format_markdown(r))
        click.echo(f"wrote {', '.join(files.values())}", err=True)


class _Progress:
    """One self-overwriting stderr line: games done at this player count, rate, time left at most."""

    def __init__(self):
        import time

        self.clock = time.monotonic
        self.start = self.clock()
        self.games = 0
        self.last = {}

    def __call__(self, players, done, most):
        self.games += done - self.last.get(players, 0)
        self.last[players] = done
        rate = self.games / max(1e-9, self.clock() - self.start)
        left = (most - done) / rate if rate else 0
        click.echo(f"\r{players} players: {done}/{most} games, {rate:.0f} games/s, "
                   f"at most {left:.0f} s left at this player count   ", nl=False, err=True)

    def done(self):
        click.echo("", err=True)
