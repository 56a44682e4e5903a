"""Where mapkit finds its schema and bundled boards, installed or in a source checkout.

The wheel ships `schemas/` and `boards/` inside the package (see pyproject.toml); a source checkout
or an editable install has them at the top of the repository.
"""

from __future__ import annotations

from pathlib import Path

from mapkit.errors import MapkitError, UsageError, did_you_mean

_PACKAGE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise MapkitError(f"mapkit's {name}/ folder is missing from this installation; reinstall mapkit")


def schema_path() -> Path:
    return _data_dir("schemas") / "board.schema.json"


def boards_dir() -> Path:
    return _data_dir("boards")


def bundled_boards() -> list[str]:
    """Names of the boards that ship with mapkit, sorted."""
    return sorted(p.stem for p in boards_dir().glob("*.json"))


def resolve_board(arg: str) -> Path:
    """A BOARD argument is a path to a board file or the name of a bundled board.

    An existing file wins; otherwise a bare name (no slash, no .json) is looked up among the
    bundled boards, even when a folder of that name is in the way (a scratch folder called
    `portland` should not hide the bundled board). Anything else is returned as a path, and
    loading it reports it as missing or as a folder.
    """
    path = Path(arg)
    if path.is_file():
        return path
    looks_like_name = "/" not in arg and "\\" not in arg and not arg.endswith(".json")
    if looks_like_name:
        bundled = boards_dir() / f"{arg}.json"
        if bundled.exists():
            return bundled
        if path.exists():
            return path
        names = bundled_boards()
        raise UsageError(
            f"no board file or bundled board named '{arg}'{did_you_mean(arg, names)}; "
            f"bundled boards: {', '.join(names)}"
        )
    return path
