"""The `mapkit` command line: each command parses options, calls the library, prints text or JSON.

MapkitError becomes a clean message and exit code (1 problems found, 2 bad usage); click's own
usage errors exit 2. Library code never prints.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from mapkit import __version__
from mapkit.errors import BoardError, MapkitError, Report
from mapkit.resources import resolve_board

FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
                      help="Output as text for people or JSON for programs.")


def _echo_json(value) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def _report_json(report: Report, board_id: str | None) -> dict:
    return {"board": board_id or report.source, "source": report.source, "valid": report.valid,
            "problems": [p.as_dict() for p in report.problems]}


def _print_report(report: Report) -> None:
    for p in report.problems:
        click.echo(p.format())
    e, w = len(report.errors), len(report.warnings)
    verdict = "valid" if report.valid else "invalid"
    click.echo(f"{report.source}: {verdict} ({e} error{'s' if e != 1 else ''}, {w} warning{'s' if w != 1 else ''})")


class BoardPath(click.ParamType):
    """A board argument: a file path or a bundled board's name."""

    name = "BOARD"

    def convert(self, value, param, ctx):
        if isinstance(value, Path):
            return value
        try:
            return resolve_board(value)
        except MapkitError as exc:
            self.fail(str(exc), param, ctx)


def source_name(path: Path) -> str:
    """How a board file is named in messages: as given, or `name.json` for a bundled board."""
    try:
        from mapkit.resources import boards_dir
        if path.resolve().parent == boards_dir().resolve():
            return f"boards/{path.name}"
    except MapkitError:
        pass
    return str(path)


def load_or_exit(path: Path, strict: bool = False):
    """The valid board at path; on errors print them (text) and exit 1."""
    from mapkit.validate import load_valid_board

    try:
        return load_valid_board(path, source_name(path), strict=strict)
    except BoardError as exc:
        for p in exc.problems:
            click.echo(p.format(), err=True)
        raise SystemExit(1)


class MapkitGroup(click.Group):
    """Turns a MapkitError from any command into `error: ...` on stderr and its exit code."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except MapkitError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)


@click.group(cls=MapkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mapkit")
def main() -> None:
    """mapkit: design, check, balance and print Ticket to Ride-style fan maps.

    BOARD is a board file's path or a bundled board's name (portland, seattle, north-america).
    """


@main.command()
@click.argument("boards", nargs=-1, required=True, type=BoardPath())
@FORMAT
@click.option("--strict", is_flag=True, help="Treat warnings as errors (exit 1 when there are any).")
def validate(boards, fmt, strict):
    """Check board files: JSON syntax, then the schema, then semantic, graph and geometry checks.

    Exit 0 when every board is valid, 1 when any has errors (or warnings with --strict).
    """
    from mapkit.validate import validate_file

    results, failed = [], False
    for path in boards:
        report, board = validate_file(path, source_name(path))
        failed |= (not report.valid) or (strict and bool(report.warnings))
        results.append((report, board))
    if fmt == "json":
        out = [_report_json(r, b.id if b else None) for r, b in results]
        _echo_json(out if len(out) > 1 else out[0])
    else:
        for report, _ in results:
            _print_report(report)
    sys.exit(1 if failed else 0)


@main.command()
@click.argument("board", type=BoardPath())
@FORMAT
def info(board, fmt):
    """Summarize a board: stations, routes, doubles, spaces per color, degrees, capacity."""
    from mapkit.info import format_summary, summarize

    summary = summarize(load_or_exit(board))
    if fmt == "json":
        _echo_json(summary)
    else:
        click.echo(format_summary(summary))


def run() -> None:
    """The console script's entry point."""
    main()


def _write_section_or_exit(path: Path, key: str, value) -> None:
    """Store a derived section in the board file, then re-validate; refuse a bundled board's
    installed copy only when it is not writable."""
    from mapkit.validate import validate_file
    from mapkit.writer import write_section

    try:
        write_section(path, key, value)
    except OSError as exc:
        raise MapkitError(f"cannot write {path}: {exc.strerror or exc}")
    report, _ = validate_file(path, source_name(path))
    for p in report.problems:
        click.echo(p.format(), err=True)
    click.echo(f"wrote {key} to {source_name(path)}", err=True)
    if not report.valid:
        raise SystemExit(1)


@main.command()
@click.argument("board", type=BoardPath())
@click.option("--total", type=click.IntRange(1, 10000), default=110, show_default=True, help="Cards in the deck, wild cards included.")
@click.option("--wild", type=click.IntRange(0, 10000), default=14, show_default=True, help="Wild cards in the deck.")
@click.option("--doubles", type=click.Choice(["both", "one"]), default="both", show_default=True,
              help="Count both tracks of a double route (4-5 player games) or one (2-3 player games).")
@click.option("--gray", type=click.Choice(["ignore", "spread"]), default="ignore", show_default=True,
              help="Leave gray spaces out of the shares, or spread them evenly over the colors.")
@click.option("--write", is_flag=True, help="Store the deck in the board file (the rest of the file is kept as it is).")
@FORMAT
def cards(board, total, wild, doubles, gray, write, fmt):
    """Derive the train-card deck from how much of the board is each color."""
    from mapkit.cards import derive_deck, format_deck

    if wild > total:
        raise click.BadParameter(f"{wild} wild cards do not fit a deck of {total}", param_hint="--wild")
    b = load_or_exit(board)
    deck = derive_deck(b, total=total, wild=wild, doubles=doubles, gray=gray)
    if fmt == "json":
        _echo_json(deck.as_dict())
    else:
        click.echo(format_deck(deck))
    if write:
        _write_section_or_exit(board, "deck", deck.deck_json())


@main.group()
def tickets():
    """Score destination tickets and generate balanced ticket decks."""


@tickets.command("score")
@click.argument("board", type=BoardPath())
@click.option("--pairs", type=click.Path(dir_okay=False, path_type=Path),
              help="CSV file with a 'from,to' header and station ids or names; default: the board's tickets.")
@click.option("--deck", "deck_name", default=None, help="Which of the board's ticket decks (default: all).")
@click.option("--no-adjust", is_flag=True, help="Suggested points = shortest length, without difficulty adjustments.")
@FORMAT
def tickets_score(board, pairs, deck_name, no_adjust, fmt):
    """Score station pairs by their shortest connection and what makes it hard."""
    from mapkit.tickets import TicketScorer, format_scores, read_pairs

    b = load_or_exit(board)
    scorer = TicketScorer(b, adjust=not no_adjust)
    if pairs is not None:
        if not pairs.exists():
            raise click.BadParameter(f"no such file: {pairs}", param_hint="--pairs")
        scores = [scorer.score(a, c) for a, c in read_pairs(b, pairs)]
    else:
        decks = b.ticket_decks
        if deck_name is not None:
            if deck_name not in decks:
                from mapkit.errors import did_you_mean
                raise click.BadParameter(f"the board has no ticket deck '{deck_name}'{did_you_mean(deck_name, decks)};"
                                         f" decks: {', '.join(decks) or 'none'}", param_hint="--deck")
            decks = {deck_name: decks[deck_name]}
        if not decks:
            raise MapkitError(f"{source_name(board)} has no tickets yet: give --pairs FILE, or run "
                              f"`mapkit tickets generate {board} --write`")
        scores = [scorer.score(t.a, t.b, printed=t.points) for ts in decks.values() for t in ts]
    if fmt == "json":
        _echo_json([s.as_dict() for s in scores])
    else:
        click.echo(format_scores(scores))


@tickets.command("generate")
@click.argument("board", type=BoardPath())
@click.option("--count", type=click.IntRange(1, 500), default=None, help="Tickets in the deck (default 30; long: 6).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the search; the same seed gives the same deck.")
@click.option("--style", type=click.Choice(["standard", "long", "cities"]), default="standard", show_default=True,
              help="standard deck, the separate long-ticket deck, or Cities-style tickets that each touch a hub.")
@click.option("--require", "required", multiple=True, metavar="FROM:TO",
              help="A pair that must be in the deck (station ids or names), e.g. hillsboro:gresham; repeatable.")
@click.option("--no-adjust", is_flag=True, help="Points = shortest length, without difficulty adjustments.")
@click.option("--deck", "deck_name", default=None, help="Name of the deck to write (default: the style).")
@click.option("--write", is_flag=True, help="Store the deck in the board file (the rest of the file is kept as it is).")
@FORMAT
def tickets_generate(board, count, seed, style, required, no_adjust, deck_name, write, fmt):
    """Pick a balanced ticket deck from all station pairs, reproducibly for a seed."""
    from mapkit.ticket_deck import format_generated, generate
    from mapkit.tickets import resolve_station

    b = load_or_exit(board)
    pairs = []
    for item in required:
        if ":" not in item:
            raise click.BadParameter(f"'{item}' is not FROM:TO", param_hint="--require")
        x, y = item.split(":", 1)
        try:
            pairs.append((resolve_station(b, x.strip()), resolve_station(b, y.strip())))
        except MapkitError as exc:
            raise click.BadParameter(str(exc), param_hint="--require")
    deck = generate(b, style=style, count=count, seed=seed, required=pairs, adjust=not no_adjust)
    if fmt == "json":
        _echo_json(deck.as_dict())
    else:
        click.echo(format_generated(deck))
    if write:
        decks = {name: [{"from": t.a, "to": t.b, "points": t.points} for t in ts] for name, ts in b.ticket_decks.items()}
        decks[deck_name or style] = deck.deck_json()
        _write_section_or_exit(board, "ticket_decks", decks)
