"""What no other tool measures: does one simple strategy dominate the map, and how much does it
reward skill?

- Restricted play: a restricted player (mapkit/sim/agents/restricted.py: never draws tickets, ignores
  the longest path; and the `long-route` playstyle, which claims only the longest routes it can
  pay for) plays at a table with the report's panel, every agent in every seat in turn
  (`panel.Table`'s rotation), at `RESTRICTED_PLAYERS` players. Its win share per seat it plays,
  with a 95 % Wilson interval, against the panel. A strategy dominates a map when its share is
  clearly above 1/players and above what the same strategy does on the published map.
- Skill: two agents head to head at two players, seats alternating: the expert against the
  route-focus planner, and the planner against the random player. The stronger one's win share,
  with its interval: how much the map rewards playing better.

Every game has its own seed (SeedSequence([seed, players, table]), tables numbered from 50 so they
share nothing with the report's own tables), so the figures are the same whatever --jobs is.
"""

from __future__ import annotations

from typing import Optional

from mapkit.balance import stats as st
from mapkit.balance.panel import Table
from mapkit.sim.batch import GameRunner, Totals, chunks
from mapkit.sim.rules import rules_for_board
from mapkit.sim.tables import build_tables

RESTRICTED = {"no-tickets": "never draws tickets after the start", "long-route": "claims only the longest routes",
              "no-longest": "ignores the longest path"}
SKILL = (("expert", "route-focus"), ("route-focus", "random"))
RESTRICTED_PLAYERS = 4
STRATEGY_GAMES = 400
FIRST_TABLE = 50


def _share(tot: Totals, agent: str) -> dict:
    seats = tot.agent_seats.get(agent, 0)
    w = tot.agent_win_units.get(agent, 0) / tot.unit
    lo, hi = st.wilson(w, seats)
    return {"share": round(w / seats, 4) if seats else None, "low": round(lo, 4), "high": round(hi, 4),
            "seat_games": seats}


def strategy_figures(board, panel: list[str], seed: int = 0, jobs: int = 1, preset: Optional[str] = None,
                     variants: tuple = (), scheduler=None, games: int = STRATEGY_GAMES) -> dict:
    """{"games", "restricted": [...], "skill": [...]} for one board (see the module's docstring)."""
    rules = rules_for_board(board, preset, tuple(variants))
    t = build_tables(board)
    n = min(max(RESTRICTED_PLAYERS, rules.min_players), rules.max_players)
    plays = []
    for k, agent in enumerate(RESTRICTED):
        others = [a for a in panel if a != agent]
        plays.append(("restricted", agent, n, Table(FIRST_TABLE + k, f"{agent} with the panel", (agent, *others), True)))
    two = 2 if rules.min_players <= 2 <= rules.max_players else None
    if two:
        for k, (a, b) in enumerate(SKILL):
            plays.append(("skill", (a, b), two, Table(FIRST_TABLE + len(RESTRICTED) + k, f"{a} against {b}", (a, b), True)))
    out = {"games": games, "players": n, "restricted": [], "skill": []}
    with GameRunner(jobs, scheduler) as runner:
        for kind, who, players, table in plays:
            count = -(-games // len(table.agents)) * len(table.agents)  # whole seat rotations
            tot = Totals(players)
            for part, _ in runner.map(chunks(t, rules, players, table.games(seed, players, 0, count))):
                tot.merge(part)
            if kind == "restricted":
                row = {"agent": who, "what": RESTRICTED[who], "players": players, "fair": round(1 / players, 4),
                       **_share(tot, who)}
                if "expert" in table.agents and who != "expert":
                    row["expert"] = _share(tot, "expert")  # the unrestricted expert at the same table
                out["restricted"].append(row)
            else:
                a, b = who
                out["skill"].append({"better": a, "worse": b, "players": players, **_share(tot, a)})
    return out
