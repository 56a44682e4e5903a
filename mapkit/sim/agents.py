"""AI players. Each gets a SeatView and the legal actions and returns one of them.

The playstyles follow the agents of published AI playtesting of Ticket to Ride (de Mesentier Silva
et al., 2017, "AI-based playtesting of contemporary board games"):

- `random`: uniform over the legal actions;
- `route-focus`: plans the cheapest connections for its tickets (its own routes free, open routes
  at their length, others' routes closed), claims planned routes as soon as it can pay for them and
  otherwise draws the colors they need; keeps the tickets that fit its trains best;
- `ticket-hungry`: the same planner, but keeps more tickets and draws new ones whenever its plan
  is complete or cheap, while it has trains to spare;
- `long-route`: claims the longest routes it can pay for and collects the colors of the longest
  open routes; keeps the cheapest tickets;
- `one-step`: looks one action ahead: rates every claim by its points plus the planned ticket
  cost it saves, and takes the best if it is worth it, else draws like route-focus.

Agents are seeded by the runner; nothing reads global random state.
"""

from __future__ import annotations

import heapq
import random

from mapkit.errors import UsageError, did_you_mean
from mapkit.sim.engine import BLIND, DRAW2, FACE_UP, KEEP_PHASE, SETUP
from mapkit.sim.tables import GRAY, Tables

INF = float("inf")


class Agent:
    name = "agent"

    def reset(self, seat: int, tables: Tables, players: int, rng: random.Random) -> None:
        self.seat, self.t, self.players, self.rng = seat, tables, players, rng

    def act(self, view, legal) -> tuple:
        """One legal action. `legal` (legal.Legal) is a sequence of every legal action, and also
        answers `draws()`, `claims(routes)` and `tickets()` without listing the rest."""
        raise NotImplementedError


class RandomAgent(Agent):
    name = "random"

    def act(self, view, legal):
        return legal[self.rng.randrange(len(legal))]


class _Adjacency:
    """Per-board adjacency for planning, cached on the tables object's id."""

    _cache: dict = {}

    @classmethod
    def of(cls, t: Tables):
        key = id(t)
        hit = cls._cache.get(key)
        if hit is None or hit[0] is not t:
            adj = [[] for _ in range(t.n_stations)]
            for r in range(t.n_routes):
                a, b = t.route_a[r], t.route_b[r]
                adj[a].append((b, r))
                adj[b].append((a, r))
            hit = (t, tuple(tuple(x) for x in adj))
            cls._cache[key] = hit
        return hit[1]


class PlannerAgent(Agent):
    """Shared machinery: plan ticket connections, pay for routes, draw for colors."""

    name = "route-focus"
    keep_slack = 0.75        # keep tickets whose planned cost fits this share of the trains left
    hunger = False           # draw more tickets when the plan is done

    def reset(self, seat, tables, players, rng):
        super().reset(seat, tables, players, rng)
        self.adj = _Adjacency.of(tables)
        self._plan_key = None
        self._plan = ([], 0)

    # ------------------------------------------------------------ planning

    def _costs(self, view) -> list:
        """Trains each route would cost this seat now: 0 its own, inf closed or taken."""
        owner = view.owner
        seat = self.seat
        t = self.t
        shared = view.shared_doubles
        costs = []
        for r in range(t.n_routes):
            o = owner[r]
            if o == seat:
                costs.append(0)
            elif o != -1:
                costs.append(INF)
            else:
                q = t.route_partner[r]
                if q >= 0 and owner[q] != -1 and (owner[q] == seat or not shared[r]):
                    costs.append(INF)
                else:
                    costs.append(t.route_len[r])
        return costs

    def _path(self, costs: list, a: int, b: int, free: set) -> tuple[float, list[int]]:
        """Cheapest connection a→b: (cost in trains, routes still to claim)."""
        dist = {a: 0}
        via = {}
        heap = [(0, a)]
        adj = self.adj
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            d, n = pop(heap)
            if n == b:
                break
            if d > dist[n]:
                continue
            for m, r in adj[n]:
                w = 0 if r in free else costs[r]
                nd = d + w
                if nd < dist.get(m, INF):
                    dist[m] = nd
                    via[m] = (n, r)
                    push(heap, (nd, m))
        if b not in dist or dist[b] == INF:
            return INF, []
        routes = []
        n = b
        while n != a:
            n, r = via[n]
            if costs[r] and r not in free:
                routes.append(r)
        return dist[b], routes

    def plan_for(self, view, tickets) -> tuple[list[int], float, int]:
        """(routes to claim, their total length, tickets that cannot be completed)."""
        free: set = set()
        cost = 0
        impossible = 0
        costs = self._costs(view)
        for a, b, pts, *_ in sorted(tickets, key=lambda x: -x[2]):
            if view.connected(a, b):
                continue
            c, routes = self._path(costs, a, b, free)
            if c == INF:
                impossible += 1
                continue
            free.update(routes)
            cost += c
        return sorted(free, key=lambda r: -self.t.route_len[r]), cost, impossible

    def plan(self, view):
        """The planned routes and their cost, replanned only when they stop being valid.

        Others' claims only take options away, so a plan none of whose routes was taken or closed
        stays the plan; own claims just shorten it. New tickets always replan."""
        owner, seat = view.owner, self.seat
        if self._plan_key == len(view.tickets):
            t, shared = self.t, view.shared_doubles
            routes = []
            for r in self._plan[0]:
                o = owner[r]
                if o == seat:
                    continue
                q = t.route_partner[r]
                if o != -1 or (q >= 0 and owner[q] != -1 and (owner[q] == seat or not shared[r])):
                    break  # a planned route was taken or closed: plan again
                routes.append(r)
            else:
                self._plan = (routes, sum(t.route_len[r] for r in routes))
                return self._plan
        routes, cost, _ = self.plan_for(view, view.tickets)
        self._plan = (routes, cost)
        self._plan_key = len(view.tickets)
        return self._plan

    # ------------------------------------------------------------ choosing tickets

    def choose_keep(self, view, legal):
        offer = view.offer
        held = view.tickets
        budget = view.trains[self.seat] * self.keep_slack
        best, best_value = legal[0], -INF
        _, base_cost, _ = self.plan_for(view, held)
        for a in legal:
            mask = a[1]
            kept = [offer[i] for i in range(len(offer)) if mask >> i & 1]
            _, cost, impossible = self.plan_for(view, held + tuple(kept))
            extra = cost - base_cost
            points = sum(k[2] for k in kept)
            value = points - 1.2 * extra - 3 * len(kept) - 20 * impossible
            if cost > budget:
                value -= 4 * (cost - budget)
            if self.hunger:
                value += 2 * len(kept)
            if value > best_value:
                best, best_value = a, value
        return best

    # ------------------------------------------------------------ paying and drawing

    def best_claim(self, legal, routes: set | None = None):
        """The claim of a wanted route (longest first) that uses the fewest wild cards."""
        best, key = None, None
        for a in legal.claims(routes):
            k = (self.t.route_len[a[1]], -a[3])
            if key is None or k > key:
                best, key = a, k
        return best

    def wanted_colors(self, view, routes) -> dict:
        """Cards still missing per color for the planned routes (gray: the most-held color)."""
        hand = list(view.hand)
        need = {}
        t = self.t
        for r in routes:
            c = t.route_color[r]
            if c == GRAY:
                c = max(range(t.wild), key=lambda x: (hand[x], -x))
            missing = t.route_len[r] - hand[c]
            if missing > 0:
                need[c] = need.get(c, 0) + missing
            hand[c] = max(0, hand[c] - t.route_len[r])
        return need

    def draw(self, view, legal, need: dict):
        wild = self.t.wild
        fu = view.face_up
        best, key = None, None
        draws = legal.draws()
        for a in draws:
            if a[0] == FACE_UP:
                c = fu[a[1]]
                if c == wild:
                    # a face-up wild ends the draw: worth it only for a large need
                    score = 2.5 if view.phase != DRAW2 and sum(need.values()) >= 4 else -1
                else:
                    score = need.get(c, 0) and 3 + min(need[c], 3)
                if key is None or score > key:
                    best, key = a, score
        if best is not None and key > 0:
            return best
        for a in draws:
            if a[0] == BLIND:
                return a
        return best or legal[0]

    def fallback(self, view, legal):
        """Nothing planned: take tickets while there is time, else score points."""
        trains = view.trains[self.seat]
        if trains > 12 and view.tickets_left and not view.final_round:
            for a in legal.tickets():
                return a
        claim = self.best_claim(legal)
        if claim is not None and (self.t.route_len[claim[1]] >= 3 or trains <= 6 or view.final_round):
            return claim
        costs = self._costs(view)
        longest = sorted((r for r in range(self.t.n_routes) if costs[r] != INF and costs[r]
                          and self.t.route_len[r] <= trains), key=lambda r: -self.t.route_len[r])[:4]
        return self.draw(view, legal, self.wanted_colors(view, longest)) if legal.draws() else (claim or legal[0])

    def act(self, view, legal):
        phase = view.phase
        if phase == SETUP or phase == KEEP_PHASE:
            return self.choose_keep(view, legal)
        routes, cost = self.plan(view)
        if phase == DRAW2:
            return self.draw(view, legal, self.wanted_colors(view, routes))
        if routes:
            claim = self.best_claim(legal, set(routes))
            if claim is not None:
                return claim
            station = self.transit_move(view, legal)
            if station is not None:
                return station
            if self.hunger and cost <= 4 and view.trains[self.seat] > 15 and view.tickets_left:
                for a in legal.tickets():
                    return a
            if legal.draws():
                return self.draw(view, legal, self.wanted_colors(view, routes))
            return self.best_claim(legal) or legal[0]
        return self.transit_move(view, legal) or self.fallback(view, legal)

    def transit_move(self, view, legal):
        """Transit expansion: build a station when it pays — its points, plus half the transit
        value of own unfinished tickets that end there — for few cards, keeping a hand to play."""
        if not view.rules.transit:
            return None
        options = legal.stations()
        if not options:
            return None
        t = self.t
        hand = sum(view.hand)
        ends = {}
        for a, b, pts, transit_pts in view.tickets:
            if not view.connected(a, b):
                for st in (a, b):
                    ends[st] = ends.get(st, 0) + transit_pts
        best, best_value = None, 0.0
        for act in options:
            _, st, kind, _ = act
            cards = len(t.routes_at[st]) + (1 if kind else 0)
            if cards > hand - 3:
                continue
            points = t.points_table[min(len(t.routes_at[st]), len(t.points_table)) - 1]
            if view.markers[st][1 - kind] != -1:
                points = (points + 1) // 2
            if st not in ends and points < 2 * cards:
                continue  # away from its tickets a station must pay better than a route
            value = (points + ends.get(st, 0) / 2) / cards
            if value > best_value:
                best, best_value = act, value
        return best if best_value >= 1.5 else None


class TicketHungryAgent(PlannerAgent):
    name = "ticket-hungry"
    keep_slack = 0.95
    hunger = True


class LongRouteAgent(PlannerAgent):
    name = "long-route"
    keep_slack = 0.5

    def act(self, view, legal):
        phase = view.phase
        if phase == SETUP or phase == KEEP_PHASE:
            return self.choose_keep(view, legal)
        t = self.t
        trains = view.trains[self.seat]
        costs = self._costs(view)
        open_long = sorted((r for r in range(t.n_routes) if costs[r] != INF and costs[r] and t.route_len[r] <= trains),
                           key=lambda r: (-t.route_len[r], r))[:5]
        if phase == DRAW2:
            return self.draw(view, legal, self.wanted_colors(view, open_long))
        claim = self.best_claim(legal)
        if claim is not None and (t.route_len[claim[1]] >= 4 or t.route_len[claim[1]] >= trains - 2 or view.final_round):
            return claim
        routes, _ = self.plan(view)
        planned = self.best_claim(legal, set(routes))
        if planned is not None and trains < 20:
            return planned
        if legal.draws():
            return self.draw(view, legal, self.wanted_colors(view, open_long))
        return claim or legal[0]


class OneStepAgent(PlannerAgent):
    name = "one-step"

    def act(self, view, legal):
        phase = view.phase
        if phase in (SETUP, KEEP_PHASE):
            return self.choose_keep(view, legal)
        routes, cost = self.plan(view)
        if phase == DRAW2:
            return self.draw(view, legal, self.wanted_colors(view, routes))
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
        if best is not None and (best in planned or best_value >= 7 or view.final_round):
            return self.best_claim(legal, {best})
        if not routes:
            return self.fallback(view, legal)
        if legal.draws():
            return self.draw(view, legal, self.wanted_colors(view, routes))
        return self.best_claim(legal) or legal[0]


AGENTS = {cls.name: cls for cls in (RandomAgent, PlannerAgent, TicketHungryAgent, LongRouteAgent, OneStepAgent)}


def _expert() -> Agent:
    from mapkit.sim.expert import ExpertAgent  # imported here: expert.py builds on this module

    return ExpertAgent()


AGENTS["expert"] = _expert  # a factory like the classes above: AGENTS[name]() makes the agent


def make_agent(name: str) -> Agent:
    if name not in AGENTS:
        raise UsageError(f"unknown agent '{name}'{did_you_mean(name, AGENTS)}; agents: {', '.join(AGENTS)}")
    return AGENTS[name]()
