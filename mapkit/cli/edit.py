"""`mapkit edit`: a local page that draws the board and its problems and writes moves back."""

from __future__ import annotations

from pathlib import Path

import click

from mapkit.boardfile import source_name
from mapkit.cli.common import BoardPath, printable


@click.command()
@click.argument("board", type=BoardPath())
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 to serve on (0: any free port).")
@click.option("--no-browser", is_flag=True, help="Print the page's address instead of opening a browser.")
@click.option("--report", "report", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="The balance report for the overlays (default: reports/<board id>/report.json, looked for in the "
                   "working folder and beside the board's folder).")
@click.option("--quick-labels", is_flag=True,
              help="Draw station names on their preferred side only; skip the print's label placement (which takes "
                   "seconds on a large board and runs in the background after each change).")
@click.option("--new", "new", is_flag=True,
              help="Start a new board: create BOARD as an empty file when it does not exist (the page then asks for "
                   "the board's name and size).")
def edit(board, port, no_browser, report, quick_labels, new):
    """Open the board in a browser: the map drawn as printed, its problems shown where they are,
    reloaded when the file changes. Make the board there: place stations, draw routes (color,
    length, double, gray, flight), bends, the palette and the tickets, from an empty file too; drag
    stations and bends, pin them; every change updates the file in place (only what changed) and
    can be undone. Generate a ticket deck, run a quick balance whose findings are drawn on the
    map, preview `mapkit layout`, overlay the last report.

    The server listens on 127.0.0.1 only and needs the token in the printed address. A board
    installed inside the mapkit package opens read-only (copy it to edit it). Stop with Ctrl+C. Exit 1 when the file cannot be
    read or served, 2 on bad usage.
    """
    import webbrowser

    from mapkit.edit import Session, serve
    from mapkit.errors import MapkitError
    from mapkit import resources

    if new and not board.exists():
        if board.suffix != ".json" or not board.parent.is_dir():
            raise click.BadParameter(f"'{board}': a new board is a .json file in an existing folder", param_hint="BOARD")
        try:
            with open(board, "x", encoding="utf-8"):
                pass
        except OSError as exc:
            raise MapkitError(f"cannot create {board}: {exc.strerror or exc}")
        click.echo(printable(f"created {board} (empty): start the board in the page"), err=True)
    if not board.is_file():
        raise click.BadParameter(f"'{board}' is not a board file (to start a new one: mapkit edit {board} --new)",
                                 param_hint="BOARD")
    if report is not None and not report.is_file():
        raise click.BadParameter(f"no report at '{report}'", param_hint="--report")
    read_only = ""
    # a board inside the installed package would lose every edit at the next install: view it only
    # (a source checkout's boards/ folder is the designer's own and stays editable)
    if board.resolve().parent == (Path(resources.__file__).resolve().parent / "boards"):
        read_only = (f"{board.stem} is a board installed with mapkit: it opens read-only. Copy it to edit it "
                     f"(cp {board} my-{board.stem}.json, then mapkit edit my-{board.stem}.json).")
    session = Session(board, source_name(board), read_only=read_only, print_labels=not quick_labels)
    try:
        server = serve(session, port, report)
    except OSError as exc:
        raise MapkitError(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}; try another --port or --port 0")
    click.echo(printable(f"mapkit edit: {session.source} at {server.url}"))
    click.echo("stop with Ctrl+C", err=True)
    if not no_browser:  # a file only this user can read sends the browser on: no token on its command line
        webbrowser.open(server.redirect_file().as_uri())
    try:
        wait_for_interrupt()
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
    finally:
        server.shutdown()
        session.stop()


def wait_for_interrupt() -> None:
    """Block until Ctrl+C (KeyboardInterrupt)."""
    import threading

    threading.Event().wait()
