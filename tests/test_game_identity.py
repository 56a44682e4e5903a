"""The same seeds give the same games: golden digests of games on every bundled board, by every agent.

The digests below were computed by this file's `game_digest` (`python tests/test_game_identity.py`
prints the table). Each digest covers a game's full
action log, its scores and its end. A change to the engine, the legal-action listing, the runner or
the agents that changes any game fails here; a deliberate rules or behaviour change must recompute
them (and say so in its commit).
"""

import hashlib
import json

import pytest

from mapkit.boardfile import load_board
from mapkit.resources import boards_dir
from mapkit.sim.rules import rules_for_board
from mapkit.sim.runner import game_seeds, play_game
from mapkit.sim.tables import build_tables

# (board, preset or None for the board's own, variants, agent, players, games)
AGENT_GAMES = (("random", 20), ("route-focus", 8), ("expert", 3))
CASES = [
    (board, None, (), agent, players, games)
    for board in ("north-america", "portland")
    for agent, games in AGENT_GAMES
    for players in (2, 4)
] + [("seattle", "transit", (), agent, players, games) for agent, games in AGENT_GAMES for players in (2, 4)] + [
    # variants that take other paths through the claim listing and the face-up row
    ("portland", None, (variant,), "random", players, 20)
    for variant in ("friendly-protection", "ticket-market", "relaxed-wilds") for players in (2, 4)
] + [
    # the other playstyles, and agents mixed at one table (an agent per seat)
    ("north-america", None, (), agent, 4, 4) for agent in ("ticket-hungry", "long-route", "one-step")
] + [
    ("north-america", None, (), ("expert", "route-focus"), 2, 6),
    ("portland", None, (), ("random", "route-focus", "expert", "one-step"), 4, 4),
]

_TABLES = {}


def _setup(board_id, preset, variants):
    key = (board_id, preset, variants)
    if key not in _TABLES:
        board = load_board(boards_dir() / f"{board_id}.json")
        _TABLES[key] = (build_tables(board), rules_for_board(board, preset, variants))
    return _TABLES[key]


def game_digest(board_id, preset, variants, agent, players, games) -> str:
    t, rules = _setup(board_id, preset, variants)
    h = hashlib.sha256()
    for seed in game_seeds([17, players], games):
        r = play_game(t, rules, list(agent) if isinstance(agent, tuple) else [agent] * players, seed, log=True)
        h.update(json.dumps([r["actions"], [row["total"] for row in r["scores"]], r["turns"], r["end"]]).encode())
    return h.hexdigest()[:16]


GOLDEN = {
    ('north-america', None, (), 'random', 2, 20): '201379320219acc4',
    ('north-america', None, (), 'random', 4, 20): '4d7e0dfeaa22e99b',
    ('north-america', None, (), 'route-focus', 2, 8): '3c0c94167a75fc3c',
    ('north-america', None, (), 'route-focus', 4, 8): '7f0877da175a1bdb',
    ('north-america', None, (), 'expert', 2, 3): 'e4bd218441fb940c',
    ('north-america', None, (), 'expert', 4, 3): 'db874f865b08b812',
    ('portland', None, (), 'random', 2, 20): 'de234039b5bdad34',
    ('portland', None, (), 'random', 4, 20): '93b8c7d9acda7e19',
    ('portland', None, (), 'route-focus', 2, 8): '5315138b1f9dbdf1',
    ('portland', None, (), 'route-focus', 4, 8): 'ce344da30c14e15f',
    ('portland', None, (), 'expert', 2, 3): '30d210b2ca5a6267',
    ('portland', None, (), 'expert', 4, 3): '5adcaa4214662d05',
    ('seattle', 'transit', (), 'random', 2, 20): 'd87196f98c130be5',
    ('seattle', 'transit', (), 'random', 4, 20): '36406611a983026b',
    ('seattle', 'transit', (), 'route-focus', 2, 8): 'dc497d20ba656998',
    ('seattle', 'transit', (), 'route-focus', 4, 8): 'eb54f039179f5b0b',
    ('seattle', 'transit', (), 'expert', 2, 3): '50062c2753a8d87c',
    ('seattle', 'transit', (), 'expert', 4, 3): '48e85cd5cab4fcd5',
    ('portland', None, ('friendly-protection',), 'random', 2, 20): 'de234039b5bdad34',
    ('portland', None, ('friendly-protection',), 'random', 4, 20): '93b8c7d9acda7e19',
    ('portland', None, ('ticket-market',), 'random', 2, 20): '05d963acc0ac6705',
    ('portland', None, ('ticket-market',), 'random', 4, 20): '14861ebeab58ccf4',
    ('portland', None, ('relaxed-wilds',), 'random', 2, 20): 'e0cb00e8dbdf5721',
    ('portland', None, ('relaxed-wilds',), 'random', 4, 20): '5de8e4311046d321',
    ('north-america', None, (), 'ticket-hungry', 4, 4): 'e5de31251b2062e5',
    ('north-america', None, (), 'long-route', 4, 4): '01faa5ec662966fd',
    ('north-america', None, (), 'one-step', 4, 4): '43c99ab51acd16ae',
    ('north-america', None, (), ('expert', 'route-focus'), 2, 6): 'b36936f32de46598',
    ('portland', None, (), ('random', 'route-focus', 'expert', 'one-step'), 4, 4): 'bc5711e21a5b098f',
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1] or 'own'}-{'+'.join(c[2]) or 'plain'}-{'+'.join(c[3]) if isinstance(c[3], tuple) else c[3]}-{c[4]}p")
def test_same_seeds_same_games(case):
    assert game_digest(*case) == GOLDEN[case]


if __name__ == "__main__":
    for case in CASES:
        print(f"    {case!r}: {game_digest(*case)!r},")


def test_legal_fast_path_still_catches_an_illegal_action():
    """`in` answers by identity only for actions Legal itself handed out: an agent that adds its
    own action to a list it was given, or returns an equal copy of a legal one, is checked in full."""
    from mapkit.sim import engine
    from mapkit.sim.legal import Legal

    t, rules = _setup("north-america", None, ())
    s = engine.new_game(t, rules, 2, 5)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << len(s.offer)) - 1))
    legal = Legal(s)
    draws = legal.draws()
    claims = legal.claims()
    bogus = (engine.CLAIM, 0, 0, 99)
    draws.append(bogus)
    claims.append(bogus)
    assert bogus not in legal
    assert draws[0] in legal and tuple(list(draws[0])) in legal  # an equal copy: checked, and legal
    assert (engine.FACE_UP, 99) not in legal
    picked = legal[0]
    assert picked in legal and (engine.CLAIM, -1, 0, 0) not in legal
