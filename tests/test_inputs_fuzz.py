"""Issue 9, item 2: a seeded, bounded fuzz of `validate` (and `simulate` on whatever validates).

Each case takes the tiny fixture, replaces one or two of its values (or adds a rules override or a
deck) with an edge value — whole and fractional floats, 0, negatives, huge numbers, wrong shapes,
lone surrogates — and asserts that validate exits 0 or 1 and never crashes (MAPKIT_DEBUG makes a
crash raise here rather than exit 3), and that a board it passes also plays a game.
"""

import json
import random
from dataclasses import fields

import pytest

from mapkit.sim.rules import RuleSet

CASES = 160
EDGES = [0, -1, 1, 2, 4.0, 6.0, 1.5, -0.0, 1e300, -1e300, 2**70, 10**6, "", "x" * 200, "\ud800", "a\udfffb",
         [], {}, [[1]], [[2]], [[2, 40]], [[2, 40, 1]], [1, 2], None, True, False, {"a": 1}, "gray", "red"]
RULE_FIELDS = [f.name for f in fields(RuleSet) if f.name != "name"]


def _leaves(value, path=()):
    """Every (path, value) of a JSON value, containers included."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, path + (i,))


def _set(data, path, value):
    node = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


def mutate(base: dict, rng: random.Random) -> dict:
    data = json.loads(json.dumps(base))
    for _ in range(rng.choice((1, 1, 2))):
        kind = rng.random()
        if kind < 0.3:
            data["rules"]["overrides"][rng.choice(RULE_FIELDS)] = rng.choice(EDGES)
        elif kind < 0.45:
            counts = {"red": 30, "blue": 30, "ferry": 20}
            data["deck"] = {"total": 94, "wild": 14, "counts": counts}
            target = rng.choice([("total",), ("wild",), ("counts", "red"), ("counts", "ferry")])
            _set(data["deck"], target, rng.choice(EDGES))
        else:
            paths = [p for p, _ in _leaves(data) if p and p[0] not in ("$schema",)]
            _set(data, rng.choice(paths), rng.choice(EDGES))
    return data


@pytest.fixture
def debug(monkeypatch):
    monkeypatch.setenv("MAPKIT_DEBUG", "1")  # a crash raises with its traceback instead of exiting 3


def test_validate_never_crashes_on_mutated_boards(cli, tiny_data, tmp_path, debug):
    rng = random.Random(9)
    outcomes, played = {0: 0, 1: 0}, 0
    for case in range(CASES):
        data = mutate(tiny_data, rng)
        path = tmp_path / f"case-{case}.json"
        # ensure_ascii keeps lone surrogates as the \ud800 escapes a hand-edited file would have
        path.write_text(json.dumps(data, ensure_ascii=True))
        result = cli("validate", path)
        assert result.exit_code in (0, 1), (case, result.output)
        assert "Traceback" not in result.output
        outcomes[result.exit_code] += 1
        if result.exit_code == 0 and played < 25:
            played += 1
            game = cli("simulate", path, "--games", "1", "--agents", "random")
            # 2: the board's rules are not for 2 players (usage), never a crash
            assert game.exit_code in (0, 2), (case, game.output)
    # the fuzz reaches both sides, so it tests the checks and not only the schema
    assert outcomes[0] > 5 and outcomes[1] > 50, outcomes


def test_the_fuzz_is_reproducible(tiny_data):
    a = [mutate(tiny_data, random.Random(3)) for _ in range(3)]
    b = [mutate(tiny_data, random.Random(3)) for _ in range(3)]
    assert json.dumps(a) == json.dumps(b)
