"""The simulator's fast paths change how it computes, never what: each shortcut
here is checked against the plain computation it replaced, on positions of real games (the whole
games are checked by tests/test_game_identity.py)."""

import heapq
import pickle
import random

import pytest

from mapkit.boardfile import load_board
from mapkit.resources import boards_dir
from mapkit.sim import engine
from mapkit.sim.agents import make_agent
from mapkit.sim.agents.base import RandomAgent
from mapkit.sim.legal import Legal
from mapkit.sim.paths import BIG, INF, adjacency, cheapest_path, cheapest_path_traced, route_ends, untouched_path
from mapkit.sim.rules import rules_for_board
from mapkit.sim.runner import game_seeds
from mapkit.sim.tables import build_tables
from mapkit.sim.view import SeatView

_SETUPS = {}


def setup(board_id, preset=None, variants=()):
    key = (board_id, preset, variants)
    if key not in _SETUPS:
        b = load_board(boards_dir() / f"{board_id}.json")
        _SETUPS[key] = (build_tables(b), rules_for_board(b, preset, variants))
    return _SETUPS[key]


def textbook_path(adj, costs, a, b, free):
    """The planners' search as it was before the speed work: Dijkstra to b's pop, (cost, station)
    tuples on the heap, free routes zeroed."""
    work = list(costs)
    for r in free:
        work[r] = 0
    dist = [INF] * len(adj)
    dist[a] = 0
    via = [None] * len(adj)
    heap = [(0, a)]
    while heap:
        d, n = heapq.heappop(heap)
        if n == b:
            break
        if d > dist[n]:
            continue
        for m, r in adj[n]:
            nd = d + work[r]
            if nd < dist[m]:
                dist[m] = nd
                via[m] = (n, r)
                heapq.heappush(heap, (nd, m))
    if dist[b] == INF:
        return INF, []
    routes, n = [], b
    while n != a:
        n, r = via[n]
        if work[r]:
            routes.append(r)
    return dist[b], routes


@pytest.mark.parametrize("board_id", ["north-america", "portland"])
def test_the_searches_find_the_textbook_path_ties_and_all(board_id):
    t, _ = setup(board_id)
    adj = adjacency(t)
    rng = random.Random(3)
    n = t.n_stations
    for trial in range(400):
        # a seat's costs: most routes their length, some its own (0), some taken (INF); ties abound
        costs = [rng.choice((0, INF)) if rng.random() < 0.3 else t.route_len[r] for r in range(t.n_routes)]
        free = set(rng.sample(range(t.n_routes), rng.randrange(0, 8)))
        a, b = rng.randrange(n), rng.randrange(n)
        want = textbook_path(adj, costs, a, b, free)
        assert cheapest_path(adj, costs, a, b, free) == want
        assert cheapest_path(adj, costs, a, b, free, whole=True, ends=route_ends(t)) == want
        # fractional costs (open tickets nudge routes by quarters) take the tuple queue
        shifted = [c if c in (0, INF) else max(0.25, c + rng.choice((-0.5, 0, 1, 2))) for c in costs]
        assert cheapest_path(adj, shifted, a, b, free) == textbook_path(adj, shifted, a, b, free)


def test_the_untouched_boards_searches_come_from_the_tables_unchanged():
    t, _ = setup("north-america")
    adj = adjacency(t)
    rng = random.Random(5)
    for _ in range(200):
        a, b = rng.randrange(t.n_stations), rng.randrange(t.n_stations)
        free = set(rng.sample(range(t.n_routes), rng.randrange(0, 4)))
        want = textbook_path(adj, list(t.route_len), a, b, free)
        assert untouched_path(t, adj, a, b, free) == want
        assert untouched_path(t, adj, a, b, free) == want  # the second time from the memory
    # the memory stays in this process: a worker gets the tables' fields only
    route_ends(t)
    copy = pickle.loads(pickle.dumps(t))
    assert "_route_ends" in t.__dict__ and "_untouched_paths" in t.__dict__
    assert copy == t and not [k for k in copy.__dict__ if k.startswith("_")]  # no cache travels


def positions(t, rules, players, games, seed=0):
    """(state, legal) at every turn of some random games: positions where claims are listed."""
    agent_rng = random.Random(seed)
    for game_seed in game_seeds([seed, players], games):
        s = engine.new_game(t, rules, players, game_seed)
        while s.phase != engine.OVER:
            legal = Legal(s)
            if s.phase == engine.TURN:
                yield s, legal
            acts = legal.all()
            engine.apply(s, acts[agent_rng.randrange(len(acts))])


def fewest_wilds(acts):
    out, seen = [], set()
    for a in acts:
        if (a[1], a[2]) not in seen:
            seen.add((a[1], a[2]))
            out.append(a)
    return out


CLAIM_SETUPS = [("north-america", None, (), 2), ("portland", None, ("friendly-protection",), 4),
                ("seattle", "transit", (), 2)]


@pytest.mark.parametrize("board_id, preset, variants, players", CLAIM_SETUPS)
def test_claims_of_a_few_routes_and_the_cheapest_payments_are_the_full_listing_filtered(board_id, preset, variants,
                                                                                       players):
    t, rules = setup(board_id, preset, variants)
    rng = random.Random(7)
    checked = 0
    for s, legal in positions(t, rules, players, 3):
        every = Legal(s).claims()
        routes = set(rng.sample(range(t.n_routes), rng.randrange(1, 12)))
        # in listing order, and every payment of the routes asked about
        assert legal.claims(routes) == [a for a in every if a[1] in routes]
        # a route's payments in one color come one after another, wilds ascending: the cheapest
        # listing keeps the first of each
        assert legal.cheapest_claims(routes) == fewest_wilds(a for a in every if a[1] in routes)
        assert legal.cheapest_claims() == fewest_wilds(every)
        checked += bool(every)
    assert checked > 20


def test_the_planners_best_claim_is_the_same_from_the_cheapest_payments():
    t, rules = setup("north-america")
    rng = random.Random(11)
    agent = make_agent("route-focus")
    differs = 0
    for s, legal in positions(t, rules, 2, 8):
        agent.reset(s.current, t, 2, random.Random(0))
        routes = set(rng.sample(range(t.n_routes), rng.randrange(1, 40)))
        keep = {c: rng.randrange(0, 6) for c in rng.sample(range(t.wild), 3)}
        hand = tuple(s.hands[s.current])
        fast = agent.best_claim(legal, routes, keep, hand)
        agent._cheap_keys = False  # rate every payment, as before
        full = agent.best_claim(legal, routes, keep, hand)
        assert fast == full
        assert agent.best_claim(legal) == agent.best_claim(legal)  # and without keep: longest, fewest wilds
        differs += fast is not None and len(legal.claims(routes)) > len(legal.cheapest_claims(routes))
    assert differs > 5  # positions where the cheapest listing really is shorter


@pytest.mark.parametrize("players", [2, 4])
def test_a_planners_costs_kept_claim_by_claim_are_its_costs_computed_afresh(players):
    t, rules = setup("north-america")
    for game_seed in game_seeds([1, players], 2):
        s = engine.new_game(t, rules, players, game_seed)
        agents = [make_agent("route-focus") for _ in range(players)]
        for p, agent in enumerate(agents):
            agent.reset(p, t, players, random.Random(p))
        views = [SeatView(s, p) for p in range(players)]
        while s.phase != engine.OVER:
            p = s.current
            agent, view = agents[p], views[p]
            assert agent._own_costs(view) == agent._seat_costs(view, p, agent._mates(view))
            assert view.claimed == len(s.owner) - s.owner.count(-1)
            engine.apply(s, agent.act(view, Legal(s)))


def first_fewest_per_route(acts):
    """Each route's payment with fewest wilds, the first of a tie, in listing order."""
    best = {}
    order = []
    for a in acts:
        if a[1] not in best:
            order.append(a[1])
            best[a[1]] = a
        elif a[3] < best[a[1]][3]:
            best[a[1]] = a
    return [best[r] for r in order]


@pytest.mark.parametrize("board_id, preset, variants, players", CLAIM_SETUPS)
def test_each_routes_fewest_wild_payment_is_the_full_listings(board_id, preset, variants, players):
    t, rules = setup(board_id, preset, variants)
    checked = shorter = 0
    for s, legal in positions(t, rules, players, 3):
        every = Legal(s).claims()
        fewest = legal.fewest_wild_claims()
        if rules.double_either_color:  # a route's payments are not listed together: as they come
            assert fewest == fewest_wilds(every)
        else:
            assert fewest == first_fewest_per_route(every)
        assert bool(fewest) == bool(every)  # the referee's "could it score" check reads this
        checked += bool(every)
        shorter += len(every) > len(fewest)
    assert checked > 20 and shorter > 5


def old_scoring_claim(agent, view, legal):
    """PlannerMoves.scoring_claim as it was: every route's cheapest payment per color."""
    t = agent.t
    swing = 1 - view.rules.failed_ticket_factor
    comp = view.component
    pending = [(comp(a), comp(b), pts * swing) for a, b, pts, *_ in view.tickets if not view.connected(a, b)]
    best, key = None, (0, 0)
    for a in legal.cheapest_claims():
        r = a[1]
        v = t.route_points[r]
        u, w = comp(t.route_a[r]), comp(t.route_b[r])
        for x, y, gain in pending:
            if (x == u and y == w) or (x == w and y == u):
                v += gain
        k = (v, -a[3])
        if k > key:
            best, key = a, k
    if view.rules.transit:
        for a in agent._stations(legal):
            k = (agent._station_points(view, a), -1)
            if k > key:
                best, key = a, k
    return best


def old_spare_claim(agent, view, legal, routes, cost, min_points):
    """PlannerMoves.spare_claim as it was: every payment of every claim looked at."""
    t = agent.t
    wild = t.wild
    spare = agent._spare(view, routes)
    room = view.trains[agent.seat] - cost
    best, key = None, None
    for a in legal.claims():
        r, c, w = a[1], a[2], a[3]
        L = t.route_len[r]
        if r in routes or L > room or t.route_points[r] < min_points:
            continue
        if w > spare[wild] or (c != wild and L - w > spare[c]):
            continue
        k = (t.route_points[r], -w)
        if key is None or k > key:
            best, key = a, k
    return best


def old_draw(agent, view, legal, need, target=None):
    wild = agent.t.wild
    fu = view.face_up
    best, key = None, None
    draws = legal.draws()
    for a in draws:
        if a[0] == engine.FACE_UP:
            c = fu[a[1]]
            if c == wild:
                score = 2.5 if view.phase != engine.DRAW2 and sum(need.values()) >= 4 else -1
            elif c == target:
                score = 8
            else:
                n = need.get(c, 0)
                score = n and 3 + (n if n < 3 else 3)
            if key is None or score > key:
                best, key = a, score
    if best is not None and key > 0:
        return best
    if draws and draws[-1][0] == engine.BLIND:
        return draws[-1]
    return best or (legal[0] if len(legal) else None)


def old_danger(agent, view):
    trig, trains = view.rules.end_trigger, view.trains
    for q in range(view.players):
        room = trains[q] - trig
        if q != agent.seat and room <= agent.maxlen and room <= view.hand_size(q):
            return True
    return False


@pytest.mark.parametrize("board_id, preset, variants, players", CLAIM_SETUPS + [("north-america", None, (), 4)])
def test_the_planners_quick_answers_are_the_plain_computations(board_id, preset, variants, players):
    """Scoring claims and spare claims from each route's fewest-wild payment; a plan's claim
    skipped when no wanted route fits the hand; the blind draw when nothing is needed; the danger
    check by the fewest trains: each against what it replaced, on positions of random games."""
    t, rules = setup(board_id, preset, variants)
    rng = random.Random(13)
    agent = make_agent("route-focus")
    found = {"scoring": 0, "spare": 0, "skipped": 0, "danger": 0}
    for s, legal in positions(t, rules, players, 4):
        p = s.current
        agent.reset(p, t, players, random.Random(0))
        view = SeatView(s, p)
        want = set(rng.sample(range(t.n_routes), rng.randrange(1, 16)))
        routes = list(want)[: rng.randrange(0, 6)]
        cost = sum(t.route_len[r] for r in routes) // 2
        claim = agent.scoring_claim(view, legal)
        assert claim == old_scoring_claim(agent, view, Legal(s))
        found["scoring"] += claim is not None
        for min_points in (2, 4, 7):
            spare = agent.spare_claim(view, legal, routes, cost, min_points)
            assert spare == old_spare_claim(agent, view, Legal(s), routes, cost, min_points)
            found["spare"] += spare is not None
        reach = agent._reach(view, want)
        assert (reach is None) == rules.double_either_color  # payments in the other track's color: no skip
        if reach is not None:
            # and with the trains just enough for a wanted route (the edge of the length check)
            edge = s.copy()
            edge.trains[p] = t.route_len[min(want)]
            for x in (s, edge):
                x_view = SeatView(x, p)
                if not agent._may_pay(x_view, x_view.hand, reach):
                    assert Legal(x).cheapest_claims(want) == [] and Legal(x).claims(want) == []
                    found["skipped"] += 1
                else:
                    found["payable"] = found.get("payable", 0) + bool(Legal(x).claims(want))
        need = {} if rng.random() < 0.5 else {rng.randrange(t.wild): rng.randrange(1, 5)}
        assert agent.draw(view, legal, need) == old_draw(agent, view, Legal(s), need)
        danger = agent._danger(view)
        assert danger == old_danger(agent, view)
        found["danger"] += danger
    if rules.double_either_color:
        del found["skipped"]
    else:
        assert found["payable"] > 10
    assert all(found.values()), found  # each shortcut met positions where it answers something


# ------------------------------------------------------------------ claims, plans, searches (docs/design/speed.md)

@pytest.mark.parametrize("board_id, preset, variants, players", CLAIM_SETUPS)
def test_the_longest_cheapest_claims_are_the_cheapest_claims_of_the_greatest_length(board_id, preset, variants,
                                                                                    players):
    t, rules = setup(board_id, preset, variants)
    rng = random.Random(17)
    shorter = 0
    for s, legal in positions(t, rules, players, 3):
        routes = set(rng.sample(range(t.n_routes), rng.randrange(1, 16)))
        every = Legal(s).cheapest_claims(routes)
        top = max((t.route_len[a[1]] for a in every), default=0)
        longest = legal.longest_cheapest_claims(routes)
        assert longest == [a for a in every if t.route_len[a[1]] == top]
        assert all(a in legal for a in longest)  # handed out: the referee knows them
        shorter += len(longest) < len(every)
    assert shorter > 5


def test_a_search_changes_nothing_where_it_expanded_no_station():
    """cheapest_path_traced's mask: costs changed only at routes with neither end expanded leave
    the search's result as it was (what choose_keep relies on), costs changed at an expanded
    station may change it; and BIG for INF is the same search."""
    t, _ = setup("north-america")
    adj, ends = adjacency(t), route_ends(t)
    rng = random.Random(19)
    n = t.n_stations
    outside = inside_changed = 0
    for trial in range(300):
        costs = [rng.choice((0, INF)) if rng.random() < 0.3 else t.route_len[r] for r in range(t.n_routes)]
        free = set(rng.sample(range(t.n_routes), rng.randrange(0, 6)))
        a, b = rng.randrange(n), rng.randrange(n)
        want = textbook_path(adj, costs, a, b, free)
        big = [BIG if c == INF else c for c in costs]
        assert cheapest_path(adj, big, a, b, free, whole=True, ends=ends) == want
        c, routes, seen = cheapest_path_traced(adj, big, a, b, free, ends)
        assert (c, routes) == want
        away = [r for r in range(t.n_routes) if not (seen >> t.route_a[r] & 1 or seen >> t.route_b[r] & 1)]
        near = [r for r in range(t.n_routes) if r not in away]
        for pool in (away, near):
            if not pool:
                continue
            changed = list(costs)
            for r in rng.sample(pool, min(len(pool), 6)):
                changed[r] = rng.choice((0, 1, INF))
            got = textbook_path(adj, changed, a, b, free)
            if pool is away:
                assert got == want
                outside += 1
            else:
                inside_changed += got != want
    assert outside > 100 and inside_changed > 10  # the mask is what matters, not luck


@pytest.mark.parametrize("players", [2, 4])
def test_choose_keep_reusing_searches_keeps_what_searching_again_keeps(players):
    t, rules = setup("north-america")
    keeps = reused = 0
    for game_seed in game_seeds([3, players], 6):
        s = engine.new_game(t, rules, players, game_seed)
        agents = [make_agent("route-focus") for _ in range(players)]
        for p, agent in enumerate(agents):
            agent.reset(p, t, players, random.Random(p))
        views = [SeatView(s, p) for p in range(players)]
        while s.phase != engine.OVER:
            p = s.current
            agent, view = agents[p], views[p]
            if s.phase == engine.KEEP_PHASE:
                calls = []
                search = agent._own_path
                agent._own_path = lambda *args: calls.append(1) or search(*args)
                fast = agent.choose_keep(view, Legal(s))
                searched = len(calls)
                agent._plain = False  # every search done again, the plain way (tuple queue)
                assert agent.choose_keep(view, Legal(s)) == fast
                agent._plain = True
                del agent._own_path
                keeps += 1
                alone = sum(not view.connected(x[0], x[1]) for x in view.offer)  # searched first either way
                reused += len(calls) - alone - searched  # searched again only the plain way
            engine.apply(s, agent.act(view, Legal(s)))
    assert keeps > 5 * players and reused > 0


FUSED_SETUPS = [("north-america", None, (), 2), ("north-america", None, (), 3), ("north-america", None, (), 4),
                ("north-america", None, ("open-tickets",), 4), ("portland", None, ("friendly-protection",), 4),
                ("seattle", "transit", (), 2)]


@pytest.mark.parametrize("board_id, preset, variants, players", FUSED_SETUPS)
def test_the_planners_turn_in_one_pass_decides_as_its_steps_do(board_id, preset, variants, players):
    """fused_turn.py's one-pass turn against `PlannerAgent.act`, the step-by-step turn it
    writes out: two copies of each seat, seeded alike, see every position of the same games (of
    route-focus and ticket-hungry seats) and must answer with the same action, turn by turn."""
    from mapkit.sim.agents.planner import PlannerAgent
    t, rules = setup(board_id, preset, variants)
    names = ["route-focus", "ticket-hungry"] * 2
    turns = {"fused": 0, "draw2": 0, "claims": 0, "second_draw": 0}
    for g, game_seed in enumerate(game_seeds([21, players], 5)):
        s = engine.new_game(t, rules, players, game_seed)
        pairs = []
        for p in range(players):
            one, two = make_agent(names[(p + g) % 2]), make_agent(names[(p + g) % 2])
            one.reset(p, t, players, random.Random(p))
            two.reset(p, t, players, random.Random(p))
            assert one.act.__func__ is PlannerAgent._fused_act  # these classes take the one pass
            pairs.append((one, two))
        views = [SeatView(s, p) for p in range(players)]
        while s.phase != engine.OVER:
            p = s.current
            one, two = pairs[p]
            # the second card as the referee asks for it (Agent.second_draw, no Legal): act's card
            second = one.second_draw(views[p]) if s.phase == engine.DRAW2 else None
            a = one.act(views[p], Legal(s))
            assert PlannerAgent.act(two, views[p], Legal(s)) == a, (game_seed, s.turn)
            assert second is None or second is a, (game_seed, s.turn, second, a)  # the shared draw tuples
            turns["second_draw"] += second is not None
            if s.phase in (engine.TURN, engine.DRAW2):
                turns["fused"] += 1
                turns["draw2"] += s.phase == engine.DRAW2
                turns["claims"] += a[0] == engine.CLAIM
            engine.apply(s, a)
    assert turns["draw2"] > 50 and turns["claims"] > 50, turns
    assert turns["second_draw"] > 0.9 * turns["draw2"], turns


class _SecondDrawOff:
    """`make_agent` whose agents have no `second_draw`: the referee asks them through act."""

    def __init__(self, make):
        self.make = make

    def __call__(self, name):
        agent = self.make(name)
        reset = agent.reset

        def reset_off(*args):
            reset(*args)
            agent.second_draw = None
        agent.reset = reset_off
        return agent


class _BrokenSecond(RandomAgent):
    """A random player whose second card (through act and second_draw alike) is broken in turn:
    an illegal draw, an exception, a malformed answer, or None (ask act) from second_draw."""

    name = "broken-second"

    def act(self, view, legal):
        if view.phase == engine.DRAW2:
            return self._broken(view) or legal[0]
        return super().act(view, legal)

    def _broken(self, view):
        k = view.turn % 4
        if k == 0:
            return (engine.FACE_UP, 99)
        if k == 1:
            raise RuntimeError("broken")
        if k == 2:
            return "draw"
        return None

    def second_draw(self, view):
        return self._broken(view)


@pytest.mark.parametrize("players", [2, 4])
def test_games_with_second_draw_are_the_games_asked_through_act(monkeypatch, players):
    """The referee's `second_draw` call (seventh round) against asking every second card through
    `act` with a `Legal`: whole games, logs and results alike, for the planners that answer it
    and for a broken agent (its illegal, raising and malformed answers forfeit the card as act's
    do; None is asked through act)."""
    from mapkit.sim import runner

    t, rules = setup("north-america")
    names = [["route-focus"] * players, ["ticket-hungry", "route-focus"] * (players // 2),
             ["broken-second", "route-focus"] * (players // 2)]
    real = runner.make_agent

    def make(name):
        return _BrokenSecond() if name == "broken-second" else real(name)

    errors = 0
    for agents in names:
        for game_seed in game_seeds([23, players], 3):
            monkeypatch.setattr(runner, "make_agent", make)
            fast = runner.play_game(t, rules, agents, game_seed, log=True)
            monkeypatch.setattr(runner, "make_agent", _SecondDrawOff(make))
            plain = runner.play_game(t, rules, agents, game_seed, log=True)
            assert fast == plain, (agents, game_seed)
            errors += fast["gaps"].get("agent_error", 0)
    assert errors > 10  # the broken agent's second cards were forfeited


def test_a_playstyle_changing_a_step_keeps_the_step_by_step_turn():
    """A class overriding any step the one pass writes out plays `act` step by step."""
    from mapkit.sim.agents.planner import PlannerAgent
    from mapkit.sim.agents.fused_turn import FUSED_STEPS
    t, rules = setup("north-america")
    for step in FUSED_STEPS:
        cls = type("Changed", (PlannerAgent,), {step: lambda self, *args, **kwargs: None})
        agent = cls()
        agent.reset(0, t, 2, random.Random(0))
        assert "act" not in agent.__dict__, step
        assert agent.second_draw is None, step  # its second cards are asked through act too
    for name in ("long-route", "one-step", "expert"):
        agent = make_agent(name)
        agent.reset(0, t, 2, random.Random(0))
        assert "act" not in agent.__dict__, name
        assert agent.second_draw is None, name


# ------------------------------------------------------------------ turns, costs, draws (docs/design/speed.md)

@pytest.mark.parametrize("players", [2, 4])
def test_the_plan_stands_when_the_claim_log_touches_nothing_still_open_reads(players):
    """`_plan_touched` against `still_open`: whenever it says no claim since the last check touched
    a planned route or its double's other track, still_open returns the planned routes as they are;
    and a position made by hand (claims not logged) is always checked in full."""
    t, rules = setup("north-america")
    found = {"untouched": 0, "touched": 0, "dropped": 0}
    for game_seed in game_seeds([5, players], 4):
        s = engine.new_game(t, rules, players, game_seed)
        agents = [make_agent("route-focus") for _ in range(players)]
        for p, agent in enumerate(agents):
            agent.reset(p, t, players, random.Random(p))
        views = [SeatView(s, p) for p in range(players)]
        while s.phase != engine.OVER:
            p = s.current
            agent, view = agents[p], views[p]
            if agent._plan_key == view.ticket_count and view.claimed != agent._plan_claimed:
                planned = agent._plan[0]
                still = agent.still_open(view, planned)
                if not agent._plan_touched(view, view.claimed):
                    assert still == planned, (game_seed, s.turn)
                    found["untouched"] += 1
                else:
                    found["touched"] += 1
                    found["dropped"] += still != planned
                hand_made = s.copy()
                hand_made.claimed += 1
                assert agent._plan_touched(SeatView(hand_made, p), hand_made.claimed)
            engine.apply(s, agent.act(view, Legal(s)))
        assert s.claim_log == [r for r in s.claim_log if s.owner[r] != -1] and len(s.claim_log) == s.claimed
    assert found["untouched"] > 20 and found["dropped"] > 5, found


def _draws_to_try(s):
    from mapkit.sim.legal import face_up_draws
    n = len(s.face_up)
    out = [(engine.BLIND,), (engine.FACE_UP, True), (engine.FACE_UP, 1.0), (engine.FACE_UP,), (engine.BLIND, 0)]
    out += face_up_draws(n)[:n] + [(engine.FACE_UP, i) for i in range(-1, n + 2)]
    return out


@pytest.mark.parametrize("board_id, preset, variants, players", CLAIM_SETUPS)
def test_draws_checked_on_the_state_are_the_full_checks(board_id, preset, variants, players):
    """`a in legal` of a draw (answered from the state) against `is_legal`, for the shared draw
    actions, equal copies and malformed ones, at turns, second draws and ticket choices; and the
    one-pass turn's draw read off the state (`_draw_now`) against `_draw_for` on the listed draws."""
    from mapkit.sim.legal import draw_actions, draw_legal, is_legal
    t, rules = setup(board_id, preset, variants)
    rng = random.Random(3)
    agent = make_agent("route-focus")
    agent.reset(0, t, players, random.Random(0))
    found = {"legal": 0, "not": 0, "face_up": 0, "draw2": 0}
    for game_seed in game_seeds([9, players], 4):
        s = engine.new_game(t, rules, players, game_seed)
        while s.phase != engine.OVER:
            legal = Legal(s)
            for a in _draws_to_try(s):
                ok = a in Legal(s)
                assert ok == is_legal(s, a), (a, s.phase)
                assert draw_legal(s, a) == ok, (a, s.phase)  # the referee's check of a second_draw
                found["legal" if ok else "not"] += 1
            if s.phase in (engine.TURN, engine.DRAW2):
                draws = tuple(draw_actions(s))
                need = {} if rng.random() < 0.3 else {rng.randrange(t.wild): rng.randrange(1, 6) for _ in range(rng.randrange(1, 4))}
                got = agent._draw_now(s, need, s.phase)
                assert got == (agent._draw_for(s, draws, need, s.phase) if draws else None)
                assert got is None or any(got is x for x in draws)  # the shared tuples the listing holds
                found["face_up"] += got is not None and got[0] == engine.FACE_UP
                found["draw2"] += s.phase == engine.DRAW2
            acts = legal.all()
            engine.apply(s, acts[rng.randrange(len(acts))])
    assert all(found.values()), found



@pytest.mark.parametrize("board_id", ["north-america", "portland", "seattle"])
def test_the_one_pass_colors_wanted_are_wanted_colors(board_id):
    """`FusedTurn._need` (per-color totals when the plan has no gray route, the routes in turn
    otherwise; read once per plan) against `wanted_colors`, on random hands and plans."""
    t, rules = setup(board_id)
    agent = make_agent("route-focus")
    agent.reset(0, t, 2, random.Random(0))
    rng = random.Random(4)
    gray = [r for r in range(t.n_routes) if t.route_color[r] == -1]
    colored = [r for r in range(t.n_routes) if t.route_color[r] != -1]
    found = {"totals": 0, "in_turn": 0, "missing": 0}
    s = engine.new_game(t, rules, 2, 1)
    view = SeatView(s, 0)
    for case in range(1500):
        routes = rng.sample(colored, rng.randrange(0, 10))
        if gray and case % 2:
            routes += rng.sample(gray, rng.randrange(1, min(4, len(gray)) + 1))
            rng.shuffle(routes)
        routes.sort(key=lambda r: -t.route_len[r])  # the plan's order: longest first
        s.hands[0] = [rng.randrange(0, 7) for _ in range(t.wild + 1)]
        for again in range(2):  # the second time from what was read for the plan
            need = agent._need(s.hands[0], routes)
            assert need == agent.wanted_colors(view, routes), (routes, s.hands[0])
        found["in_turn" if any(t.route_color[r] == -1 for r in routes) else "totals"] += 1
        found["missing"] += bool(need)
    assert min(found.values()) > 100, found


def test_the_longest_path_of_a_tree_is_the_searched_longest_trail():
    """`longest._tree_diameter` (two passes, sixth round) against the plain search from every
    station to the end, on random forests with and without a few extra routes (cycles, doubles:
    those take the search), lengths 0-6 (a free route too)."""
    from mapkit.sim import longest

    rng = random.Random(6)
    found = {"tree": 0, "not_tree": 0, "branched": 0}
    for case in range(600):
        n = rng.randrange(2, 16)
        edges = [(rng.randrange(0, i), i, rng.randrange(0, 7)) for i in range(1, n)]  # a tree
        cut = rng.randrange(0, 3)  # split into a forest: drop some routes
        for _ in range(cut):
            if len(edges) > 1:
                edges.pop(rng.randrange(len(edges)))
        extra = case % 3 == 0
        if extra:  # a cycle or a double: not a tree any more
            u, v = rng.randrange(n), rng.randrange(n)
            if u != v:
                edges.append((u, v, rng.randrange(1, 7)))
        names = rng.sample(range(100), n)  # stations are not numbered 0..n-1 in play
        edges = [(names[u], names[v], w) for u, v, w in edges]
        rng.shuffle(edges)
        got = longest.longest_trail(edges)
        adj = {}
        for i, (u, v, w) in enumerate(edges):
            adj.setdefault(u, []).append((i, v, w))
            adj.setdefault(v, []).append((i, u, w))
        plain, done = longest._search(adj, sorted(adj), 10 ** 9, 10 ** 7, len(edges))
        assert done and got.length == plain and got.exact and got.bound >= plain, (edges, got, plain)
        found["not_tree" if extra else "tree"] += 1
        found["branched"] += any(len(v) > 2 for v in adj.values())
    assert min(found.values()) > 100, found


# ------------------------------------------------------------------ second card, shuffle, refill (docs/design/speed.md)

def test_the_engines_shuffle_is_randoms_shuffle():
    """`engine.shuffle` (random.Random's shuffle written out) against `Random.shuffle`: the same
    order and the generator left in the same state, for lists of 0-300 items on many seeds (the
    lengths cross powers of two, where the bits drawn per pick change); a subclass of Random
    shuffles itself."""
    for seed in range(60):
        for n in (0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 64, 110, 127, 128, 129, 300):
            mine, theirs = random.Random(seed * 1000 + n), random.Random(seed * 1000 + n)
            x, y = list(range(n)), list(range(n))
            engine.shuffle(mine, x)
            theirs.shuffle(y)
            assert x == y, (seed, n)
            assert mine.getstate() == theirs.getstate(), (seed, n)

    class Fixed(random.Random):
        def shuffle(self, x):
            x.reverse()
    x = [1, 2, 3]
    engine.shuffle(Fixed(0), x)
    assert x == [3, 2, 1]


def _plain_card_draw(s, a):
    """`engine.apply` of a card draw as it was before the seventh round: every face-up draw
    refilled by `_refill`, every blind card by `_draw`."""
    p, rules = s.current, s.rules
    if a[0] == engine.FACE_UP:
        fu, i = s.face_up, a[1]
        c = fu[i]
        fu[i] = engine.EMPTY
        s.hands[p][c] += 1
        engine._refill(s)
        ends_turn = c == s.t.wild and rules.face_up_wild_takes_turn
    else:
        c = engine._draw(s)
        s.hands[p][c] += 1
        ends_turn = False
    if s.phase == engine.DRAW2 or ends_turn or rules.draws_per_turn < 2:
        engine._end_turn(s)
    else:
        s.phase = engine.DRAW2
        if not engine._second_draw_possible(s):
            engine._end_turn(s)


_STATE_FIELDS = ("deck", "discard", "face_up", "hands", "phase", "current", "turn", "gaps", "final_turns_left")


@pytest.mark.parametrize("board_id, variants", [("north-america", ()), ("north-america", ("relaxed-wilds",)),
                                                ("portland", ()), ("seattle", ())])
def test_card_draws_refilled_in_place_are_the_plain_refills(board_id, variants):
    """`engine.apply`'s card draws (the face-up slot filled from the deck in place, the blind card
    popped; seventh round) against the plain `_refill` and `_draw`, on positions of random games
    stirred so that the row holds wilds, the top card is a wild, the deck is empty or a slot is
    empty: the whole states after each draw must be equal."""
    from mapkit.sim.legal import draw_actions
    t, rules = setup(board_id, None, variants)
    rng = random.Random(7)
    found = {"face_up": 0, "blind": 0, "wipe": 0, "empty_deck": 0, "empty_slot": 0}
    for game_seed in game_seeds([31], 3):
        s = engine.new_game(t, rules, 3, game_seed)
        while s.phase != engine.OVER:
            if s.phase in (engine.TURN, engine.DRAW2) and draw_actions(s):
                # stir the position: a wild on top of the deck, wilds in the row, no deck, an empty slot
                k = rng.random()
                if k < 0.15 and t.wild in s.deck:
                    j = s.deck.index(t.wild)
                    s.deck[j], s.deck[-1] = s.deck[-1], s.deck[j]
                elif k < 0.25 and s.deck:
                    s.discard.extend(s.deck)
                    s.deck = []
                    found["empty_deck"] += 1
                elif k < 0.3 and len(s.face_up) > 1 and s.face_up[0] != engine.EMPTY:
                    s.discard.append(s.face_up[0])
                    s.face_up[0] = engine.EMPTY
                    found["empty_slot"] += 1
                draws = draw_actions(s)
                if draws:
                    a = draws[rng.randrange(len(draws))]
                    plain = s.copy()
                    _plain_card_draw(plain, a)
                    wipes = s.gaps["endless_wipes"]
                    before = list(s.face_up)
                    engine.apply(s, a)
                    for name in _STATE_FIELDS:
                        assert getattr(s, name) == getattr(plain, name), (name, a, game_seed, s.turn)
                    assert s.rng.getstate() == plain.rng.getstate()
                    found["face_up" if a[0] == engine.FACE_UP else "blind"] += 1
                    found["wipe"] += sum(c != engine.EMPTY and c != x for c, x in zip(s.face_up, before)) > 1 or s.gaps["endless_wipes"] > wipes
                    continue
            acts = Legal(s).all()
            engine.apply(s, acts[rng.randrange(len(acts))])
    assert all(found.values()), found


def _longest_trail_before(edges, budget):
    """`longest.longest_trail` as the sixth round left it (a pass for each of the component,
    its edges, its total and its odd stations)."""
    from mapkit.sim.longest import QUICK_BUDGET, LongestPath, _search, _tjoin_bounds, _tree_diameter
    if not edges:
        return LongestPath(0, 0, True)
    adj: dict[int, list[tuple[int, int, int]]] = {}
    for i, (u, v, w) in enumerate(edges):
        adj.setdefault(u, []).append((i, v, w))
        adj.setdefault(v, []).append((i, u, w))
    best, best_bound, exact = 0, 0, True
    seen: set[int] = set()
    for start in adj:
        if start in seen:
            continue
        # the component of start
        comp, stack = {start}, [start]
        while stack:
            n = stack.pop()
            for _, m, _ in adj[n]:
                if m not in comp:
                    comp.add(m)
                    stack.append(m)
        seen |= comp
        comp_edges = sorted({i for n in comp for i, _, _ in adj[n]})
        total = sum(edges[i][2] for i in comp_edges)
        odd = [n for n in comp if len(adj[n]) % 2]
        if len(odd) <= 2:
            best, best_bound = max(best, total), max(best_bound, total)
            continue
        shortest = sorted(edges[i][2] for i in comp_edges)
        bound = total - sum(shortest[: (len(odd) - 2) // 2])
        if bound <= best:
            best_bound = max(best_bound, bound)
            continue
        if len(comp_edges) == len(comp) - 1:
            # a tree (most networks players build): its longest trail is its longest path, the
            # weighted diameter, found in two passes; the search below finds the same length
            best = max(best, _tree_diameter(adj, start))
            best_bound = max(best_bound, bound)
            continue
        # a quick search settles the networks players build; dense ones get the T-join bounds
        found, done = _search(adj, sorted(odd), bound, QUICK_BUDGET, len(edges))
        best = max(best, found)
        if not done:
            upper, lower = _tjoin_bounds(edges, comp_edges, odd, total)
            bound = min(bound, upper)
            best = max(best, lower)
            if best < bound:
                found, done = _search(adj, sorted(odd), bound, budget, len(edges))
                best = max(best, found)
                exact = exact and done
        best_bound = max(best_bound, bound)
    return LongestPath(best, max(best_bound, best), exact or best == best_bound)


def test_the_longest_trail_in_one_pass_a_component_is_the_trail_before():
    """`longest_trail` with each component's odd stations, lengths and edge count read in the
    pass that finds it (seventh round) against the function before: the same length, bound and
    exactness on random forests, forests with cycles and doubles (a loop too), dense networks,
    grids, and small search budgets."""
    from mapkit.sim import longest

    rng = random.Random(8)
    found = {"path": 0, "tree": 0, "searched": 0}
    cases = [(longest.grid_network(k), b) for k in (2, 3, 4) for b in (50, 10 ** 6)]
    for case in range(600):
        n = rng.randrange(2, 18) if case % 5 else rng.randrange(2, 9)  # dense ones small: searched
        edges = [(rng.randrange(0, i), i, rng.randrange(0, 7)) for i in range(1, n)]
        for _ in range(rng.randrange(0, 4)):
            if len(edges) > 1:
                edges.pop(rng.randrange(len(edges)))
        for _ in range(case % 4 if case % 5 else n):  # cycles, doubles, now and then a loop; dense ones
            u, v = rng.randrange(n), rng.randrange(n)
            if u != v or case % 7 == 0:
                edges.append((u, v, rng.randrange(0, 7)))
        names = rng.sample(range(100), n)
        edges = [(names[u], names[v], w) for u, v, w in edges]
        rng.shuffle(edges)
        cases.append((edges, rng.choice((longest.DEFAULT_BUDGET, 30, 3))))
    for edges, budget in cases:
        got = longest.longest_trail(edges, budget)
        assert got == _longest_trail_before(edges, budget), (edges, budget)
        adj = {}
        for u, v, w in edges:
            adj.setdefault(u, []).append(v)
            adj.setdefault(v, []).append(u)
        odd = sum(len(x) % 2 for x in adj.values())
        found["path" if odd <= 2 else "tree" if len(edges) == len(adj) - 1 else "searched"] += 1
    assert min(found.values()) > 80, found


def _plain_seat_costs(t, s, seat, mates=()):
    """`PlannerAgent._seat_costs` as it was: the rule route by route."""
    owner = s.owner
    out = []
    for r in range(t.n_routes):
        o, q = owner[r], t.route_partner[r]
        if o == seat or o in mates:
            out.append(0)
        elif o != -1:
            out.append(INF)
        elif q >= 0 and owner[q] != -1 and (owner[q] == seat or not s.shared[r]):
            out.append(INF)
        else:
            out.append(t.route_len[r])
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_a_seats_costs_on_the_untouched_board_are_the_rule_route_by_route(players):
    """`_seat_costs` (the route lengths, copied, while nothing is owned: seventh round) and the
    int costs the planner searches (`_own_big`) against the rule route by route, at the start
    and all through games, for each seat and with a teammate."""
    t, rules = setup("north-america")
    agent = make_agent("route-focus")
    found = {"untouched": 0, "owned": 0}
    for game_seed in game_seeds([41, players], 2):
        s = engine.new_game(t, rules, players, game_seed)
        rng = random.Random(game_seed)
        agent.reset(0, t, players, random.Random(0))
        while s.phase != engine.OVER:
            for seat in range(players) if s.turn % 3 == 0 or not s.claimed else ():
                view = SeatView(s, seat)
                for mates in ((), ((seat + 1) % players,)):
                    got = agent._seat_costs(view, seat, mates)
                    assert got == _plain_seat_costs(t, s, seat, mates) and got is not t.route_len
                found["owned" if s.claimed else "untouched"] += 1
            agent.reset(s.current, t, players, random.Random(0))
            costs = agent._own_costs(SeatView(s, s.current))
            assert agent._own_big == [BIG if c == INF else c for c in costs] and agent._own_big is not costs
            acts = Legal(s).all()
            engine.apply(s, acts[rng.randrange(len(acts))])
    assert min(found.values()) > 10, found


# ------------------------------------------------------------ eighth round (the expert's games)

def test_a_views_connected_is_the_engines_and_halves_paths_alike():
    """SeatView.connected has engine.connected's two finds written out: the same answers, and the
    same parent lists afterwards (path halving changes them; later finds must walk the same
    links). Forests made by random unions without compression (long chains), asked at random."""
    rng = random.Random(8)
    t, rules = setup("north-america")
    n = t.n_stations
    halved = 0
    for trial in range(60):
        s = engine.new_game(t, rules, 2, trial)
        plain = list(range(n))
        for _ in range(rng.randrange(0, 3 * n)):
            x, y = rng.randrange(n), rng.randrange(n)
            while plain[x] != x:
                x = plain[x]
            while plain[y] != y:
                y = plain[y]
            if x != y:
                plain[x] = y
        s.parent[1] = list(plain)
        state = engine.State.__new__(engine.State)
        state.parent = [None, plain]
        view = SeatView(s, 1)
        for _ in range(40):
            a, b = rng.randrange(n), rng.randrange(n)
            before = list(plain)
            assert view.connected(a, b) == engine.connected(state, 1, a, b)
            assert s.parent[1] == plain
            halved += before != plain
    assert halved > 100  # the finds did change the lists: the comparison above means something


def test_the_views_field_getters_read_the_state():
    """The SeatView properties made `attrgetter`s read the state's fields as they change."""
    t, rules = setup("north-america")
    s = engine.new_game(t, rules, 3, 1)
    views = [SeatView(s, p) for p in range(3)]
    fields = {"tables": "t", "rules": "rules", "players": "players", "min_keep": "min_keep", "phase": "phase",
              "owner": "owner", "claim_log": "claim_log", "claimed": "claimed", "shared_doubles": "shared",
              "markers": "markers", "turn": "turn"}
    rng = random.Random(3)
    steps = 0
    while s.phase != engine.OVER and steps < 400:
        for v in views:
            for name, field in fields.items():
                assert getattr(v, name) is getattr(s, field), name
        acts = Legal(s).all()
        engine.apply(s, acts[rng.randrange(len(acts))])
        steps += 1
    assert s.claimed > 5 and s.turn > 20
    with pytest.raises(AttributeError):
        views[0].turn = 3
