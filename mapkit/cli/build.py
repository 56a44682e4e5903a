"""`mapkit build`: the whole pipeline on one board, the README's main job."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import click

from mapkit.boardfile import source_name
from mapkit.cli.common import FORMAT, SEED, BoardPath, _echo_json, load_or_exit
from mapkit.resources import resolve_board


def complete_board(path: Path, board, seed: int):
    """The board with a train-card deck and a standard ticket deck, derived where it has none.

    Returns (board, raw JSON text with the derived sections, list of what was derived). The user's
    file is never changed: the completed copy is written into the output folder.
    """
    from mapkit.cards import derive_deck
    from mapkit.model import Deck, Ticket
    from mapkit.ticket_deck import generate
    from mapkit.writer import line_ending, splice_section

    text = path.read_text(encoding="utf-8")
    newline = line_ending(text)
    derived = []
    if board.deck is None:
        deck = derive_deck(board)
        board = dataclasses.replace(board, deck=Deck(deck.total, deck.wild, dict(deck.counts)))
        text = splice_section(text, "deck", deck.deck_json(), newline)
        derived.append("deck")
    if "standard" not in board.ticket_decks:
        generated = generate(board, seed=seed)
        decks = dict(board.ticket_decks)
        decks["standard"] = tuple(Ticket(t.a, t.b, t.points) for t in generated.tickets)
        board = dataclasses.replace(board, ticket_decks=decks)
        raw = {name: [t.as_json() for t in ts] for name, ts in decks.items()}
        text = splice_section(text, "ticket_decks", raw, newline)
        derived.append("tickets")
    return board, text, derived


@click.command()
@click.argument("board", type=BoardPath(), required=False)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Folder for the kit and the report (default: out/<board id>/).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("--games", type=click.IntRange(0, 1_000_000), default=300, show_default=True,
              help="Games per player count for the balance check (0 skips it).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed for derived tickets and the simulation.")
@click.option("--jobs", type=click.IntRange(1, 256), default=1, show_default=True)
@FORMAT
def build(board, out_dir, paper, games, seed, jobs, fmt):
    """Validate, derive the deck and tickets where the board has none, render the print-and-play
    kit and check the balance. BOARD defaults to the bundled Portland board.

    The board file is not changed: a copy with the derived sections goes into the output folder.
    """
    from mapkit.cli.sim import check_report_outputs, write_report_files
    from mapkit.outputs import atomic_write_text, make_folder, refuse_input_paths
    from mapkit.render import RenderOptions, render_kit
    from mapkit.balance.report import balance_report, write_report
    from mapkit.render.kit import KIT_FILES, content_hash
    from mapkit.sim.rules import rules_for_board

    path = board or resolve_board("portland")
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise click.BadParameter(f"'{out_dir}' is a file, not a folder", param_hint="--out")
    started = time.perf_counter()
    b = load_or_exit(path)
    click.echo(f"validated {source_name(path)}: {len(b.stations)} stations, {len(b.routes)} routes", err=True)
    out = out_dir if out_dir is not None else Path("out") / b.id
    # every output is checked against the board before anything is written (a kit folder that
    # holds the board as board.json would otherwise lose it to the completed copy)
    refuse_input_paths([out / name for name in KIT_FILES], [path])
    if games:
        check_report_outputs(out, [path])
    b, text, derived = complete_board(path, b, seed)
    if derived:
        refuse_input_paths([out / "board.json"], [path])
    make_folder(out)
    source = out / "board.json" if derived else path
    # the completed board.json is written once its kit is whole: a failure leaves both as they were
    result = render_kit(path, b, out, RenderOptions(paper=paper),
                        file_hash=content_hash(text.encode("utf-8")) if derived else None)
    if derived:
        atomic_write_text(source, text)
        click.echo(f"derived {' and '.join(derived)}; the completed board is {source}", err=True)
    for w in result.warnings:
        click.echo(f"warning: {w}", err=True)
    files = {name: str(p) for name, p in result.files.items()}
    if derived:
        files["board.json"] = str(source)
    summary = None
    if games:
        rules = rules_for_board(b)
        counts = [n for n in (2, 4) if rules.min_players <= n <= rules.max_players] or [rules.min_players]
        r = balance_report(b, counts, games, ["route-focus"], seed, jobs, tested=0)
        written = write_report_files(lambda rep, where: write_report(rep, where, b), r, out)
        files.update({"report.md": written["markdown"], "report.json": written["json"]})
        if "html" in written:
            files["report.html"] = written["html"]
        summary = [{"players": run["players"], "ticket_completion": run["ticket_completion"],
                    "win_rate": run["win_rate"], "seat_advantage": run["seat_advantage"],
                    "rules_gaps": sum(v["events"] for v in run["rules_gaps"].values())} for run in r["runs"]]
    elapsed = round(time.perf_counter() - started, 1)
    if fmt == "json":
        _echo_json({"board": b.id, "out": str(out), "derived": derived, "files": files, "balance": summary,
                    "pages": result.pages, "tiles": result.tiles, "seconds": elapsed})
        return
    for name, p in files.items():
        click.echo(f"{name:<18} {p}")
    if summary:
        for s in summary:
            tc = "-" if s["ticket_completion"] is None else f"{s['ticket_completion']:.0%}"
            click.echo(f"balance, {s['players']} players ({games} games): tickets completed {tc}, "
                       f"win rate by seat {', '.join(f'{w:.0%}' for w in s['win_rate'])}"
                       + (", SEAT ADVANTAGE" if s["seat_advantage"] else "")
                       + (f", {s['rules_gaps']} rules-gap events" if s["rules_gaps"] else ""))
    click.echo(f"done in {elapsed} s", err=True)
