"""`mapkit cards` and `mapkit tickets`: the derived decks."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mapkit.boardfile import source_name
from mapkit.cli.common import FORMAT, SEED, BoardPath, _echo_json, load_or_exit
from mapkit.errors import MapkitError


def _write_section_or_exit(path: Path, key: str, value) -> None:
    """Store a derived section in the board file. The new text is validated in memory first:
    when it has errors they are printed and nothing is written (exit 1)."""
    from mapkit.errors import BoardError
    from mapkit.writer import write_section

    try:
        report = write_section(path, key, value, source_name(path))
    except BoardError as exc:
        for p in exc.problems:
            click.echo(p.format(), err=True)
        click.echo(f"error: {source_name(path)} was not changed: with this {key} it would not validate", err=True)
        raise SystemExit(1)
    for p in report.problems:
        click.echo(p.format(), err=True)
    click.echo(f"wrote {key} to {source_name(path)}", err=True)


ADJUST = click.option(
    "--adjust", default="", metavar="LIST",
    help="Difficulty adjustments to add to the points, comma-separated: bottleneck (+1 when losing one "
         "connection costs a long detour), rare-color (+1 when the path needs a color with few cards). "
         "Default: none, points = shortest length as on the published decks; turn one on when the balance "
         "report shows such tickets are completed less often.")
NO_ADJUST = click.option("--no-adjust", is_flag=True,
                         help="Points = shortest length (the default now; kept for old scripts).")


def _adjustments(adjust: str, no_adjust: bool) -> frozenset:
    from mapkit.tickets import parse_adjust

    if adjust and no_adjust:
        raise click.BadParameter("--no-adjust contradicts --adjust; give one", param_hint="--no-adjust")
    try:
        return parse_adjust(adjust)
    except MapkitError as exc:
        raise click.BadParameter(str(exc), param_hint="--adjust")


class _Progress:
    """`phase done/total` on one stderr line, only when stderr is a terminal."""

    def __init__(self):
        self.shown = sys.stderr.isatty()
        self._last = None

    def __enter__(self):
        return self

    def __call__(self, phase: str, done: int, total: int) -> None:
        pct = 100 * done // max(1, total)
        if (phase, pct) != self._last:
            self._last = (phase, pct)
            sys.stderr.write(f"\r{phase}: {pct:3d}% ({done}/{total})\033[K")
            sys.stderr.flush()

    def __exit__(self, *exc):
        if self.shown and self._last is not None:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
        return False


@click.command()
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


@click.group()
def tickets():
    """Score destination tickets and generate balanced ticket decks."""


@tickets.command("score")
@click.argument("board", type=BoardPath())
@click.option("--pairs", type=click.Path(dir_okay=False, path_type=Path),
              help="CSV file with a 'from,to' header and station ids or names; default: the board's tickets.")
@click.option("--deck", "deck_name", default=None, help="Which of the board's ticket decks (default: all).")
@ADJUST
@NO_ADJUST
@FORMAT
def tickets_score(board, pairs, deck_name, adjust, no_adjust, fmt):
    """Score station pairs by their shortest connection and what makes it hard.

    Suggested points are the shortest connection's length, as on the published decks; --adjust
    adds the difficulty adjustments you ask for (see `--help`)."""
    from mapkit.tickets import TicketScorer, format_scores, read_pairs

    adjustments = _adjustments(adjust, no_adjust)
    b = load_or_exit(board)
    scorer = TicketScorer(b, adjust=adjustments)
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
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the search; the same seed gives the same deck.")
@click.option("--style", type=click.Choice(["standard", "long", "cities", "transit"]), default="standard",
              show_default=True, help="standard deck, the separate long-ticket deck, Cities-style tickets that each "
                                      "touch a hub, or transit-expansion tickets with a second value.")
@click.option("--require", "required", multiple=True, metavar="FROM:TO",
              help="A pair that must be in the deck (station ids or names), e.g. hillsboro:gresham; repeatable.")
@ADJUST
@NO_ADJUST
@click.option("--deck", "deck_name", default=None, help="Name of the deck to write (default: the style).")
@click.option("--write", is_flag=True, help="Store the deck in the board file (the rest of the file is kept as it is).")
@FORMAT
def tickets_generate(board, count, seed, style, required, adjust, no_adjust, deck_name, write, fmt):
    """Pick a balanced ticket deck from all station pairs, reproducibly for a seed.

    Points are the shortest connection's length unless --adjust is given. Progress goes to
    stderr when it is a terminal."""
    from mapkit.ticket_deck import format_generated, generate
    from mapkit.tickets import resolve_station

    adjustments = _adjustments(adjust, no_adjust)
    b = load_or_exit(board)
    pairs = []
    for item in required:
        if ":" not in item:
            raise click.BadParameter(f"'{item}' is not FROM:TO", param_hint="--require")
        x, y = item.split(":", 1)
        try:
            pair = (resolve_station(b, x.strip()), resolve_station(b, y.strip()))
        except MapkitError as exc:
            raise click.BadParameter(str(exc), param_hint="--require")
        if pair[0] == pair[1]:
            raise click.BadParameter(f"'{item}' joins '{pair[0]}' to itself; a ticket joins two different "
                                     "stations", param_hint="--require")
        pairs.append(pair)
    with _Progress() as progress:
        deck = generate(b, style=style, count=count, seed=seed, required=pairs, adjust=adjustments,
                        progress=progress if progress.shown else None)
    if fmt == "json":
        _echo_json(deck.as_dict())
    else:
        click.echo(format_generated(deck))
    if write:
        decks = {name: [t.as_json() for t in ts] for name, ts in b.ticket_decks.items()}
        decks[deck_name or style] = deck.deck_json()
        _write_section_or_exit(board, "ticket_decks", decks)
