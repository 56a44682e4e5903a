"""The playstyles built on the planner: ticket-hungry, long-route and one-step."""

from __future__ import annotations

from mapkit.sim.engine import DRAW2, KEEP_PHASE, SETUP
from mapkit.sim.agents.planner import PlannerAgent


class TicketHungryAgent(PlannerAgent):
    """Draws new tickets while its open plan still needs up to a third of its trains, where
    route-focus waits for its plan to be done; keeps as route-focus does (measured: keeping more
    on each draw left plans it could not finish, and then it drew fewer tickets, not more)."""

    name = "ticket-hungry"
    hunger = True
    ticket_plan_share = 0.3
    ticket_spare = 10
    ticket_turns = 4


class LongRouteAgent(PlannerAgent):
    """Claims the longest routes it can pay for; keeps cheap tickets and draws more when its plan
    is nearly done and it has trains and time for them."""

    name = "long-route"
    keep_slack = 0.5
    keep_train_cost = 1.3
    ticket_plan_share = 0.3
    ticket_spare = 14
    ticket_turns = 8

    def act(self, view, legal):
        phase = view.phase
        if phase == SETUP or phase == KEEP_PHASE:
            return self.choose_keep(view, legal)
        t = self.t
        trains = view.trains[self.seat]
        if phase != DRAW2 and view.final_round:
            return self.last_turn(view, legal, self.plan(view)[0])
        open_long = self._longest_open(self._costs(view), trains, 5)
        if phase == DRAW2:
            return self.draw(view, legal, self.wanted_colors(view, open_long))
        claim = self.best_claim(legal)
        if claim is not None and (t.route_len[claim[1]] >= 4 or t.route_len[claim[1]] >= trains - 2
                                  or self._danger(view)):
            return claim
        routes, cost = self.plan(view)
        planned = self.plan_claim(view, legal, routes) if routes else None
        if planned is not None and (trains < 25 or t.route_len[planned[1]] >= 3):
            return planned
        if self.wants_tickets(view, legal, cost):
            return legal.tickets()[0]
        if legal.draws():
            return self.draw(view, legal, self.wanted_colors(view, open_long))
        return claim or legal[0]


class OneStepAgent(PlannerAgent):
    """Rates every claim one action ahead; draws tickets when its plan is nearly done."""

    name = "one-step"
    ticket_plan_share = 0.3
    ticket_spare = 14

    def act(self, view, legal):
        phase = view.phase
        if phase in (SETUP, KEEP_PHASE):
            return self.choose_keep(view, legal)
        routes, cost = self.plan(view)
        if phase == DRAW2:
            return self.draw(view, legal, self.wanted_colors(view, routes))
        if view.final_round:
            return self.last_turn(view, legal, routes)
        planned = set(routes)
        t = self.t
        best, best_value = None, 0.0
        seen = set()
        for a in legal.claims():
            if a[1] in seen:
                continue
            seen.add(a[1])
            r = a[1]
            value = t.route_points[r] + (2.5 * t.route_len[r] if r in planned else 0)
            if value > best_value:
                best_value, best = value, r
        if best is not None and best in planned:
            return self.plan_claim(view, legal, [best])
        # a claim off the plan must leave the trains the plan needs (measured: without this rule
        # its tickets were lost and new tickets made it weaker, not stronger)
        if best is not None and best_value >= 7 and view.trains[self.seat] - t.route_len[best] >= cost + 3:
            return self.best_claim(legal, {best}, self._keep_colors(routes), view.hand)
        if not routes:
            return self.fallback(view, legal)
        if self.wants_tickets(view, legal, cost):
            return legal.tickets()[0]
        return self.spend_or_draw(view, legal, routes, cost)
