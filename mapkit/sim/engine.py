"""The rules engine: a game state, its legal actions, applying one, and the end of the game.

Actions are small tuples (kinds below). A turn's card draw is two sub-steps (phase DRAW2 after the
first card); a ticket draw is followed by the choice of which to keep (phase KEEP). At setup each
seat in turn chooses its starting tickets (phase SETUP). Chance is the state's own seeded
`random.Random`: the same seed and the same actions give the same game, which is how logs replay.

Rule clauses implemented here, with the seed text they come from:
- a face-up wild taken first is the only card of the turn; a face-up wild cannot be the second
  card; a blind wild counts as one card (002 §4; relaxed variant: a face-up wild counts as one);
- three or more face-up wilds discard the row and five new cards are turned; if the cards left can
  only make rows of three wilds, the wiping stops and a rules gap "endless_wipes" is recorded;
- an empty deck is replaced by the shuffled discards; with neither, cards cannot be drawn;
- a gray route takes cards of one color plus wilds; a route needs enough trains;
- below `double_routes_min_players` one track of a double closes the other; one seat never owns
  both tracks;
- returned tickets go to the bottom of the ticket deck; fewer are drawn when it is short;
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
from mapkit.sim.tables import GRAY, Tables

# action kinds
FACE_UP, BLIND, CLAIM, TICKETS, KEEP, PASS, STATION = range(7)
ACTION_NAMES = ("face_up", "blind", "claim", "tickets", "keep", "pass", "station")
BUS, TRAIN = 0, 1
# phases
SETUP, TURN, DRAW2, KEEP_PHASE, OVER = range(5)
EMPTY = -1


class State:
    """One position of a game. Mutable for speed: `apply` changes it in place; `copy` clones."""

    __slots__ = (
        "t", "rules", "players", "rng", "deck", "discard", "face_up", "hands", "trains", "owner",
        "route_score", "tickets", "ticket_pool", "ticket_deck", "market", "offer", "min_keep",
        "phase", "current", "turn", "turns_taken", "final_turns_left", "gaps", "parent", "claims",
        "pass_streak", "team_of", "setup_left", "end_reason", "wipes", "shared", "markers",
        "tokens_left", "station_score",
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
        s.ticket_pool = self.ticket_pool
        s.gaps = Counter(self.gaps)
        for name in ("min_keep", "phase", "current", "turn", "final_turns_left", "pass_streak", "end_reason", "wipes"):
            setattr(s, name, getattr(self, name))
        return s


# ---------------------------------------------------------------------------- setup

def new_game(t: Tables, rules: RuleSet, players: int, seed: int) -> State:
    if not rules.min_players <= players <= rules.max_players:
        from mapkit.errors import UsageError

        raise UsageError(f"the {rules.name} rules are for {players_text(rules)}, not {players}")
    s = State.__new__(State)
    s.t, s.rules, s.players = t, rules, players
    s.rng = random.Random(seed)
    s.deck = list(t.deck)
    s.rng.shuffle(s.deck)
    s.discard = []
    ncards = t.wild + 1
    s.hands = [[0] * ncards for _ in range(players)]
    for _ in range(rules.starting_hand):
        for p in range(players):
            c = _draw(s)
            if c is not None:
                s.hands[p][c] += 1
    s.face_up = [EMPTY] * rules.face_up
    s.wipes = 0
    _refill(s)
    trains = rules.trains_for(players)
    s.trains = [trains] * players
    s.owner = [EMPTY] * t.n_routes
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
    s.rng.shuffle(s.ticket_deck)
    s.market = []
    for _ in range(min(rules.ticket_market, len(s.ticket_deck))):
        s.market.append(s.ticket_deck.pop(0))
    s.tickets = [[] for _ in range(players)]
    s.team_of = [p % rules.teams if rules.teams else p for p in range(players)]
    s.turn = 0
    s.turns_taken = [0] * players
    s.final_turns_left = None
    s.gaps = Counter()
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
            return
    s.offer, s.current, s.phase = [], 0, TURN


# ---------------------------------------------------------------------------- cards

def _draw(s: State):
    """Top card of the deck, reshuffling the discards into a new deck when it is empty."""
    if not s.deck:
        if not s.discard:
            return None
        s.deck = s.discard
        s.discard = []
        s.rng.shuffle(s.deck)
    return s.deck.pop()


def _refill(s: State) -> None:
    """Fill empty face-up slots, then wipe rows of too many wilds (guarding the endless loop)."""
    fu = s.face_up
    for i in range(len(fu)):
        if fu[i] == EMPTY:
            c = _draw(s)
            if c is None:
                break
            fu[i] = c
    limit = s.rules.wild_reset
    wild = s.t.wild
    while limit and fu.count(wild) >= limit:
        # can the cards not in the row make a row with fewer wilds? if not, wiping never ends
        pool = s.deck + s.discard
        non_wild = len(pool) - pool.count(wild)
        if non_wild + sum(1 for c in fu if c != wild and c != EMPTY) < len(fu) - limit + 1 or s.wipes >= 50:
            s.gaps["endless_wipes"] += 1
            return
        s.wipes += 1
        s.discard.extend(c for c in fu if c != EMPTY)
        for i in range(len(fu)):
            fu[i] = EMPTY
        for i in range(len(fu)):
            c = _draw(s)
            if c is None:
                break
            fu[i] = c
    s.wipes = 0


def can_draw_blind(s: State) -> bool:
    return bool(s.deck) or bool(s.discard)


# ---------------------------------------------------------------------------- legal actions

def legal_actions(s: State) -> list[tuple]:
    ph = s.phase
    if ph == TURN:
        acts = claim_actions(s, s.current)
        if s.rules.transit and s.tokens_left:
            acts.extend(station_actions(s, s.current))
        fu = s.face_up
        for i in range(len(fu)):
            if fu[i] != EMPTY:
                acts.append((FACE_UP, i))
        if s.deck or s.discard:
            acts.append((BLIND,))
        if s.ticket_deck or s.market:
            if s.rules.ticket_market:
                acts.extend((TICKETS, m) for m in _market_masks(s))
            else:
                acts.append((TICKETS, 0))
        if not acts:
            acts.append((PASS,))
        return acts
    if ph == DRAW2:
        acts = []
        fu, wild = s.face_up, s.t.wild
        relaxed = not s.rules.face_up_wild_takes_turn
        for i in range(len(fu)):
            if fu[i] != EMPTY and (fu[i] != wild or relaxed):
                acts.append((FACE_UP, i))
        if s.deck or s.discard:
            acts.append((BLIND,))
        return acts
    if ph == KEEP_PHASE or ph == SETUP:
        n = len(s.offer)
        return [(KEEP, m) for m in range(1, 1 << n) if bin(m).count("1") >= s.min_keep] or [(KEEP, 0)]
    return []


def _market_masks(s: State) -> list[int]:
    """Which market tickets to take; the rest of the draw comes from the deck (fewer if short)."""
    n, want, deck = len(s.market), s.rules.draw_tickets, len(s.ticket_deck)
    masks = []
    for m in range(1 << n):
        k = bin(m).count("1")
        if k <= want and (k + min(deck, want - k)) >= 1:
            masks.append(m)
    return masks


def claim_actions(s: State, p: int, only=None) -> list[tuple]:
    """Every legal claim of seat p, one action per exact payment (color, number of wilds).

    Routes are visited color by color (gray last), shortest first, so only routes the hand could
    pay for are looked at; that is also the order of the result. `only`: a set of routes to
    consider (agents that know what they want skip the rest).
    """
    t = s.t
    owner, partner = s.owner, t.route_partner
    hand = s.hands[p]
    wild = t.wild
    hw = hand[wild]
    trains = s.trains[p]
    shared = s.shared
    lens = t.route_len
    protect = s.rules.friendly_protection_turns and _protection_active(s, p)
    acts = []
    by_color = t.routes_by_color
    for c in range(wild):
        cap = hand[c] + hw
        if cap > trains:
            cap = trains
        h = hand[c]
        for r in by_color[c]:
            L = lens[r]
            if L > cap:
                break
            if owner[r] != EMPTY or (only is not None and r not in only):
                continue
            q = partner[r]
            if q >= 0 and owner[q] != EMPTY and (not shared[r] or owner[q] == p):
                continue
            if protect and _traps(s, p, r):
                continue
            lo = L - h if L > h else 0
            hi = L if L < hw else hw
            for w in range(lo, hi + 1):
                acts.append((CLAIM, r, c if w < L else wild, w))
    # gray routes: the same availability checks as above, kept inline because this loop is the
    # simulator's hottest code
    gray = by_color[wild]
    if gray:
        best = max(hand[:wild]) if wild else 0
        cap = min(trains, max(best + hw, hw))
        for r in gray:
            L = lens[r]
            if L > cap:
                break
            if owner[r] != EMPTY or (only is not None and r not in only):
                continue
            q = partner[r]
            if q >= 0 and owner[q] != EMPTY and (not shared[r] or owner[q] == p):
                continue
            if protect and _traps(s, p, r):
                continue
            for c in range(wild):
                h = hand[c]
                if h and h + hw >= L:
                    for k in range(min(L, h), 0, -1):
                        if L - k <= hw:
                            acts.append((CLAIM, r, c, L - k))
            if hw >= L:
                acts.append((CLAIM, r, wild, L))
    if s.rules.double_either_color:
        acts.extend(_partner_color_claims(s, p, only, acts))
    return acts


def _partner_color_claims(s: State, p: int, only, found: list) -> list[tuple]:
    """Transit expansion, 2 players: a double whose tracks are not both claimable may be paid in
    either track's color."""
    t = s.t
    hand, wild = s.hands[p], s.t.wild
    hw = hand[wild]
    have = set(found)
    extra = []
    for r in range(t.n_routes):
        q = t.route_partner[r]
        if q < 0 or s.shared[r] or s.owner[r] != EMPTY or s.owner[q] != EMPTY or (only is not None and r not in only):
            continue
        L = t.route_len[r]
        if L > s.trains[p]:
            continue
        cq = t.route_color[q]
        colors = range(wild) if cq == GRAY else (cq,)
        for c in colors:
            h = hand[c]
            for w in range(max(0, L - h), min(L, hw) + 1):
                a = (CLAIM, r, c if w < L else wild, w)
                if a not in have:
                    have.add(a)
                    extra.append(a)
    return extra


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


def _protection_active(s: State, p: int) -> bool:
    return any(s.turns_taken[o] < s.rules.friendly_protection_turns for o in range(s.players) if o != p)


def _open(s: State, r: int) -> bool:
    if s.owner[r] != EMPTY:
        return False
    q = s.t.route_partner[r]
    return not (q >= 0 and s.owner[q] != EMPTY and s.players < s.rules.double_routes_min_players)


def _traps(s: State, p: int, r: int) -> bool:
    """Would claiming r close the last open route into a station where a protected opponent has
    no route yet?"""
    t = s.t
    for st in (t.route_a[r], t.route_b[r]):
        others = [x for x in t.routes_at[st] if x != r and x != t.route_partner[r]]
        if any(_open(s, x) for x in others):
            continue
        partner_open = t.route_partner[r] >= 0 and s.players >= s.rules.double_routes_min_players and _open(s, t.route_partner[r])
        if partner_open:
            continue
        for o in range(s.players):
            if o != p and s.turns_taken[o] < s.rules.friendly_protection_turns:
                if not any(s.owner[x] == o for x in t.routes_at[st]):
                    return True
    return False


# ---------------------------------------------------------------------------- apply

def apply(s: State, a: tuple) -> None:
    """Play one legal action (the caller guarantees legality; see `is_legal`)."""
    kind = a[0]
    p = s.current
    if kind == CLAIM:
        _claim(s, p, a[1], a[2], a[3])
        _end_turn(s)
    elif kind == FACE_UP or kind == BLIND:
        if kind == FACE_UP:
            c = s.face_up[a[1]]
            s.face_up[a[1]] = EMPTY
            s.hands[p][c] += 1
            _refill(s)
            ends_turn = c == s.t.wild and s.rules.face_up_wild_takes_turn
        else:
            c = _draw(s)
            s.hands[p][c] += 1
            ends_turn = False
        if s.phase == DRAW2 or ends_turn or s.rules.draws_per_turn < 2:
            _end_turn(s)
        else:
            s.phase = DRAW2
            if not legal_actions(s):  # nothing left to draw as a second card
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
        _build_station(s, p, a[1], a[2], a[3])
        _end_turn(s)
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
    s.route_score[p] += t.route_points[r]
    s.claims[p].append(r)
    parent = s.parent[p]
    ra, rb = _find(parent, t.route_a[r]), _find(parent, t.route_b[r])
    if ra != rb:
        parent[ra] = rb


def _build_station(s: State, p: int, st: int, kind: int, color: int) -> None:
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
    if s.rules.solo and s.face_up and s.face_up[0] != EMPTY:
        # solo puzzle: after each turn the leftmost face-up card is discarded and the row refilled
        s.discard.append(s.face_up[0])
        s.face_up[0] = EMPTY
        _refill(s)
    if s.final_turns_left is not None:
        s.final_turns_left -= 1
        if s.final_turns_left <= 0:
            return _finish(s, "final_round")
    elif s.trains[p] <= s.rules.end_trigger:
        s.final_turns_left = s.players
    if s.pass_streak >= s.players:
        s.gaps["stalled"] += 1
        return _finish(s, "stalled")
    if s.turn >= s.rules.turn_limit:
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


def draw_actions(s: State) -> list[tuple]:
    """The card draws open now (first or second card of the turn)."""
    acts = []
    fu, wild = s.face_up, s.t.wild
    second = s.phase == DRAW2
    relaxed = not s.rules.face_up_wild_takes_turn
    for i in range(len(fu)):
        if fu[i] != EMPTY and (not second or fu[i] != wild or relaxed):
            acts.append((FACE_UP, i))
    if s.deck or s.discard:
        acts.append((BLIND,))
    return acts


def is_legal(s: State, a) -> bool:
    """Whether a is a legal action now, checked directly (without listing every action)."""
    if not isinstance(a, tuple) or not a or not all(type(x) is int for x in a):
        return False
    kind, ph = a[0], s.phase
    if kind in (FACE_UP, BLIND):
        return ph in (TURN, DRAW2) and a in draw_actions(s)
    if kind == CLAIM:
        if ph != TURN or len(a) != 4 or not 0 <= a[1] < s.t.n_routes:
            return False
        return a in claim_actions(s, s.current, {a[1]})
    if kind in (TICKETS, KEEP):
        return ph in ((TURN,) if kind == TICKETS else (SETUP, KEEP_PHASE)) and a in legal_actions(s)
    if kind == STATION:
        if ph != TURN or len(a) != 4 or not s.rules.transit or not s.tokens_left:
            return False
        st, typ, color = a[1], a[2], a[3]
        if not 0 <= st < s.t.n_stations or typ not in (BUS, TRAIN) or s.markers[st][typ] != EMPTY:
            return False
        return a in station_actions(s, s.current)
    if kind == PASS:
        return legal_actions(s) == [(PASS,)]
    return False


class Legal:
    """The legal actions of the seat to act, computed only as far as an agent asks.

    It is a sequence (len, indexing, iteration, `in`) of every legal action for agents that want
    them all; planners ask for `draws()` or `claims(routes)` and skip the full enumeration."""

    __slots__ = ("_s", "_all")

    def __init__(self, s: State):
        self._s = s
        self._all = None

    def all(self) -> list[tuple]:
        if self._all is None:
            self._all = legal_actions(self._s)
        return self._all

    def __len__(self):
        return len(self.all())

    def __getitem__(self, i):
        return self.all()[i]

    def __iter__(self):
        return iter(self.all())

    def __contains__(self, a):
        if self._all is not None:  # already listed: a membership test is the cheapest check
            return a in self._all
        return is_legal(self._s, a)

    def draws(self) -> list[tuple]:
        return draw_actions(self._s) if self._s.phase in (TURN, DRAW2) else []

    def claims(self, routes=None) -> list[tuple]:
        if self._s.phase != TURN:
            return []
        return claim_actions(self._s, self._s.current, routes)

    def stations(self) -> list[tuple]:
        """Transit expansion: the stations the seat can build now."""
        s = self._s
        if s.phase != TURN or not s.rules.transit or not s.tokens_left:
            return []
        return station_actions(s, s.current)

    def tickets(self) -> list[tuple]:
        if self._s.phase != TURN:
            return []
        return [a for a in self.all() if a[0] == TICKETS] if self._s.rules.ticket_market else (
            [(TICKETS, 0)] if self._s.ticket_deck else [])
