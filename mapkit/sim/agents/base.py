"""The agent interface, and `random`, the uniform player of the conformance tests."""

from __future__ import annotations

import random

from mapkit.sim.tables import Tables


class Agent:
    name = "agent"
    # Optional: `second_draw(view) -> action or None`, the second card of a draw turn chosen off the
    # view alone (no `Legal` is made for it). The referee calls it, when an agent has it, instead of
    # `act` once the first card of a draw turn is taken (phase DRAW2); it must return what `act`
    # would return there, or None to be asked through `act` as usual. Agents without it (None, the
    # default) are always asked through `act`. (the referee's and
    # the planner's work per agent call were a sixth of a 4-player game, a third of the calls
    # the second card.)
    second_draw = None

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
