"""A completion chance for each ticket, not one for the whole plan (docs/expert.md).

The expert valued every kept ticket by one logistic curve in the plan's slack (turns and trains
left beyond the trains the plan needs). That curve was fitted on the tickets the agent had chosen
to keep, so it is pessimistic where the agent keeps little (survivor bias), and it gives a long
ticket whose connection is mostly shared with the others the same chance as a short ticket off on
its own. This module estimates each ticket's chance from what is known when it is kept:

- `slack`: the plan's slack by the long clock (as the curve before),
- `inc`: the trains this ticket's own connection adds to the plan (the others' routes free),
- `points`: its points (a long ticket crosses more of the board others claim on),
- `seats`: players − 2 (more seats take more of the routes it needs),
- `hclock`: the turns left by the hands as well (each seat's trains past the end trigger, a
  claim turn per 3 of them and a draw turn per 2 cards it still lacks), less the long clock's:
  the end comes sooner than the long clock says when a seat holds the cards for its trains,
- `detour`: the planning weight of a second connection over the first's (with the first's
  routes taken away; capped at 10): whether a ticket has an alternative to a blocked route
  (read only with `chance_detour = True`: it hardly improves the fit and costs a path search),
- `contest`: opponent routes touching the stations of its connection, per route of it.

p = 1 / (1 + exp(−(c · features))). The coefficients below were fitted by
bench/expert_chance_fit.py on games where the kept tickets were chosen at random among the
legal keeps (not by the agent: its own keeps are the ones it expected to complete, the bias that
made the old curve pessimistic); `python bench/expert_chance_fit.py --help` refits them.

A better chance alone made worse keeps (docs/expert.md): the keep's value counts a
ticket's points and its failure, not the turns its connection takes, for which the old curve's
pessimism had stood in. So the keep charges `keep_train_cost` points a planned train as well.

Keeps that build one trunk (docs/expert.md): switches on ExpertAgent.

Human winners hold about six tickets of about 13 points: long coast-to-coast tickets whose middle
the short ones reuse. The expert's keep already charges the trains of the whole kept set (a
ticket sharing routes with the others costs only its own extra trains); this mixin adds two
credits on top of that, each measured in docs/expert.md (the trail's on, with the
own-play refit of the completion chance and a train cost of 0.6; the share's off):

- `keep_share_credit`: points per train the kept tickets share, i.e. the trains their own
  cheapest connections would take one by one, less the trains the plan of all of them needs;
- `keep_trail_credit`: points per train of the longest trail the seat's network would make with
  the plan built (the longest-path bonus goes to the longest trail).
"""

from __future__ import annotations

import math

from mapkit.sim.longest import longest_trail
from mapkit.sim.paths import INF


FEATURES = ("bias", "slack", "inc", "points", "seats", "hclock", "detour", "contest")
# fitted by bench/expert_chance_fit.py on north-america (600 four-, 500 two- and 300
# three-player games, seed 100: 9,092 tickets kept at random, 73 % completed)
COEF = (2.3144, 0.1373, -0.0652, -0.05, 0.2392, 0.136, -0.0411, -0.3836)
# the same fit without detour and contest (0): the ticket draw values every unseen ticket on
# every turn after the plan, where a second path search each would cost a quarter of the speed
COEF_DRAW = (1.939, 0.1524, -0.0392, -0.0583, 0.0804, 0.1824, 0.0, 0.0)
# the same fit without detour (0): log-loss 0.4331 against 0.4316, for one path search fewer a
# ticket in every keep (about 11 % of the agent's searches); `chance_detour = False` uses it
COEF_NO_DETOUR = (2.2167, 0.1388, -0.062, -0.0578, 0.2416, 0.135, 0.0, -0.3983)
# the refit on the agent's own play (`chance_own_fit = True`; docs/expert.md):
# `python bench/expert_chance_fit.py boards/north-america.json --players 4,2,3 --games
# 600,500,300 --seed 100 --own-keeps chance` (the keeps not chosen at random by COEF_NO_DETOUR,
# not the plan's one curve): 9,140 tickets kept at random, 74 % completed, log-loss 0.4289
REFIT_NO_DETOUR = (2.3005, 0.1359, -0.0617, -0.0573, 0.2259, 0.1255, 0.0, -0.3706)
REFIT_DRAW = (2.0093, 0.1492, -0.0377, -0.0577, 0.0707, 0.1658, 0.0, 0.0)
DETOUR_CAP = 10
DRAW_DROPS = ("detour", "contest")  # the features COEF_DRAW leaves out


def hand_clock(view, seat_turns: float) -> float:
    """Turns this seat has left if the game ends as soon as a seat could lay its trains with the
    cards it holds: for each seat, its trains past the end trigger x take x / 3 claim turns and
    (x − its cards) / 2 draw turns; the fewest over the seats, this turn included, and never more
    than `seat_turns` (the long clock)."""
    trigger = view.rules.end_trigger
    best = seat_turns
    for trains, cards in zip(view.trains, view.hand_sizes):
        x = trains - trigger
        if x <= 0:
            return 1.0
        t = x / 3.0 + max(0, x - cards) / 2.0 + 1
        if t < best:
            best = t
    return best


def chance(x, coef=COEF, shift=0.0) -> float:
    """The fitted completion chance of a ticket with features `x` (FEATURES without the bias),
    its log-odds moved by `shift`."""
    z = coef[0] + shift
    for c, v in zip(coef[1:], x):
        z += c * v
    if z < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


class TicketChanceMixin:
    """Mixed into ExpertAgent: keeps valued by a completion chance per ticket (`ticket_chance`)."""

    # False: every kept ticket valued by the plan's one curve (the play before). Measured with the
    # train cost below (docs/expert.md): +1.2 / +3.5 winner points, 0.35 turns a seat
    # shorter, the same tickets held (4-player self-play, seeds 23 / 29)
    ticket_chance = True
    # points a train of the plan costs in the keep (the turns it takes); 0.5 best of 0-1.5 with the
    # first fit (without it the fitted chance keeps more and worse: 4 winner points lost), 0.6
    # with the trail credit and refit (0.4 / 0.5 / 0.6 tried; docs/expert.md)
    keep_train_cost = 0.6
    chance_detour = False  # True: a second path search a ticket for `detour`, COEF (slower, no better)
    chance_shift = 0.0     # log-odds added to the fitted chance (measured: −0.5 to −2 lost)
    # the ticket draw values the unseen tickets by the fitted chance too (COEF_DRAW) instead of
    # the curve: +0.45 tickets held but −1.2 winner points at every threshold tried, so off
    draw_chance_on = False
    # True: the refit on the agent's own play (REFIT_NO_DETOUR, REFIT_DRAW) instead of
    # the first fit (the other keeps by the curve; False gives it). Alone within the noise
    # (seed 0, 1,000 games, with the trail credit: 129.19 → 129.20 winner points); on with the
    # trail credit and keep_train_cost 0.6, the shipped combination (docs/expert.md)
    chance_own_fit = True
    _prefix_memo = None    # {ticket prefix: plan state} of one keep decision (see _plan_detail)

    def plan_detail(self, view, tickets, costs, budget=INF):
        """`plan_for` (the better of two ticket orders), and for each ticket planned its
        connection's routes that still cost something: (routes, need, given_up, {ticket: routes})."""
        order = sorted((x for x in tickets if not view.connected(x[0], x[1])), key=lambda x: -x[2])
        best = self._plan_detail(view, order, costs, budget)
        if len(order) > 1:
            other = self._plan_detail(view, order[::-1], costs, budget)
            if (len(other[2]), other[1]) < (len(best[2]), best[1]):
                return other
        return best

    def _plan_detail(self, view, tickets, costs, budget):
        """ExpertAgent._plan_for, also giving each planned ticket's own routes.

        Within one keep decision (`_prefix_memo` set by choose_keep: the same costs, budget and
        position for every option) the plan after the first i tickets depends only on those
        tickets, and the options share their prefixes (both orders sort by points): a plan picks
        up from its longest prefix planned before instead of searching again (the searches were
        a third of the agent's time; the same plans, tests/test_expert_tickets_chance.py)."""
        memo = self._prefix_memo
        lens = self.t.route_len
        start, state = 0, None
        whole = tuple(tickets)
        if memo is not None:
            for i in range(len(tickets), 0, -1):
                state = memo.get(whole[:i])
                if state is not None:
                    start = i
                    break
        if state is None:
            free: set = set()
            given_up = []
            costs = list(costs)
            need = 0
            own = {}
        else:
            c0, need, g0, o0, f0 = state
            costs, given_up, own, free = list(c0), list(g0), dict(o0), set(f0)
        for i in range(start, len(tickets)):
            ticket = tickets[i]
            a, b = ticket[0], ticket[1]
            if not view.connected(a, b):
                if memo is None:
                    c, routes = self._path(costs, a, b, ())
                else:
                    # within the decision the costs are the given ones with `free` zeroed: the
                    # same free routes, the same search (a prefix of tickets given up or already
                    # joined, in another option, leaves them as they were)
                    key = ("path", a, b, frozenset(free))
                    got = memo.get(key)
                    if got is None:
                        c, routes = self._path(costs, a, b, ())
                        memo[key] = (c, tuple(routes))
                    else:
                        c, routes = got[0], list(got[1])
                extra = sum(map(lens.__getitem__, routes))
                if c == INF or need + extra > budget:
                    given_up.append(ticket)
                else:
                    need += extra
                    own[ticket] = routes
                    free.update(routes)
                    for r in routes:
                        costs[r] = 0
            if memo is not None:
                memo[whole[:i + 1]] = (tuple(costs), need, tuple(given_up), dict(own), frozenset(free))
        # longest first, then by route: (-lens[r], r) without a key call a route (a reversed sort is stable)
        return sorted(sorted(free), key=lens.__getitem__, reverse=True), need, given_up, own

    def ticket_features(self, view, ticket, routes, need, trains, turns, hturns, costs) -> tuple:
        """The features of `ticket` (FEATURES without the bias) planned with its own `routes`
        in a plan of `need` trains; `costs` the seat's planning costs (for the detour)."""
        t = self.t
        lens = t.route_len
        inc = sum(map(lens.__getitem__, routes))
        slack = min(turns - need, trains - need - 3)
        hclock = hturns - turns
        detour, contest = self._around(view, ticket, routes, costs)
        return (slack, inc, ticket[2], self.players - 2, hclock, detour, contest)

    def _around(self, view, ticket, routes, costs) -> tuple:
        """(detour, contest) of `ticket` planned over `routes`. Kept for the turn: the keeps of
        one offer plan the same ticket over the same routes again and again (half the cost of
        valuing them by ticket was these searches)."""
        key = (view.turn, view.claimed, ticket, tuple(routes))
        memo = self._around_memo
        if memo is None or memo[0] != key[:2]:
            memo = self._around_memo = (key[:2], {})
        got = memo[1].get(key)
        if got is not None:
            return got
        t = self.t
        detour = 0.0
        contest = 0.0
        if routes and self.chance_detour:
            c0 = sum(costs[r] for r in routes)
            work = list(costs)
            for r in routes:
                work[r] = INF
            c1 = self._path(work, ticket[0], ticket[1], ())[0]
            detour = DETOUR_CAP if c1 == INF else min(DETOUR_CAP, c1 - c0)
        if routes:
            owner, seat, at, ra, rb = view.owner, self.seat, t.routes_at, t.route_a, t.route_b
            stations = {ra[r] for r in routes} | {rb[r] for r in routes}
            n = 0
            for st in stations:
                for x in at[st]:
                    o = owner[x]
                    if o != -1 and o != seat:
                        n += 1
            contest = n / len(routes)
        memo[1][key] = (detour, contest)
        return detour, contest

    def draw_chance(self, view, trains, turns):
        """For the ticket draw (ticket_draws.py): a function (trains its connection takes,
        points) -> completion chance of a ticket drawn now, with the plan done (COEF_DRAW)."""
        hclock = hand_clock(view, turns) - turns
        seats = self.players - 2
        shift = self.chance_shift
        coef = REFIT_DRAW if self.chance_own_fit else COEF_DRAW

        def p(c, pts):
            return chance((min(turns - c, trains - c - 3), c, pts, seats, hclock, 0.0, 0.0), coef, shift)

        return p

    def keep_value_by_ticket(self, view, tickets, costs, budget, trains, turns):
        """(value, routes, need, given_up) of holding `tickets`: each open ticket valued by its own
        chance (points × p − penalty × (1 − p)), a complete one in full, one given up as failed."""
        routes, need, given_up, own = self.plan_detail(view, tickets, costs, budget)
        factor = -view.rules.failed_ticket_factor  # 1 standard, 0 family
        memo = self._prefix_memo
        if memo is None:
            hturns = hand_clock(view, turns)
        else:  # one keep decision: the same position and turns for every option
            hturns = memo.get(("clock", turns))
            if hturns is None:
                hturns = memo[("clock", turns)] = hand_clock(view, turns)
        coef = COEF if self.chance_detour else REFIT_NO_DETOUR if self.chance_own_fit else COEF_NO_DETOUR
        value = 0.0
        for k in tickets:
            if view.connected(k[0], k[1]):
                value += k[2]
            elif k in given_up or k not in own:
                value -= factor * k[2]
            else:
                p = chance(self.ticket_features(view, k, own[k], need, trains, turns, hturns, costs), coef, self.chance_shift)
                value += k[2] * p - factor * k[2] * (1 - p)
        return value - self.keep_train_cost * need, routes, need, given_up


class TrunkMixin:
    """Mixed into ExpertAgent: `trunk_value`, the credits above for one keep option."""

    # measured (docs/expert.md; 4-player self-play, seeds 23 / 29): 0.5 a shared
    # train +0.6 winner points, 1.0 −0.7 (more failures), both within the noise: off
    keep_share_credit = 0.0   # 0: off
    # a tenth of a point a train of the longest trail. Alone: +1.1 / +0.9 winner points at seeds
    # 23 / 29 but +0.1 at seed 0 (1,000 games). With chance_own_fit = True and keep_train_cost =
    # 0.6 (the shipped combination): +1.1 winner points over four fresh seeds of 1,000 games
    # (2.7 standard errors), the same tickets and turns (docs/expert.md); 0 with
    # keep_train_cost = 0.5 and chance_own_fit = False gives the play before
    keep_trail_credit = 0.1
    _trunk_memo = None        # {ticket: trains of its own connection} of one keep decision

    def trunk_value(self, view, tickets, routes, need, costs, given_up) -> float:
        value = 0.0
        if self.keep_share_credit:
            memo = self._trunk_memo
            if memo is None:
                memo = self._trunk_memo = {}
            lens = self.t.route_len
            alone = 0
            for k in tickets:
                if k in given_up or view.connected(k[0], k[1]):
                    continue
                c = memo.get(k)
                if c is None:
                    w, path = self._path(costs, k[0], k[1], ())
                    c = memo[k] = 0 if w == INF else sum(lens[r] for r in path if costs[r])
                alone += c
            value += self.keep_share_credit * (alone - need)
        if self.keep_trail_credit:
            t = self.t
            ra, rb, lens = t.route_a, t.route_b, t.route_len
            edges = [(ra[r], rb[r], lens[r]) for r in view.claims_of(self.seat)]
            edges += [(ra[r], rb[r], lens[r]) for r in routes]
            length = longest_trail(edges, budget=3000).length
            value += self.keep_trail_credit * length
        return value
