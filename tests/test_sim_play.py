"""Random play on every board, ruleset and player count, checking invariants after every action;
perft counts, replay of logged games, worker-count independence and a broken agent."""

import json
import random

import pytest

from mapkit.boardfile import load_board
from mapkit.resources import boards_dir
from mapkit.sim import engine
from mapkit.sim.legal import is_legal, legal_actions
from mapkit.sim.rules import PRESETS, VARIANTS, resolve_rules
from mapkit.sim.runner import game_seeds, play_game, replay
from mapkit.sim.tables import build_tables
from simhelp import TINY, card_total, started

BOARDS = [TINY] + sorted(boards_dir().glob("*.json"))


def check(s, t, cards, start_trains):
    assert card_total(s) == cards
    assert all(h >= 0 for hand in s.hands for h in hand)
    claimed = [r for p in range(s.players) for r in s.claims[p]]
    assert len(claimed) == len(set(claimed)), "a route was claimed twice"
    for p in range(s.players):
        assert s.trains[p] >= 0
        assert s.trains[p] == start_trains - sum(t.route_len[r] for r in s.claims[p])
        assert s.route_score[p] == sum(t.route_points[r] for r in s.claims[p]), "running score differs from a recount"
        for r in s.claims[p]:
            assert s.owner[r] == p
            q = t.route_partner[r]
            if q >= 0 and s.owner[q] != -1:
                assert s.owner[q] != p, "one seat owns both tracks of a double"
                assert s.players >= s.rules.double_routes_min_players, "double opened in a small game"
    assert sum(1 for o in s.owner if o != -1) == len(claimed)
    if s.rules.transit:
        built = sum(1 for m in s.markers for o in m if o != -1)
        assert built + s.tokens_left == s.rules.transit_tokens
    held = [i for p in range(s.players) for i in s.tickets[p]]
    pending = list(s.offer) + [i for _, o in s.setup_left for i in o]
    assert sorted(held + pending + s.ticket_deck + s.market) == list(range(len(s.ticket_pool)))


def rulesets_for(board):
    t = build_tables(board)
    out = []
    for name in sorted(PRESETS):
        base = resolve_rules(board.rules.preset, board.rules.overrides, name)
        if all(d in t.ticket_decks for d in base.ticket_decks):
            out.append((name, ()))
    for v in sorted(VARIANTS):
        out.append((board.rules.preset, (v,)))
    return out


CASES = []
for path in BOARDS:
    board = load_board(path)
    for preset, variants in rulesets_for(board):
        rules = resolve_rules(board.rules.preset, board.rules.overrides, preset, variants)
        for players in range(rules.min_players, rules.max_players + 1):
            CASES.append((path, preset, variants, players))


@pytest.mark.parametrize("path, preset, variants, players", CASES,
                         ids=[f"{p.stem}-{'+'.join((r,) + v)}-{n}p" for p, r, v, n in CASES])
def test_random_play_keeps_every_invariant(path, preset, variants, players):
    board = load_board(path)
    t = build_tables(board)
    rules = resolve_rules(board.rules.preset, board.rules.overrides, preset, variants)
    for seed in game_seeds(7, 2):
        s = engine.new_game(t, rules, players, seed)
        rng = random.Random(seed)
        cards = card_total(s)
        start = rules.trains_for(players)
        steps = 0
        while not engine.is_over(s):
            legal = legal_actions(s)
            assert legal, "a live game must offer an action"
            if steps % 7 == 0:  # the direct check agrees with the list (sampled: it is slow)
                assert all(is_legal(s, a) for a in legal)
                assert not is_legal(s, (engine.CLAIM, 0, 0, 99))
            engine.apply(s, rng.choice(legal))
            check(s, t, cards, start)
            steps += 1
            assert steps < 20000
        assert s.end_reason in ("final_round", "stalled", "turn_limit")


def perft(s, depth):
    if depth == 0 or engine.is_over(s):
        return 1
    total = 0
    for a in legal_actions(s):
        c = s.copy()
        engine.apply(c, a)
        total += perft(c, depth - 1)
    return total


def test_perft_counts_on_the_tiny_board():
    t, s = started(players=2, seed=3)
    assert (s.hands[0], s.face_up) == ([1, 3, 0, 0], [2, 0, 3, 0, 3])
    # 5 face-up cards (two are wilds, which end the turn), a blind draw, a ticket draw; no claim yet
    assert [perft(s, d) for d in (1, 2, 3)] == [7, 33, 208]


def test_copy_is_independent():
    t, s = started()
    c = s.copy()
    engine.apply(c, (engine.BLIND,))
    assert sum(s.hands[0]) + 1 == sum(c.hands[0])
    assert s.phase == engine.TURN


def test_logged_games_replay_exactly():
    board = load_board(TINY)
    t = build_tables(board)
    rules = resolve_rules("standard", board.rules.overrides)
    for seed in game_seeds(11, 5):
        r = play_game(t, rules, ["route-focus", "random"], seed, log=True)
        s = replay(t, rules, 2, seed, json.loads(json.dumps(r["actions"])))
        from mapkit.sim.scoring import final_scores
        assert engine.is_over(s)
        assert [row["total"] for row in final_scores(s)] == [row["total"] for row in r["scores"]]


def test_jobs_do_not_change_results(cli, in_repo):
    args = ["simulate", "tests/fixtures/tiny.json", "--games", "120", "--agents", "route-focus,one-step",
            "--seed", "5", "--format", "json"]
    one = cli(*args, "--jobs", "1")
    two = cli(*args, "--jobs", "2")
    assert one.exit_code == 0, one.output
    assert json.loads(one.output) == json.loads(two.output)
    other_seed = cli(*args[:-4], "--seed", "6", "--format", "json")
    assert json.loads(other_seed.output) != json.loads(one.output)


def test_log_file_replays(cli, in_repo, tmp_path):
    log = tmp_path / "games.jsonl"
    result = cli("simulate", "tests/fixtures/tiny.json", "--games", "3", "--agents", "random", "--log", log)
    assert result.exit_code == 0
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(lines) == 3
    board = load_board(TINY)
    t = build_tables(board)
    rules = resolve_rules("standard", board.rules.overrides)
    from mapkit.sim.scoring import final_scores
    for line in lines:
        s = replay(t, rules, line["players"], line["seed"], line["actions"])
        assert [r["total"] for r in final_scores(s)] == line["scores"]


class Broken:
    name = "broken"

    def reset(self, *a):
        self.calls = 0

    def act(self, view, legal):
        self.calls += 1
        if self.calls % 3 == 0:
            raise RuntimeError("boom")
        if self.calls % 3 == 1:
            return ("not", "an", "action")
        return legal[0]


def test_runner_survives_a_broken_agent(monkeypatch):
    from mapkit.sim import agents, runner

    monkeypatch.setitem(agents.AGENTS, "broken", Broken)
    monkeypatch.setattr(runner, "make_agent", lambda name: agents.AGENTS[name]())
    board = load_board(TINY)
    t = build_tables(board)
    r = play_game(t, resolve_rules("standard", board.rules.overrides), ["broken", "route-focus"], 1)
    assert r["gaps"]["agent_error"] > 0
    assert r["end"] in ("final_round", "stalled", "turn_limit")


def test_simulate_cli_errors(cli, in_repo):
    assert cli("simulate", "tests/fixtures/tiny.json", "--agents", "randm").exit_code == 2
    assert "did you mean 'random'" in cli("simulate", "tests/fixtures/tiny.json", "--agents", "randm").output
    assert cli("simulate", "tests/fixtures/tiny.json", "--players", "4").exit_code == 2
    assert cli("simulate", "tests/fixtures/tiny.json", "--agents", "random,random,random").exit_code == 2
    bad = cli("simulate", "tests/fixtures/tiny.json", "--variant", "quik")
    assert bad.exit_code == 2 and "did you mean 'quick'" in bad.output
    assert cli("simulate", "tests/fixtures/tiny.json", "--rules", "nope").exit_code == 2


def test_a_dask_cluster_gives_the_same_results():
    distributed = pytest.importorskip("distributed")
    from mapkit.sim.batch import run_games

    board = load_board(TINY)
    t = build_tables(board)
    rules = resolve_rules("standard", board.rules.overrides)
    local, _ = run_games(t, rules, ["route-focus", "random"], 120, seed=9, chunk=20)
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote, _ = run_games(t, rules, ["route-focus", "random"], 120, seed=9, chunk=20, scheduler=client)
    assert _plain(remote) == _plain(local)


def _plain(x):
    """A totals object as plain values, nested objects (the play metrics) included: they have no
    __eq__ of their own, so comparing them would compare identities."""
    if hasattr(x, "__dict__"):
        return {k: _plain(v) for k, v in vars(x).items()}
    return x


def test_unreachable_scheduler_is_a_clean_error(cli, in_repo):
    pytest.importorskip("distributed")
    result = cli("simulate", "tests/fixtures/tiny.json", "--games", "5", "--scheduler", "tcp://127.0.0.1:9")
    assert result.exit_code == 1 and "cannot reach the Dask scheduler" in result.output
