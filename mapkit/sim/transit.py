"""The transit expansion (seed 003): what a bus or train station costs, which can be built, and
building one. The readings of the seed are in `RuleSet`'s comments and docstring.

A station costs one card per route into the neighborhood (003: "1 automobile card of a matching
color for every route leading into that neighborhood (gray may be any color)"): a colored route
takes a card of its color, each gray route one card of any color, chosen freely route by route
(nothing makes two gray routes match). A train station also discards one wild card.

An action is (STATION, station, BUS or TRAIN, color). `color` is -1 for a neighborhood without gray
routes; with gray routes it is the color the seat pays them with first (a color it still holds
after the colored routes, or the wild card). Gray routes that color cannot cover take the seat's
least plentiful other colors (spending odd cards, keeping sets for claims; ties in palette order),
and wild cards last. Colored routes take their own color, wild cards standing in for missing ones
(spending a wild where the color would do is never better, so it is not offered).
"""

from __future__ import annotations

from mapkit.sim.state import BUS, EMPTY, STATION, TRAIN, State


def _fixed_part(s: State, st: int, kind: int, p: int):
    """(cards the seat has left, payment so far, wild cards owed) after the colored routes into st
    and a train station's extra wild."""
    left = list(s.hands[p])
    pay = {}
    wilds = 1 if kind == TRAIN else 0
    for c, n in s.t.station_colors[st]:
        use = n if n <= left[c] else left[c]
        if use:
            left[c] -= use
            pay[c] = use
        wilds += n - use
    return left, pay, wilds


def _gray_part(left: list, pay: dict, wilds: int, gray: int, color: int, wild: int):
    """The payment with the gray routes paid `color` first, or None if the seat cannot pay."""
    pay = dict(pay)
    need = gray
    if color == wild:
        avail = left[wild] - wilds
        if avail < 1:
            return None
        use = need if need <= avail else avail
        wilds += use
        need -= use
    else:
        if left[color] < 1:
            return None
        use = need if need <= left[color] else left[color]
        pay[color] = pay.get(color, 0) + use
        need -= use
    if need:
        others = sorted((left[c], c) for c in range(wild) if c != color and left[c])
        for n, c in others:
            use = need if need <= n else n
            pay[c] = pay.get(c, 0) + use
            need -= use
            if not need:
                break
        wilds += need
    if wilds > left[wild]:
        return None
    if wilds:
        pay[wild] = wilds
    return pay


def station_cost(s: State, st: int, kind: int, color: int, p: int):
    """Cards (color → count) the station (STATION, st, kind, color) costs seat p, or None if it is
    not a payment the seat can make (see the module docstring)."""
    t = s.t
    gray = t.station_gray[st]
    if not t.routes_at[st]:
        return None
    left, pay, wilds = _fixed_part(s, st, kind, p)
    if not gray:
        if color != -1 or wilds > left[t.wild]:
            return None
        if wilds:
            pay[t.wild] = wilds
        return pay
    if not 0 <= color <= t.wild:
        return None
    return _gray_part(left, pay, wilds, gray, color, t.wild)


def station_actions(s: State, p: int, only=None) -> list[tuple]:
    """Transit expansion: every bus or train station seat p can build now, one action per color
    that can pay its gray routes first (-1 when it has none). `only`: the stations to consider.

    The same rule as `station_cost`, counted instead of paid (this runs every turn): after the
    colored routes, the gray routes can be paid iff they are no more than the regular cards left
    plus the spare wilds, whichever color pays first; a color can be named if one is left."""
    t = s.t
    acts = []
    wild = t.wild
    hand = s.hands[p]
    hw = hand[wild]
    regular = sum(hand) - hw
    cards = regular + hw
    markers = s.markers
    colors_at, gray_at, routes_at = t.station_colors, t.station_gray, t.routes_at
    for st in (range(t.n_stations) if only is None else only):
        routes = routes_at[st]
        if not routes or len(routes) > cards:
            continue
        mk = markers[st]
        if mk[BUS] != EMPTY and mk[TRAIN] != EMPTY:
            continue
        owed = spent = 0
        used = {}
        for c, n in colors_at[st]:
            h = hand[c]
            if n <= h:
                used[c] = n
                spent += n
            else:
                used[c] = h
                spent += h
                owed += n - h
        gray = gray_at[st]
        rest = regular - spent
        for kind in (BUS, TRAIN):
            if mk[kind] != EMPTY:
                continue
            spare = hw - owed - kind  # a train station (TRAIN == 1) also discards a wild card
            if spare < 0:
                continue
            if not gray:
                acts.append((STATION, st, kind, -1))
                continue
            if gray > rest + spare:
                continue
            for c in range(wild):
                if hand[c] > used.get(c, 0):
                    acts.append((STATION, st, kind, c))
            if spare:
                acts.append((STATION, st, kind, wild))
    return acts


def build_station(s: State, p: int, st: int, kind: int, color: int) -> None:
    pay = station_cost(s, st, kind, color, p)
    played = 0
    for c, n in pay.items():
        s.hands[p][c] -= n
        s.discard.extend([c] * n)
        played += n
    played -= 1 if kind == TRAIN else 0  # the train station's extra wild scores nothing (003)
    table = s.t.points_table
    # past the end of the board's scoring table a station scores its last value (RuleSet docstring)
    points = table[min(played, len(table)) - 1] if played else 0
    if s.markers[st][1 - kind] != EMPTY:
        points = (points + 1) // 2  # the second type in a neighborhood scores half, rounded up (003)
    s.markers[st][kind] = p
    s.station_score[p] += points
    s.tokens_left -= 1
    if s.tokens_left == 0 and s.final_turns_left is None:
        s.final_turns_left = s.players + 1  # the builder's own turn is counted down in _end_turn
