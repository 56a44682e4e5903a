"""What one seat may see of a game: its own hand and tickets, and everything public."""

from __future__ import annotations

from mapkit.sim import engine
from mapkit.sim.engine import State


class SeatView:
    """A seat's window on the state. Agents get this, never the state: the deck order, the other
    hands and (unless tickets are open) the other seats' tickets are not reachable from it."""

    __slots__ = ("_s", "seat")

    def __init__(self, state: State, seat: int):
        self._s = state
        self.seat = seat

    # static facts
    @property
    def tables(self):
        return self._s.t

    @property
    def rules(self):
        return self._s.rules

    @property
    def players(self) -> int:
        return self._s.players

    # own, private
    @property
    def hand(self) -> tuple[int, ...]:
        return tuple(self._s.hands[self.seat])

    @property
    def tickets(self) -> tuple[tuple[int, int, int], ...]:
        pool = self._s.ticket_pool
        return tuple(pool[i] for i in self._s.tickets[self.seat])

    @property
    def offer(self) -> tuple[tuple[int, int, int], ...]:
        """Tickets offered to this seat now (while it chooses which to keep)."""
        if self._s.current != self.seat:
            return ()
        pool = self._s.ticket_pool
        return tuple(pool[i] for i in self._s.offer)

    @property
    def min_keep(self) -> int:
        return self._s.min_keep

    def connected(self, a: int, b: int) -> bool:
        return engine.connected(self._s, self.seat, a, b)

    # public
    @property
    def phase(self) -> int:
        return self._s.phase

    @property
    def face_up(self) -> tuple[int, ...]:
        return tuple(self._s.face_up)

    @property
    def owner(self) -> list[int]:
        """Owner seat of each route, or -1. A read-only copy would cost a list per call; agents
        must not modify it (the runner's invariant tests would catch it)."""
        return self._s.owner

    @property
    def shared_doubles(self) -> list[bool]:
        """For each route: may both tracks of its double be claimed in this game?"""
        return self._s.shared

    @property
    def markers(self) -> list[list[int]]:
        """Transit expansion: [bus owner, train owner] of each station, -1 for none."""
        return self._s.markers

    @property
    def trains(self) -> tuple[int, ...]:
        return tuple(self._s.trains)

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self._s.route_score)

    @property
    def deck_size(self) -> int:
        return len(self._s.deck)

    @property
    def discard_size(self) -> int:
        return len(self._s.discard)

    @property
    def tickets_left(self) -> int:
        return len(self._s.ticket_deck)

    @property
    def market(self) -> tuple[tuple[int, int, int], ...]:
        pool = self._s.ticket_pool
        return tuple(pool[i] for i in self._s.market)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(sum(h) for h in self._s.hands)

    @property
    def final_round(self) -> bool:
        return self._s.final_turns_left is not None

    @property
    def turn(self) -> int:
        return self._s.turn

    def open_tickets(self, seat: int) -> tuple:
        """Another seat's tickets, visible only with the open-tickets variant."""
        if not self._s.rules.open_tickets and seat != self.seat:
            raise PermissionError("tickets are secret unless the open-tickets variant is played")
        pool = self._s.ticket_pool
        return tuple(pool[i] for i in self._s.tickets[seat])
