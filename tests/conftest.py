import json
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
BAD = REPO / "tests" / "bad_boards"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Which tests run on one worker under pytest-xdist (`--dist loadgroup`, pyproject.toml): the tests
    of one module together, so a module-scoped fixture (a rendered kit, a drawn report) is made once;
    and every test that reads the session's bundled scenes or decks together, so those are built once,
    not once per worker. Without xdist the marks do nothing."""
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        names = item.fixturenames
        group = ("bundled-scenes" if "bundled_scene" in names else "bundled-decks" if "bundled_decks" in names
                 else item.module.__name__)
        item.add_marker(pytest.mark.xdist_group(group))


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


@pytest.fixture(scope="session")
def bundled_scene():
    """bundled_scene("portland") -> (board, scene): the drawn board of a bundled board, built once per
    test session. Building a scene (label placement) takes 4-11 s of CPU, and test_render,
    test_kit_board and test_kit_tiles all measure the same three; the tests only read it."""
    from mapkit.geometry import Layout
    from mapkit.render import content_hash
    from mapkit.render.scene import build_scene
    from mapkit.resources import boards_dir
    from mapkit.validate import load_valid_board

    built = {}

    def get(name):
        if name not in built:
            path = boards_dir() / f"{name}.json"
            if not path.exists():
                pytest.skip(f"boards/{name}.json is not there yet")
            board = load_valid_board(path)
            built[name] = (board, build_scene(board, Layout(board), content_hash(path)))
        return built[name]

    return get


# The bundled boards' standard decks, as their commits say they were made: seed, required pairs, count.
BUNDLED_DECKS = {
    "portland": (1, [("hillsboro", "gresham"), ("expo-center", "milwaukie")], 30),
    "seattle": (9, [("everett", "tacoma-dome"), ("bremerton", "issaquah")], 31),
    "north-america": (1, [], 30),
}


@pytest.fixture(scope="session")
def bundled_decks():
    """name -> (board, the deck `generate` makes with the bundled seed, pairs and count, default
    settings), made once per session: a deck takes about 4 s of CPU, and test_ticket_deck (targets,
    required pairs) and test_tickets_scale (the stored decks) read the same three."""
    from mapkit.boardfile import load_board
    from mapkit.resources import boards_dir
    from mapkit.ticket_deck import generate

    out = {}
    for name, (seed, required, count) in BUNDLED_DECKS.items():
        board = load_board(boards_dir() / f"{name}.json")
        out[name] = (board, generate(board, seed=seed, required=required, count=count))
    return out
