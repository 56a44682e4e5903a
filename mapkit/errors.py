"""Problems (located findings about a board) and the exceptions mapkit raises.

Library code never prints or exits: it returns Problems or raises a MapkitError, and the CLI turns
those into messages and exit codes (0 fine, 1 problems found, 2 bad usage).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Iterable

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One finding about a board, located as precisely as the gate that found it can.

    source: the file (or board name) it is about; json_path: `$.routes[12].to` style, or `line:col`
    for syntax errors; subject: what it is about in the designer's words (`route parkrose-pdx`);
    code: a stable kebab-case name of the check; message: lowercase, quoting the bad value.
    """

    severity: str
    code: str
    message: str
    json_path: str = "$"
    subject: str = ""
    source: str = ""

    def as_dict(self) -> dict:
        return {
            "severity": self.severity,
            "code": self.code,
            "json_path": self.json_path,
            "subject": self.subject,
            "message": self.message,
        }

    def format(self) -> str:
        where = f"{self.source}: " if self.source else ""
        subject = f"{self.subject}: " if self.subject else ""
        return f"{where}{self.json_path}: {self.severity} [{self.code}] {subject}{self.message}"


_PATH_TOKEN = re.compile(r"\[(\d+)\]|\.([^.\[]+)")


def path_sort_key(json_path: str) -> tuple:
    """Sort JSON paths in document order: `$.routes[2]` before `$.routes[10]`."""
    if not json_path.startswith("$"):
        # line:col of a syntax error
        return tuple((0, "", int(n)) for n in re.findall(r"\d+", json_path))
    key = []
    for index, name in _PATH_TOKEN.findall(json_path):
        key.append((1, "", int(index)) if index else (1, name, -1))
    return tuple(key)


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    return sorted(problems, key=lambda p: (p.source, path_sort_key(p.json_path), p.severity != ERROR, p.code, p.message))


def did_you_mean(value: str, candidates: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the closest candidate, or '' when nothing is close."""
    match = difflib.get_close_matches(value, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""


class MapkitError(Exception):
    """Base of every error mapkit raises for bad input; the CLI prints it without a traceback."""

    exit_code = 1


class UsageError(MapkitError):
    """The command was called wrongly (an unknown board name, a bad option value)."""

    exit_code = 2


class BoardError(MapkitError):
    """A board could not be loaded or is not valid; carries every problem found."""

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = problems
        errors = [p for p in problems if p.severity == ERROR]
        super().__init__(f"{source}: {len(errors)} error(s)")


@dataclass
class Report:
    """Problems of one board, as returned by validation."""

    source: str
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]

    @property
    def valid(self) -> bool:
        return not self.errors
