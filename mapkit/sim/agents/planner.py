"""The planner (`route-focus`) and what every playstyle built on it shares: costs of routes to a
seat, the plan of its tickets (cheapest connections, mapkit/sim/paths.py), keeping tickets, and the
turn it plays. How it pays and draws is in moves.py; the other playstyles in playstyles.py.

Speed (docs/design/speed.md; every change keeps the games the same, tests/test_game_identity.py):
- the seat's route costs are kept up to date claim by claim, the plan is not rechecked while
  nothing was claimed, the untouched board's searches come from the tables, and its own searches
  use the int queue (`cheapest_path(..., whole=True)`);
- the claims it rates are each route's fewest-wild payment where that is all the rating can tell
  apart, and a plan's claim is not listed when no wanted route fits the hand;
- the plan object is kept while it stays whole, its own searches read int costs (BIG for INF),
  and choosing tickets reuses a ticket's search when the routes kept since touch no station that
  search expanded;
- a class that keeps the steps of `act` plays the turn in one pass (fused_turn.py);
- the claims since the plan's last check and since the costs' last update come from the state's
  claim log (`_plan_touched`, `_own_costs`);
- the one-pass turn answers the referee's `second_draw` (a turn's second card without a
  `Legal`), and an untouched board's costs are the route lengths.
"""

from __future__ import annotations

from mapkit.sim.agents.base import Agent
from mapkit.sim.engine import CLAIM, DRAW2, KEEP, KEEP_PHASE, SETUP
from mapkit.sim.paths import BIG, INF, adjacency, cheapest_path, cheapest_path_traced, route_ends, untouched_path
from mapkit.sim.agents.moves import PlannerMoves
from mapkit.sim.agents.fused_turn import FusedTurn, fused_ok


class PlannerAgent(FusedTurn, PlannerMoves, Agent):
    """Shared machinery: plan ticket connections, pay for routes, draw for colors.

    Habits every planner shares ("players a designer would recognize"):
    - its final turn takes the best scoring claim (or transit station) when one is legal;
    - it does not hoard: cards beyond what the plan needs are spent on claims off the plan, and
      when the plan cannot be finished (too few trains, or the game may end first) it claims
      for points instead of drawing;
    - of a double, it pays for the track its hand pays best (fewest wilds, keeping the colors the
      rest of the plan needs);
    - it keeps tickets greedily by expected value, weighing the trains and turns left and how
      crowded the table is, from one plan of the tickets it holds;
    - it counts a teammate's routes as its own when the team's routes count together, and reads
      what it can see of others' tickets (open tickets, a teammate's open hand).
    """

    name = "route-focus"
    keep_slack = 0.75        # a plan past this share of the trains left is a risk to the tickets kept
    keep_train_cost = 1.0    # points a kept ticket loses per train it adds to the plan (measured:
                             # cheaper keeps leave the plan open and fewer tickets are drawn later)
    keep_threshold = 0.0     # keep a ticket whose expected value is above this
    hunger = False           # draw more tickets while the plan is open
    ticket_plan_share = 0.0  # draw tickets while the plan costs at most this share of the trains left
    ticket_spare = 13        # ... and leaves at least this many trains for a new ticket
    ticket_turns = 6         # ... and about this many turns are left
    # spare cards are spent off the plan once the hand holds `hoard` more than the plan needs and
    # the seat has `hoard_trains` or fewer trains; earlier, spending trains on routes off the plan
    # shortened every game and cost tickets (measured: 2-player self-play winner 116 vs 132)
    hoard = 6
    hoard_trains = 15
    give_up_missing = 4      # near the end, a plan missing more cards than this is abandoned for points

    def reset(self, seat, tables, players, rng):
        super().reset(seat, tables, players, rng)
        self.adj = adjacency(tables)
        self._ends = route_ends(tables)
        self.maxlen = max(tables.route_len, default=0)
        self._plan_key = None
        self._plan = ([], 0)
        self._plan_claimed = -1  # view.claimed when the plan was last checked
        self._plan_reads = set()  # the routes whose owner still_open reads for the plan: _plan_touched
        self._own = None          # this seat's route costs, kept up to date claim by claim: _own_costs
        self._own_big = None      # the same with BIG for INF, what its own int searches read
        # searches of the untouched board come from the tables (paths.untouched_path), as long as
        # a playstyle keeps this class's costs and search
        cls = type(self)
        self._plain = all(getattr(cls, m) is getattr(PlannerAgent, m) for m in ("_costs", "_path", "_own_costs", "_seat_costs"))
        self._cheap_keys = cls._claim_key is PlannerAgent._claim_key
        self._seen_key = None
        self._seen = ({}, {})
        self._others = {}     # seat -> (its key, its visible paths): see _paths_of
        self._blocks = {}     # route -> blocking value, while the table is unchanged
        self._station_list = None
        self._by_length = None   # routes, longest first (ties in route order): _longest_open
        self._need_of = (None, None, None)  # the plan's routes, their (color, length), totals: FusedTurn._need
        self._want = (None, None, None, None)  # plan_claim's routes, the colors they keep, their reach, per plan
        # the turn in one pass (fused_turn.py) for a class that keeps every step it writes out;
        # `PlannerAgent.act` stays the step-by-step turn (and the reference it is tested against)
        if fused_ok(cls, PlannerAgent):
            self.act = self._fused_act
            self.second_draw = self._fused_second  # the referee's call for a turn's second card

    # ------------------------------------------------------------ planning

    def _seat_costs(self, view, seat: int, mates=()) -> list:
        """Trains each route would cost `seat` now: 0 its own (and its `mates`'), inf closed or taken."""
        owner = view.owner
        t = self.t
        partner, lens = t.route_partner, t.route_len
        if owner.count(-1) == len(owner):
            return list(lens)  # nothing owned (every seat's first look): each route costs its length
        shared = view.shared_doubles
        costs = []
        append = costs.append
        # zip rather than indexing four tables by route: this runs at every replan
        for o, q, sh, L in zip(owner, partner, shared, lens):
            if o == seat or (mates and o in mates):
                append(0)
            elif o != -1:
                append(INF)
            elif q >= 0 and owner[q] != -1 and (owner[q] == seat or not sh):
                append(INF)
            else:
                append(L)
        return costs

    def _own_costs(self, view) -> list:
        """`_seat_costs` of this seat and its mates, as a new list, without the full pass each time:
        kept from the last call and brought up to date with the claims made since (a claim changes
        the cost of its route and of its double's other track only)."""
        own = self._own
        claimed = view.claimed
        if own is None:
            costs = self._seat_costs(view, self.seat, self._mates(view))
            self._own = (costs, [len(view.claims_of(q)) for q in range(view.players)], claimed)
            self._own_big = [BIG if c == INF else c for c in costs] if INF in costs else list(costs)
            return list(costs)
        costs, seen, at = own
        if claimed != at:
            big = self._own_big
            owner, seat, mates = view.owner, self.seat, self._mates(view)
            t = self.t
            shared, partner, lens = view.shared_doubles, t.route_partner, t.route_len
            log = view.claim_log
            if len(log) == claimed:
                fresh = log[at:]  # the claims since, in play order
            else:  # a position made by hand: every seat's claims since they were last read
                fresh = []
                for q in range(view.players):
                    claims = view.claims_of(q)
                    fresh.extend(claims[seen[q]:])
                    seen[q] = len(claims)
            # (a route read twice gets the same cost: each is worked out from the owners now)
            for r in fresh:
                for x in (r, partner[r]) if partner[r] >= 0 else (r,):
                    # the rule of _seat_costs for route x
                    o = owner[x]
                    if o == seat or (mates and o in mates):
                        c = 0
                    elif o != -1:
                        c = INF
                    else:
                        y = partner[x]
                        c = INF if y >= 0 and owner[y] != -1 and (owner[y] == seat or not shared[x]) else lens[x]
                    costs[x] = c
                    big[x] = BIG if c == INF else c
            self._own = (costs, seen, claimed)
        return list(costs)

    def _mates(self, view) -> tuple:
        """Teammates whose routes count as this seat's for tickets (`shared_team_tickets`)."""
        return view.teammates() if view.rules.shared_team_tickets else ()

    def _costs(self, view) -> list:
        """Trains each route would cost this seat now: 0 its own (and its teammates' when the team's
        routes count together), inf closed or taken; nudged by what it sees of others' tickets."""
        costs = self._own_costs(view)
        bias = self._read_table(view)[0]
        for r, b in bias.items():
            c = costs[r]
            if c and c != INF:
                costs[r] = max(0.25, c + b)
        return costs

    def _read_table(self, view) -> tuple[dict, dict]:
        """What this seat sees of others' plans: (extra cost per route, and for each route an
        opponent visibly needs, the needs: (seat, ticket points, its path cost, ticket ends)).

        Opponents' routes it sees through open tickets cost a little more (plan around a link
        someone else needs first); a teammate's planned routes cost more when networks are separate
        (leave them to the teammate) and less when they are shared (build one network). Recomputed
        only when a route is claimed or a ticket is taken."""
        rules = view.rules
        if not (rules.open_tickets or rules.team_open_hands):
            return self._seen
        owner = view.owner
        visible = [(q, view.tickets_of(q)) for q in range(view.players) if q != self.seat]
        key = (len(owner) - owner.count(-1), tuple(len(x) for _, x in visible))
        if key == self._seen_key:
            return self._seen
        mates = set(view.teammates())
        bias, needs = {}, {}
        for q, tickets in visible:
            if not tickets:
                continue
            for pts, c, a, b, routes in self._paths_of(view, q, tickets):
                for r in routes:
                    if q in mates:
                        bias[r] = bias.get(r, 0) + (-0.5 * self.t.route_len[r] if rules.shared_team_tickets else 2)
                    else:
                        bias[r] = bias.get(r, 0) + 1
                        needs.setdefault(r, []).append((q, pts, c, a, b))
        self._blocks = {}
        self._seen_key, self._seen = key, (bias, needs)
        return self._seen

    def _paths_of(self, view, q: int, tickets) -> list:
        """Seat q's cheapest connections for its visible unfinished tickets, as (points, cost, a,
        b, routes to claim). Kept until q takes a ticket, claims a route off them, or another seat
        takes a route on them: others' claims elsewhere cannot make them dearer, and q's claims on
        them keep them cheapest."""
        owner = view.owner
        mine = owner.count(q)
        hit = self._others.get(q)
        if hit is not None and hit[0][0] == len(tickets):
            on_path = sum(1 for path in hit[1] for r in path[4] if owner[r] == q)
            taken = any(owner[r] not in (-1, q) for path in hit[1] for r in path[4])
            if not taken and mine - hit[0][1] == on_path:
                # q claimed only routes of these paths: they stay its cheapest, with less to claim
                if on_path:
                    paths = [(pts, c, a, b, [r for r in routes if owner[r] != q]) for pts, c, a, b, routes in hit[1]]
                    self._others[q] = ((len(tickets), mine), paths)
                    return paths
                return hit[1]
        rules = view.rules
        mates = (tuple(m for m in range(view.players) if m != q and view.team_of(m) == view.team_of(q))
                 if rules.shared_team_tickets and rules.teams else ())
        costs = self._seat_costs(view, q, mates)
        free: set = set()
        paths = []
        for a, b, pts, *_ in sorted(tickets, key=lambda x: -x[2]):
            c, routes = self._path(costs, a, b, free)
            if c == INF or not routes:
                continue
            free.update(routes)
            paths.append((pts, c, a, b, routes))
        self._others[q] = ((len(tickets), mine), paths)
        return paths

    def _path(self, costs: list, a: int, b: int, free: set) -> tuple[float, list[int]]:
        """Cheapest connection a→b: (cost in trains, routes still to claim)."""
        return cheapest_path(self.adj, costs, a, b, free)

    def _memory(self, view) -> bool:
        """Are `_costs(view)` the route lengths, the same for everyone: no route claimed yet and
        nothing read from others' tickets to shift them? Then searches come from the tables."""
        return (self._plain and view.claimed == 0 and not self._read_table(view)[0]
                and view.owner.count(-1) == len(view.owner))  # (a hand-made position may own routes)

    def _own_path(self, view, memory: bool, costs, a, b, free):
        """`_path` on costs just read from `_costs(view)`; from the tables when `memory`."""
        if memory:
            return untouched_path(self.t, self.adj, a, b, free)
        if self._plain and not self._read_table(view)[0]:
            # this class's own costs, nothing added from others' tickets: lengths, 0 and INF only,
            # searched as the same costs with BIG for INF (`_own_big`: int sums, int comparisons)
            return cheapest_path(self.adj, self._own_big, a, b, free, whole=True, ends=self._ends)
        return self._path(costs, a, b, free)

    def plan_for(self, view, tickets) -> tuple[list[int], float, int]:
        """(routes to claim, their total length, tickets that cannot be completed)."""
        free: set = set()
        impossible = 0
        costs = self._costs(view)
        memory = self._memory(view)
        for a, b, pts, *_ in sorted(tickets, key=lambda x: -x[2]):
            if view.connected(a, b):
                continue
            c, routes = self._own_path(view, memory, costs, a, b, free)
            if c == INF:
                impossible += 1
                continue
            free.update(routes)
        lens = self.t.route_len
        # longest first, a tie in the set's order (a reversed sort keeps ties in their order)
        return sorted(free, key=lens.__getitem__, reverse=True), sum([lens[r] for r in free]), impossible

    def still_open(self, view, planned) -> list[int] | None:
        """The planned routes this seat has not claimed yet, or None when one of them was taken by
        another seat or closed (its double's other track taken where only one may be)."""
        owner, seat, t, shared = view.owner, self.seat, self.t, view.shared_doubles
        routes = []
        for r in planned:
            o = owner[r]
            if o == seat:
                continue
            q = t.route_partner[r]
            if o != -1 or (q >= 0 and owner[q] != -1 and (owner[q] == seat or not shared[r])):
                return None
            routes.append(r)
        return routes

    def plan(self, view):
        """The planned routes and their cost, replanned only when they stop being valid.

        Others' claims only take options away, so a plan none of whose routes was taken or closed
        stays the plan; own claims just shorten it. New tickets always replan."""
        claimed = view.claimed
        if self._plan_key == view.ticket_count:
            if claimed == self._plan_claimed:
                return self._plan  # no route was claimed since it was checked: it stands as it was
            if not self._plan_touched(view, claimed):
                self._plan_claimed = claimed
                return self._plan  # what still_open would return: the planned routes as they were
            routes = self.still_open(view, self._plan[0])
            if routes is not None:
                if len(routes) != len(self._plan[0]):  # own claims shortened it (else it is the same)
                    lens = self.t.route_len
                    self._plan = (routes, sum([lens[r] for r in routes]))
                self._plan_claimed = claimed
                return self._plan
        routes, cost, _ = self.plan_for(view, view.tickets)
        self._plan = (routes, cost)
        self._plan_key = view.ticket_count
        self._plan_claimed = claimed
        touch = set(routes)
        partner = self.t.route_partner
        for r in routes:
            if partner[r] >= 0:
                touch.add(partner[r])
        self._plan_reads = touch
        return self._plan

    def _plan_touched(self, view, claimed: int) -> bool:
        """Was a route whose owner `still_open` reads for the plan (a planned route or its double's
        other track, `_plan_reads`, kept from the replan: own claims only shorten the plan) claimed
        since the plan was last checked? If not, `still_open` returns the planned routes as they
        are: claims are the only changes of `owner` in play. (At 4 players another
        seat claimed something before half the turns, mostly far from the plan.)"""
        log = view.claim_log
        if len(log) != claimed:
            return True  # a position made by hand: check in full
        return not self._plan_reads.isdisjoint(log[self._plan_claimed:])

    # ------------------------------------------------------------ the clock

    def _turns_left(self, view) -> float:
        """About how many turns this seat has left: the seat with fewest trains spends about
        1.3 a turn (measured: 45 trains last 35-40 turns), then everyone has one more turn."""
        if view.final_round:
            return 1
        return 1 + max(0, view.fewest_trains - view.rules.end_trigger) / 1.3

    def _danger(self, view) -> bool:
        """Could another seat start the final round with its next claim (it holds the cards to
        bring its trains to the trigger)? Then cards drawn now can be spent only once more."""
        trig = view.rules.end_trigger
        cap = self.maxlen
        if view.fewest_trains - trig > cap:
            return False  # no seat is within a claim of the trigger
        trains = view.trains
        for q in range(view.players):
            # trains[q] - trig <= min(cap, its hand size), the hand counted only when it matters
            room = trains[q] - trig
            if q != self.seat and room <= cap and room <= view.hand_size(q):
                return True
        return False

    # ------------------------------------------------------------ choosing tickets

    def choose_keep(self, view, legal):
        """Keep tickets greedily, best expected value first, each one's cost measured on top of the
        plan of the tickets held and of those already chosen: 2n paths at most, never one plan per
        subset of the offer (2^n)."""
        offer = view.offer
        n = len(offer)
        if not n:
            return legal[0]
        routes, cost = self.plan(view)
        costs = self._costs(view)
        memory = self._memory(view)
        free = set(routes)
        trains = view.own_trains
        turns = self._turns_left(view)
        hand = view.hand_count
        fail = -view.rules.failed_ticket_factor
        # crowding: each route of a path may be taken by one of the others before this seat gets it
        survive = 1 - 0.012 * (view.players - 1)
        budget = trains * self.keep_slack
        connected = [view.connected(x[0], x[1]) for x in offer]  # each offered ticket's ends, once

        def value(i, extra_routes, extra):
            pts = offer[i][2]
            if connected[i]:
                return pts
            if extra == INF:
                return -fail * pts - 1
            total = cost + extra
            p = 0.95 * survive ** len(extra_routes)
            if total > trains:
                p = 0.0
            elif total > budget:
                p *= (trains - total) / max(1e-9, trains - budget)
            need_turns = max(0, total - hand) / 2 + total / 2.5
            if need_turns > turns:
                p *= (turns / need_turns) ** 2
            return p * pts * (1 + fail) - fail * pts - self.keep_train_cost * extra - 2

        # the int search, traced: which stations each ticket's search expanded (see below)
        traced = not memory and self._plain and not self._read_table(view)[0]
        alone, paths, expanded = [], [], []
        for i in range(n):
            a, b = offer[i][0], offer[i][1]
            seen = None
            if connected[i]:
                c, rs = 0, []
            elif traced:
                c, rs, seen = cheapest_path_traced(self.adj, self._own_big, a, b, free, self._ends)
            else:
                c, rs = self._own_path(view, memory, costs, a, b, free)
            paths.append((c, rs))
            expanded.append(seen)
            alone.append((value(i, rs, c), i))
        alone.sort(reverse=True)
        mask, kept = 0, 0
        grown = 0  # the stations of the routes kept tickets added to `free` since the paths above
        ends_a, ends_b = self.t.route_a, self.t.route_b
        for _, i in alone:
            a, b = offer[i][0], offer[i][1]
            if grown and (expanded[i] is None or expanded[i] & grown):
                c, rs = (0, []) if connected[i] else self._own_path(view, memory, costs, a, b, free)
            else:
                # the same search on the same costs, or on costs changed only at routes its search
                # never read (neither end expanded: cheapest_path_traced): the same path
                c, rs = paths[i]
            if kept < view.min_keep or value(i, rs, c) > self.keep_threshold:
                mask |= 1 << i
                kept += 1
                if c != INF:
                    for r in rs:
                        grown |= 1 << ends_a[r] | 1 << ends_b[r]
                    free.update(rs)
                    cost += c
        return (KEEP, mask)

    def wants_tickets(self, view, legal, cost) -> bool:
        """Draw tickets now? While the plan is cheap enough for this playstyle, trains are left over
        for a new ticket, turns remain and nobody is about to end the game."""
        if view.final_round or not legal.tickets():
            return False
        trains = view.own_trains
        return (cost <= self.ticket_plan_share * trains and trains - cost >= self.ticket_spare
                and self._turns_left(view) >= self.ticket_turns and not self._danger(view))

    # ------------------------------------------------------------ paying and drawing

    def last_turn(self, view, legal, routes):
        """This seat's final turn: the best scoring claim or station when one is legal; else a card
        draw (new tickets now could only cost points)."""
        claim = self.scoring_claim(view, legal)
        if claim is not None:
            return claim
        if legal.draw_tuple():
            return self.draw(view, legal, self.wanted_colors(view, routes))
        return legal[0]

    def fallback(self, view, legal):
        """Nothing planned: take tickets while there is time, else score points."""
        if self.wants_tickets(view, legal, 0):
            return legal.tickets()[0]
        trains = view.own_trains
        claim = self.scoring_claim(view, legal)
        if claim is not None and claim[0] == CLAIM and (
                self.t.route_len[claim[1]] >= 3 or trains <= 6 or view.hand_count >= 8 or self._danger(view)):
            return claim
        longest = self._longest_open(self._costs(view), trains, 4)
        return self.draw(view, legal, self.wanted_colors(view, longest)) if legal.draw_tuple() else (claim or legal[0])

    def _longest_open(self, costs, trains: int, n: int) -> list[int]:
        """The n longest routes that cost something and not too much (at most `trains`), longest
        first, a tie in route order: read off the routes sorted once by length."""
        order = self._by_length
        if order is None:
            lens = self.t.route_len
            order = self._by_length = sorted(range(self.t.n_routes), key=lambda r: -lens[r])
        lens = self.t.route_len
        out = []
        for r in order:
            c = costs[r]
            if c and c != INF and lens[r] <= trains:
                out.append(r)
                if len(out) == n:
                    break
        return out

    def spend_or_draw(self, view, legal, routes, cost):
        """A turn with no planned claim to make: spend spare cards or block, else draw for the
        plan, else any scoring claim (the shared end of every planner's turn)."""
        claim = self.spend(view, legal, routes, cost) or self.block_claim(view, legal, routes, cost)
        if claim is not None:
            return claim
        if legal.draw_tuple():
            return self.draw(view, legal, self.wanted_colors(view, routes))
        return self.scoring_claim(view, legal) or legal[0]

    def act(self, view, legal):
        phase = view.phase
        if phase == SETUP or phase == KEEP_PHASE:
            return self.choose_keep(view, legal)
        routes, cost = self.plan(view)
        if phase == DRAW2:
            return self.draw(view, legal, self.wanted_colors(view, routes))
        if view.final_round:
            return self.last_turn(view, legal, routes)
        if routes:
            return self.act_steps(view, legal, routes, cost)  # the same steps the one-pass turn falls back to
        return self.transit_move(view, legal) or self.fallback(view, legal)
