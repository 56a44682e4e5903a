"""What one seat may see of a game: its own hand and tickets, and everything public."""

from __future__ import annotations

from operator import attrgetter

from mapkit.sim import engine
from mapkit.sim.engine import State


class SeatView:
    """A seat's window on the state. Agents get this, never the state: the deck order, the other
    hands (unless teammates play with open hands) and the other seats' tickets (unless tickets are
    open, or a teammate's under open hands) are not reachable from it."""

    __slots__ = ("_s", "seat")

    # A property that only reads a field of the state is an `attrgetter` (C code, no Python call):
    # agents read these thousands of times a game (the expert some 4,000 times a 4-player game).

    def __init__(self, state: State, seat: int):
        self._s = state
        self.seat = seat

    # static facts
    tables = property(attrgetter("_s.t"))

    rules = property(attrgetter("_s.rules"))

    players = property(attrgetter("_s.players"))

    # own, private
    @property
    def hand(self) -> tuple[int, ...]:
        return tuple(self._s.hands[self.seat])

    @property
    def tickets(self) -> tuple[tuple[int, int, int], ...]:
        return tuple(map(self._s.ticket_pool.__getitem__, self._s.tickets[self.seat]))

    @property
    def own_trains(self) -> int:
        """trains[seat], without copying every seat's count (planners read it several times a turn)."""
        return self._s.trains[self.seat]

    @property
    def hand_count(self) -> int:
        """sum(hand), without copying the hand."""
        return sum(self._s.hands[self.seat])

    def hand_list(self) -> list[int]:
        """The hand as a new list (a copy the caller may change)."""
        return list(self._s.hands[self.seat])

    @property
    def fewest_trains(self) -> int:
        """min(trains), without copying every seat's count."""
        return min(self._s.trains)

    @property
    def ticket_count(self) -> int:
        """len(tickets), without building them (planners check it every turn)."""
        return len(self._s.tickets[self.seat])

    @property
    def offer(self) -> tuple[tuple[int, int, int], ...]:
        """Tickets offered to this seat now (while it chooses which to keep)."""
        if self._s.current != self.seat:
            return ()
        pool = self._s.ticket_pool
        return tuple(pool[i] for i in self._s.offer)

    min_keep = property(attrgetter("_s.min_keep"))

    def connected(self, a: int, b: int) -> bool:
        # engine.connected with its two _find calls written out (the expert asks this some 2,400
        # times a 4-player game): the same path halving, so the parent lists change as they did
        parent = self._s.parent[self.seat]
        while parent[a] != a:
            parent[a] = a = parent[parent[a]]
        while parent[b] != b:
            parent[b] = b = parent[parent[b]]
        return a == b

    # public
    phase = property(attrgetter("_s.phase"))

    @property
    def face_up(self) -> tuple[int, ...]:
        return tuple(self._s.face_up)

    # Owner seat of each route, or -1. A read-only copy would cost a list per call; agents
    # must not modify it (the runner's invariant tests would catch it).
    owner = property(attrgetter("_s.owner"))

    # The routes claimed so far, in play order (all seats): `claim_log[k:claimed]` are those
    # claimed since `claimed` was k. Not a copy: agents must not modify it. (A position made by
    # hand may own routes it never logged: then len(claim_log) != claimed.)
    claim_log = property(attrgetter("_s.claim_log"))

    # How many routes were claimed so far, by all seats: a planner's cached costs and plan hold
    # while it is unchanged (claims are the only changes of `owner` in play).
    claimed = property(attrgetter("_s.claimed"))

    def claims_of(self, seat: int) -> list[int]:
        """The routes a seat has claimed, in the order it claimed them (public). The state's own
        list, not a copy: agents must not modify it."""
        return self._s.claims[seat]

    # For each route: may both tracks of its double be claimed in this game?
    shared_doubles = property(attrgetter("_s.shared"))

    # Transit expansion: [bus owner, train owner] of each station, -1 for none.
    markers = property(attrgetter("_s.markers"))

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
        return tuple(map(sum, self._s.hands))

    def hand_size(self, seat: int) -> int:
        """How many train cards a seat holds (public), without counting every hand."""
        return sum(self._s.hands[seat])

    @property
    def final_round(self) -> bool:
        return self._s.final_turns_left is not None

    turn = property(attrgetter("_s.turn"))

    def component(self, station: int) -> int:
        """An id of the part of this seat's network that holds `station` (equal ids: connected)."""
        return engine._find(self._s.parent[self.seat], station)

    # teams (seed 002 §6, team play)
    def team_of(self, seat: int) -> int:
        """The team of a seat (each seat is its own team when teams are not played)."""
        return self._s.team_of[seat]

    def teammates(self) -> tuple[int, ...]:
        """The other seats of this seat's team; () when teams are not played."""
        s = self._s
        if not s.rules.teams:
            return ()
        return tuple(q for q in range(s.players) if q != self.seat and s.team_of[q] == s.team_of[self.seat])

    def can_see(self, seat: int) -> bool:
        """May this seat see `seat`'s hand and tickets? Its own always; a teammate's when the team
        discusses plans openly (`team_open_hands`)."""
        return seat == self.seat or (self._s.rules.team_open_hands and seat in self.teammates())

    def hand_of(self, seat: int) -> tuple[int, ...]:
        """A seat's train cards: this seat's, or a teammate's under `team_open_hands`."""
        if not self.can_see(seat):
            raise PermissionError("hands are secret unless teammates play with open hands (variant teams-open)")
        return tuple(self._s.hands[seat])

    def tickets_of(self, seat: int) -> tuple:
        """A seat's tickets if this seat may see them (own; a teammate's under `team_open_hands`;
        anyone's with open tickets), else () — a seat that may not look sees nothing."""
        s = self._s
        if not (self.can_see(seat) or s.rules.open_tickets):
            return ()
        pool = s.ticket_pool
        return tuple(pool[i] for i in s.tickets[seat])

    def open_tickets(self, seat: int) -> tuple:
        """Another seat's tickets, visible only with the open-tickets variant (or to a teammate
        under `team_open_hands`); raises PermissionError otherwise."""
        if not (self._s.rules.open_tickets or self.can_see(seat)):
            raise PermissionError("tickets are secret unless the open-tickets variant is played")
        pool = self._s.ticket_pool
        return tuple(pool[i] for i in self._s.tickets[seat])
