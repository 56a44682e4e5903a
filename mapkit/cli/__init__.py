"""The `mapkit` command line: each command parses options, calls the library, prints text or JSON.

One module per command group (mapkit.cli.check, build, decks, edit, importing, layout, render, sim,
tune), each defining its click commands; COMMANDS below is the one list that puts them on the
`mapkit` group. What the commands share is in mapkit.cli.common. Nothing outside this package
imports it. Exit codes: see mapkit.cli.common.
"""

from __future__ import annotations

import click

from mapkit import __version__
from mapkit.cli import build, check, decks, edit, importing, layout, render, sim, tune
from mapkit.cli.common import MapkitGroup


@click.group(cls=MapkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mapkit")
def main() -> None:
    """mapkit: design, check, balance and print Ticket to Ride-style fan maps.

    BOARD is a board file's path or a bundled board's name (portland, seattle, north-america).

    Exit codes: 0 fine, 1 problems found, 2 bad usage, 3 internal error (a bug in mapkit: please
    report it), 130 interrupted.
    """


COMMANDS = (
    check.validate, check.info,
    layout.layout, edit.edit, importing.import_group,
    decks.cards, decks.tickets,
    sim.simulate, sim.report, sim.bench,
    tune.tune, render.render, build.build,
)
for _command in COMMANDS:
    main.add_command(_command)


def run() -> None:
    """The console script's entry point."""
    main()
