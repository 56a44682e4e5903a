"""A real look-ahead for the `expert`'s ticket decisions: determinized play-outs (issue 8: "it may
look ahead (determinized rollouts or MCTS over a planner's candidate actions)"; docs/expert.md,
"Eighth round").

Unlike the oracles of expert_oracle.py, these agents never use hidden information. A keep (and,
for `LookaheadDrawAgent`, the draw-or-not decision after the plan) is judged by `samples`
determinizations: copies of the position in which everything this seat cannot see is dealt
again at random from what it could be — the other seats' hands, the deck and the discards
from the cards not in this seat's hand nor face up; the other seats' tickets, their setup
offers and the ticket deck from the tickets this seat has not held nor been offered; a new
engine random stream. What is public stays: routes, trains, face-up cards, how many cards and
tickets each seat holds, the sizes of deck, discards and ticket deck. Each option is played out
from every determinization by the expert (all seats), the same determinizations for every
option (common random numbers), and the option with the best mean final score of this seat is
taken.

The deal is uniform: it does not infer the other seats' tickets from their claims, nor
remember where this seat's returned tickets went (the bottom of the deck) or which cards went
to the discards; a finer model would only sharpen the same estimate.
"""

from __future__ import annotations

import random
from collections import Counter

from mapkit.sim import engine
from mapkit.sim.engine import EMPTY, KEEP_PHASE, REDRAW_PHASE, SETUP
from mapkit.sim.expert_oracle import RolloutDrawOracle, RolloutKeepOracle, _seed_of


def determinize(view, seed: int) -> engine.State:
    """A copy of the position with every field this seat cannot see dealt again at random,
    consistent with what it can see (module docstring). The real state is read only for public
    facts (sizes, counts, owners) and this seat's own hand, tickets and offer."""
    real = view._s
    seat = view.seat
    rng = random.Random(seed)
    s = real.copy()
    t = s.t
    # cards: everything not in this seat's hand nor face up is unknown to it
    unknown = Counter(t.deck)
    for c, n in enumerate(real.hands[seat]):
        unknown[c] -= n
    for c in real.face_up:
        if c != EMPTY:
            unknown[c] -= 1
    cards = [c for c in sorted(unknown) for _ in range(unknown[c])]
    rng.shuffle(cards)
    i = 0
    for p in range(s.players):
        if p == seat:
            continue
        n = sum(real.hands[p])  # public: a hand's size
        hand = [0] * len(real.hands[p])
        for c in cards[i:i + n]:
            hand[c] += 1
        s.hands[p] = hand
        i += n
    s.discard = cards[i:i + len(real.discard)]
    i += len(real.discard)
    s.deck = cards[i:i + len(real.deck)]
    i += len(real.deck)
    assert i == len(cards), "the unknown cards are the other hands, the discards and the deck"
    # tickets: what this seat has held or is offered now, and the market, are known
    own_offer = list(real.offer) if real.current == seat and real.phase in (SETUP, KEEP_PHASE, REDRAW_PHASE) else []
    known = set(real.tickets[seat]) | set(own_offer) | set(real.market)
    pool = [x for x in range(len(real.ticket_pool)) if x not in known]
    rng.shuffle(pool)
    i = 0
    for p in range(s.players):
        if p != seat:
            n = len(real.tickets[p])  # public: how many tickets a seat holds
            s.tickets[p] = pool[i:i + n]
            i += n
    s.setup_left = []
    for p, offer in real.setup_left:  # other seats' starting tickets, dealt and not yet chosen
        s.setup_left.append((p, pool[i:i + len(offer)]))
        i += len(offer)
    if real.current != seat and real.offer:
        s.offer = pool[i:i + len(real.offer)]
        i += len(real.offer)
    s.ticket_deck = pool[i:i + len(real.ticket_deck)]
    i += len(real.ticket_deck)
    assert i == len(pool), "the unknown tickets are the other seats', their offers and the deck"
    s.rng = random.Random(rng.getrandbits(64))  # the future shuffles are unknown too
    return s


class _Determinized:
    """Keep states from determinizations of the seat's view (never the real hidden state)."""

    samples = 8

    def keep_states(self, view):
        base = _seed_of(view._s, self.seat, 0x5EED)
        return [determinize(view, base + 7 * j) for j in range(self.samples)]


class LookaheadKeepAgent(_Determinized, RolloutKeepOracle):
    """Every keep by determinized play-outs (`samples` of them an option)."""

    name = "lookahead-keep"


class LookaheadDrawAgent(_Determinized, RolloutDrawOracle):
    """Keeps and the draw-or-not decision after the plan by determinized play-outs."""

    name = "lookahead-draw"


def register() -> None:
    """Known to `make_agent` for measuring (expert_oracle's entry point) and the tests; not
    playstyles: far too slow for the 20 games a second target (docs/expert.md)."""
    from mapkit.sim.agents import AGENTS

    for cls in (LookaheadKeepAgent, LookaheadDrawAgent):
        AGENTS[cls.name] = cls
