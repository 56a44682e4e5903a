import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mapkit.boardfile import load_board
from mapkit.resources import boards_dir
from mapkit.sim.rules import rules_for_board
from mapkit.sim.tables import build_tables

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
BAD = REPO / "tests" / "bad_boards"


def red_blue_board(stations: list[dict], routes: list[dict]) -> dict:
    """A small standard-rules board of red and blue routes: the layout tests' hand-made networks."""
    return {
        "schema_version": 1, "id": "t", "name": "T", "version": "1", "rules": {"preset": "standard"},
        "route_points": [1, 2, 4, 7, 10, 15],
        "palette": [{"id": "red", "name": "Red", "hex": "#d62728", "kind": "rail"},
                    {"id": "blue", "name": "Blue", "hex": "#1f77b4", "kind": "rail"}],
        "wild": {"name": "Locomotive", "hex": "#cccccc"}, "gray": {"name": "Gray", "kind": "rail"},
        "stations": stations, "routes": routes,
    }


def network_position(t, rules, routes, trains, turn=40):
    """Four players after setup, seat 0 to play holding no ticket and no card, owning `routes`
    (route ids), with `trains` trains and `turn` turns a seat played: the expert's ticket tests."""
    from mapkit.sim import engine

    s = engine.new_game(t, rules, 4, 3)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << s.min_keep) - 1))
    s.current, s.tickets[0] = 0, []
    for rid in routes:
        r = t.route_ids.index(rid)
        s.hands[0][t.wild] += t.route_len[r]
        engine._claim(s, 0, r, t.wild, t.route_len[r])
    s.hands[0] = [0] * (t.wild + 1)
    s.trains[0] = trains
    s.turn = 4 * turn
    return s


def play_through(t, rules, agents, seed):
    """One game of these agents to its end (each reset here with random.Random(seed * 10 + seat)),
    for tests that check an agent's decisions from inside (a subclass asserting as it plays)."""
    import random

    from mapkit.sim import engine
    from mapkit.sim.legal import Legal
    from mapkit.sim.view import SeatView

    s = engine.new_game(t, rules, len(agents), seed)
    for seat, agent in enumerate(agents):
        agent.reset(seat, t, len(agents), random.Random(seed * 10 + seat))
    while s.phase != engine.OVER:
        seat = s.current
        engine.apply(s, agents[seat].act(SeatView(s, seat), Legal(s)))
    return s


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
    test session (per worker under xdist). Building a scene (label placement) takes 4-11 s of CPU,
    and test_kit_board and test_kit_tiles measure the same ones; the tests only read it."""
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



@pytest.fixture(scope="module")
def na():
    """north-america's tables and rules, as the agents' scenario tests build their states on."""
    board = load_board(boards_dir() / "north-america.json")
    return build_tables(board), rules_for_board(board)


@pytest.fixture
def few_strategy_games(monkeypatch):
    """`mapkit report`'s strategy figures (restricted play and skill, 400 games a table) played on
    20 games a table, for tests of a report that do not read those figures."""
    from mapkit.balance import strategies

    real = strategies.strategy_figures
    monkeypatch.setattr(strategies, "strategy_figures", lambda *a, **k: real(*a, **{**k, "games": 20}))
