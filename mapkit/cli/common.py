"""What every `mapkit` command shares: the --format and --seed options, the BOARD argument, the
printing of problems, loading a valid board or exiting 1, and the group class that turns what
escapes a command into a message and an exit code.

Exit codes: 0 fine, 1 problems found, 2 bad usage (click's own usage errors too), 3 internal
error (an unexpected exception inside mapkit: a bug, reported as such and never mistaken for
"problems found"), 130 interrupted (Ctrl-C). MapkitError becomes a clean message and its exit
code. Library code never prints.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from mapkit import __version__
from mapkit.boardfile import source_name
from mapkit.errors import BoardError, MapkitError, Report
from mapkit.resources import resolve_board

EXIT_INTERNAL_ERROR = 3   # a bug in mapkit, not in the input
EXIT_INTERRUPTED = 130    # 128 + SIGINT, what shells report for Ctrl-C
MAX_PROBLEMS_SHOWN = 200  # a broken generator can make 100,000 problems; the first ones say enough
SEED_MAX = 2**63 - 1

FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
                      help="Output as text for people or JSON for programs.")


def printable(text: str) -> str:
    """Text that any terminal encoding can take: a lone surrogate (a file name that is not UTF-8
    arrives as one) is written as its escape instead of crashing the print."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _echo_json(value) -> None:
    click.echo(printable(json.dumps(value, indent=2, ensure_ascii=False)))


class Seed(click.ParamType):
    """A --seed: a whole number from 0 to 2^63 - 1 (what numpy's SeedSequence and every worker
    take); the one definition every command's --seed uses."""

    name = "SEED"

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= SEED_MAX:
            return value
        try:
            seed = int(str(value).strip(), 10)
        except ValueError:
            seed = None
        if seed is None or not 0 <= seed <= SEED_MAX:
            self.fail(f"{printable(repr(str(value)))} is not a seed: give a whole number from 0 to {SEED_MAX} (2^63 - 1)",
                      param, ctx)
        return seed


SEED = Seed()


def _counted(items: list, limit: int = MAX_PROBLEMS_SHOWN) -> tuple[list, int]:
    """The first `limit` items and how many were left out."""
    return items[:limit], max(0, len(items) - limit)


def _report_json(report: Report, board_id: str | None) -> dict:
    shown, _ = _counted(report.problems)
    # "problems" holds at most MAX_PROBLEMS_SHOWN; the counts are of all of them
    return {"board": board_id or report.source, "source": report.source, "valid": report.valid,
            "problem_count": len(report.problems), "error_count": len(report.errors),
            "warning_count": len(report.warnings), "problems": [p.as_dict() for p in shown]}


def _more_line(left_out: int) -> str:
    return f"... and {left_out} more problem{'s' if left_out != 1 else ''} (the first {MAX_PROBLEMS_SHOWN} are shown)"


def _print_report(report: Report) -> None:
    shown, left_out = _counted(report.problems)
    for p in shown:
        click.echo(printable(p.format()))
    if left_out:
        click.echo(_more_line(left_out))
    e, w = len(report.errors), len(report.warnings)
    verdict = "valid" if report.valid else "invalid"
    click.echo(printable(f"{report.source}: {verdict} ({e} error{'s' if e != 1 else ''}, {w} warning{'s' if w != 1 else ''})"))


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


def load_or_exit(path: Path, strict: bool = False):
    """The valid board at path; on errors print them (text) and exit 1."""
    from mapkit.validate import load_valid_board

    try:
        return load_valid_board(path, source_name(path), strict=strict)
    except BoardError as exc:
        shown, left_out = _counted(exc.problems)
        for p in shown:
            click.echo(printable(p.format()), err=True)
        if left_out:
            click.echo(_more_line(left_out), err=True)
        raise SystemExit(1)


class MapkitGroup(click.Group):
    """Turns what escapes a command into a message and an exit code, never a traceback:
    MapkitError → `error: ...` and its code (1 or 2); Ctrl-C → 130; any other exception is a bug
    in mapkit → a short "internal error" with how to report it, exit 3 (MAPKIT_DEBUG=1 re-raises
    it, for the traceback)."""

    def invoke(self, ctx):
        import os

        try:
            return super().invoke(ctx)
        except MapkitError as exc:
            click.echo(printable(f"error: {exc}"), err=True)
            ctx.exit(exc.exit_code)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise  # click's own: usage errors (2) and exits
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            # the reader went away (`mapkit validate ... | head`): nothing left to say to it
            sys.stdout = open(os.devnull, "w")
            ctx.exit(1)
        except Exception as exc:
            if os.environ.get("MAPKIT_DEBUG"):
                raise
            what = printable(f"{type(exc).__name__}: {exc}")[:300]
            command = printable(" ".join(["mapkit", *sys.argv[1:]]))[:300]
            click.echo(f"internal error: {what}\n"
                       "this is a bug in mapkit, not a problem with your input. Please report it to mapkit's"
                       f" maintainers with the command ({command}), the board file and the version (mapkit"
                       f" {__version__}); run it again with MAPKIT_DEBUG=1 for the traceback.", err=True)
            ctx.exit(EXIT_INTERNAL_ERROR)
