"""The three gates of `mapkit validate`: JSON syntax, JSON Schema, then the checks."""

from __future__ import annotations

from pathlib import Path

from mapkit import checks
from mapkit.boardfile import parse_board
from mapkit.errors import BoardError, Report, sort_problems
from mapkit.model import Board


def validate_file(path: Path, source: str | None = None) -> tuple[Report, Board | None]:
    """Run the gates in order, stopping after the first that finds problems (later gates need a
    well-formed board). Returns the report and the board (None when gate 1 or 2 failed)."""
    source = source if source is not None else str(path)
    board, _, problems = parse_board(path, source)
    if board is None:
        return Report(source, sort_problems(problems)), None
    return Report(source, checks.problems(board)), board


def load_valid_board(path: Path, source: str | None = None, strict: bool = False) -> Board:
    """The board, or BoardError when it has errors (or warnings, with strict)."""
    report, board = validate_file(path, source)
    if board is None or not report.valid or (strict and report.warnings):
        raise BoardError(report.source, report.problems)
    return board
