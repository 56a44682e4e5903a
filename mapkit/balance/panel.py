"""The agent panel: which tables a balance report plays, and the seed and seats of every game.

For each player count the report plays, per panel agent, a self-play table (every seat that
agent), and, when the panel has two agents or more, one mixed table in which seat s of game i is
played by panel agent (s + i) mod m (m panel agents): over every m consecutive games each agent
sits in each seat exactly once, so seat effects and agent strength do not mix.

Seeds: table k at n players draws its games from SeedSequence([seed, n, k]); game i is that
sequence's i-th child, so a game is the same whichever batch plays it, and seed s at n players
shares nothing with seed s+1 at n-1 players. Table indices follow the panel order, the mixed
table last.
"""

from __future__ import annotations

from dataclasses import dataclass

from mapkit.sim.runner import game_seeds

# The default panel: distinct playstyles. One line to change (e.g. add "expert" once it exists);
# names missing from the agent registry are left out, so the panel works on any branch.
PANEL = ("route-focus", "ticket-hungry", "one-step", "expert")


def default_panel() -> list[str]:
    from mapkit.sim.agents import AGENTS

    return [a for a in PANEL if a in AGENTS]


@dataclass(frozen=True)
class Table:
    index: int          # position in the report's tables (and in the seed)
    label: str          # "self-play route-focus" or "mixed route-focus/ticket-hungry/one-step"
    agents: tuple[str, ...]  # panel agents playing at it
    mixed: bool

    def lineup(self, game: int, players: int) -> list[str]:
        """Agent of every seat in game number `game` of this table."""
        if not self.mixed:
            return [self.agents[0]] * players
        m = len(self.agents)
        return [self.agents[(s + game) % m] for s in range(players)]

    def games(self, seed: int, players: int, start: int, count: int) -> list[tuple[int, list[str]]]:
        """(game seed, agents by seat) of games start..start+count-1."""
        seeds = game_seeds([seed, players, self.index], count, start)
        return [(s, self.lineup(start + i, players)) for i, s in enumerate(seeds)]


def panel_tables(panel: list[str]) -> list[Table]:
    tables = [Table(k, f"self-play {a}", (a,), False) for k, a in enumerate(panel)]
    if len(panel) > 1:
        tables.append(Table(len(panel), "mixed " + "/".join(panel), tuple(panel), True))
    return tables


def rotation(panel: list[str]) -> int:
    """Games per full seat rotation at the mixed table: batches are whole multiples of it."""
    return len(panel) if len(panel) > 1 else 1
