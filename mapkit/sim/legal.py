"""Legal actions: listing them, checking one directly, and the lazy `Legal` view agents get.

Claims are listed with their exact payment (color, number of wilds). Routes are visited color by
color, shortest first, so a hand only ever looks at the routes it could pay for.

Ticket keeps (KEEP, mask): every mask keeping at least `min_keep` of the offer is legal, and
`is_legal` checks that directly (the bits, the count). Offers of up to `KEEP_LIST_ALL` tickets are
listed in full (at most 1,023 masks). A larger offer (only a ruleset dealing more than 10 can make
one) would have too many to list, so the listing is bounded: keeping every ticket, every ticket but
one, every ticket but two, and the smallest legal keeps when there are at most `KEEP_LIST_ALL_MIN`
of them; the other keeps stay legal, and an agent may return any of them.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

from mapkit.sim.engine import (
    BLIND, BUS, CLAIM, DRAW2, EMPTY, FACE_UP, KEEP, KEEP_PHASE, PASS, REDRAW, REDRAW_PHASE, SETUP, STATION, TICKETS,
    TRAIN, TURN, State,
)
from mapkit.sim.tables import GRAY
from mapkit.sim.transit import station_actions, station_cost

KEEP_LIST_ALL = 10          # offers up to this size list every legal keep
KEEP_LIST_ALL_MIN = 1024    # larger offers list the smallest keeps only when there are at most this many


def legal_actions(s: State) -> list[tuple]:
    """Every legal action of the seat to act (keeps of a large offer: a bounded list, see above)."""
    ph = s.phase
    if ph == TURN:
        acts = claim_actions(s, s.current)
        if s.rules.transit and s.tokens_left:
            acts.extend(station_actions(s, s.current))
        acts.extend(draw_actions(s))
        if s.ticket_deck or s.market:
            if s.rules.ticket_market:
                acts.extend((TICKETS, m) for m in _market_masks(s))
            else:
                acts.append((TICKETS, 0))
        if not acts:
            acts.append((PASS,))
        return acts
    if ph == DRAW2:
        return draw_actions(s)
    if ph == KEEP_PHASE or ph == SETUP:
        return [(KEEP, m) for m in keep_masks(len(s.offer), s.min_keep)]
    if ph == REDRAW_PHASE:
        # declining comes first: an agent that does not know this phase and falls back on the
        # first legal action keeps its starting tickets as dealt
        return [(REDRAW, -1)] + [(REDRAW, i) for i in range(len(s.offer))]
    return []


def keep_masks(n: int, min_keep: int) -> list[int]:
    """The keeps listed for an offer of n tickets (see the module docstring for large offers)."""
    if n == 0:
        return [0]
    if n <= KEEP_LIST_ALL:
        return [m for m in range(1, 1 << n) if bin(m).count("1") >= min_keep]
    full = (1 << n) - 1
    masks = {full}
    for drop in (1, 2):
        if n - drop >= max(min_keep, 1):
            for out in combinations(range(n), drop):
                masks.add(full & ~sum(1 << i for i in out))
    low = max(min_keep, 1)
    if comb(n, low) <= KEEP_LIST_ALL_MIN:
        for keep in combinations(range(n), low):
            masks.add(sum(1 << i for i in keep))
    return sorted(masks)


def _keep_ok(s: State, mask: int) -> bool:
    n = len(s.offer)
    if n == 0:
        return mask == 0
    return 0 < mask < 1 << n and bin(mask).count("1") >= s.min_keep


def _market_masks(s: State) -> list[int]:
    """Which market tickets to take; the rest of the draw comes from the deck (fewer if short)."""
    n, want, deck = len(s.market), s.rules.draw_tickets, len(s.ticket_deck)
    masks = []
    for m in range(1 << n):
        k = bin(m).count("1")
        if k <= want and (k + min(deck, want - k)) >= 1:
            masks.append(m)
    return masks


def claim_actions(s: State, p: int, only=None, cheapest: bool = False) -> list[tuple]:
    """Every legal claim of seat p, one action per exact payment (color, number of wilds).

    Routes are visited color by color (gray last), shortest first, so only routes the hand could
    pay for are looked at; that is also the order of the result. `only`: a set of routes to
    consider (agents that know what they want skip the rest). `cheapest`: of each route's
    payments in one card color only the one with fewest wilds (and the all-wild payment), in the
    same order: what an agent that never spends a wild it need not spend chooses from.
    """
    t = s.t
    owner = s.owner
    hand = s.hands[p]
    wild = t.wild
    hw = hand[wild]
    trains = s.trains[p]
    shared = s.shared
    protect = s.rules.friendly_protection_turns and _protection_active(s, p)
    if only is not None:
        acts = _claims_of(s, p, only, protect, cheapest)
        if s.rules.double_either_color:
            acts.extend(_fewest_wilds(_partner_color_claims(s, p, only, acts)) if cheapest else
                        _partner_color_claims(s, p, only, acts))
        return acts
    if cheapest:
        return _fewest_wilds(claim_actions(s, p))
    acts = []
    append = acts.append
    # (length, route, partner) per color, shortest first, claimed routes left out: no table lookups
    # per route
    by_color = s.open_routes
    for c in range(wild):
        h = hand[c]
        cap = h + hw
        if cap > trains:
            cap = trains
        for L, r, q in by_color[c]:
            if L > cap:
                break
            if owner[r] != EMPTY:
                continue
            if q >= 0 and owner[q] != EMPTY and (not shared[r] or owner[q] == p):
                continue
            if protect and _traps(s, p, r):
                continue
            # wilds from the fewest that pay (L - h) to all of them; the last pays wilds only
            for w in range(L - h if L > h else 0, (L if L < hw else hw) + 1):
                append((CLAIM, r, c if w < L else wild, w))
    # gray routes: the same availability checks as above, kept inline because this loop is the
    # simulator's hottest code (a shared generator measured 13 % slower on 4-player random games)
    gray = by_color[wild]
    if gray:
        held = [(c, hand[c]) for c in range(wild) if hand[c]]  # colors that can pay: the rest list nothing
        best = max(hand[:wild]) if wild else 0
        cap = min(trains, best + hw)
        for L, r, q in gray:
            if L > cap:
                break
            if owner[r] != EMPTY:
                continue
            if q >= 0 and owner[q] != EMPTY and (not shared[r] or owner[q] == p):
                continue
            if protect and _traps(s, p, r):
                continue
            for c, h in held:
                if h + hw >= L:
                    # h cards of color c and L - h wilds, ..., down to one card of c: wilds ascending
                    for w in range(L - h if L > h else 0, (L - 1 if L - 1 < hw else hw) + 1):
                        append((CLAIM, r, c, w))
            if hw >= L:
                append((CLAIM, r, wild, L))
    if s.rules.double_either_color:
        acts.extend(_partner_color_claims(s, p, None, acts))
    return acts


def _fewest_wilds(acts: list[tuple]) -> list[tuple]:
    """Of a listing, each route's first payment per card color: the one with fewest wilds (a
    route's payments in one color come one after another, wilds ascending)."""
    out = []
    last = None
    for a in acts:
        if (a[1], a[2]) != last:
            last = (a[1], a[2])
            out.append(a)
    return out


def _claims_of(s: State, p: int, routes, protect, cheapest: bool = False, longest: bool = False) -> list[tuple]:
    """`claim_actions` for a few routes (a planner asking for the routes it wants): the same actions
    in the same order, without building the per-color rows.

    Each route is checked first (open, payable with this hand and these trains), and only the
    payable ones are put in the listing's order (`Tables.claim_rank`: color by color, gray last,
    shortest first): most turns a planner can pay for none of the routes it asks about.

    `longest`: only the payable routes of the greatest length (each payable route has at least
    one payment, so these are the listing's claims of that length, in its order)."""
    t = s.t
    owner, shared = s.owner, s.shared
    hand = s.hands[p]
    wild = t.wild
    hw = hand[wild]
    trains = s.trains[p]
    lens, colors, partner = t.route_len, t.route_color, t.route_partner
    gray_cap = -1  # the longest gray route the hand pays (one color plus wilds), when first needed
    payable = []
    for r in (routes if isinstance(routes, (set, frozenset)) else set(routes)):  # each route once
        if owner[r] != EMPTY:
            continue
        L = lens[r]
        if L > trains:
            continue
        c = colors[r]
        if c == GRAY:
            if gray_cap < 0:
                gray_cap = (max(hand[:wild]) if wild else 0) + hw
            if L > gray_cap:
                continue
        elif L > hand[c] + hw:
            continue
        q = partner[r]
        if q >= 0 and owner[q] != EMPTY and (not shared[r] or owner[q] == p):
            continue
        if protect and _traps(s, p, r):
            continue
        payable.append(r)
    if not payable:
        return []
    if len(payable) > 1:
        if longest:
            top = max([lens[r] for r in payable])
            payable = [r for r in payable if lens[r] == top]
        payable.sort(key=t.claim_rank.__getitem__)
    acts = []
    append = acts.append
    for r in payable:
        L, c = lens[r], colors[r]
        if c != GRAY:
            h = hand[c]
            # wilds from the fewest that pay (L - h) to all of them; the last pays wilds only
            low = L - h if L > h else 0
            if cheapest:
                append((CLAIM, r, c if low < L else wild, low))
                if low < L <= hw:
                    append((CLAIM, r, wild, L))
                continue
            for w in range(low, (L if L < hw else hw) + 1):
                append((CLAIM, r, c if w < L else wild, w))
        else:
            for c in range(wild):
                h = hand[c]
                if h and h + hw >= L:
                    if cheapest:
                        append((CLAIM, r, c, L - h if L > h else 0))
                        continue
                    for w in range(L - h if L > h else 0, (L - 1 if L - 1 < hw else hw) + 1):
                        append((CLAIM, r, c, w))
            if hw >= L:
                append((CLAIM, r, wild, L))
    return acts


def fewest_wild_claims(s: State, p: int) -> list[tuple]:
    """Each claimable route's payment with fewest wilds (the first of a tie, in the listing's
    order), one per route, in the order of `claim_actions`: what an agent that rates a claim by
    its route first and by fewer wilds second chooses from. Made without listing every payment
    (each route's first payment in a color is its fewest-wild one; a gray route's all-wild
    payment comes only when no color pays). Not for `double_either_color`, whose payments in the
    other track's color come at the end of the listing (`Legal.fewest_wild_claims` checks)."""
    t = s.t
    owner = s.owner
    hand = s.hands[p]
    wild = t.wild
    hw = hand[wild]
    trains = s.trains[p]
    shared = s.shared
    protect = s.rules.friendly_protection_turns and _protection_active(s, p)
    acts = []
    append = acts.append
    by_color = s.open_routes
    for c in range(wild):
        h = hand[c]
        cap = h + hw
        if cap > trains:
            cap = trains
        for L, r, q in by_color[c]:
            if L > cap:
                break
            if owner[r] != EMPTY:
                continue
            if q >= 0 and owner[q] != EMPTY and (not shared[r] or owner[q] == p):
                continue
            if protect and _traps(s, p, r):
                continue
            w = L - h if L > h else 0  # the listing's first payment of this route
            append((CLAIM, r, c if w < L else wild, w))
    gray = by_color[wild]
    if gray:
        held = [(c, hand[c]) for c in range(wild) if hand[c]]
        best = max(hand[:wild]) if wild else 0
        cap = min(trains, best + hw)
        for L, r, q in gray:
            if L > cap:
                break
            if owner[r] != EMPTY:
                continue
            if q >= 0 and owner[q] != EMPTY and (not shared[r] or owner[q] == p):
                continue
            if protect and _traps(s, p, r):
                continue
            pay_c, pay_w = -1, L  # the all-wild payment, when no color pays (it has the most wilds)
            for c, h in held:
                if h + hw >= L:
                    w = L - h if L > h else 0
                    if w < pay_w:
                        pay_c, pay_w = c, w
            if pay_c >= 0:
                append((CLAIM, r, pay_c, pay_w))
            elif hw >= L:
                append((CLAIM, r, wild, L))
    return acts


def _partner_color_claims(s: State, p: int, only, found: list) -> list[tuple]:
    """Transit expansion, 2 players: a double whose tracks are not both claimable may be paid in
    either track's color. Only the payments `claim_actions` has not listed already: a colored
    track in its partner's other color (the all-wild payment and a gray track's payments are
    listed there), in the same order as before (routes, colors, wilds ascending)."""
    t = s.t
    hand, wild = s.hands[p], s.t.wild
    hw = hand[wild]
    protect = s.rules.friendly_protection_turns and _protection_active(s, p)
    owner, shared, partner, color_of = s.owner, s.shared, t.route_partner, t.route_color
    trains = s.trains[p]
    extra = []
    for r in t.double_routes:
        q = partner[r]
        own = color_of[r]
        if own == GRAY or shared[r] or owner[r] != EMPTY or owner[q] != EMPTY or (only is not None and r not in only):
            continue
        L = t.route_len[r]
        if L > trains:
            continue
        if protect and _traps(s, p, r):
            continue  # friendly protection holds whichever track's color pays
        cq = color_of[q]
        for c in (range(wild) if cq == GRAY else (cq,)):
            if c == own:
                continue
            h = hand[c]
            for w in range(L - h if L > h else 0, (L - 1 if L - 1 < hw else hw) + 1):
                extra.append((CLAIM, r, c, w))
    return extra


def _protection_active(s: State, p: int) -> bool:
    return any(s.turns_taken[o] < s.rules.friendly_protection_turns for o in range(s.players) if o != p)


def _open(s: State, r: int) -> bool:
    """Is route r still claimable by someone? (the game's own double table: `shared`)"""
    if s.owner[r] != EMPTY:
        return False
    q = s.t.route_partner[r]
    return not (q >= 0 and s.owner[q] != EMPTY and not s.shared[r])


def _traps(s: State, p: int, r: int) -> bool:
    """Friendly route protection (002 §6: opponents "may not claim both connections leading into
    the same city solely to trap that player"): would claiming r close the last open route into a
    station where a protected opponent has no route yet? A station with one connection only (a
    dead end; a double's tracks are one connection) is never protected: taking its only route is
    not claiming both connections, and forbidding it would close the station to the claimer too."""
    t = s.t
    q = t.route_partner[r]
    for st in (t.route_a[r], t.route_b[r]):
        others = [x for x in t.routes_at[st] if x != r and x != q]
        if not others:
            continue  # a dead end
        if any(_open(s, x) for x in others):
            continue
        if q >= 0 and s.shared[r] and _open(s, q):
            continue  # the other track stays open to the others
        for o in range(s.players):
            if o != p and s.turns_taken[o] < s.rules.friendly_protection_turns:
                if not any(s.owner[x] == o for x in t.routes_at[st]):
                    return True
    return False


# the draw actions are the same few tuples every turn: made once (a face-up slot's action per slot)
_BLIND = (BLIND,)
_FACE = [(FACE_UP, i) for i in range(8)]
BLIND_DRAW = _BLIND  # for agents that pick a draw off the state (agents.fused_turn.FusedTurn._draw_now)


def _face(n: int) -> list[tuple]:
    while len(_FACE) < n:
        _FACE.append((FACE_UP, len(_FACE)))
    return _FACE


face_up_draws = _face  # the shared face-up draw actions, one per slot (at least n of them)


def _draw_legal(s: State, a: tuple) -> bool:
    """`is_legal` of a blind or face-up draw, without listing the draws: `a in draw_actions(s)`."""
    ph = s.phase
    if ph != TURN and ph != DRAW2:
        return False
    if len(a) == 1:
        return bool(s.deck or s.discard)  # the blind draw
    i = a[1]
    fu = s.face_up
    if type(i) is not int or not 0 <= i < len(fu):
        return False
    c = fu[i]
    return c != EMPTY and not (c == s.t.wild and ph == DRAW2 and s.rules.face_up_wild_takes_turn)


def draw_legal(s: State, a) -> bool:
    """`is_legal(s, a)`, with the shared draw tuples (`BLIND_DRAW`, `face_up_draws`) and any other
    face-up draw checked on the state as `Legal.__contains__` checks them: the referee's check of
    an `Agent.second_draw` answer, made without a `Legal`."""
    if a is _BLIND or (a.__class__ is tuple and len(a) == 2 and a[0] == FACE_UP and a[0].__class__ is int):
        return _draw_legal(s, a)
    return is_legal(s, a)


def draw_actions(s: State) -> list[tuple]:
    """The card draws open now (first or second card of the turn)."""
    fu = s.face_up
    face = _face(len(fu))
    acts = []
    wild = s.t.wild if s.phase == DRAW2 and s.rules.face_up_wild_takes_turn else EMPTY  # a wild cannot be second
    i = 0
    for c in fu:
        if c != EMPTY and c != wild:
            acts.append(face[i])
        i += 1
    if s.deck or s.discard:
        acts.append(_BLIND)  # last: agents may look for it there
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
    if kind == KEEP:
        return ph in (SETUP, KEEP_PHASE) and len(a) == 2 and _keep_ok(s, a[1])
    if kind == TICKETS:
        if ph != TURN or len(a) != 2 or not (s.ticket_deck or s.market):
            return False
        return a[1] in _market_masks(s) if s.rules.ticket_market else a[1] == 0
    if kind == REDRAW:
        return ph == REDRAW_PHASE and len(a) == 2 and -1 <= a[1] < len(s.offer)
    if kind == STATION:
        if ph != TURN or len(a) != 4 or not s.rules.transit or not s.tokens_left:
            return False
        st, typ = a[1], a[2]
        if not 0 <= st < s.t.n_stations or typ not in (BUS, TRAIN) or s.markers[st][typ] != EMPTY:
            return False
        return station_cost(s, st, typ, a[3], s.current) is not None
    if kind == PASS:
        return legal_actions(s) == [(PASS,)]
    return False


class Legal:
    """The legal actions of the seat to act, computed only as far as an agent asks.

    It is a sequence (len, indexing, iteration, `in`) of every legal action for agents that want
    them all; planners ask for `draws()` or `claims(routes)` and skip the full enumeration. `in`
    checks an action directly (`is_legal`) unless the list is already made, so an agent may return
    any legal keep even where a large offer's listing is bounded. In the quick game's REDRAW phase
    the first action declines the replacement (see `legal_actions`).

    The referee asks `a in legal` of the action the agent returned. Most agents return an action
    object this Legal handed out (an item of its list, of `draws()` or of `claims()`), and those are
    legal by construction: `in` answers them by identity, without listing or checking again. Any
    other object (a broken agent's tuple, an equal copy) is checked in full as before."""

    __slots__ = ("_s", "_all", "_given", "_picked", "_draws", "_claims", "_fewest")

    def __init__(self, s: State):
        self._s = s
        self._all = None
        self._given = []  # lists of actions handed out, for the identity check in `in`
        self._picked = None  # the last action read by index (a random agent's pick)
        # draws() and claims() listed once: planners ask for them several times a turn. Kept as
        # tuples and handed out as new lists, so an agent changing its list changes nothing here
        self._draws = None
        self._claims = None
        self._fewest = None

    def all(self) -> list[tuple]:
        if self._all is None:
            self._all = legal_actions(self._s)
        return self._all

    def __len__(self):
        return len(self.all())

    def __getitem__(self, i):
        a = self._picked = self.all()[i]
        return a

    def __iter__(self):
        return iter(self.all())

    def __contains__(self, a):
        if a is self._picked and a is not None:
            return True
        if a is _BLIND:  # a draw: checked on the state (`_draw_legal`), as cheaply as by identity
            s = self._s
            return (s.phase == TURN or s.phase == DRAW2) and bool(s.deck or s.discard)
        if a.__class__ is tuple and len(a) == 2 and a[0] == FACE_UP and a[0].__class__ is int:
            return _draw_legal(self._s, a)
        for given in reversed(self._given):  # the last list handed out most often holds it
            for x in given:
                if x is a:
                    return True
        if self._all is not None:  # already listed: a membership test is the cheapest check
            return a in self._all
        return is_legal(self._s, a)

    def draws(self) -> list[tuple]:
        if self._s.phase not in (TURN, DRAW2):
            return []
        if self._draws is None:
            self._draws = tuple(draw_actions(self._s))
            self._given.append(self._draws)
        return list(self._draws)

    def draw_tuple(self) -> tuple:
        """`draws()` as the tuple it is kept in, not a new list (agents that only read it)."""
        if self._draws is None:
            if self._s.phase != TURN and self._s.phase != DRAW2:
                return ()
            self._draws = tuple(draw_actions(self._s))
            self._given.append(self._draws)
        return self._draws

    def claims(self, routes=None) -> list[tuple]:
        if self._s.phase != TURN:
            return []
        if routes is None:
            if self._claims is None:
                self._claims = tuple(claim_actions(self._s, self._s.current))
                self._given.append(self._claims)
            return list(self._claims)
        acts = claim_actions(self._s, self._s.current, routes)
        self._given.append(tuple(acts))  # a copy: an agent changing its list cannot add to it
        return acts

    def cheapest_claims(self, routes=None) -> list[tuple]:
        """The claims of `claims(routes)` that use the fewest wilds for their route and card color
        (and each route's all-wild payment), in the same order: a payment with more wilds of the
        same color is never better for an agent that keeps its wilds."""
        s = self._s
        if s.phase != TURN:
            return []
        if routes is None:
            acts = _fewest_wilds(self.claims())  # the full listing, made once per turn
        elif s.rules.double_either_color or s.rules.friendly_protection_turns:
            acts = claim_actions(s, s.current, routes, cheapest=True)
        else:
            acts = _claims_of(s, s.current, routes, False, True)  # what claim_actions would call
        if acts:
            self._given.append(tuple(acts))  # a copy: an agent changing its list cannot add to it
        return acts

    def longest_cheapest_claims(self, routes) -> list[tuple]:
        """The claims of `cheapest_claims(routes)` of the greatest route length among them, in the
        same order: all an agent that rates a claim by its length first needs to look at."""
        s = self._s
        if s.phase != TURN:
            return []
        if s.rules.double_either_color or s.rules.friendly_protection_turns:
            acts = claim_actions(s, s.current, routes, cheapest=True)
            if acts:
                lens = s.t.route_len
                top = max([lens[a[1]] for a in acts])
                acts = [a for a in acts if lens[a[1]] == top]
        else:
            acts = _claims_of(s, s.current, routes, False, True, True)
        if acts:
            self._given.append(tuple(acts))  # a copy: an agent changing its list cannot add to it
        return acts

    def fewest_wild_claims(self) -> list[tuple]:
        """Of `claims()`, each route's payment with fewest wilds (the first of a tie), in the same
        order: enough for an agent that rates a claim by its route, then by fewer wilds. Under
        `double_either_color` a route's payments are not listed together: this is then
        `cheapest_claims()`, a route's payments as they come."""
        s = self._s
        if s.phase != TURN:
            return []
        if s.rules.double_either_color:
            return self.cheapest_claims()
        if self._fewest is None:
            self._fewest = tuple(fewest_wild_claims(s, s.current))
            if self._fewest:
                self._given.append(self._fewest)
        return list(self._fewest)

    def stations(self) -> list[tuple]:
        """Transit expansion: the stations the seat can build now."""
        s = self._s
        if s.phase != TURN or not s.rules.transit or not s.tokens_left:
            return []
        return station_actions(s, s.current)

    def redraws(self) -> list[tuple]:
        """Quick game option: (REDRAW, -1) to keep the starting tickets as dealt, (REDRAW, i) to
        return ticket i of the offer and take the top ticket instead."""
        return legal_actions(self._s) if self._s.phase == REDRAW_PHASE else []

    def tickets(self) -> list[tuple]:
        if self._s.phase != TURN:
            return []
        return [a for a in self.all() if a[0] == TICKETS] if self._s.rules.ticket_market else (
            [(TICKETS, 0)] if self._s.ticket_deck else [])
