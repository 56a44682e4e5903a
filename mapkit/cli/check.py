"""`mapkit validate` and `mapkit info`: the checks' verdict on board files, and a board's summary."""

from __future__ import annotations

import sys

import click

from mapkit.boardfile import source_name
from mapkit.cli.common import FORMAT, BoardPath, _echo_json, _print_report, _report_json, load_or_exit


@click.command()
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


@click.command()
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
