"""The strong agent, `expert`: a planner that counts turns, keeps tickets by expected value, races
and blocks on the visible table, and spends its hand at the end. No lookahead search: the speed
budget (20 four-player games a second) leaves no room for rollouts, so each decision is a
targeted estimate instead.

It sees only its SeatView. What it does, and why:

- plans its tickets as one network (cheapest connections, shared routes free; the cheaper of two
  ticket orders), a route weighing
  its trains plus a claim turn less a quarter of its points, so fewer, longer routes win (more
  points per train, fewer turns);
  when the plan is stuck while the hand grows, it plans again by the hand (routes it can pay);
- estimates the turns left from the seat with the fewest trains and its pace, and keeps tickets by
  expected value: points × completion chance − points × failure chance, the chance a logistic
  curve in the slack (turns and trains left beyond the plan), fitted to self-play at 2 and 4
  players; a ticket already complete counts in full, one that no longer fits is given up; the
  keeps value each ticket by its own chance instead (fitted on random keeps: its connection's
  trains, points, the opponents around it, the clock by hands; refit on its own play) less 0.6
  of a point a planned train, plus a tenth of a point a train of the longest trail the plan
  makes (ticket_keeps.py);
- draws more tickets once its plan is done (not before: measured): from three players while a
  draw is worth it by its exact expected value over the tickets it has not seen, each valued by
  its connection to the network (ticket_draws.py); at two players while 25+ trains and 8 turns
  remain (it is the seat that ends a two-player game); keeps one ticket more than the best keep
  when it adds at most 3 trains (a later draw's turn saved);
- keeps tickets whose plan runs along long routes (the plan's route points count in the keep);
- draws for the route nearest to a claim first, never a face-up wild (a turn for one card, when
  two blind cards are worth two trains to a seat that lays nearly every card it draws) unless its
  plan cannot be paid otherwise (a scarce color: card_draws.py) or, holding 6+ cards, the wild
  makes the route nearest to a claim payable, and
  claims planned routes next to an opponent's
  network first (racing); at two players blocks a short route on the cheapest join of two pieces
  of the opponent's network when the detour costs them at least 4 trains;
- near the end stops drawing cards it cannot spend, and on its last turn takes the claim worth the
  most (route points plus any ticket it completes), so it never ends drawing with a big hand.

It overrides every planner method it relies on (PlannerAgent's `transit_move` and `best_claim`
excepted), so its play does not follow edits to the other planners' habits; on rules it has no
special logic for (transit stations, ticket market, solo) it plays like the planner.
"""

from __future__ import annotations

import math

from mapkit.sim.agents.expert.blocking import BlockMixin
from mapkit.sim.agents.expert.claims import ClaimOrderMixin
from mapkit.sim.agents.expert.ticket_keeps import TicketChanceMixin
from mapkit.sim.agents.expert.endgame import EndgameMixin
from mapkit.sim.agents.expert.card_draws import SpareMixin
from mapkit.sim.agents.expert.ticket_draws import TicketDrawMixin
from mapkit.sim.agents.expert.ticket_keeps import TrunkMixin
from mapkit.sim.agents.expert.card_draws import ScarceColorMixin
from mapkit.sim.engine import BLIND, DRAW2, FACE_UP, KEEP_PHASE, SETUP
from mapkit.sim.paths import INF, cheapest_path
from mapkit.sim.agents.planner import PlannerAgent
from mapkit.sim.tables import GRAY

# planning weight of a route: its trains plus a claim turn (in trains), less a quarter of its
# points, so a path of fewer, longer routes is preferred to one of about the same length in short
# hops: more points per train and fewer turns (a 6-train route weighs about a 4-train one).
# Measured (docs/design/expert.md): claim turn 3.0 best of 0.6–6; the points term 0.25 best of 0.15–0.35
# (with face-up wilds left: +2 points of win share against route-focus, within the noise, and
# half a turn a seat shorter in 4-player self-play)
CLAIM_TURN = 3.0
POINTS_WEIGHT = 0.25


class ExpertAgent(ClaimOrderMixin, SpareMixin, EndgameMixin, TrunkMixin, TicketChanceMixin, TicketDrawMixin, ScarceColorMixin, BlockMixin,
                  PlannerAgent):
    name = "expert"
    # the planning weight (above), as attributes to measure it again (points
    # weight 0.3 lost 0.9 winner points)
    claim_turn, points_weight = CLAIM_TURN, POINTS_WEIGHT
    # the long clock's allowance for another seat overtaking the seat with the fewest trains
    # (_turns_left; measured: 0.8 and 0.9 within 0.05 winner points of it)
    clock_factor = 0.85
    # tuned on north-america self-play and against route-focus (see the module docstring)
    p_offset, p_scale = -2.0, 5.0    # completion chance: logistic in the slack (turns and trains)
    p_offset_per_seat = 2.75
    more_tickets_trains, more_tickets_turns = 12, 8   # draw tickets when the plan is done and these remain
    # (at two players, or with draw_ev_min None; from three players the draw's expected value
    # decides: TicketDrawMixin.draw_ev_min, draw_ev_trains)
    # ... at two players only with this many trains: the expert is the seat that ends a two-player
    # game (0.6 trains left at the end against route-focus's 6.7), so a done plan is better spent
    # ending it on long routes than on tickets drawn with few trains (measured, docs/design/expert.md:
    # +2 points of win share against route-focus; at four players it costs 11 winner points)
    more_tickets_trains_two = 25
    cash_out_turns = 1.5             # turns left below which the hand is spent on the best claims
    # choosing tickets, the plan's route points count: + credit × (its points − base × its
    # trains). A plan along long routes scores on the way (2–2.5 points a train, a 1-train hop 1);
    # trains below `base` a train cost a little, as they are not spent on long routes elsewhere.
    # Measured (docs/design/expert.md): 0.5 and 2.0 best of 0.25–1 and 1.6–2.5; 0: no credit
    keep_route_credit = 0.5
    keep_route_base = 2.0
    # one ticket more than the best keep when it adds at most this many trains to the plan (a
    # ticket kept now saves the turn of a later draw), at setup and after a draw; 0 turns it off. Measured (docs/design/expert.md): with the draw by expected
    # value (ticket_draws.py) +1.4 / +0.4 winner points, +0.17 / +0.14 tickets (seeds 23 / 29);
    # 5 trains lost 2.3 winner points, and 5-7 at setup alone gave nothing
    extra_keep_trains = 3

    def reset(self, seat, tables, players, rng):
        super().reset(seat, tables, players, rng)
        t = tables
        # self.adj is the planner's (paths.adjacency: the board's, built once on the tables, the
        # same pairs in the same order); the weights are kept on the tables too, with the
        # constants they were made of (built once, not by every seat of every game)
        got = t.__dict__.get("_expert_weight")
        ct, pw = self.claim_turn, self.points_weight
        if got is None or got[0] != (ct, pw):
            got = ((ct, pw), tuple(max(0.5, L + ct - pw * p) for L, p in zip(t.route_len, t.route_points)))
            object.__setattr__(t, "_expert_weight", got)  # Tables is frozen; a cache, like the adjacency
        self.weight = got[1]
        self._plan_key = None
        self._plan = ([], 0)
        self._plan_claimed = None
        self._plan_hand = 0
        self._start_trains = None
        self._turns_key = None
        self._turns = None
        self._base_key = None
        self._base = None
        self._open = {}
        self._target = None
        self._target_missing = 0
        self._reset_scarce(tables, players)
        self._reset_tickets()

    # ------------------------------------------------------------ the table

    def _costs(self, view, hand=None) -> list:
        """Planning weight of each route for this seat: 0 own, inf taken or closed, else its trains
        plus a claim turn; with `hand`, plus half a turn for each card it still lacks (the colour
        held best, wilds included), so a stuck plan turns to routes the hand can already pay."""
        # owners change only by claims: the hand-free costs (and the open routes a hand adds to)
        # are kept, and brought up to date claim by claim from the claim log (a claim changes
        # only its route's cost and its double's other track's)
        claimed = view.claimed
        if self._base_key != claimed:
            log = view.claim_log
            if self._base_key is None or self._base_key > claimed or len(log) != claimed:
                self._costs_now(view)  # a first look, or a position made by hand: every route
            else:
                partner = self.t.route_partner
                for x in log[self._base_key:claimed]:
                    self._cost_of(view, x)
                    if partner[x] >= 0:
                        self._cost_of(view, partner[x])
            self._base_key = claimed
        costs = list(self._base)
        if hand is None:
            return costs
        wild = self.t.wild
        hw = hand[wild]
        gray = max(hand[:wild]) + hw if wild else hw
        for r, c, cq, L, wr in self._open.values():
            have = gray if c == GRAY else hand[c] + hw
            if cq is not None:  # the other track of an open double: the better-paid of the two
                h2 = gray if cq == GRAY else hand[cq] + hw
                if h2 > have:
                    have = h2
            if L > have:
                costs[r] = wr + 0.5 * (L - have)
        return costs

    def _costs_now(self, view) -> None:
        """The hand-free costs of every route (`_base`) and the open routes (`_open`: route ->
        (route, color, the other track's color or None when that track is not open, length,
        weight)), from the owners as they are."""
        self._base = [0] * self.t.n_routes
        self._open = {}
        for r in range(self.t.n_routes):
            self._cost_of(view, r)

    def _cost_of(self, view, r) -> None:
        """Route r's entry in `_base` and `_open`: 0 own, INF taken or closed, else its weight."""
        owner, seat = view.owner, self.seat
        o = owner[r]
        if o == seat:
            self._base[r] = 0
            self._open.pop(r, None)
        elif o != -1:
            self._base[r] = INF
            self._open.pop(r, None)
        else:
            t = self.t
            q = t.route_partner[r]
            if q >= 0 and owner[q] != -1 and (owner[q] == seat or not view.shared_doubles[r]):
                self._base[r] = INF
                self._open.pop(r, None)
            else:
                w = self.weight[r]
                self._base[r] = w
                self._open[r] = (r, t.route_color[r], t.route_color[q] if q >= 0 and owner[q] == -1 else None,
                                 t.route_len[r], w)

    def _path(self, costs, a, b, free):
        return cheapest_path(self.adj, costs, a, b, free)

    def plan_for(self, view, tickets, costs=None, budget=INF):
        """(routes to claim, their trains, tickets given up): the better of two plans, tickets
        planned most points first and least points first (fewer tickets given up, then fewer
        trains). A plan of shortest connections one ticket after another depends on the order (a
        ticket planned later reuses the routes planned before it); trying the reverse order too is
        a cheap step towards the cheapest network over all the tickets' ends (a Steiner tree).
        Measured (docs/design/expert.md): +3 winner points in 4-player self-play, 0.1 tickets more,
        and +1 point of win share against route-focus; about 15 % of the agent's speed."""
        # complete tickets are skipped by the plan: with fewer than two open ones both orders
        # give the same plan
        order = sorted((x for x in tickets if not view.connected(x[0], x[1])), key=lambda x: -x[2])
        if costs is None:
            costs = self._costs(view)
        best = self._plan_for(view, order, costs, budget)
        if len(order) > 1:
            other = self._plan_for(view, order[::-1], costs, budget)
            if (len(other[2]), other[1]) < (len(best[2]), best[1]):
                return other
        return best

    def _plan_for(self, view, tickets, costs=None, budget=INF):
        """(routes to claim, their trains, tickets given up), tickets planned in the order given;
        one that cannot be connected, or whose connection would take the plan past `budget`
        trains, is given up (it will fail, so no trains are spent on it)."""
        free: set = set()
        given_up = []
        # planned routes cost nothing to the next ticket: zeroed in a copy, not looked up in a set
        # on every edge of the search (the agent's hottest loop; ~3 % of its time)
        costs = list(self._costs(view) if costs is None else costs)
        lens = self.t.route_len
        need = 0
        for ticket in tickets:
            a, b = ticket[0], ticket[1]
            if view.connected(a, b):
                continue
            c, routes = self._path(costs, a, b, ())
            extra = sum(map(lens.__getitem__, routes))
            if c == INF or need + extra > budget:
                given_up.append(ticket)
                continue
            need += extra
            free.update(routes)
            for r in routes:
                costs[r] = 0
        # longest first, then by route: (-lens[r], r) without a key call a route (a reversed sort is stable)
        return sorted(sorted(free), key=lens.__getitem__, reverse=True), need, given_up

    def _budget(self, view, turns) -> float:
        """Trains the seat can still lay: its trains, and the cards it holds and can draw in the
        turns left (two a turn, a turn for each claim counted as one fewer card)."""
        return min(view.own_trains, view.hand_count + 1.5 * turns)

    def plan(self, view, replan=False):
        """Planned routes and their trains; replanned when a planned route is taken or closed, the
        tickets change, or `replan` (the plan is stuck and the hand has grown: plan by the hand).
        Own claims only shorten the plan."""
        budget = self._budget(view, self.turns_left(view))
        if self._plan_key == view.ticket_count and not replan:
            # nothing claimed since the plan was checked: still_open would find the same routes
            routes = list(self._plan[0]) if view.claimed == self._plan_claimed else self.still_open(view, self._plan[0])
            self._plan_claimed = view.claimed
            if routes is not None:
                need = sum(map(self.t.route_len.__getitem__, routes))
                if need <= budget:
                    self._plan = (routes, need)
                    return self._plan
                # no longer fits the trains or the turns left: plan again, giving tickets up
        hand = view.hand
        routes, cost, _ = self.plan_for(view, view.tickets, self._costs(view, hand), budget)
        self._plan = (routes, cost)
        self._plan_key = view.ticket_count
        self._plan_claimed = view.claimed
        self._plan_hand = sum(hand)
        return self._plan

    def turns_left(self, view) -> float:
        """This seat's expected turns left, this one included: the seat with the fewest trains ends
        the game when it reaches the end trigger, spending trains at the rate seats have so far."""
        # a function of the turn and the trains (claims only change them): kept while neither
        # moves (plan, _act and choose_keep ask it two or three times a turn)
        key = (view.turn, view.claimed)
        if key == self._turns_key:
            return self._turns
        self._turns_key = key
        self._turns = got = self._turns_left(view)
        return got

    def _turns_left(self, view) -> float:
        trains = view.trains
        if view.final_round:
            return 1
        if self._start_trains is None:
            self._start_trains = max(trains)
        start = self._start_trains
        turn = view.turn // max(1, view.players)
        m = min(trains)
        # the seat with the fewest trains ends the game, at its own pace: its rate so far, blended
        # with a typical 1.3 trains a turn while few turns are played (checked against self-play)
        rate = (start - m + 1.3 * 6) / (turn + 6)
        # 0.85: another seat may overtake it (a long claim); the estimate ran ~15 % long without
        return self.clock_factor * max(0.0, (m - view.rules.end_trigger) / max(0.6, rate)) + 1

    # ------------------------------------------------------------ tickets

    def _completion(self, need, trains, turns) -> float:
        """Estimated chance of completing a plan of `need` trains with `trains` trains and `turns`
        turns left. A seat spends about a train a turn (drawing, then claiming), so the slack is
        in turns; the logistic curve was fitted to this agent's own self-play on north-america
        (completion of kept tickets against the slack when they were kept: 44 % at 2 turns of
        slack, 61 % at 6, 74 % at 10, 85 % at 14, 90 % at 18)."""
        slack = min(turns - need, trains - need - 3)
        # more seats take more of the routes a plan needs: the curve's midpoint moves by
        # `p_offset_per_seat` slack for each seat past two (fitted at 2 and at 4 players)
        offset = self.p_offset + self.p_offset_per_seat * (self.players - 2)
        return 1.0 / (1.0 + math.exp(-(slack - offset) / self.p_scale))

    def choose_keep(self, view, legal):
        offer = view.offer
        held = view.tickets
        trains = view.trains[self.seat]
        turns = self.turns_left(view) - (0 if view.phase == SETUP else 1)
        costs = self._costs(view)
        budget = self._budget(view, turns)
        factor = -view.rules.failed_ticket_factor  # 1 standard, 0 family
        best, best_value = None, -INF
        extra = self.extra_keep_trains
        plans = {}
        self._prefix_memo = {}  # the keeps share plan prefixes (ticket_keeps._plan_detail)
        for a in legal:
            mask = a[1]
            kept = [offer[i] for i in range(len(offer)) if mask >> i & 1]
            tickets = held + tuple(kept)
            if self.ticket_chance:
                # a chance per ticket (ticket_keeps.py), not the plan's one curve
                value, routes, need, given_up = self.keep_value_by_ticket(view, tickets, costs, budget, trains, turns)
                plans[mask] = (need, len(given_up))
            else:
                routes, need, given_up = self.plan_for(view, tickets, costs, budget)
                plans[mask] = (need, len(given_up))
                p = self._completion(need, trains, turns)
                value = 0.0
                for k in tickets:
                    if view.connected(k[0], k[1]):
                        value += k[2]  # already complete: its points are certain
                    elif k in given_up:
                        value -= factor * k[2]
                    else:
                        value += k[2] * p - factor * k[2] * (1 - p)
            if self.keep_route_credit:
                pts = self.t.route_points
                value += self.keep_route_credit * (sum(map(pts.__getitem__, routes)) - self.keep_route_base * need)
            if self.keep_trail_credit:
                # the longest trail the plan makes (ticket_keeps.py)
                value += self.trunk_value(view, routes)
            if value > best_value:
                best, best_value = a, value
        self._prefix_memo = None
        if extra and best is not None:
            best = self._one_more(legal, best, plans, extra)
        return best if best is not None else legal[0]

    @staticmethod
    def _one_more(legal, best, plans, extra):
        """`best` and one offered ticket more, when that plan gives no ticket up and needs at most
        `extra` trains more than best's (the cheapest such keep); else `best`."""
        mask = best[1]
        n = bin(mask).count("1") + 1
        need0 = plans[mask][0]
        more = [(plans[a[1]][0], a[1], a) for a in legal if a[1] & mask == mask and bin(a[1]).count("1") == n
                and not plans[a[1]][1] and plans[a[1]][0] - need0 <= extra]
        return min(more)[2] if more else best

    # ------------------------------------------------------------ cards

    def wanted_colors(self, view, routes) -> dict:
        """Cards still missing per color for the planned routes; a double's track and a gray
        route's color are the ones the hand pays best, and wilds go to the routes nearest to
        complete. Sets `_target`: the color of the route fewest cards from a claim, which the draw
        goes for first (one route finished soon is claimed before others take it, and turns
        cards into trains sooner than spreading draws over every route)."""
        t = self.t
        hand = view.hand_list()  # list(view.hand) without the tuple
        wild = t.wild
        owner, partner, colors, lens = view.owner, t.route_partner, t.route_color, t.route_len
        short = []
        for r in routes:
            c = colors[r]
            q = partner[r]
            if q >= 0 and owner[q] == -1:
                cq = colors[q]
                if cq != GRAY and (c == GRAY or hand[cq] > hand[c]):
                    c = cq
            if c == GRAY:
                # the color held best, the first of a tie: max by (hand[x], -x), without a key call a color
                c = hand.index(max(hand[:wild]))
            missing = lens[r] - hand[c]
            hand[c] = max(0, hand[c] - lens[r])
            if missing > 0:
                short.append((missing, -lens[r], r, c))
        short.sort()
        wilds = hand[wild]
        need = {}
        self._target = None
        for missing, _, r, c in short:
            use = min(wilds, missing)
            wilds -= use
            missing -= use
            if missing:
                need[c] = need.get(c, 0) + missing
                if self._target is None:
                    self._target = c
                    self._target_missing = missing
        self._wild_short = self.wilds_short(view, routes)
        return need

    def draw(self, view, legal, need: dict):
        """The card to draw for `need` (color -> cards missing): the face-up card of the color of
        the route closest to a claim, else of the most needed color, else blind. A face-up wild
        only when the plan cannot be paid otherwise (a scarce color) or the seat is stuck one card
        from a claim with a big hand (`_stuck`): it takes the whole turn for one card, and this
        agent ends with few cards in hand, so nearly every card drawn is laid as a train: two blind
        cards are worth about two trains, the wild one (measured: leaving face-up wilds won 58 % of
        two-player games against route-focus instead of 50 %, and shortened 4-player self-play by
        a turn a seat)."""
        target = self._target if self._target in need else None
        wild = self.t.wild
        fu = view.face_up
        best, key = None, 0
        draws = legal.draws()
        for a in draws:
            if a[0] == FACE_UP:
                c = fu[a[1]]
                if c == wild:
                    # only when the plan cannot be paid otherwise (card_draws.py); first then:
                    # wilds are the scarcest cards, and the row may not show one again soon
                    if self._wild_short and 9 > key:
                        best, key = a, 9
                    elif 7.5 > key and self._stuck(view, target):
                        # below a face-up card of the target color: that one and a second card
                        best, key = a, 7.5
                    continue
                n = need.get(c, 0)
                score = 8 if c == target else n and 3 + min(n, 3)
                if score > key:
                    best, key = a, score
        if best is not None:
            return best
        if draws and draws[-1][0] == BLIND:  # the blind draw, when there is one, is listed last
            return draws[-1]
        # no blind draw (the deck is out): a face-up card, a wild only if nothing else is there
        return next((a for a in draws if fu[a[1]] != wild), draws[0] if draws else (legal[0] if len(legal) else None))

    def _pay(self, view, claims, keep: dict):
        """The payment of one route that spends the fewest wilds, then the fewest cards of colors
        still wanted by the plan."""
        best, key = None, None
        wild = self.t.wild
        for a in claims:
            c = a[2]
            k = (-a[3], -(keep.get(c, 0) if c != wild else 0), view.hand[c] if c != wild else 0)
            if key is None or k > key:
                best, key = a, k
        return best

    # ------------------------------------------------------------ claims

    def _ticket_gain(self, view, r, tickets) -> int:
        """Points a claim of r adds by completing tickets (a failed ticket counts against)."""
        if not tickets:
            return 0
        t = self.t
        comp = view.component
        ca, cb = comp(t.route_a[r]), comp(t.route_b[r])
        factor = 1 - view.rules.failed_ticket_factor
        gain = 0
        # connected(u, v) is comp(u) == comp(v): the same tests on the parts' ids
        for x, y, pts, *_ in tickets:
            cx, cy = comp(x), comp(y)
            if cx == cy:
                continue
            if (cx == ca and cy == cb) or (cx == cb and cy == ca):
                gain += pts * factor
        return gain

    def _best_scoring_claim(self, view, legal, tickets):
        """The claim worth the most now: route points plus tickets it completes; None when nothing
        is claimable."""
        t = self.t
        if not view.rules.double_either_color:
            # the claimable routes, each once in the listing's order (`fewest_wild_claims`, not
            # every payment of every route), and then the payments of the best one only
            # (`claims(routes)`: the full listing's, in its order): the same claim, and paid alike
            best, best_v = None, -INF
            for a in legal.fewest_wild_claims():
                r = a[1]
                v = t.route_points[r] + self._ticket_gain(view, r, tickets) + 0.01 * r / max(1, t.n_routes)
                if v > best_v:
                    best, best_v = r, v
            return None if best is None else self._pay(view, legal.claims((best,)), {})
        by_route = {}
        for a in legal.claims():
            by_route.setdefault(a[1], []).append(a)
        if not by_route:
            return None
        best, best_v = None, -INF
        for r in by_route:
            v = t.route_points[r] + self._ticket_gain(view, r, tickets) + 0.01 * r / max(1, t.n_routes)
            if v > best_v:
                best, best_v = r, v
        return self._pay(view, by_route[best], {})

    def _contested(self, view, r) -> float:
        """How likely an opponent takes r soon: their networks touch its ends."""
        t = self.t
        owner = view.owner
        risk = 0.0
        for st in (t.route_a[r], t.route_b[r]):
            for x in t.routes_at[st]:
                o = owner[x]
                if o != -1 and o != self.seat:
                    risk += 1
        return risk

    def act(self, view, legal):
        self._look(view)
        return self._paid(self._act(view, legal))

    def _act(self, view, legal):
        phase = view.phase
        if phase == SETUP or phase == KEEP_PHASE:
            return self.choose_keep(view, legal)
        t = self.t
        trains = view.own_trains
        routes, need = self.plan(view)
        if self.endgame_search and self._next_is_last(view):
            # the next turn is the last: this one and that one searched exactly (endgame.py)
            a = self._last_second_card(view, legal) if phase == DRAW2 else self._last_two(view, legal)[0]
            if a is not None:
                return a
        if phase == DRAW2:
            return self.draw(view, legal, self.wanted_colors(view, routes) or self._spare_need(view))
        turns = self.turns_left(view)
        cards = view.hand_count

        # last turns: score what the hand can, never end drawing with a full hand
        if turns <= self.cash_out_turns:
            claim = self._best_scoring_claim(view, legal, view.tickets)
            if claim is not None:
                return claim
            station = self.transit_move(view, legal)
            if station is not None:
                return station
            return self._draw_or_any(view, legal, self.wanted_colors(view, routes))

        if routes:
            claims = self.keep_wilds(view, routes, self._planned_claims(legal, routes))
            if not claims and cards >= self._plan_hand + 4:
                # stuck waiting for colours while the hand grows: plan again by what it holds
                routes, need = self.plan(view, replan=True)
                claims = self.keep_wilds(view, routes, self._planned_claims(legal, routes))
        if routes:
            if claims:
                by_route = {}
                for a in claims:
                    by_route.setdefault(a[1], []).append(a)
                # the route to claim first: contested ones, then the longest
                r = max(by_route, key=self._race_key(view))   # claims.py
                rest = [x for x in routes if x != r and x != t.route_partner[r]]
                return self._pay(view, by_route[r], self.wanted_colors(view, rest))
            station = self.transit_move(view, legal)
            if station is not None:
                return station
            # no tickets while the plan is open: measured, drawing when it needed ≤ 3 trains lost
            # 2–5 points of win share, ≤ 6 trains lost 13 (a turn spent, and a forced keep)
            if turns <= 3 and need > trains:
                claim = self._best_scoring_claim(view, legal, view.tickets)
                if claim is not None:
                    return claim
            block = self._block(view, legal, trains - need)
            if block is not None:
                return block
            if legal.draws() and cards < trains:
                return self.draw(view, legal, self.wanted_colors(view, routes))
            claim = self._best_scoring_claim(view, legal, view.tickets)
            return claim or self._draw_or_any(view, legal, self.wanted_colors(view, routes))

        station = self.transit_move(view, legal)
        if station is not None:
            return station
        # plan done: more tickets while there is time; from three players while a draw is worth it
        # by the pool's expected value to the network (ticket_draws.py), at two players by the
        # trains and turns left (there the expert ends the game: see more_tickets_trains_two)
        if legal.tickets():
            if view.players > 2 and self.draw_ev_min is not None:
                if trains >= self.draw_ev_trains and self.draw_value(view, trains, turns - 1) >= self.draw_ev_min:
                    return legal.tickets()[0]
            else:
                least = self.more_tickets_trains_two if view.players == 2 else self.more_tickets_trains
                if trains >= least and turns >= self.more_tickets_turns:
                    return legal.tickets()[0]
        return self._spend(view, legal, trains, turns)

    def _planned_claims(self, legal, routes):
        """Legal claims of planned routes, or of the other track of a planned double."""
        wanted = set(routes)
        partner = self.t.route_partner
        for r in routes:
            if partner[r] >= 0:
                wanted.add(partner[r])
        return legal.claims(wanted)

    def _spend(self, view, legal, trains, turns):
        """Nothing planned: claim long routes for points, draw for them while it can still use the cards."""
        t = self.t
        claim = self._best_scoring_claim(view, legal, ())
        cards = sum(view.hand)
        if claim is not None:
            L = t.route_len[claim[1]]
            if L >= 4 or L >= trains - 2 or turns <= 3 or cards >= trains or cards >= 10:
                return claim
        if legal.draws() and cards < trains:
            return self.draw(view, legal, self._spare_need(view))
        return claim or self._draw_or_any(view, legal, {})

    def _draw_or_any(self, view, legal, need):
        if legal.draws():
            return self.draw(view, legal, need)
        claim = self.best_claim(legal)
        return claim or legal[0]
