"""The expert's speed shortcuts (docs/design/speed.md, "Simulator") against the plain code they
replace: each is checked at every decision of whole games, and breaking one fails its test."""

import heapq
import random

from conftest import play_through
from mapkit.boardfile import load_board
from mapkit.resources import boards_dir
from mapkit.sim import engine
from mapkit.sim.agents import make_agent
from mapkit.sim.legal import Legal
from mapkit.sim.paths import INF
from mapkit.sim.rules import rules_for_board
from mapkit.sim.runner import game_seeds
from mapkit.sim.tables import GRAY, build_tables
from mapkit.sim.view import SeatView


def _setup(board_id="north-america"):
    b = load_board(boards_dir() / f"{board_id}.json")
    return build_tables(b), rules_for_board(b)


def plain_costs(agent, view, hand=None):
    """ExpertAgent._costs as it was: every route looked at on every call."""
    owner, seat, t, shared, w = view.owner, agent.seat, agent.t, view.shared_doubles, agent.weight
    partner, colors, lens = t.route_partner, t.route_color, t.route_len
    if hand is not None:
        wild = t.wild
        hw = hand[wild]
        gray = max(hand[:wild]) + hw if wild else hw
    costs = []
    for r in range(t.n_routes):
        o = owner[r]
        if o == seat:
            costs.append(0)
        elif o != -1:
            costs.append(INF)
        else:
            q = partner[r]
            if q >= 0 and owner[q] != -1 and (owner[q] == seat or not shared[r]):
                costs.append(INF)
            elif hand is None:
                costs.append(w[r])
            else:
                c = colors[r]
                have = gray if c == GRAY else hand[c] + hw
                if q >= 0 and owner[q] == -1:
                    cq = colors[q]
                    have = max(have, gray if cq == GRAY else hand[cq] + hw)
                missing = lens[r] - have
                costs.append(w[r] + 0.5 * missing if missing > 0 else w[r])
    return costs


def plain_ticket_gain(agent, view, r, tickets):
    t = agent.t
    a, b = t.route_a[r], t.route_b[r]
    factor = 1 - view.rules.failed_ticket_factor
    gain = 0
    for x, y, pts, *_ in tickets:
        if view.connected(x, y):
            continue
        if (view.connected(x, a) and view.connected(y, b)) or (view.connected(x, b) and view.connected(y, a)):
            gain += pts * factor
    return gain


def plain_dist_from(agent, sources, costs, reach):
    dist = {s: 0 for s in sources}
    heap = [(0, s) for s in sources]
    while heap:
        d, x = heapq.heappop(heap)
        if d > dist[x]:
            continue
        for y, r in agent.adj[x]:
            c = costs[r]
            if c == INF:
                continue
            nd = d + c
            if nd < reach and nd < dist.get(y, INF):
                dist[y] = nd
                heapq.heappush(heap, (nd, y))
    return dist


def _games(players, games, seed=3):
    """(agent, view, state) before every expert decision of some self-play games."""
    t, rules = _setup()
    for game_seed in game_seeds([seed, players], games):
        s = engine.new_game(t, rules, players, game_seed)
        agents = [make_agent("expert") for _ in range(players)]
        for p, agent in enumerate(agents):
            agent.reset(p, t, players, random.Random(p))
        views = [SeatView(s, p) for p in range(players)]
        while s.phase != engine.OVER:
            p = s.current
            yield agents[p], views[p], s
            engine.apply(s, agents[p].act(views[p], Legal(s)))


def test_the_experts_kept_costs_are_its_costs_computed_afresh():
    """`_costs` keeps the hand-free costs while no route is claimed and adds a hand to the open
    routes it kept: the plain loop's list, with and without a hand, at every decision; a list
    handed out changed by its caller changes nothing kept."""
    checked = with_hand = 0
    rng = random.Random(1)
    for agent, view, s in _games(4, 3):
        assert agent._costs(view) == plain_costs(agent, view)
        got = agent._costs(view)
        got[rng.randrange(len(got))] = -7  # a caller's change to its copy
        hand = list(view.hand)
        assert agent._costs(view, hand) == plain_costs(agent, view, hand)
        odd = [rng.randrange(4) for _ in hand]  # hands the game did not deal, wilds and all
        assert agent._costs(view, odd) == plain_costs(agent, view, odd)
        checked += 1
        with_hand += plain_costs(agent, view, odd) != plain_costs(agent, view)
        if checked % 25 == 0:
            # a position made by hand: a route owned that the claim log does not hold
            made = s.copy()
            free = [r for r in range(len(made.owner)) if made.owner[r] == -1]
            made.owner[free[rng.randrange(len(free))]] = rng.randrange(made.players)
            made.claimed += 1
            other = SeatView(made, view.seat)
            assert agent._costs(other, hand) == plain_costs(agent, other, hand)
            assert agent._costs(view) == plain_costs(agent, view)
    assert checked > 300 and with_hand > 100


def test_the_experts_turns_left_kept_for_the_turn_is_the_estimate_afresh():
    """turns_left is kept while the turn and the claim count stand: the estimate computed again
    at every decision (and after each claim: trains changed) is the kept one."""
    seen = set()
    moved = 0
    for agent, view, s in _games(3, 3):
        got = agent.turns_left(view)
        assert got == agent._turns_left(view)
        assert agent.turns_left(view) == got
        seen.add(got)
        # a claim in the same turn (a position made by hand): the fewest trains fall by 4
        after = s.copy()
        low = after.trains.index(min(after.trains))
        after.trains[low] = max(0, after.trains[low] - 4)
        after.claimed += 1
        later = SeatView(after, view.seat)
        assert agent.turns_left(later) == agent._turns_left(later)
        moved += agent.turns_left(later) != got
    assert len(seen) > 30 and moved > 30


def test_a_claims_ticket_gain_by_network_parts_is_the_connected_tests():
    """_ticket_gain compares the parts' ids (view.component) where it asked view.connected: the
    same gain for every open route and the seat's tickets (and made-up tickets) at every
    decision, the gains not all zero."""
    nonzero = 0
    rng = random.Random(2)
    for agent, view, s in _games(2, 3):
        t = agent.t
        n = t.n_stations
        tickets = list(view.tickets) + [(rng.randrange(n), rng.randrange(n), rng.randrange(1, 20)) for _ in range(3)]
        for r in range(t.n_routes):
            if s.owner[r] == -1:
                g = agent._ticket_gain(view, r, tickets)
                assert g == plain_ticket_gain(agent, view, r, tickets)
                nonzero += g != 0
        assert agent._ticket_gain(view, 0, ()) == 0
    assert nonzero > 50


def test_the_network_distances_by_list_are_the_dict_search():
    """_dist_from as a list by station: the dict search's distances, INF where it found none,
    from the seat's network pieces and from random sources on random costs and reaches."""
    rng = random.Random(4)
    compared = 0
    for agent, view, s in _games(4, 2):
        lens = agent.t.route_len
        costs = [c if c == 0 or c == INF else lens[r] for r, c in enumerate(agent._costs(view))]
        pieces = agent._network_pieces(costs) or [[rng.randrange(agent.t.n_stations)]]
        for piece in pieces:
            reach = rng.randrange(1, 46)
            want = plain_dist_from(agent, piece, costs, reach)
            got = agent._dist_from(piece, costs, reach)
            assert got == [want.get(x, INF) for x in range(agent.t.n_stations)]
            compared += len(want) > len(piece)
    assert compared > 100


def plain_best_scoring_claim(agent, view, legal, tickets):
    t = agent.t
    by_route = {}
    for a in legal.claims():
        by_route.setdefault(a[1], []).append(a)
    if not by_route:
        return None
    best, best_v = None, -INF
    for r in by_route:
        v = t.route_points[r] + plain_ticket_gain(agent, view, r, tickets) + 0 + 0.01 * r / max(1, t.n_routes)
        if v > best_v:
            best, best_v = r, v
    return agent._pay(view, by_route[best], {})


def test_the_best_scoring_claim_from_each_routes_first_payment_is_the_full_listings():
    """_best_scoring_claim rates each claimable route once (fewest_wild_claims) and pays the best
    from its own payments: the claim the full listing gives, with the seat's tickets and without,
    at every turn of some games (and one the referee accepts)."""
    found = paid_with_wilds = 0
    for agent, view, s in _games(4, 3):
        if s.phase != engine.TURN:
            continue
        for tickets in (view.tickets, ()):
            legal = Legal(s)
            got = agent._best_scoring_claim(view, legal, tickets)
            assert got == plain_best_scoring_claim(agent, view, Legal(s), tickets)
            if got is not None:
                assert got in legal
                found += 1
                paid_with_wilds += got[3] > 0
    assert found > 200 and paid_with_wilds > 5


def test_the_wilds_needed_kept_are_the_wilds_needed_afresh():
    """wilds_needed keeps its last answer while the claims, the routes asked about and the own
    payments in the discards stand: at every decision, for the plan and for random routes, and
    after a payment is counted, the answer computed afresh."""
    rng = random.Random(5)
    short = 0
    for agent, view, s in _games(4, 3):
        n = agent.t.n_routes
        for routes in (agent._plan[0], [rng.randrange(n) for _ in range(rng.randrange(1, 12))]):
            got = agent.wilds_needed(view, routes)
            assert agent.wilds_needed(view, list(routes)) == got
            agent._needed_key = None
            assert agent.wilds_needed(view, routes) == got
            short += got[0] > 0
        c = rng.randrange(agent.t.wild + 1)
        agent._gone[c] += 3  # a payment seen: the kept answer must not stand
        fresh = agent.wilds_needed(view, routes)
        agent._needed_key = None
        assert fresh == agent.wilds_needed(view, routes)
        agent._gone[c] -= 3
    assert short > 20


def test_the_experts_board_tables_are_the_ones_it_built_itself():
    """The adjacency (the planner's, from the tables) and the planning weights (kept on the
    tables): what the expert built for itself at every reset, on every bundled board."""
    from mapkit.sim import expert
    for board_id in ("north-america", "portland", "seattle"):
        t, rules = _setup(board_id)
        own = [[] for _ in range(t.n_stations)]
        for r in range(t.n_routes):
            own[t.route_a[r]].append((t.route_b[r], r))
            own[t.route_b[r]].append((t.route_a[r], r))
        weight = tuple(max(0.5, L + expert.CLAIM_TURN - expert.POINTS_WEIGHT * p)
                       for L, p in zip(t.route_len, t.route_points))
        for seat in range(2):
            agent = make_agent("expert")
            agent.reset(seat, t, 2, random.Random(seat))
            assert agent.adj == tuple(tuple(x) for x in own)
            assert agent.weight == weight
        assert len(set(weight)) > 3


def test_plans_sorted_by_a_stable_reversed_sort_are_sorted_by_length_then_route():
    """The plan's routes: sorted(sorted(free), key=length, reverse=True) is the key (-length,
    route) sort it replaced, on random route sets with many equal lengths."""
    rng = random.Random(6)
    t, _ = _setup()
    lens = t.route_len
    for _ in range(500):
        free = set(rng.sample(range(t.n_routes), rng.randrange(0, 30)))
        assert sorted(sorted(free), key=lens.__getitem__, reverse=True) == sorted(free, key=lambda r: (-lens[r], r))


def test_a_keep_decisions_values_with_its_memo_are_the_values_afresh():
    """Within one keep decision `keep_value_by_ticket` reads the searches and the hand clock
    kept for the decision (`_prefix_memo`): every option's value, plan and given-up tickets are
    those computed with no memo, in every keep of some games."""
    from mapkit.sim.expert import ExpertAgent
    t, rules = _setup()
    checked = []

    class Checked(ExpertAgent):
        def keep_value_by_ticket(self, view, tickets, costs, budget, trains, turns):
            got = super().keep_value_by_ticket(view, tickets, costs, budget, trains, turns)
            memo, self._prefix_memo = self._prefix_memo, None
            try:
                assert got == super().keep_value_by_ticket(view, tickets, costs, budget, trains, turns)
            finally:
                self._prefix_memo = memo
            checked.append(memo is not None and len(memo) > 2)
            return got

    for seed in (3, 8):
        play_through(t, rules, [Checked() for _ in range(4)], seed)
    assert sum(checked) > 30
