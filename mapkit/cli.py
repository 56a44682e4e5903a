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
    With --format json: an object per board ({board, valid, problems}), a list of them when
    several boards are given.
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


# the other commands register themselves on `main`
from mapkit import cli_build, cli_decks, cli_render, cli_sim  # noqa: E402,F401
