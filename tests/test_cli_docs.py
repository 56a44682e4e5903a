"""Every command has help text and is shown in the README (as sqlite-utils does)."""

import click

from conftest import REPO
from mapkit.cli import main


def commands(group, prefix=""):
    for name, cmd in group.commands.items():
        yield prefix + name, cmd
        if isinstance(cmd, click.Group):
            yield from commands(cmd, prefix + name + " ")


def test_every_command_has_help_and_is_in_the_readme():
    readme = (REPO / "README.md").read_text()
    for name, cmd in commands(main):
        assert cmd.help and len(cmd.help.strip()) > 20, name
        assert f"mapkit {name}" in readme, f"`mapkit {name}` is missing from the README"
