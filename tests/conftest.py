import json
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
BAD = REPO / "tests" / "bad_boards"


@pytest.fixture
def in_repo(monkeypatch):
    """Run with the repository as the working directory, so relative paths in outputs are stable."""
    monkeypatch.chdir(REPO)
    return REPO


@pytest.fixture
def cli():
    """Invoke the mapkit CLI in-process: cli("validate", "portland") -> click Result."""
    from mapkit.cli import main

    runner = CliRunner()

    def invoke(*args, **kwargs):
        return runner.invoke(main, [str(a) for a in args], catch_exceptions=False, **kwargs)

    return invoke


@pytest.fixture
def tiny_data():
    return json.loads((FIXTURES / "tiny.json").read_text())


@pytest.fixture
def write_board(tmp_path):
    """Write board data to a temporary file and return its path."""
    def write(data, name="board.json"):
        path = tmp_path / name
        path.write_text(json.dumps(data))
        return path

    return write
