"""Many seeded games, on one process or a pool, summed into one summary.

Games are played in chunks; each chunk is summed where it is played and the sums are merged in
chunk order. Every figure is a sum or a count, so the summary is the same whatever `jobs` is.
"""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Optional

from mapkit.sim.metrics import PlayMetrics
from mapkit.sim.rules import RuleSet
from mapkit.sim.runner import game_seeds, play_game
from mapkit.sim.tables import Tables

COMPONENTS = ("routes", "stations", "tickets_won", "tickets_lost", "bonuses", "total")


class Totals:
    """Sums over games; `merge` is associative so chunk order cannot change the result."""

    def __init__(self, players: int):
        self.players = players
        self.games = 0
        self.wins = [0] * players
        self.shared_wins = 0
        self.components = [Counter() for _ in range(players)]
        self.completed = self.held = 0
        self.tickets: dict[int, list[int]] = {}
        self.claims = Counter()
        self.turns = 0
        self.turns_min: Optional[int] = None
        self.turns_max = 0
        self.trains_left = [0] * players
        self.gaps = Counter()        # events
        self.gap_games = Counter()   # games with at least one
        self.ends = Counter()
        self.play = PlayMetrics()   # how the agents play (sim/metrics.py)

    def add(self, r: dict) -> None:
        self.games += 1
        for p in r["winners"]:
            self.wins[p] += 1
        if len(r["winners"]) > 1:
            self.shared_wins += 1
        for row in r["scores"]:
            p = row["seat"]
            for k in COMPONENTS:
                self.components[p][k] += row[k]
            self.completed += row["completed"]
            self.held += row["held"]
            self.trains_left[p] += row["trains_left"]
        for i, (held, done) in r["tickets"].items():
            h = self.tickets.setdefault(i, [0, 0])
            h[0] += held
            h[1] += done
        self.claims.update(r["claims"])
        self.turns += r["turns"]
        self.turns_min = r["turns"] if self.turns_min is None else min(self.turns_min, r["turns"])
        self.turns_max = max(self.turns_max, r["turns"])
        for k, v in r["gaps"].items():
            self.gaps[k] += v
            self.gap_games[k] += 1
        self.ends[r["end"]] += 1
        self.play.add(r)

    def merge(self, o: "Totals") -> None:
        self.games += o.games
        self.wins = [a + b for a, b in zip(self.wins, o.wins)]
        self.shared_wins += o.shared_wins
        for a, b in zip(self.components, o.components):
            a.update(b)
        self.completed += o.completed
        self.held += o.held
        for i, (h, d) in o.tickets.items():
            x = self.tickets.setdefault(i, [0, 0])
            x[0] += h
            x[1] += d
        self.claims.update(o.claims)
        self.turns += o.turns
        if o.turns_min is not None:
            self.turns_min = o.turns_min if self.turns_min is None else min(self.turns_min, o.turns_min)
        self.turns_max = max(self.turns_max, o.turns_max)
        self.trains_left = [a + b for a, b in zip(self.trains_left, o.trains_left)]
        self.gaps.update(o.gaps)
        self.gap_games.update(o.gap_games)
        self.ends.update(o.ends)
        self.play.merge(o.play)


def _play_chunk(args) -> tuple[Totals, list[str]]:
    t, rules, agents, seeds, log = args
    totals = Totals(len(agents))
    lines = []
    for seed in seeds:
        r = play_game(t, rules, agents, seed, log=log)
        totals.add(r)
        if log:
            lines.append(json.dumps({"seed": seed, "players": r["players"], "agents": r["agents"], "rules": r["rules"],
                                     "actions": r["actions"], "scores": [row["total"] for row in r["scores"]],
                                     "winners": r["winners"]}, separators=(",", ":")))
    return totals, lines


def run_games(t: Tables, rules: RuleSet, agents: list[str], games: int, seed: int, jobs: int = 1,
              log: bool = False, progress: Optional[Callable[[int], None]] = None,
              chunk: int = 50, scheduler: Optional[str] = None) -> tuple[Totals, list[str]]:
    """Play `games` seeded games: in this process (jobs=1), on a process pool, or on a Dask
    cluster when `scheduler` is its address (the optional `dask` extra). Same result every way."""
    seeds = game_seeds(seed, games)
    chunks = [seeds[i:i + chunk] for i in range(0, len(seeds), chunk)]
    total = Totals(len(agents))
    lines: list[str] = []
    work = [(t, rules, agents, c, log) for c in chunks]
    if scheduler is not None:
        for part, part_lines in _on_dask(scheduler, work):
            total.merge(part)
            lines.extend(part_lines)
            if progress:
                progress(part.games)
        return total, lines
    if jobs <= 1 or len(chunks) == 1:
        results = map(_play_chunk, work)
        for part, part_lines in results:
            total.merge(part)
            lines.extend(part_lines)
            if progress:
                progress(part.games)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for part, part_lines in pool.map(_play_chunk, work):  # map keeps chunk order
                total.merge(part)
                lines.extend(part_lines)
                if progress:
                    progress(part.games)
    return total, lines


def _on_dask(scheduler, work):
    """Chunks played on a Dask cluster, yielded in chunk order."""
    try:
        from distributed import Client
    except ImportError:
        from mapkit.errors import UsageError

        raise UsageError("--scheduler needs Dask: pip install 'mapkit[dask]'")
    from mapkit.errors import MapkitError

    try:
        client = scheduler if hasattr(scheduler, "submit") else Client(scheduler, timeout="3s")
    except (OSError, TimeoutError) as exc:
        raise MapkitError(f"cannot reach the Dask scheduler at {scheduler}: {exc}")
    try:
        futures = client.map(_play_chunk, work, pure=False)
        for future in futures:  # in submission order, whatever order they finish in
            yield future.result()
    finally:
        if client is not scheduler:
            client.close()


def summarize(t: Tables, rules: RuleSet, agents: list[str], seed: int, tot: Totals, pool_labels: list[str]) -> dict:
    g = max(1, tot.games)
    return {
        "board": t.board_id, "games": tot.games, "players": tot.players, "rules": rules.name, "agents": agents,
        "seed": seed,
        "wins": tot.wins, "shared_wins": tot.shared_wins,
        "win_rate": [round(w / g, 4) for w in tot.wins],
        "ticket_completion": round(tot.completed / tot.held, 4) if tot.held else None,
        "tickets_completed": tot.completed, "tickets_held": tot.held,
        "mean_score": {k: round(sum(c[k] for c in tot.components) / (g * tot.players), 3) for k in _components(rules)},
        "mean_score_by_seat": [{k: round(c[k] / g, 3) for k in _components(rules)} for c in tot.components],
        "tickets": {pool_labels[i]: {"held": h, "completed": d} for i, (h, d) in sorted(tot.tickets.items())},
        "route_claims": {t.route_ids[r]: tot.claims.get(r, 0) for r in range(t.n_routes)},
        "turns": {"mean": round(tot.turns / g, 2), "min": tot.turns_min, "max": tot.turns_max},
        "trains_left": [round(x / g, 2) for x in tot.trains_left],
        "rules_gaps": {k: {"events": tot.gaps[k], "games": tot.gap_games[k]} for k in sorted(tot.gaps)},
        "ends": dict(sorted(tot.ends.items())),
        **tot.play.as_dict(),
    }


def _components(rules: RuleSet) -> tuple[str, ...]:
    """Score components worth reporting: stations only when the transit expansion is played."""
    return COMPONENTS if rules.transit else tuple(k for k in COMPONENTS if k != "stations")


def pool_labels(t: Tables, rules: RuleSet) -> list[str]:
    """Labels of the tickets in the order the engine pools them."""
    labels = []
    for name in rules.ticket_decks:
        prefix = "" if len(rules.ticket_decks) == 1 else f"{name}:"
        labels.extend(prefix + x for x in t.ticket_names.get(name, ()))
    return labels
