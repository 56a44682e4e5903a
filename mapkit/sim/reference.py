"""A minimal, plain pure-Python Ticket to Ride game: the yardstick `mapkit bench` measures against.

It plays on the same board tables as the simulator and is written the straightforward way — lists
and dicts, every legal action of a turn listed each turn, a policy picks one — so that the bench can
say how mapkit's turn rate compares with what a competent programmer's direct implementation gets
on the same machine in the same run (CPU seconds, so other work on the machine does not count).

Rules it plays (those that matter for the cost of a turn):
- a shuffled train-card deck, a discard pile reshuffled into a new deck when the deck runs out, a
  face-up row refilled after every take; three (the ruleset's `wild_reset`) face-up wilds discard
  the row and a new one is turned (at most 50 times in a row, so a deck of wilds cannot loop);
- a turn is either a card draw or a claim. A card draw takes two cards, face up or blind; a face-up
  wild taken first is the whole turn, and a face-up wild cannot be the second card;
- a claim pays the route's length in its color plus wilds (a gray route: any one color plus wilds,
  or wilds alone), needs enough trains, and follows the doubles rule (below the ruleset's
  `double_routes_min_players` one track closes the other; one seat never holds both tracks);
- tickets are dealt at the start (the ruleset's `deal_tickets` from its ticket decks) and all kept;
- the final round starts when a seat ends a turn with `end_trigger` or fewer trains; every seat gets
  one more turn. A seat with nothing legal passes; a round of passes, or `turn_limit`, ends it;
- scores: route points plus completed tickets minus failed ones (union-find per seat).

What it leaves out (mapkit plays all of these): drawing tickets during the game and choosing which
to keep, the longest-path and other bonuses, every variant and expansion (transit stations, ticket
market, teams, solo, friendly protection, quick game), the rules-gap bookkeeping, action logs and the
per-game statistics the balance report reads, and agents' seat views (here a policy reads the game
directly). So it does less per turn than mapkit; being faster than it is the goal.

Policies: `random` picks uniformly among the turn's legal actions (and again for the second card);
`greedy` claims the longest route it can pay for (fewest wilds), and otherwise draws the face-up
color it needs most (that of the longest open route; for a gray one the color it holds most of),
else blind. It does not plan for its tickets: it is the cheap yardstick for mapkit's planners, whose
per-turn work (shortest paths, keeps, a seat view) is far more than this.
"""

from __future__ import annotations

import random

MAX_WIPES = 50


class RefGame:
    def __init__(self, t, rules, players: int, seed: int):
        self.t = t
        self.players = players
        self.rng = random.Random(seed)
        self.wild = t.wild
        self.wild_reset = rules.wild_reset
        self.end_trigger = rules.end_trigger
        self.turn_limit = rules.turn_limit
        self.doubles_open = players >= rules.double_routes_min_players
        self.deck = list(t.deck)
        self.rng.shuffle(self.deck)
        self.discard = []
        self.hands = [[0] * (t.wild + 1) for _ in range(players)]
        for _ in range(rules.starting_hand):
            for p in range(players):
                c = self.draw_card()
                if c is not None:
                    self.hands[p][c] += 1
        self.face_up = [None] * rules.face_up
        self.refill()
        self.trains = [rules.trains_for(players)] * players
        self.owner = [None] * t.n_routes
        self.score = [0] * players
        tickets = [x for name in rules.ticket_decks for x in t.ticket_decks[name]]
        self.rng.shuffle(tickets)
        self.tickets = [[tickets.pop() for _ in range(min(rules.deal_tickets, len(tickets)))] for _ in range(players)]
        self.parent = [list(range(t.n_stations)) for _ in range(players)]
        self.current = 0
        self.turn = 0
        self.final_turns = None
        self.passes = 0
        self.over = False

    # -------------------------------------------------------------- cards
    def draw_card(self):
        if not self.deck:
            if not self.discard:
                return None
            self.deck = self.discard
            self.discard = []
            self.rng.shuffle(self.deck)
        return self.deck.pop()

    def refill(self):
        for i in range(len(self.face_up)):
            if self.face_up[i] is None:
                self.face_up[i] = self.draw_card()
        wipes = 0
        while self.wild_reset and self.face_up.count(self.wild) >= self.wild_reset and wipes < MAX_WIPES:
            wipes += 1
            self.discard.extend(c for c in self.face_up if c is not None)
            self.face_up = [self.draw_card() for _ in self.face_up]

    # -------------------------------------------------------------- actions
    def claims(self, p):
        """Every legal claim of seat p: (route, color, wilds)."""
        t, hand, wild = self.t, self.hands[p], self.wild
        hw = hand[wild]
        most = min(self.trains[p], hw + max(hand[:wild], default=0))  # the longest route payable
        out = []
        for r in range(t.n_routes):
            L = t.route_len[r]
            if self.owner[r] is not None or L > most:
                continue
            q = t.route_partner[r]
            if q >= 0 and self.owner[q] is not None and (self.owner[q] == p or not self.doubles_open):
                continue
            colors = range(wild) if t.route_color[r] < 0 else (t.route_color[r],)
            for c in colors:
                if hand[c] and hand[c] + hw >= L:
                    for w in range(max(0, L - hand[c]), min(L - 1, hw) + 1):
                        out.append((r, c, w))
            if hw >= L:
                out.append((r, wild, L))
        return out

    def draws(self, second: bool):
        out = [("face", i) for i, c in enumerate(self.face_up)
               if c is not None and not (second and c == self.wild)]
        if self.deck or self.discard:
            out.append(("blind",))
        return out

    def take(self, p, a) -> bool:
        """Take a card; True when that ends the turn (a face-up wild taken first)."""
        if a[0] == "blind":
            self.hands[p][self.draw_card()] += 1
            return False
        c = self.face_up[a[1]]
        self.face_up[a[1]] = None
        self.hands[p][c] += 1
        self.refill()
        return c == self.wild

    def claim(self, p, r, c, w):
        t = self.t
        L = t.route_len[r]
        self.hands[p][c] -= L - w if c != self.wild else L
        if c != self.wild:
            self.hands[p][self.wild] -= w
        self.discard.extend([c] * (L - w) + [self.wild] * w if c != self.wild else [c] * L)
        self.trains[p] -= L
        self.owner[r] = p
        self.score[p] += t.route_points[r]
        a, b = self.find(p, t.route_a[r]), self.find(p, t.route_b[r])
        self.parent[p][a] = b
        self.refill()  # cards came back: an empty slot can be filled again

    def find(self, p, x):
        parent = self.parent[p]
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def end_turn(self, passed=False):
        p = self.current
        self.passes = self.passes + 1 if passed else 0
        self.turn += 1
        if self.final_turns is not None:
            self.final_turns -= 1
            if self.final_turns <= 0:
                self.over = True
        elif self.trains[p] <= self.end_trigger:
            self.final_turns = self.players
        if self.passes >= self.players or self.turn >= self.turn_limit:
            self.over = True
        self.current = (p + 1) % self.players

    def final_scores(self):
        out = list(self.score)
        for p in range(self.players):
            for a, b, pts, _ in self.tickets[p]:
                out[p] += pts if self.find(p, a) == self.find(p, b) else -pts
        return out


# ------------------------------------------------------------------ policies
def random_turn(g: RefGame, rng: random.Random) -> None:
    p = g.current
    acts = [("claim",) + c for c in g.claims(p)] + g.draws(False)
    if not acts:
        return g.end_turn(passed=True)
    a = acts[rng.randrange(len(acts))]
    if a[0] == "claim":
        g.claim(p, a[1], a[2], a[3])
    elif not g.take(p, a):
        second = g.draws(True)
        if second:
            g.take(p, second[rng.randrange(len(second))])
    g.end_turn()


def greedy_turn(g: RefGame, rng: random.Random) -> None:
    p, t = g.current, g.t
    claims = g.claims(p)
    if claims:
        r, c, w = max(claims, key=lambda x: (t.route_len[x[0]], -x[2]))
        g.claim(p, r, c, w)
        return g.end_turn()
    # the color it needs most: that of the longest open route it cannot pay yet (a gray route:
    # the color it holds most of)
    hand = g.hands[p]
    target, best = None, 0
    for r in range(t.n_routes):
        if g.owner[r] is None and t.route_len[r] > best:
            target, best = r, t.route_len[r]
    if target is None:
        want = None
    elif t.route_color[target] >= 0:
        want = t.route_color[target]
    else:
        want = max(range(g.wild), key=lambda c: hand[c]) if g.wild else None
    for second in (False, True):
        acts = g.draws(second)
        if not acts:
            if not second:
                return g.end_turn(passed=True)
            break
        faces = [a for a in acts if a[0] == "face" and g.face_up[a[1]] == want]
        if faces:
            a = faces[0]
        elif acts[-1][0] == "blind":
            a = acts[-1]
        else:
            a = acts[rng.randrange(len(acts))]
        if g.take(p, a):
            break
    g.end_turn()


POLICIES = {"random": random_turn, "greedy": greedy_turn}


def play(t, rules, players: int, seed: int, policy: str) -> tuple[int, list[int]]:
    """One game; its number of turns and final scores."""
    g = RefGame(t, rules, players, seed)
    rng = random.Random(seed ^ 0x9E3779B9)
    turn = POLICIES[policy]
    while not g.over:
        turn(g, rng)
    return g.turn, g.final_scores()
