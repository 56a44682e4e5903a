"""A deck-independent shuffle of the train cards, for paired games before and after a card change.

The engine's own shuffle (`random.Random(seed).shuffle(deck)`) puts the cards in the order the deck
was built (the palette's colors in blocks) and permutes positions: moving a card between two colors
far apart in the palette shifts every block between them, and a card more changes the permutation
(and leaves the state's generator, which then shuffles the tickets, at another point). `mapkit
tune` compares a board with its changed copy on the same seeds; those games should be as alike as
the change allows.

The coupled shuffle builds the deck card by card, top first, as an exponential race: at position
p every card type (a palette color, or the wild) draws a uniform u[p][c] from its own generator,
seeded from the game's seed and the type's id (the color's id; `WILD_KEY` for the wild), always one
per type and position whatever the counts, and the type with the least -ln(1 - u) / (cards of it
left) takes the position. Keyed by id, not by palette index, a color removed from (or added to)
the palette leaves every other type's numbers as they were. A type with k of the R cards
left wins with chance k / R, so each deck is a uniformly shuffled arrangement of its cards (the
sequential draw without replacement); and since both decks read the same numbers, a deck with one
card moved or added wins the same race at almost every position: the two orders differ in a few
places, not from the change onward. (A keyed sort, one key per card identity, was measured too:
it inserts an added card and shifts everything after it by one place, which reassigns every later
draw between the seats.)

- the new game's deck: the race seeded from the game's seed (salted), drawing nothing from the
  state's generator, so the tickets are dealt the same whatever the train cards;
- a reshuffle of the discards: one 64-bit number from the state's generator seeds its race (always
  one, whatever the discards hold, so the state's generator stays in step between the two decks).

Measured (tests/test_tune_pairing.py; Portland, two route-focus seats, 100 games, the correlation
of the first seat's score before and after): moving a wes card from frequent 0.72 with the
engine's shuffle, 0.83 coupled; a blue card from fx 0.34 → 0.77; one red card more 0.56 → 0.86.

It is an option of the rules (`coupled(rules)`): the engine's default shuffle, and so every game
`mapkit sim` / `mapkit report` play, is unchanged. `mapkit tune` plays both arms of every
comparison with it; the tuned board's report is the normal one.
"""

from __future__ import annotations

import math
import random
import zlib
from dataclasses import dataclass, fields

from mapkit.sim.rules import RuleSet

_SALT = 0x6B657964   # the deck's race is a stream apart from the state's generator
WILD_KEY = "*wild"   # the wild card's id in the race (no palette id can be it: ids are slugs)


def coupled_order(cards: list, base: int, keys: list[str]) -> list:
    """The cards (type indices into `keys`, the types' ids) in race order, the top (drawn first)
    last, as the engine pops them. Each type draws one number per position from its own stream,
    seeded by `base` and its id, whatever the counts: every deck reads the same numbers for a type
    of the same id."""
    types = len(keys)
    left = [0] * types
    for c in cards:
        left[c] += 1
    rnds = [random.Random((base << 32) ^ zlib.crc32(k.encode("utf-8"))).random for k in keys]
    log, inf = math.log, math.inf
    out = []
    for _ in range(len(cards)):
        best, won = inf, -1
        for c in range(types):
            u = rnds[c]()
            k = left[c]
            if k:
                v = -log(1.0 - u) / k
                if v < best:
                    best, won = v, c
        left[won] -= 1
        out.append(won)
    out.reverse()
    return out


def shuffle_cards(s, seed) -> None:
    """The engine's hook: order `s.deck`, the new game's deck (seed given) or the discards just
    made the deck (seed None: a reshuffle, its race seeded by one number of the state's generator)."""
    if seed is not None:
        base = (int(seed) ^ _SALT) & ((1 << 64) - 1)
    else:
        base = s.rng.getrandbits(64)
    s.deck = coupled_order(s.deck, base, [*s.t.color_ids, WILD_KEY])


@dataclass(frozen=True)
class CoupledRules(RuleSet):
    """A ruleset whose games shuffle the train cards with the coupled shuffle (the rules themselves
    are the same; the engine calls `card_shuffle` when the rules have one)."""

    def card_shuffle(self, s, seed) -> None:
        shuffle_cards(s, seed)


def coupled(rules: RuleSet) -> CoupledRules:
    """The same rules, played with the deck-independent shuffle."""
    if isinstance(rules, CoupledRules):
        return rules
    return CoupledRules(**{f.name: getattr(rules, f.name) for f in fields(rules)})
