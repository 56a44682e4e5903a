"""A game's state and the words its actions are made of: the action kinds, the station types,
the phases, and `State`, one position of a game (the engine, mapkit.sim.engine, changes it)."""

from __future__ import annotations

import random
from collections import Counter

# action kinds
FACE_UP, BLIND, CLAIM, TICKETS, KEEP, PASS, STATION, REDRAW = range(8)
BUS, TRAIN = 0, 1
# phases (REDRAW, the quick game's optional ticket replacement at setup, is numbered last so that
# the older phase numbers do not change)
SETUP, TURN, DRAW2, KEEP_PHASE, OVER, REDRAW_PHASE = range(6)
EMPTY = -1


class State:
    """One position of a game. Mutable for speed: `apply` changes it in place; `copy` clones."""

    __slots__ = (
        "t", "rules", "players", "rng", "deck", "discard", "face_up", "hands", "trains", "owner",
        "route_score", "tickets", "ticket_pool", "ticket_deck", "market", "offer", "min_keep",
        "phase", "current", "turn", "turns_taken", "final_turns_left", "gaps", "parent", "claims",
        "pass_streak", "team_of", "setup_left", "end_reason", "redraws_left", "shared", "markers",
        "tokens_left", "station_score", "open_routes", "claimed", "claim_log",
    )

    def copy(self) -> "State":
        s = State.__new__(State)
        s.t, s.rules, s.players = self.t, self.rules, self.players
        s.rng = random.Random()
        s.rng.setstate(self.rng.getstate())
        for name in ("deck", "discard", "face_up", "trains", "owner", "route_score", "ticket_deck", "market",
                     "offer", "turns_taken", "team_of", "station_score"):
            setattr(s, name, list(getattr(self, name)))
        s.shared = self.shared
        s.markers = [list(m) for m in self.markers]
        s.tokens_left = self.tokens_left
        s.setup_left = [(p, list(o)) for p, o in self.setup_left]
        s.hands = [list(h) for h in self.hands]
        s.tickets = [list(x) for x in self.tickets]
        s.parent = [list(x) for x in self.parent]
        s.claims = [list(x) for x in self.claims]
        s.claim_log = list(self.claim_log)
        s.open_routes = [list(x) for x in self.open_routes]
        s.ticket_pool = self.ticket_pool
        s.gaps = Counter(self.gaps)
        for name in ("min_keep", "phase", "current", "turn", "final_turns_left", "pass_streak", "end_reason", "redraws_left",
                     "claimed"):
            setattr(s, name, getattr(self, name))
        return s
