"""`mapkit bench`: the speed of the simulator and of the other pipeline steps, on one core, and the
simulator's turn rate against a plain reference game measured in the same run (`reference.py`).

Times are CPU seconds of this process (time.process_time), so that games per second mean games per
second of one core even on a machine busy with other work.
"""

from __future__ import annotations

import itertools
import random
import statistics
import time

from mapkit.model import Board
from mapkit.sim.batch import run_games
from mapkit.sim import reference
from mapkit.sim.longest import grid_network, longest_trail
from mapkit.sim.rules import rules_for_board
from mapkit.sim.runner import game_seeds, play_game, replay
from mapkit.sim.tables import build_tables

# mapkit's agent against the reference game's policy it is measured by (see reference.py)
AGAINST = (("random", "random"), ("route-focus", "greedy"))
COMPARE_GAMES, COMPARE_REPEATS = 100, 3

RUNS = (("random", 2, 400), ("random", 4, 400), ("route-focus", 2, 150), ("route-focus", 4, 150),
        ("expert", 2, 60), ("expert", 4, 40))


def _timed(fn, *args, **kwargs):
    t0 = time.process_time()
    out = fn(*args, **kwargs)
    return out, time.process_time() - t0


def run_bench(board: Board, games: int | None = None, seed: int = 0) -> dict:
    t = build_tables(board)
    rules = rules_for_board(board)
    runs = []
    for agent, players, default_games in RUNS:
        if not rules.min_players <= players <= rules.max_players:
            continue
        n = games or default_games
        (totals, _), secs = _timed(run_games, t, rules, [agent] * players, n, seed)
        runs.append({
            "board": board.id, "agents": agent, "players": players, "games": n,
            "games_per_second": round(n / secs, 1), "turns_per_game": round(totals.turns / n, 1),
            "ticket_completion": round(totals.completed / totals.held, 3) if totals.held else None,
        })
    compare = _compare(t, rules, games or COMPARE_GAMES, seed)
    # longest path on the networks players really build: the end of route-focus games
    networks = []
    players = min(4, rules.max_players)
    for s in game_seeds(seed + 1, 30):
        r = play_game(t, rules, ["route-focus"] * players, s, log=True)
        replayed = replay(t, rules, r["players"], r["seed"], r["actions"])
        for p in range(players):
            networks.append([(t.route_a[x], t.route_b[x], t.route_len[x]) for x in replayed.claims[p]])
    ordinary = _mean_ms(networks, repeat=5)
    dense = grid_network(7)
    rng = random.Random(seed)
    random_dense = [[(rng.randrange(12), rng.randrange(12), 1) for _ in range(45)] for _ in range(10)]
    random_dense = [[e for e in g if e[0] != e[1]] for g in random_dense]
    steps = _pipeline_steps(board)
    return {
        "board": board.id, "runs": runs, "reference": compare,
        "longest_path": {
            "ordinary_ms": round(ordinary, 4), "ordinary_networks": len(networks),
            "ordinary_routes_mean": round(statistics.fmean(len(n) for n in networks), 1),
            "dense_ms": round(_mean_ms([dense], repeat=5), 3), "dense_routes": len(dense),
            "random_dense_ms": round(_mean_ms(random_dense, repeat=2), 3),
        },
        "steps_ms": steps,
    }


def _compare(t, rules, games: int, seed: int, repeats: int = COMPARE_REPEATS) -> list[dict]:
    """Turns per CPU second of mapkit's agents and of the reference game's policies, in the same run,
    best of `repeats` (interleaved, so that a busy spell of the machine hits both alike), and the
    ratio mapkit / reference."""
    out = []
    for players in (2, 4):
        if not rules.min_players <= players <= rules.max_players:
            continue
        seeds = game_seeds([seed, players], games)
        best = {}
        for _ in range(repeats):
            for agent, policy in AGAINST:
                (totals, _), secs = _timed(run_games, t, rules, [agent] * players, games, seed)
                best[agent] = max(best.get(agent, 0.0), totals.turns / secs)
                turns, secs = _timed(lambda: sum(reference.play(t, rules, players, s, policy)[0] for s in seeds))
                best["ref-" + policy] = max(best.get("ref-" + policy, 0.0), turns / secs)
        for agent, policy in AGAINST:
            out.append({"players": players, "agents": agent, "turns_per_second": round(best[agent]),
                        "reference": policy, "reference_turns_per_second": round(best["ref-" + policy]),
                        "ratio": round(best[agent] / best["ref-" + policy], 2)})
    return out


def _mean_ms(graphs, repeat: int) -> float:
    t0 = time.process_time()
    for _ in range(repeat):
        for g in graphs:
            longest_trail(g)
    return (time.process_time() - t0) * 1000 / (repeat * max(1, len(graphs)))


def _pipeline_steps(board: Board) -> dict:
    from mapkit import checks
    from mapkit.cards import derive_deck
    from mapkit.tickets import TicketScorer

    out = {}
    _, secs = _timed(checks.problems, board)
    out["validate"] = round(secs * 1000, 1)
    _, secs = _timed(derive_deck, board)
    out["cards"] = round(secs * 1000, 1)
    scorer = TicketScorer(board)
    ids = [s.id for s in board.stations]
    pairs = [(a, b) for a, b in itertools.combinations(ids, 2)][:200]
    _, secs = _timed(lambda: [scorer.score(a, b) for a, b in pairs])
    out["score_200_pairs"] = round(secs * 1000, 1)
    return out


def format_bench(r: dict) -> str:
    lines = [f"bench on {r['board']} (one core)", f"  {'agents':<12} {'players':>7} {'games':>6} {'games/s':>8} {'turns':>6} {'tickets':>7}"]
    for x in r["runs"]:
        tc = "-" if x["ticket_completion"] is None else f"{x['ticket_completion']:.0%}"
        lines.append(f"  {x['agents']:<12} {x['players']:>7} {x['games']:>6} {x['games_per_second']:>8} {x['turns_per_game']:>6} {tc:>7}")
    lines.append(f"  against the reference game (turns per CPU second, best of {COMPARE_REPEATS}):")
    for x in r.get("reference", []):
        lines.append(f"    {x['players']} players: {x['agents']:<12} {x['turns_per_second']:>7} /"
                     f" reference {x['reference']:<7} {x['reference_turns_per_second']:>7} = {x['ratio']:.2f}x")
    lp = r["longest_path"]
    lines.append(f"  longest path: ordinary {lp['ordinary_ms']} ms (mean of {lp['ordinary_networks']} end-of-game networks,"
                 f" {lp['ordinary_routes_mean']} routes), dense {lp['dense_ms']} ms ({lp['dense_routes']} one-space routes),"
                 f" random dense {lp['random_dense_ms']} ms")
    lines.append("  pipeline: " + ", ".join(f"{k} {v} ms" for k, v in r["steps_ms"].items()))
    return "\n".join(lines)
