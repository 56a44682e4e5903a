"""The transit expansion (seed 003): what a bus or train station costs, which can be built, and
building one. The readings of the seed are in `RuleSet`'s comments."""

from __future__ import annotations

from mapkit.sim.engine import BUS, EMPTY, STATION, TRAIN, State
from mapkit.sim.tables import GRAY


def station_cost(s: State, st: int, kind: int, color: int, p: int):
    """Cards (color → count) a station costs paid with `color` for its gray routes, or None."""
    t = s.t
    need = {}
    for r in t.routes_at[st]:
        c = t.route_color[r]
        c = color if c == GRAY else c
        need[c] = need.get(c, 0) + 1
    hand, wild = s.hands[p], t.wild
    wilds = (1 if kind == TRAIN else 0) + need.pop(wild, 0)
    pay = {}
    for c, n in need.items():
        if c < 0:
            return None
        use = min(n, hand[c])
        if use:
            pay[c] = use
        wilds += n - use
    if wilds > hand[wild]:
        return None
    if wilds:
        pay[wild] = wilds
    return pay


def station_actions(s: State, p: int) -> list[tuple]:
    """Transit expansion: every bus or train station seat p can build now, one action per
    color chosen for the station's gray routes (-1 when it has none)."""
    t = s.t
    acts = []
    wild = t.wild
    for st in range(t.n_stations):
        routes = t.routes_at[st]
        if not routes:
            continue
        has_gray = any(t.route_color[r] == GRAY for r in routes)
        for kind in (BUS, TRAIN):
            if s.markers[st][kind] != EMPTY:
                continue
            for color in (range(wild + 1) if has_gray else (-1,)):
                if station_cost(s, st, kind, color, p) is not None:
                    acts.append((STATION, st, kind, color))
    return acts


def build_station(s: State, p: int, st: int, kind: int, color: int) -> None:
    pay = station_cost(s, st, kind, color, p)
    played = 0
    for c, n in pay.items():
        s.hands[p][c] -= n
        s.discard.extend([c] * n)
        played += n
    played -= 1 if kind == TRAIN else 0  # the train station's extra wild scores nothing
    table = s.t.points_table
    points = table[min(played, len(table)) - 1] if played else 0
    if s.markers[st][1 - kind] != EMPTY:
        points = (points + 1) // 2  # the second type in a neighborhood scores half, rounded up
    s.markers[st][kind] = p
    s.station_score[p] += points
    s.tokens_left -= 1
    if s.tokens_left == 0 and s.final_turns_left is None:
        s.final_turns_left = s.players + 1  # the builder's own turn is counted down in _end_turn
