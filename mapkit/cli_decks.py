"""`mapkit cards` and `mapkit tickets`: the derived decks."""

from __future__ import annotations

from pathlib import Path

import click

from mapkit.cli import FORMAT, BoardPath, _echo_json, load_or_exit, main, source_name
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
@click.option("--style", type=click.Choice(["standard", "long", "cities", "transit"]), default="standard",
              show_default=True, help="standard deck, the separate long-ticket deck, Cities-style tickets that each "
                                      "touch a hub, or transit-expansion tickets with a second value.")
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
        decks = {name: [t.as_json() for t in ts] for name, ts in b.ticket_decks.items()}
        decks[deck_name or style] = deck.deck_json()
        _write_section_or_exit(board, "ticket_decks", decks)
