"""The rules engine: a game state, applying an action to it, and the end of the game.

What may be played is in `legal.py`; the transit expansion's stations are in `transit.py`.

Actions are small tuples (kinds below). A turn's card draw is two sub-steps (phase DRAW2 after the
first card); a ticket draw is followed by the choice of which to keep (phase KEEP). At setup each
seat in turn chooses its starting tickets (phase SETUP). Chance is the state's own seeded
`random.Random`: the same seed and the same actions give the same game, which is how logs replay.

Rule clauses implemented here, with the seed text they come from:
- a face-up wild taken first is the only card of the turn; a face-up wild cannot be the second
  card; a blind wild counts as one card (002 §4; relaxed variant: a face-up wild counts as one);
- three or more face-up wilds discard the row and five new cards are turned (002 §3 step 5: "repeat
  whenever this condition occurs during play"). The guard against endless wipes is per refill: a row
  is not wiped when the cards (deck, discards and row) cannot make a row with fewer wilds, or after
  50 wipes in a row (bad luck with a few non-wilds left); either records a rules gap "endless_wipes"
  and leaves the row as it is until cards come back. Cards come back with claims and stations (their
  payment goes to the discards), so the row is checked again after each: it is wiped then if a legal
  row can now be made, and an empty slot (nothing left to turn) is filled as soon as there is a card;
- the solo puzzle discards the leftmost face-up card after each turn; the row slides left and the
  new card is turned at the right end (so the row turns over like a queue: 002 §6 "discard the
  leftmost face-up Train Car card and refill the display");
- an empty deck is replaced by the shuffled discards; with neither, cards cannot be drawn;
- a gray route takes cards of one color plus wilds; a route needs enough trains;
- below `double_routes_min_players` one track of a double closes the other; one seat never owns
  both tracks;
- returned tickets go to the bottom of the ticket deck; fewer are drawn when it is short;
- quick game option (002 §6 "allow each player to discard and replace one starting ticket"): with
  `starting_replacements`, a seat shown its starting tickets may first return up to that many of
  them, one at a time, to the bottom of the deck, each replaced by the top ticket (phase REDRAW,
  actions (REDRAW, i); (REDRAW, -1) declines), then keeps at least `keep_at_start` as usual;
- the final round begins when a seat ends a turn with `end_trigger` or fewer trains: every seat,
  the trigger included, gets one more turn;
- a seat with no legal action passes (rules gap "no_legal_action"); when every seat passes in a
  row the game cannot progress and ends ("stalled"); a game reaching `turn_limit` turns is cut off;
  a turn that begins with deck and discards both empty counts as "cards_exhausted".
"""

from __future__ import annotations

import random
from collections import Counter

from mapkit.sim.rules import RuleSet, deck_hint, players_text
from mapkit.sim.state import (  # noqa: F401 (the action words are the engine's too: engine.CLAIM)
    BLIND, BUS, CLAIM, DRAW2, EMPTY, FACE_UP, KEEP, KEEP_PHASE, OVER, PASS, REDRAW, REDRAW_PHASE, SETUP,
    STATION, TICKETS, TRAIN, TURN, State,
)
from mapkit.sim.tables import Tables
from mapkit.sim.transit import build_station

MAX_WIPES = 50  # wipes in a row before a refill gives up (see the module docstring)


# ---------------------------------------------------------------------------- setup

def new_game(t: Tables, rules: RuleSet, players: int, seed: int) -> State:
    if not rules.min_players <= players <= rules.max_players:
        from mapkit.errors import UsageError

        raise UsageError(f"the {rules.name} rules are for {players_text(rules)}, not {players}")
    s = State.__new__(State)
    s.t, s.rules, s.players = t, rules, players
    s.rng = random.Random(seed)
    s.gaps = Counter()  # before the first refill, which may already count a gap
    s.deck = list(t.deck)
    coupled = getattr(rules, "card_shuffle", None)   # mapkit/sim/shuffle.py: tune's paired games only
    if coupled is None:
        shuffle(s.rng, s.deck)
    else:
        coupled(s, seed)
    s.discard = []
    ncards = t.wild + 1
    s.hands = [[0] * ncards for _ in range(players)]
    for _ in range(rules.starting_hand):
        for p in range(players):
            c = _draw(s)
            if c is not None:
                s.hands[p][c] += 1
    s.face_up = [EMPTY] * rules.face_up
    s.redraws_left = 0
    _refill(s)
    trains = rules.trains_for(players)
    s.trains = [trains] * players
    s.owner = [EMPTY] * t.n_routes
    s.claimed = 0  # routes claimed so far (all seats): agents' caches hold while it is unchanged
    # the routes claimed, in play order (all seats): what changed since an agent last looked is
    # claim_log[then:claimed], without scanning every seat's claims
    s.claim_log = []
    # the claim listing's rows (`Tables.claim_order`) less the routes claimed so far: a claimed
    # route is never claimable again, so the listing need not visit it (it still checks `owner`)
    s.open_routes = [list(rows) for rows in t.claim_order]
    # may both tracks of each route's double be claimed (by different seats) in this game?
    s.shared = [players >= rules.double_routes_min_players or t.double_group[r] in rules.double_exceptions
                for r in range(t.n_routes)]
    s.route_score = [0] * players
    s.station_score = [0] * players
    s.markers = [[EMPTY, EMPTY] for _ in range(t.n_stations)]
    s.tokens_left = rules.transit_tokens if rules.transit else 0
    s.claims = [[] for _ in range(players)]
    s.parent = [list(range(t.n_stations)) for _ in range(players)]
    pool = []
    for name in rules.ticket_decks:
        if name not in t.ticket_decks:
            from mapkit.errors import MapkitError

            have = ", ".join(sorted(t.ticket_decks)) or "none"
            raise MapkitError(f"the {rules.name} rules need a ticket deck named '{name}' in board {t.board_id}"
                              f" (it has: {have}); make one with {deck_hint(t.board_id, name)}")
        pool.extend(t.ticket_decks[name])
    s.ticket_pool = tuple(pool)
    s.ticket_deck = list(range(len(pool)))
    shuffle(s.rng, s.ticket_deck)
    s.market = []
    for _ in range(min(rules.ticket_market, len(s.ticket_deck))):
        s.market.append(s.ticket_deck.pop(0))
    s.tickets = [[] for _ in range(players)]
    s.team_of = [p % rules.teams if rules.teams else p for p in range(players)]
    s.turn = 0
    s.turns_taken = [0] * players
    s.final_turns_left = None
    s.pass_streak = 0
    s.end_reason = ""
    s.current = 0
    # every seat is dealt its starting tickets first, then each chooses in seat order
    s.setup_left = []
    for p in range(players):
        s.setup_left.append((p, [s.ticket_deck.pop(0) for _ in range(min(rules.deal_tickets, len(s.ticket_deck)))]))
    s.phase = SETUP
    _next_setup_choice(s)
    return s


def _next_setup_choice(s: State) -> None:
    """Let the next seat choose its starting tickets; TURN once every seat has chosen."""
    while s.setup_left:
        p, offer = s.setup_left.pop(0)
        if offer:
            s.current, s.offer, s.min_keep = p, offer, min(s.rules.keep_at_start, len(offer))
            s.redraws_left = s.rules.starting_replacements
            s.phase = REDRAW_PHASE if s.redraws_left and s.ticket_deck else SETUP
            return
    s.offer, s.current, s.phase = [], 0, TURN


# ---------------------------------------------------------------------------- cards

def shuffle(rng: random.Random, x: list) -> None:
    """`rng.shuffle(x)` written out for a plain `random.Random`: the same calls of `getrandbits`
    in the same order (CPython's `shuffle` and `_randbelow_with_getrandbits`), so the same order,
    without a Python call per card (a game shuffles about 250 cards and tickets: 1 % of a
    4-player route-focus game). Any other generator shuffles
    itself; tests/test_sim_speed.py compares the two."""
    if type(rng) is not random.Random or random.Random._randbelow is not random.Random._randbelow_with_getrandbits:
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1  # pick an element of x[:n] to exchange with x[i]: getrandbits until below n
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


def _draw(s: State):
    """Top card of the deck, reshuffling the discards into a new deck when it is empty."""
    if not s.deck:
        if not s.discard:
            return None
        s.deck = s.discard
        s.discard = []
        coupled = getattr(s.rules, "card_shuffle", None)
        if coupled is None:
            shuffle(s.rng, s.deck)
        else:
            coupled(s, None)
    return s.deck.pop()


def _refill(s: State) -> None:
    """Fill empty face-up slots, then wipe rows of too many wilds (guarding the endless loop).

    The guard counts wipes of this call only: a row left with too many wilds is looked at again on
    the next refill (after a claim, a station or a draw), so wiping never stops for good."""
    fu = s.face_up
    for i in range(len(fu)):
        if fu[i] == EMPTY:
            c = _draw(s)
            if c is None:
                break
            fu[i] = c
    limit = s.rules.wild_reset
    if not limit:
        return
    wild = s.t.wild
    wipes = 0
    while fu.count(wild) >= limit:
        # after a wipe the row is turned from everything not in a hand: can those cards make a row
        # (as long as they allow, up to five) with fewer wilds? if not, wiping would never end
        pool = s.deck + s.discard
        in_row = [c for c in fu if c != EMPTY]
        cards = len(pool) + len(in_row)
        non_wild = cards - pool.count(wild) - in_row.count(wild)
        row = min(len(fu), cards)
        if non_wild < row - limit + 1 or wipes >= MAX_WIPES:
            s.gaps["endless_wipes"] += 1
            return
        wipes += 1
        s.discard.extend(in_row)
        for i in range(len(fu)):
            fu[i] = EMPTY
        for i in range(len(fu)):
            c = _draw(s)
            if c is None:
                break
            fu[i] = c


def _cards_back(s: State) -> None:
    """Cards went to the discards: fill an empty face-up slot, and wipe a row of too many wilds
    that could not be wiped before (see `_refill`)."""
    fu = s.face_up
    if EMPTY in fu or (s.rules.wild_reset and fu.count(s.t.wild) >= s.rules.wild_reset):
        _refill(s)


def _second_draw_possible(s: State) -> bool:
    """Is there a card to take as the second draw of a turn (no face-up wild, unless relaxed)?"""
    if s.deck or s.discard:
        return True
    wild, relaxed = s.t.wild, not s.rules.face_up_wild_takes_turn
    return any(c != EMPTY and (c != wild or relaxed) for c in s.face_up)


# ---------------------------------------------------------------------------- apply

def apply(s: State, a: tuple) -> None:
    """Play one legal action (the caller guarantees legality; see `is_legal`)."""
    kind = a[0]
    p = s.current
    if kind == CLAIM:
        _claim(s, p, a[1], a[2], a[3])
        _cards_back(s)
        _end_turn(s)
    elif kind == FACE_UP or kind == BLIND:
        rules = s.rules
        deck = s.deck
        if kind == FACE_UP:
            fu, i = s.face_up, a[1]
            c = fu[i]
            s.hands[p][c] += 1
            if deck and EMPTY not in fu:
                # `_refill` of a row whose only empty slot is i, with a card in the deck: the top
                # card fills it, then the row's wilds are checked as _refill checks them (seventh
                # round: most face-up draws; tests/test_sim_speed.py compares it with _refill)
                fu[i] = deck.pop()
                if rules.wild_reset and fu.count(s.t.wild) >= rules.wild_reset:
                    _refill(s)  # (no slot is empty: only the wipe is left to do)
            else:
                fu[i] = EMPTY
                _refill(s)
            ends_turn = c == s.t.wild and rules.face_up_wild_takes_turn
        else:
            c = deck.pop() if deck else _draw(s)  # _draw reshuffles the discards into an empty deck
            s.hands[p][c] += 1
            ends_turn = False
        if s.phase == DRAW2 or ends_turn or rules.draws_per_turn < 2:
            _end_turn(s)
        else:
            s.phase = DRAW2
            if not (s.deck or s.discard) and not _second_draw_possible(s):
                _end_turn(s)
    elif kind == TICKETS:
        want = s.rules.draw_tickets
        offer = []
        if s.rules.ticket_market:
            taken = [s.market[i] for i in range(len(s.market)) if a[1] >> i & 1]
            s.market = [x for i, x in enumerate(s.market) if not a[1] >> i & 1]
            offer.extend(taken)
        while len(offer) < want and s.ticket_deck:
            offer.append(s.ticket_deck.pop(0))
        s.offer = offer
        s.min_keep = min(s.rules.keep_on_draw, len(offer))
        s.phase = KEEP_PHASE
    elif kind == KEEP:
        mask = a[1]
        kept = [x for i, x in enumerate(s.offer) if mask >> i & 1]
        returned = [x for i, x in enumerate(s.offer) if not mask >> i & 1]
        s.tickets[p].extend(kept)
        s.ticket_deck.extend(returned)  # to the bottom
        s.offer = []
        if s.rules.ticket_market:
            while len(s.market) < s.rules.ticket_market and s.ticket_deck:
                s.market.append(s.ticket_deck.pop(0))
        if s.phase == SETUP:
            _next_setup_choice(s)
        else:
            _end_turn(s)
    elif kind == STATION:
        build_station(s, p, a[1], a[2], a[3])
        _cards_back(s)
        _end_turn(s)
    elif kind == REDRAW:
        if a[1] >= 0:
            returned = s.offer[a[1]]
            s.offer[a[1]] = s.ticket_deck.pop(0)
            s.ticket_deck.append(returned)  # to the bottom, like a rejected ticket
            s.redraws_left -= 1
        else:
            s.redraws_left = 0
        if not s.redraws_left or not s.ticket_deck:
            s.redraws_left = 0
            s.phase = SETUP
    elif kind == PASS:
        s.gaps["no_legal_action"] += 1
        s.pass_streak += 1
        _end_turn(s, passed=True)
    else:
        raise ValueError(f"unknown action {a!r}")


def _claim(s: State, p: int, r: int, color: int, wilds: int) -> None:
    t = s.t
    L = t.route_len[r]
    hand = s.hands[p]
    wild = t.wild
    if color != wild:
        hand[color] -= L - wilds
        s.discard.extend([color] * (L - wilds))
    hand[wild] -= wilds
    s.discard.extend([wild] * wilds)
    s.trains[p] -= L
    s.owner[r] = p
    s.claimed += 1
    s.claim_log.append(r)
    c = t.route_color[r]
    s.open_routes[wild if c < 0 else c].remove((L, r, t.route_partner[r]))
    s.route_score[p] += t.route_points[r]
    s.claims[p].append(r)
    parent = s.parent[p]
    ra, rb = _find(parent, t.route_a[r]), _find(parent, t.route_b[r])
    if ra != rb:
        parent[ra] = rb


def _find(parent: list[int], x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def connected(s: State, p: int, a: int, b: int) -> bool:
    return _find(s.parent[p], a) == _find(s.parent[p], b)


def _end_turn(s: State, passed: bool = False) -> None:
    p = s.current
    if not passed:
        s.pass_streak = 0
    s.turns_taken[p] += 1
    s.turn += 1
    rules = s.rules
    if rules.solo:
        # solo puzzle (002 §6): after each turn the leftmost face-up card is discarded; the others
        # slide left and the new card is turned at the right end
        fu = s.face_up
        for i in range(len(fu)):
            if fu[i] != EMPTY:
                s.discard.append(fu[i])
                fu[i:] = fu[i + 1:] + [EMPTY]
                _refill(s)
                break
    if s.final_turns_left is not None:
        s.final_turns_left -= 1
        if s.final_turns_left <= 0:
            return _finish(s, "final_round")
    elif s.trains[p] <= rules.end_trigger:
        s.final_turns_left = s.players
    if s.pass_streak >= s.players:
        s.gaps["stalled"] += 1
        return _finish(s, "stalled")
    if s.turn >= rules.turn_limit:
        s.gaps["turn_limit"] += 1
        return _finish(s, "turn_limit")
    s.current = (p + 1) % s.players
    s.phase = TURN
    if not s.deck and not s.discard:
        # every train card is in a hand or face up: the next seat cannot draw blind
        s.gaps["cards_exhausted"] += 1


def _finish(s: State, reason: str) -> None:
    s.phase = OVER
    s.end_reason = reason


def is_over(s: State) -> bool:
    return s.phase == OVER
