"""The agent interface, and `random`, the uniform player of the conformance tests."""

from __future__ import annotations

import random

from mapkit.sim.tables import Tables


class Agent:
    name = "agent"

    def reset(self, seat: int, tables: Tables, players: int, rng: random.Random) -> None:
        self.seat, self.t, self.players, self.rng = seat, tables, players, rng

    def act(self, view, legal) -> tuple:
        """One legal action. `legal` (legal.Legal) is a sequence of every legal action, and also
        answers `draws()`, `claims(routes)` and `tickets()` without listing the rest."""
        raise NotImplementedError


class RandomAgent(Agent):
    name = "random"

    def act(self, view, legal):
        return legal[self.rng.randrange(len(legal))]
