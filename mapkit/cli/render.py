"""`mapkit render`: the print-and-play kit of a board (PDFs, and PNG previews on request)."""

from __future__ import annotations

from pathlib import Path

import click

from mapkit.cli.common import FORMAT, BoardPath, _echo_json, load_or_exit


def _describe(result, name: str) -> str:
    """What one written file holds, for the text output."""
    pages = result.pages.get(name)
    counted = f"{pages} page{'s' if pages != 1 else ''}" if pages is not None else ""
    t, c = result.tiles, result.cards
    extra = ""
    if name == "board-tiles.pdf":
        extra = (f"assembly page + {t['sheets']} {t['paper'].upper() if t['paper'] == 'a4' else 'Letter'} sheets, "
                 f"{t['orientation']}, {t['rows']} × {t['cols']}")
    elif name == "tickets.pdf":
        decks = ", ".join(f"{k} {v}" for k, v in c["tickets"]["decks"].items())
        extra = f"{c['tickets']['cards']} tickets ({decks}), {c['tickets']['per_sheet']} per sheet, with backs"
    elif name == "trains.pdf":
        extra = f"{c['trains']['cards']} train cards ({c['trains']['from']}), {c['trains']['per_sheet']} per sheet, with backs"
    elif name == "summary.pdf":
        bonus = c["summary"]["bonus_cards"]
        extra = (f"{c['summary']['cards'] - len(bonus)} summary cards" + (f" + {', '.join(bonus)} card" if bonus else "")
                 + ", both sides")
    inside = ", ".join(x for x in (counted, extra) if x)
    return f"{name:<18} {result.files[name]}" + (f"  ({inside})" if inside else "")


@click.command()
@click.argument("board", type=BoardPath())
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Folder to write into (default: out/<board id>/).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True,
              help="Paper of the tiled board and the card sheets.")
@click.option("--mode", type=click.Choice(["home", "bleed"]), default="home", show_default=True,
              help="home: cards butted edge to edge with crop marks; bleed: 3 mm bleed around each card.")
@click.option("--duplex", type=click.Choice(["none", "long-edge", "short-edge"]), default="long-edge",
              show_default=True, help="How backs are laid out: mirrored for a long- or short-edge flip; none: all "
                                      "fronts, then all backs, for turning the stack over by hand (the pages say how).")
@click.option("--deck", "decks", multiple=True, metavar="NAME",
              help="Ticket deck to print (repeatable; 'all' for every deck). Default: the decks the board's "
                   "rules play with.")
@click.option("--light-backs", is_flag=True, help="Card backs in light ink: a colored frame on white.")
@click.option("--png", is_flag=True, help="Also write board.png and a sheet of each card type as PNG previews.")
@FORMAT
def render(board, out_dir, paper, mode, duplex, decks, light_backs, png, fmt):
    """Render the print-and-play kit: board.pdf (real size), board-tiles.pdf, tickets.pdf,
    trains.pdf, summary.pdf (with the bonus cards) and rules.pdf.

    Exit 0 when written (warnings, such as a label that overlaps, go to stderr), 1 when the board
    has errors or a file cannot be written, 2 on bad usage.
    """
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise click.BadParameter(f"'{out_dir}' is a file, not a folder", param_hint="--out")
    b = load_or_exit(board)
    from mapkit.outputs import refuse_input_paths
    from mapkit.render import RenderOptions, render_kit
    from mapkit.render.kit import KIT_FILES

    out = out_dir if out_dir is not None else Path("out") / b.id
    refuse_input_paths([out / name for name in KIT_FILES], [board])
    result = render_kit(board, b, out, RenderOptions(paper=paper, mode=mode, duplex=duplex, png=png,
                                                         decks=tuple(decks) or None, light_backs=light_backs))
    for w in result.warnings:
        click.echo(f"warning: {w}", err=True)
    if fmt == "json":
        _echo_json(result.as_dict())
    else:
        for name in result.files:
            click.echo(_describe(result, name))
        e = result.route_ends
        if e:
            click.echo(f"route ends: widest gap to a station {e['largest_gap_mm']:g} mm; {e['led']} of {e['over_limit']} "
                       f"over {e['limit_mm']:g} mm drawn with a line to their station, widest bare gap "
                       f"{e['largest_bare_gap_mm']:g} mm")
