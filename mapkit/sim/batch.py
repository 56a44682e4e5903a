"""Many seeded games, on one process or a pool, summed into one summary.

Games are played in chunks; each chunk is summed where it is played and the sums are merged in
chunk order. Every figure is a sum or a count, so the summary is the same whatever `jobs` is.
Win shares split ties (1/k to each of k tied winners) and are kept as whole counts of
1/lcm(1..players) so that they too add up exactly in any grouping.

Worker processes die with their parent: a SIGTERM or SIGKILL of `simulate --jobs N` must not leave
them playing (Linux: PR_SET_PDEATHSIG; elsewhere, and as a second guard, a thread that exits the
worker once its parent is gone).
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Optional, Sequence

from mapkit.sim.metrics import PlayMetrics
from mapkit.sim.rules import RuleSet
from mapkit.sim.runner import game_seeds, play_game
from mapkit.sim.tables import GRAY, Tables

COMPONENTS = ("routes", "stations", "tickets_won", "tickets_lost", "bonuses", "total")


class Totals:
    """Sums over games; `merge` is associative so chunk order cannot change the result."""

    def __init__(self, players: int):
        self.players = players
        self.games = 0
        self.wins = [0] * players
        self.shared_wins = 0
        # win shares in units of 1/unit: k tied winners get unit/k each, a whole number for k <= players
        self.unit = math.lcm(*range(1, players + 1))
        self.win_units = [0] * players
        self.score_sum = [0] * players
        self.score_sq = [0] * players
        # first seat's score edge per game, times (players - 1) to stay whole: (n-1)*s0 - sum(others)
        self.edge_sum = self.edge_sq = 0
        self.margins = Counter()          # winner minus runner-up, per game
        self.longest_decides = 0          # games whose winners change without the longest-path bonus
        self.offers: dict[int, list[int]] = {}        # ticket -> [offered, kept]
        self.ticket_win_units: dict[int, int] = {}    # ticket -> win units of the seats holding it
        self.color_units: dict[int, list[int]] = {}   # color -> [sum, sum of squares, sum of x * total]
        self.total_units = [0, 0]                     # all colored track: [sum, sum of squares]
        self.claim_wilds: dict[int, list[int]] = {}   # color -> [claims, wilds]
        self.agent_seats = Counter()      # agent name -> seat-games played
        self.agent_win_units = Counter()  # agent name -> win units
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

    @property
    def win_shares(self) -> list[float]:
        """Wins per seat with ties split (sum to the games played)."""
        return [u / self.unit for u in self.win_units]

    def add(self, r: dict) -> None:
        self.games += 1
        n = self.players
        share = self.unit // max(1, len(r["winners"]))
        for p in r["winners"]:
            self.wins[p] += 1
            self.win_units[p] += share
        if len(r["winners"]) > 1:
            self.shared_wins += 1
        rows = sorted(r["scores"], key=lambda row: row["seat"])
        totals = [row["total"] for row in rows]
        for p, x in enumerate(totals):
            self.score_sum[p] += x
            self.score_sq[p] += x * x
        if n > 1:
            e = (n - 1) * totals[0] - sum(totals[1:])
            self.edge_sum += e
            self.edge_sq += e * e
            top = sorted(totals, reverse=True)
            self.margins[top[0] - top[1]] += 1
            if any(row["longest_bonus"] for row in rows):
                key = {row["seat"]: (row["total"] - row["longest_bonus"], row["completed"]) for row in rows}
                best = max(key.values())
                if sorted(p for p, k in key.items() if k == best) != sorted(r["winners"]):
                    self.longest_decides += 1
        for p, name in enumerate(r["agents"]):
            self.agent_seats[name] += 1
            if p in r["winners"]:
                self.agent_win_units[name] += share
        for row in rows:
            if row["seat"] in r["winners"]:
                for i, _ in row["results"]:
                    self.ticket_win_units[i] = self.ticket_win_units.get(i, 0) + share
        for i, (o, k) in r.get("offers", {}).items():
            x = self.offers.setdefault(i, [0, 0])
            x[0] += o
            x[1] += k
        units = r.get("color_units", {})
        total = sum(u for c, u in units.items() if c != GRAY)  # colored track: gray is no card color
        self.total_units[0] += total
        self.total_units[1] += total * total
        for c, u in units.items():
            x = self.color_units.setdefault(c, [0, 0, 0])
            x[0] += u
            x[1] += u * u
            x[2] += u * total
        for c, (k, w) in r.get("claim_wilds", {}).items():
            x = self.claim_wilds.setdefault(c, [0, 0])
            x[0] += k
            x[1] += w
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
        self.win_units = [a + b for a, b in zip(self.win_units, o.win_units)]
        self.score_sum = [a + b for a, b in zip(self.score_sum, o.score_sum)]
        self.score_sq = [a + b for a, b in zip(self.score_sq, o.score_sq)]
        self.edge_sum += o.edge_sum
        self.edge_sq += o.edge_sq
        self.margins.update(o.margins)
        self.longest_decides += o.longest_decides
        for mine, theirs in ((self.offers, o.offers), (self.color_units, o.color_units),
                             (self.claim_wilds, o.claim_wilds)):
            for k, v in theirs.items():
                x = mine.setdefault(k, [0] * len(v))
                for j, y in enumerate(v):
                    x[j] += y
        for i, u in o.ticket_win_units.items():
            self.ticket_win_units[i] = self.ticket_win_units.get(i, 0) + u
        self.total_units = [a + b for a, b in zip(self.total_units, o.total_units)]
        self.agent_seats.update(o.agent_seats)
        self.agent_win_units.update(o.agent_win_units)
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
    t, rules, players, games, log = args
    totals = Totals(players)
    lines = []
    for seed, agents in games:
        r = play_game(t, rules, agents, seed, log=log)
        totals.add(r)
        if log:
            lines.append(json.dumps({"seed": seed, "players": r["players"], "agents": r["agents"], "rules": r["rules"],
                                     "actions": r["actions"], "scores": [row["total"] for row in r["scores"]],
                                     "winners": r["winners"]}, separators=(",", ":")))
    return totals, lines


def run_games(t: Tables, rules: RuleSet, agents: list[str], games: int, seed, jobs: int = 1,
              log: bool = False, progress: Optional[Callable[[int], None]] = None,
              chunk: int = 50, scheduler: Optional[str] = None) -> tuple[Totals, list[str]]:
    """Play `games` seeded games: in this process (jobs=1), on a process pool, or on a Dask
    cluster when `scheduler` is its address (the optional `dask` extra). Same result every way."""
    return play_games(t, rules, len(agents), [(s, agents) for s in game_seeds(seed, games)],
                      jobs=jobs, log=log, progress=progress, chunk=chunk, scheduler=scheduler)


def play_games(t: Tables, rules: RuleSet, players: int, games: Sequence[tuple[int, list[str]]], jobs: int = 1,
               log: bool = False, progress: Optional[Callable[[int], None]] = None,
               chunk: int = 50, scheduler: Optional[str] = None) -> tuple[Totals, list[str]]:
    """Play the given (game seed, agent per seat) games and sum them, merging chunks in order."""
    games = list(games)
    total = Totals(players)
    lines: list[str] = []
    with GameRunner(jobs, scheduler) as runner:
        for part, part_lines in runner.map(chunks(t, rules, players, games, log, chunk)):
            total.merge(part)
            lines.extend(part_lines)
            if progress:
                progress(part.games)
    return total, lines


def chunks(t: Tables, rules: RuleSet, players: int, games: list, log: bool = False, chunk: int = 50) -> list:
    """Work items of at most `chunk` games each, in game order."""
    return [(t, rules, players, games[i:i + chunk], log) for i in range(0, len(games), chunk)]


class GameRunner:
    """Plays work items (from `chunks`) here, on one process pool or on a Dask cluster, kept open
    across calls so a report's many batches pay for one pool; results come in submission order."""

    def __init__(self, jobs: int = 1, scheduler=None):
        self.jobs, self.scheduler = jobs, scheduler
        self.pool = self.client = None

    def __enter__(self):
        if self.scheduler is not None:
            self.client = _dask_client(self.scheduler)
        elif self.jobs > 1:
            self.pool = ProcessPoolExecutor(max_workers=self.jobs, initializer=_die_with_parent,
                                            initargs=(os.getpid(),))
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
        if self.client is not None and self.client is not self.scheduler:
            self.client.close()
        return False

    def map(self, work: list):
        if self.client is not None:
            futures = self.client.map(_play_chunk, work, pure=False)
            return (f.result() for f in futures)  # in submission order, whatever order they finish in
        if self.pool is not None and len(work) > 1:
            return self.pool.map(_play_chunk, work)  # map keeps chunk order
        return map(_play_chunk, work)


def _die_with_parent(parent: int) -> None:
    """Pool worker initializer: end this worker when the process that started it is gone."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            PR_SET_PDEATHSIG = 1
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watchdog below still ends the worker
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)

    def watch():
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def _dask_client(scheduler):
    """A client of the Dask cluster at `scheduler` (an address, or a client given by a test)."""
    if hasattr(scheduler, "submit"):
        return scheduler
    from mapkit.errors import MapkitError, UsageError

    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--scheduler needs Dask: pip install 'mapkit[dask]'")
    try:
        return Client(scheduler, timeout="3s")
    except (OSError, TimeoutError) as exc:
        raise MapkitError(f"cannot reach the Dask scheduler at {scheduler}: {exc}")
    except (ValueError, TypeError) as exc:
        # a malformed address ("tcp://host:port:9", "host:notaport") is bad usage, not a crash
        raise UsageError(f"'{scheduler}' is not a Dask scheduler address (e.g. tcp://10.0.0.5:8786): {exc}")


def summarize(t: Tables, rules: RuleSet, agents: list[str], seed: int, tot: Totals, pool_labels: list[str]) -> dict:
    g = max(1, tot.games)
    return {
        "board": t.board_id, "games": tot.games, "players": tot.players, "rules": rules.name, "agents": agents,
        "seed": seed,
        "wins": tot.wins, "shared_wins": tot.shared_wins,
        "win_rate": [round(w / g, 4) for w in tot.wins],
        "win_share": [round(w / g, 4) for w in tot.win_shares],
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
