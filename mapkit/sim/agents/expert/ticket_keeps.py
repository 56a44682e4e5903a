"""The expert's keeps: a completion chance for each ticket, and a credit for the trail a plan makes.

A kept ticket is valued by its own completion chance p = 1 / (1 + exp(−(c · features))), the
features known when it is kept:

- `slack`: the plan's slack by the long clock (turns and trains left beyond the trains the plan
  needs),
- `inc`: the trains this ticket's own connection adds to the plan (the others' routes free),
- `points`: its points (a long ticket crosses more of the board others claim on),
- `seats`: players − 2 (more seats take more of the routes it needs),
- `hclock`: the turns left by the hands as well (each seat's trains past the end trigger, a
  claim turn per 3 of them and a draw turn per 2 cards it still lacks), less the long clock's:
  the end comes sooner than the long clock says when a seat holds the cards for its trains,
- `contest`: opponent routes touching the stations of its connection, per route of it.

The coefficients (COEF) are a logistic regression on tickets kept at random among the legal
keeps in the expert's self-play (its own keeps are the ones it expected to complete, a biased
sample); `python bench/expert_chance_fit.py --help` refits them. A keep's value is, over its
tickets, points × p − points × (1 − p) (a complete ticket in full, one the plan gives up as
failed), less `keep_train_cost` points a planned train (the turns the connections take).

`TrunkMixin.trunk_value` adds `keep_trail_credit` points a train of the longest trail the seat's
network would make with the plan built (the longest-path bonus goes to the longest trail), so of
two keeps of like value the one whose plan makes one long line wins.
"""

from __future__ import annotations

import math

from mapkit.sim.longest import longest_trail
from mapkit.sim.paths import INF


FEATURES = ("bias", "slack", "inc", "points", "seats", "hclock", "contest")
# `python bench/expert_chance_fit.py boards/north-america.json --players 4,2,3 --games
# 600,500,300 --seed 100 --own-keeps chance`: 9,140 tickets kept at random, 74 % completed,
# log-loss 0.4289
COEF = (2.3005, 0.1359, -0.0617, -0.0573, 0.2259, 0.1255, -0.3706)


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


def chance(x, coef=COEF) -> float:
    """The fitted completion chance of a ticket with features `x` (FEATURES without the bias)."""
    z = coef[0]
    for c, v in zip(coef[1:], x):
        z += c * v
    if z < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


class TicketChanceMixin:
    """Mixed into ExpertAgent: keeps valued by a completion chance per ticket (`ticket_chance`)."""

    # True: every kept ticket valued by its own chance; False: by the plan's one curve
    # (ExpertAgent._completion), the keeps bench/expert_chance_fit.py plays
    ticket_chance = True
    # points a train of the plan costs in the keep (the turns it takes)
    keep_train_cost = 0.6
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

    def ticket_features(self, view, ticket, routes, need, trains, turns, hturns) -> tuple:
        """The features of `ticket` (FEATURES without the bias) planned with its own `routes`
        in a plan of `need` trains, `hturns` the hand clock (hand_clock)."""
        inc = sum(map(self.t.route_len.__getitem__, routes))
        slack = min(turns - need, trains - need - 3)
        hclock = hturns - turns
        return (slack, inc, ticket[2], self.players - 2, hclock, self._contest(view, ticket, routes))

    def _contest(self, view, ticket, routes) -> float:
        """Opponent routes touching the stations of `ticket`'s connection over `routes`, per
        route of it (0 without routes). Kept for the turn: the keeps of one offer plan the same
        ticket over the same routes again and again."""
        key = (view.turn, view.claimed, ticket, tuple(routes))
        memo = self._contest_memo
        if memo is None or memo[0] != key[:2]:
            memo = self._contest_memo = (key[:2], {})
        got = memo[1].get(key)
        if got is not None:
            return got
        contest = 0.0
        if routes:
            t = self.t
            owner, seat, at, ra, rb = view.owner, self.seat, t.routes_at, t.route_a, t.route_b
            stations = {ra[r] for r in routes} | {rb[r] for r in routes}
            n = 0
            for st in stations:
                for x in at[st]:
                    o = owner[x]
                    if o != -1 and o != seat:
                        n += 1
            contest = n / len(routes)
        memo[1][key] = contest
        return contest

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
        value = 0.0
        for k in tickets:
            if view.connected(k[0], k[1]):
                value += k[2]
            elif k in given_up or k not in own:
                value -= factor * k[2]
            else:
                p = chance(self.ticket_features(view, k, own[k], need, trains, turns, hturns))
                value += k[2] * p - factor * k[2] * (1 - p)
        return value - self.keep_train_cost * need, routes, need, given_up


class TrunkMixin:
    """Mixed into ExpertAgent: `trunk_value`, the trail credit of one keep option."""

    # points a train of the longest trail the plan makes (0: no credit, the `no-longest` player)
    keep_trail_credit = 0.1

    def trunk_value(self, view, routes) -> float:
        """`keep_trail_credit` × the trains of the longest trail of this seat's routes and
        `routes` (the plan) together."""
        t = self.t
        ra, rb, lens = t.route_a, t.route_b, t.route_len
        edges = [(ra[r], rb[r], lens[r]) for r in view.claims_of(self.seat)]
        edges += [(ra[r], rb[r], lens[r]) for r in routes]
        return self.keep_trail_credit * longest_trail(edges, budget=3000).length
