"""Lines → routes: consecutive kept stations of each line's representative pattern, shared
segments as double routes, lengths scaled to the trains five players bring.

- A route joins two consecutive kept stations of a line; its distance is measured along the
  line (through the stations thinned away), so a winding or looping line keeps its length.
- Where lines share a segment it is a double route only beside a frequent line and on at most
  DOUBLE_SHARE of the segments (plan_tracks); the two most frequent lines' colors on its two
  tracks (a second line of the same card color gives way to the next line of another color);
  lines beyond those drawn are reported. A card color that would have no track gets one.
- Lengths are distance ** EXPONENT (compressed) × one scale for the whole board, rounded, at least 1, the scale chosen as
  the smallest that gives the board ROOM × the trains of five players (the standard ruleset: 45
  each) in spaces, but no larger than puts the longest routes at MAX_LENGTH (the longest
  CLIP_SHARE of them may be cut to it): lengths follow distance, and a network too small for
  that plays with fewer trains. The standard map has about 1.4 spaces per
  train; `validate` warns below 1.25.
- The route scoring table is the standard one to 6, extended past it as the published maps do
  (7: 18, 8: 21, 9: 27), then by 6 a space.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from mapkit.importers.gtfs.stations import Station, haversine_m

PLAYERS = 5
TRAINS = 45           # the standard ruleset's trains per player
# spaces per train at the most players, the standard map's room to spare: boards/north-america.json
# has 309 spaces (both tracks of its doubles) for 5 players of 45 trains
STANDARD_SPACES = 309
ROOM = STANDARD_SPACES / (PLAYERS * TRAINS)      # 1.373
MAX_LENGTH = 8        # the points table extended as the published maps do (7: 18, 8: 21)
# fewest trains a player, as the published city maps have (New York 15 taxis, Amsterdam 16 carts,
# London 17 buses, for 2-4 players): a network holding fewer for five players is played by fewer
# (players_and_trains)
MIN_TRAINS = 15
MIN_PLAYERS = 2
# five players only with at least this many trains each (the quick variant's 30): five players on
# a city map's 15-17 trains would fill it in a few turns
FIVE_PLAYER_TRAINS = 30
# length ∝ distance ** EXPONENT: a 12 km commuter-rail stretch is not twelve times a 1 km metro
# hop on a board (the published city maps are schematic too); 1 would be strictly proportional
EXPONENT = 0.6
# the longest CLIP_SHARE of the routes may be cut to MAX_LENGTH, so that one outlying stretch (a
# 25 km express run) does not shrink every other route and the trains with them
CLIP_SHARE = 0.05
# doubles: only beside a line at least this share of the median line's trips, and on at most this
# share of the segments (the standard map doubles about a quarter of its segments)
DOUBLE_MIN_SHARE = 0.75
DOUBLE_SHARE = 0.2


def route_points(longest: int) -> list[int]:
    table = [1, 2, 4, 7, 10, 15, 18, 21]
    while len(table) < longest:
        table.append(table[-1] + 6)
    return table[:max(6, longest)]


@dataclass
class Segment:
    a: str
    b: str
    lines: list            # route ids of the lines using it, most frequent first
    distance_m: float
    via: frozenset = frozenset()   # stations the lines pass between a and b (thinned away)


def segments(patterns: dict[str, tuple[str, ...]], kept: set, stations: dict[str, Station],
             trips: dict[str, int]) -> list[Segment]:
    """One Segment per pair of stations that some line runs between without a kept stop."""
    by_pair: dict[frozenset, dict[str, float]] = defaultdict(dict)
    via: dict[frozenset, set] = defaultdict(set)
    order: list[frozenset] = []
    for line_id, p in patterns.items():
        prev, dist, between = None, 0.0, []
        for i, s in enumerate(p):
            if i:
                dist += haversine_m((stations[p[i - 1]].lat, stations[p[i - 1]].lon), (stations[s].lat, stations[s].lon))
            if s in kept:
                if prev is not None and prev != s:
                    pair = frozenset((prev, s))
                    if pair not in by_pair:
                        order.append(pair)
                    # the same line twice on a pair (a loop line) counts once, at its shorter run
                    old = by_pair[pair].get(line_id)
                    by_pair[pair][line_id] = dist if old is None else min(old, dist)
                    via[pair].update(between)
                prev, dist, between = s, 0.0, []
            else:
                between.append(s)
    out = []
    for pair in order:
        users = by_pair[pair]
        a, b = sorted(pair)
        ranked = sorted(users, key=lambda ln: (-trips.get(ln, 0), ln))
        out.append(Segment(a, b, ranked, sum(users.values()) / len(users), frozenset(via[pair])))
    return out


def plan_tracks(segs: list[Segment], color_of: dict[str, str], trips: dict[str, int],
                every_color: bool = True) -> tuple[list, list[dict], list[dict]]:
    """([(segment, [line of track 1, line of track 2?])], segments with more than two lines,
    shared segments left single).

    Track 1 is the most frequent line. A second track only where the line beside it is frequent
    too (at least DOUBLE_MIN_SHARE of the median line's trips) and, of the segments that qualify,
    for the DOUBLE_SHARE of all segments whose second line runs most: a bus network shares most
    of its streets, and a board of doubles is hard to draw and leaves nothing to block. Track 2 is
    the next most frequent line of another card color when there is one (two tracks of one color
    add nothing to choose between), else the next line. every_color: give a color whose lines only
    run beside others a track (off when the colors are more line families than the deck keeps)."""
    ranked_trips = sorted(trips.values())
    median = ranked_trips[len(ranked_trips) // 2] if ranked_trips else 0
    second_of = {}
    for k, sg in enumerate(segs):
        if len(sg.lines) > 1:
            first = sg.lines[0]
            others = [x for x in sg.lines[1:] if color_of[x] != color_of[first]] or sg.lines[1:]
            second_of[k] = others[0]
    eligible = sorted((k for k, x in second_of.items() if trips.get(x, 0) >= DOUBLE_MIN_SHARE * median),
                      key=lambda k: (-trips.get(second_of[k], 0), -segs[k].distance_m, k))
    cap = max(1, round(DOUBLE_SHARE * len(segs)))
    doubled = set(eligible[:cap])
    if every_color:
        _every_color_drawn(segs, color_of, second_of, doubled)
    plans, crowded, single = [], [], []
    for k, sg in enumerate(segs):
        first = sg.lines[0]
        second = second_of.get(k) if k in doubled else None
        if len(sg.lines) > 2 or (len(sg.lines) > 1 and second is None):
            entry = {"between": [sg.a, sg.b], "lines": list(sg.lines), "drawn": [first] + ([second] if second else [])}
            (crowded if len(sg.lines) > 2 else single).append(entry)
        plans.append((sg, [first] + ([second] if second else [])))
    return plans, crowded, single


def lengths_at(distances: list[float], scale: float) -> list[int]:
    return [min(MAX_LENGTH, max(1, round((d / 1000) ** EXPONENT * scale))) for d in distances]


def _every_color_drawn(segs, color_of, second_of, doubled) -> None:
    """A card color whose lines only ever run beside more frequent ones would have no track (a
    card nobody can spend): give it a second track on its longest segment, over the cap (in place)."""
    def drawn():
        out = set()
        for k, sg in enumerate(segs):
            out.add(color_of[sg.lines[0]])
            if k in doubled:
                out.add(color_of[second_of[k]])
        return out

    for color in sorted(set(color_of.values()) - {"gray"} - drawn()):
        spots = sorted(((-sg.distance_m, k, x) for k, sg in enumerate(segs) for x in sg.lines[1:]
                        if color_of[x] == color and color_of[sg.lines[0]] != color), key=lambda t: (t[0], t[1]))
        free = [t for t in spots if t[1] not in doubled]
        if not (free or spots):
            continue
        _, k, x = (free or spots)[0]
        second_of[k] = x
        doubled.add(k)


def scale_lengths(distances: list[float], tracks: list[int], target_spaces: int) -> tuple[list[int], float, bool]:
    """(lengths, scale in spaces per km ** EXPONENT, whether the target was reached)."""

    def lengths(scale):
        return lengths_at(distances, scale)

    def total(ls):
        return sum(n * t for n, t in zip(ls, tracks))

    # lengths stay proportional to distance: the scale stops where the longest route reaches
    # MAX_LENGTH; a network too small for the target at that scale plays with fewer trains
    ranked = sorted(distances)
    longest_km = ranked[max(0, math.ceil(len(ranked) * (1 - CLIP_SHARE)) - 1)] / 1000 if ranked else 0
    ceiling = (MAX_LENGTH + 0.49) / longest_km ** EXPONENT if longest_km > 0 else 1e6
    if total(lengths(ceiling)) < target_spaces:
        return lengths(ceiling), ceiling, False
    lo, hi = 1e-6, ceiling
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if total(lengths(mid)) >= target_spaces:
            hi = mid
        else:
            lo = mid
        if hi / lo < 1 + 1e-9:
            break
    return lengths(hi), hi, True


def players_and_trains(spaces: int) -> tuple[int, int] | None:
    """(most players, trains per player) that `spaces` hold with the standard map's ROOM, as the
    published maps do: 45 trains at five players when the network has the room, else fewer trains;
    below FIVE_PLAYER_TRAINS at five players, 2-4 players with at least MIN_TRAINS as the city maps
    have, then fewer players; None when even two players would have fewer."""
    for players in range(PLAYERS, MIN_PLAYERS - 1, -1):
        trains = min(TRAINS, math.floor(spaces / (players * ROOM)))
        if trains >= (FIVE_PLAYER_TRAINS if players == PLAYERS else MIN_TRAINS):
            return players, trains
    return None
