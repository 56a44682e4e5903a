"""Measuring tools for the `expert`: agents that bound what a better ticket or card decision could
gain. Not playstyles, and not part of mapkit: the oracles read the hidden state.

The oracles CHEAT on purpose: they read the real game state behind their SeatView (`view._s`),
which no playstyle may do. They are not in `mapkit.sim.agents.AGENTS` unless `register()` is
called (this script's entry point and tests/test_expert_oracles.py do); they answer "how far
could a better decision of this kind take the winner's score, if it were made with perfect
knowledge?".

- `ClairvoyantDrawAgent` (oracle-draw): when the expert weighs a ticket draw (its plan done, from
  three players), it values the tickets the draw WOULD give (the top of the real ticket deck) by
  the expert's own per-ticket value instead of the expectation over the unseen pool, and draws
  only when that offer is worth `oracle_draw_min`. The keep after the draw is the expert's.
  This bounds better draw timing (drawing exactly when the offer fits the network).
- `CardClairvoyantAgent` (oracle-cards): knows the blind card.
- `RolloutKeepOracle` (oracle-keep): every keep (setup and after a draw) is judged by playing the
  rest of the game out from a copy of the REAL state with each keep option (all seats the
  expert, the same engine random stream for every option: one perfect-information
  determinization), keeping the option whose play-out gives this seat the most points.
- `RolloutDrawOracle` (oracle-keep-draw): as oracle-keep, and also the draw-or-not decision after
  the plan is judged the same way (draw now, keep by rollout, against the expert's turn without a
  draw). `AllOracle` (oracle-all): both, and the blind card.
- `LookaheadKeepAgent`, `LookaheadDrawAgent` (lookahead-keep, lookahead-draw): the same two
  decisions by honest look-ahead, below.

The look-ahead agents never use hidden information. A keep (and, for `LookaheadDrawAgent`, the draw-or-not decision after the plan) is judged by `samples`
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

Run one (the figures of `mapkit simulate --format json`):

    python bench/expert_oracles.py oracle-draw --games 1000 --seed 23
"""

from __future__ import annotations

import random
from collections import Counter

from mapkit.sim import engine
from mapkit.sim.engine import BLIND, EMPTY, FACE_UP, KEEP_PHASE, REDRAW_PHASE, SETUP
from mapkit.sim.agents.expert import ExpertAgent
from mapkit.sim.legal import Legal, draw_legal
from mapkit.sim.paths import INF
from mapkit.sim.scoring import final_scores
from mapkit.sim.view import SeatView


# ---------------------------------------------------------------------------- play-outs

class RolloutExpert(ExpertAgent):
    """The expert as the play-out policy, started in the middle of a game.

    A fresh ExpertAgent takes the seats' most trains at its first look as the trains everyone
    started with (`_start_trains`), which is wrong mid-game and makes its clock run long; the
    rules' count is what every seat started with. `no_draw_once`: its first ticket-draw question
    is answered "no" (the other branch of a draw-or-not comparison)."""

    no_draw_once = False

    def _turns_left(self, view):
        if self._start_trains is None:
            self._start_trains = view.rules.trains_for(view.players)
        return super()._turns_left(view)

    def draw_value(self, view, trains, turns, planned=None):
        if self.no_draw_once and planned is None:
            self.no_draw_once = False
            return -INF
        return super().draw_value(view, trains, turns, planned)


def rollout_agents(s: engine.State, seed: int, cls=RolloutExpert) -> list:
    """One fresh play-out agent a seat, seeded from `seed` (the expert does not use its random
    stream, but a seeded one keeps any policy that does reproducible)."""
    rng = random.Random(seed)
    agents = []
    for p in range(s.players):
        a = cls()
        a.reset(p, s.t, s.players, random.Random(rng.getrandbits(64)))
        agents.append(a)
    return agents


def play_out(s: engine.State, agents: list) -> list[dict]:
    """Play `s` (changed in place) to its end with `agents`, as runner.play_game plays a game
    (an illegal or failing action forfeits as there), and return the final score rows."""
    views = [SeatView(s, p) for p in range(s.players)]
    OVER, DRAW2 = engine.OVER, engine.DRAW2
    apply = engine.apply
    while s.phase != OVER:
        p = s.current
        second = agents[p].second_draw
        if s.phase == DRAW2 and second is not None:
            a = second(views[p])
            if a is not None:
                if draw_legal(s, a):
                    apply(s, a)
                else:
                    engine._end_turn(s)
                continue
        legal = Legal(s)
        try:
            a = agents[p].act(views[p], legal)
            ok = a in legal
        except Exception:  # a play-out must end like a refereed game, whatever the agent does
            ok = False
        if not ok:
            if s.phase in (SETUP, KEEP_PHASE):
                a = (engine.KEEP, (1 << s.min_keep) - 1)
            elif s.phase == DRAW2:
                engine._end_turn(s)
                continue
            else:
                a = (engine.PASS,)
        apply(s, a)
    return final_scores(s)


def option_scores(states, seat: int, first_actions, seeds, cls=RolloutExpert, no_draw=None) -> list[float]:
    """Mean final score of `seat` for each option: option i applies `first_actions[i]` (None: no
    action; the play-out agents move first) to a copy of every state of `states` and plays it
    out. The same states (and their random streams) for every option: common random numbers,
    so the options differ by the option, not by luck. `no_draw`: the options whose seat declines
    its first ticket draw (RolloutExpert.no_draw_once)."""
    out = []
    for i, first in enumerate(first_actions):
        total = 0.0
        for s0, seed in zip(states, seeds):
            s = s0.copy()
            agents = rollout_agents(s, seed, cls)
            if no_draw is not None and i in no_draw:
                agents[seat].no_draw_once = True
            if first is not None:
                engine.apply(s, first)
            total += play_out(s, agents)[seat]["total"]
        out.append(total / len(states))
    return out


def _seed_of(s: engine.State, seat: int, salt: int) -> int:
    """A play-out seed fixed by the position (turn, seat, claims made), so a game replays."""
    return (s.turn * 1_000_003 + seat * 7919 + s.claimed * 31 + salt) & 0xFFFFFFFF


# ---------------------------------------------------------------------------- oracle a

class ClairvoyantDrawAgent(ExpertAgent):
    """Oracle a: the ticket draw's value from the tickets the draw would really give."""

    name = "oracle-draw"
    oracle_draw_min = None  # None: the expert's own bar (draw_ev_min)

    def draw_value(self, view, trains, turns, planned=None):
        if planned is not None:
            return super().draw_value(view, trains, turns, planned)
        s = view._s  # the cheat: the real ticket deck
        k = view.rules.draw_tickets
        offer = [s.ticket_pool[i] for i in s.ticket_deck[:k]]
        if not offer:
            return -INF
        v = self.offer_value(view, trains, turns, offer)
        bar = self.oracle_draw_min
        # `_act` compares the value with draw_ev_min: move the value by the difference of bars
        return v if bar is None else v - bar + self.draw_ev_min

    def offer_value(self, view, trains, turns, offer) -> float:
        """The expert's value of keeping from `offer` (draw_value's, for known tickets): each
        ticket by its connection to the network and the completion curve; the positive ones
        kept, or the least bad when none is (a keep is forced)."""
        # planned=() bypasses the connections' cache (keyed for the unseen pool) and adds nothing
        conn = self._connections(view, trains, offer, planned=())
        factor = -view.rules.failed_ticket_factor
        values = []
        for (_, _, pts, *_), c in zip(offer, conn):
            if c > trains:
                values.append(-factor * pts)
                continue
            p = self._completion(c, trains, turns)
            values.append(pts * p - factor * pts * (1 - p))
        good = sum(v for v in values if v > 0)
        if good > 0 or view.rules.keep_on_draw < 1:
            return good
        return max(values)


# ---------------------------------------------------------------------------- oracle c

class CardClairvoyantAgent(ExpertAgent):
    """Oracle c: the expert's card draw, knowing the blind card (the top of the real deck).

    The expert takes a face-up card of a needed color when there is one, else draws blind. With
    the blind card known: it draws blind instead of a face-up card when the blind card is a wild
    (a wild drawn blind costs no turn and pays any color) or a color the plan needs more of than
    the face-up one (and the face-up one is not its next route's). (The other way round never
    arises: the expert draws blind only when no face-up card is of a needed color.) Bounds what
    knowing the next blind card can give."""

    name = "oracle-cards"

    def draw(self, view, legal, need):
        a = super().draw(view, legal, need)
        s = view._s  # the cheat: the real deck (cards are popped from its end)
        if not s.deck or a is None or a[0] not in (FACE_UP, BLIND):
            return a
        top = s.deck[-1]
        wild = self.t.wild
        draws = legal.draws()
        blind = next((x for x in draws if x[0] == BLIND), None)
        if a[0] == FACE_UP and blind is not None:
            c = view.face_up[a[1]]
            if c == wild:
                return a  # a face-up wild the expert wants (it takes the whole turn) stays
            if top == wild or (c != self._target and need.get(top, 0) > need.get(c, 0)):
                return blind
            return a
        return a


# ---------------------------------------------------------------------------- oracle b

class RolloutKeepOracle(ExpertAgent):
    """Oracle b: every keep by play-outs of the real state (perfect information)."""

    name = "oracle-keep"
    samples = 1  # the real state has one future given its random stream: one play-out an option

    def keep_states(self, view):
        """The positions a keep is judged from: the real one (the cheat)."""
        return [view._s]

    def choose_keep(self, view, legal):
        own = super().choose_keep(view, legal)
        options = list(legal)
        if len(options) < 2:
            return own
        states = self.keep_states(view)
        seeds = [_seed_of(view._s, self.seat, j) for j in range(len(states))]
        scores = option_scores(states, self.seat, options, seeds)
        # ties go to the expert's own keep (its value breaks what the play-outs cannot)
        best = max(range(len(options)), key=lambda i: (scores[i], options[i] == own))
        return options[best]


class RolloutDrawOracle(RolloutKeepOracle):
    """Oracle b with the draw: whether to draw tickets after the plan, by play-outs too (draw
    now against the expert's own turn without a draw; the keep inside the play-out is the
    expert's, the real keep afterwards this oracle's)."""

    name = "oracle-keep-draw"

    def draw_value(self, view, trains, turns, planned=None):
        if planned is not None:
            return super().draw_value(view, trains, turns, planned)
        states = self.keep_states(view)
        seeds = [_seed_of(view._s, self.seat, 100 + j) for j in range(len(states))]
        draw = (engine.TICKETS, 0)
        scores = option_scores(states, self.seat, [draw, None], seeds, no_draw={1})
        return INF if scores[0] > scores[1] else -INF


class AllOracle(CardClairvoyantAgent, RolloutDrawOracle):
    """Every oracle at once: keeps and the draw-or-not decision by perfect-information play-outs,
    card draws knowing the blind card. The combined bound (the oracles' gains need not add)."""

    name = "oracle-all"


# ---------------------------------------------------------------------------- look-ahead
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


# ---------------------------------------------------------------------------- measuring

ORACLES = {c.name: c for c in (ClairvoyantDrawAgent, CardClairvoyantAgent, RolloutKeepOracle, RolloutDrawOracle,
                               AllOracle, LookaheadKeepAgent, LookaheadDrawAgent)}


def register(extra: dict | None = None) -> None:
    """Make the oracles and look-ahead agents (and `extra`: name → factory) known to `make_agent`,
    so the referee and the batch runner can seat them. Never done by the CLI: the oracles cheat."""
    from mapkit.sim.agents import AGENTS

    AGENTS.update(ORACLES)
    if extra:
        AGENTS.update(extra)


def measure(board: str, agent: str, games: int, seed: int, players: int = 4) -> dict:
    """The expert's figures for `agent` in self-play (as `mapkit simulate --jobs 1 --format json`)."""
    from pathlib import Path

    from mapkit.sim.batch import pool_labels, run_games, summarize
    from mapkit.sim.rules import rules_for_board
    from mapkit.sim.tables import build_tables

    from mapkit.validate import load_valid_board

    b = load_valid_board(Path(board))
    rules = rules_for_board(b, None, ())
    t = build_tables(b)
    names = [agent] * players
    totals, _ = run_games(t, rules, names, games, seed, jobs=1)
    return summarize(t, rules, names, seed, totals, pool_labels(t, rules))


KEYS = ("winner_score_mean", "winner_tickets_held_mean", "turns_per_seat_mean", "cards_in_hand_at_end_mean",
        "final_turn_draw_rate")


def main(argv=None) -> None:
    import argparse
    import ast
    import json
    import sys
    import time

    from mapkit.errors import BoardError, MapkitError
    from mapkit.sim.agents import AGENTS

    register()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("agent", choices=sorted(AGENTS))
    ap.add_argument("--board", default="boards/north-america.json")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--set", action="append", default=[], metavar="ATTR=VALUE",
                    help="a class attribute of the agent (a Python literal), e.g. oracle_draw_min=0")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error(f"--games {args.games}: give at least 1")
    if args.set:
        made = AGENTS[args.agent]
        # AGENTS holds classes and factories (expert's): the class of what it makes takes the switches
        cls = made if isinstance(made, type) else type(made())
        attrs = {}
        for kv in args.set:
            k, eq, v = kv.partition("=")
            if not eq or not hasattr(cls, k):
                ap.error(f"--set {kv}: give ATTR=VALUE with ATTR an attribute of {cls.__name__}")
            try:
                attrs[k] = ast.literal_eval(v)
            except (ValueError, SyntaxError):
                ap.error(f"--set {kv}: the value must be a Python literal (a number, True/False, a string in quotes)")
        AGENTS[args.agent] = type(cls.__name__ + "Set", (cls,), attrs)
    start = time.process_time()
    try:
        summary = measure(args.board, args.agent, args.games, args.seed, args.players)
    except BoardError as e:
        print("\n".join([str(e), *(p.format() for p in e.problems)]), file=sys.stderr)
        sys.exit(e.exit_code)
    except MapkitError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(e.exit_code)
    cpu = time.process_time() - start
    out = {k: summary.get(k) for k in KEYS}
    out["seat_mean"] = summary["mean_score"]["total"]
    out["games"] = summary["games"]
    out["cpu_s"] = round(cpu, 1)
    out["games_per_cpu_s"] = round(summary["games"] / cpu, 3)
    print(json.dumps({"agent": args.agent, "set": args.set, "seed": args.seed, **out}))


if __name__ == "__main__":
    main()
