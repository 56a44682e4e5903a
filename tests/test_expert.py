"""The strong agent: legal on every board and ruleset, deterministic, stronger than route-focus, and
playing like people on the standard map."""

import math

import pytest

from mapkit.boardfile import load_board
from mapkit.resources import boards_dir
from mapkit.sim.agents import AGENTS, make_agent
from mapkit.sim.batch import run_games
from mapkit.sim.rules import PRESETS, VARIANTS, rules_for_board
from mapkit.sim.runner import game_seeds, play_game
from mapkit.sim.tables import build_tables
from simhelp import TINY
from conftest import network_position

BOARDS = [TINY] + sorted(boards_dir().glob("*.json"))


def _rulesets(board, t):
    out = [(name, ()) for name in sorted(PRESETS)
           if all(d in t.ticket_decks for d in rules_for_board(board, name).ticket_decks)]
    return out + [(board.rules.preset, (v,)) for v in sorted(VARIANTS)]


def test_expert_is_registered():
    assert "expert" in AGENTS
    assert make_agent("expert").name == "expert"


@pytest.mark.parametrize("path", BOARDS, ids=[p.stem for p in BOARDS])
def test_expert_plays_every_ruleset_without_errors(path):
    """Every preset and variant the board can play, smallest and largest table, mixed with others:
    the runner counts an exception or an illegal action as an agent error."""
    board = load_board(path)
    t = build_tables(board)
    for preset, variants in _rulesets(board, t):
        rules = rules_for_board(board, preset, variants)
        for players in sorted({rules.min_players, rules.max_players}):
            agents = (["expert", "route-focus", "random", "expert", "one-step"])[:players]
            totals, _ = run_games(t, rules, agents, 1, seed=11)
            assert totals.gaps.get("agent_error", 0) == 0, (path.stem, preset, variants, players)
            assert totals.games == 1


def test_expert_is_deterministic_for_a_seed(na):
    t, rules = na
    seed = game_seeds(5, 1)[0]
    a = play_game(t, rules, ["expert"] * 3, seed, log=True)
    b = play_game(t, rules, ["expert"] * 3, seed, log=True)
    assert a["actions"] == b["actions"]
    assert [r["total"] for r in a["scores"]] == [r["total"] for r in b["scores"]]


def _wins(totals, seat: int) -> float:
    """Win share of one seat, a shared win split between the tied seats."""
    return totals.wins[seat] - 0.5 * totals.shared_wins  # two seats: every shared win is a tie of both


def _head_to_head(t, rules, games: int, seed: int) -> float:
    """Expert's win share against route-focus over `games` games in each seat order."""
    first, _ = run_games(t, rules, ["expert", "route-focus"], games, seed)
    second, _ = run_games(t, rules, ["route-focus", "expert"], games, seed)
    return (_wins(first, 0) + _wins(second, 1)) / (2 * games)


def _binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


def test_expert_beats_route_focus(na):
    """300 two-player games (150 in each seat order): more wins than an even match would give
    but with probability 5 % (one-sided binomial test: an even match gives p < 0.05 only from 166
    wins of 300; the expert wins about two thirds, test_expert_wins_sixty_percent)."""
    t, rules = na
    games = 150
    share = _head_to_head(t, rules, games, seed=21)
    n = 2 * games
    assert _binomial_tail(math.ceil(share * n), n, 0.5) < 0.05, share


@pytest.mark.slow
def test_expert_wins_sixty_percent(na):
    """At least 60 % of 2-player games against route-focus, over 1,000 games (500 in each seat
    order)."""
    t, rules = na
    assert _head_to_head(t, rules, 500, seed=22) >= 0.60


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="the expert does not yet play like expert people: the winner scores 129.8 (≥ 150) and holds"
                                       " 5.41 tickets (≥ 6) over 1,000 games (seed 0); 36.8 turns a seat,"
                                       " 4.2 cards left and no final-turn draws meet theirs")
def test_expert_self_play_targets(na):
    """The issue's targets for 4-player self-play on north-america."""
    t, rules = na
    totals, _ = run_games(t, rules, ["expert"] * 4, 200, seed=23)
    m = totals.play.as_dict()
    assert m["winner_score_mean"] >= 150
    assert m["winner_tickets_held_mean"] >= 6
    assert m["turns_per_seat_mean"] <= 37
    assert m["cards_in_hand_at_end_mean"] <= 6
    assert m["final_turn_draw_rate"] <= 0.05


def test_expert_plays_like_people_on_a_short_run(na):
    """What the expert does differently from route-focus, on a short 4-player run: it spends its
    hand at the end and takes the scoring claim on its last turn."""
    t, rules = na
    totals, _ = run_games(t, rules, ["expert"] * 4, 20, seed=24)
    m = totals.play.as_dict()
    assert m["cards_in_hand_at_end_mean"] <= 6
    assert m["final_turn_draw_rate"] <= 0.05
    assert totals.ends["final_round"] == 20


def test_simulate_help_and_bench_name_the_expert(cli):
    from mapkit.sim.bench import RUNS

    out = cli("simulate", "--help").output
    assert "expert" in " ".join(out.split())
    assert {p for a, p, _ in RUNS if a == "expert"} == {2, 4}


def test_expert_leaves_face_up_wilds_for_two_blind_cards(na):
    """A face-up wild takes the whole turn for one card, and nearly every card the expert draws is
    laid as a train: while a blind draw is legal it takes one only when stuck (6+ cards in hand,
    the route nearest to a claim one card short: `_stuck`), never with a smaller hand, and never
    with `stuck_wild_hand = None` (the agent before that rule took 1.6 a seat a game on
    north-america). It still draws face-up cards of the colors it needs."""
    from mapkit.sim import agents
    from mapkit.sim.engine import BLIND, FACE_UP, TURN
    from mapkit.sim.agents.expert import ExpertAgent

    def watch(stuck_wild_hand):
        seen = {"wild": 0, "face_up": 0, "wild_offered": 0, "small_hand_wild": 0}

        class Watched(ExpertAgent):
            def act(self, view, legal):
                a = super().act(view, legal)
                draws = legal.draws()
                if view.phase == TURN and draws and draws[-1][0] == BLIND:
                    wilds = [d for d in draws if d[0] == FACE_UP and view.face_up[d[1]] == self.t.wild]
                    seen["wild_offered"] += bool(wilds)
                    seen["wild"] += a in wilds
                    seen["small_hand_wild"] += a in wilds and sum(view.hand) < 6
                    seen["face_up"] += a[0] == FACE_UP and a not in wilds
                return a

        Watched.stuck_wild_hand = stuck_wild_hand
        agents.AGENTS["watched-expert"] = Watched
        try:
            run_games(t, rules, ["watched-expert"] * 4, 3, seed=25)
        finally:
            del agents.AGENTS["watched-expert"]
        return seen

    t, rules = na
    never = watch(None)
    assert never["wild_offered"] > 10  # the situation did arise
    assert never["wild"] == 0
    assert never["face_up"] > 20
    stuck = watch(6)
    assert stuck["small_hand_wild"] == 0
    # taken now and then, far from every time one is offered
    assert 0 < stuck["wild"] < stuck["wild_offered"] / 2


@pytest.fixture(scope="module")
def seattle():
    b = load_board(boards_dir() / "seattle.json")
    return build_tables(b), rules_for_board(b)


def _scarce_flight_position(t, rules, hand_wilds: int):
    """Seattle, seat 0 planning only paine-field-seatac (6 trains of flight, a color with 3 cards
    in the deck), holding all 3 flight cards and `hand_wilds` wilds; a wild face up in slot 0,
    the other slots of colors the plan does not use."""
    from mapkit.sim import engine

    s = engine.new_game(t, rules, 2, 3)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << s.min_keep) - 1))
    r = t.route_ids.index("paine-field-seatac")
    a, b = t.route_a[r], t.route_b[r]
    s.ticket_pool = tuple(s.ticket_pool) + ((a, b, 10, 0),)
    s.tickets[0] = [len(s.ticket_pool) - 1]
    flight = t.color_ids.index("flight")
    s.hands[0] = [0] * (t.wild + 1)
    s.hands[0][flight] = 3
    s.hands[0][t.wild] = hand_wilds
    s.deck = [c for c in s.deck if c != flight]
    s.face_up = [t.wild] + [t.color_ids.index("sounder")] * (len(s.face_up) - 1)
    return s, r


@pytest.mark.parametrize("hand_wilds, takes_wild", [(0, True), (2, True), (3, False)])
def test_expert_takes_a_face_up_wild_when_its_route_cannot_be_paid_otherwise(seattle, hand_wilds, takes_wild):
    """The expert leaves face-up wilds for two blind cards, but a planned route of a scarce color
    (Seattle's flight: 3 cards for the 6-train paine-field-seatac) can only be paid with wilds:
    short of them it takes the face-up wild; with enough wilds held it draws blind again."""
    from mapkit.sim.engine import CLAIM, FACE_UP
    from mapkit.sim.legal import Legal
    from mapkit.sim.view import SeatView

    t, rules = seattle
    s, r = _scarce_flight_position(t, rules, hand_wilds)
    agent = make_agent("expert")
    agent.reset(0, t, 2, __import__("random").Random(7))
    legal = Legal(s)
    assert r in agent.plan(SeatView(s, 0))[0]
    act = agent.act(SeatView(s, 0), legal)
    if takes_wild:
        assert act == (FACE_UP, 0)
    else:  # 3 flight + 3 wilds pay the route: it is claimed, no card drawn
        assert act[:2] == (CLAIM, r)


def test_expert_counts_its_own_payments_as_out_of_reach(seattle):
    """Cards the seat paid into the discards cannot come back before a reshuffle: west-seattle has
    5 cards; after paying 2 of them, a 5-train west-seattle route needs wilds; once the deck has
    been shuffled again (it grew), the cards count as obtainable again."""
    from mapkit.sim.engine import CLAIM
    from mapkit.sim.view import SeatView

    t, rules = seattle
    s, _ = _scarce_flight_position(t, rules, 0)
    agent = make_agent("expert")
    agent.reset(0, t, 2, __import__("random").Random(7))
    ws = t.color_ids.index("west-seattle")
    long_ws = t.route_ids.index("paine-field-everett")
    short_ws = t.route_ids.index("lynnwood-paine-field")
    view = SeatView(s, 0)
    agent._look(view)
    assert not agent.wilds_short(view, [long_ws])
    agent._paid((CLAIM, short_ws, ws, 0))
    s.discard.extend([ws] * 2)
    agent._look(SeatView(s, 0))
    assert agent.wilds_short(SeatView(s, 0), [long_ws])
    s.deck, s.discard = s.deck + s.discard, []  # a reshuffle
    agent._look(SeatView(s, 0))
    assert not agent.wilds_short(SeatView(s, 0), [long_ws])


def test_expert_keeps_the_wilds_a_scarce_color_needs(seattle):
    """Wilds taken for paine-field-seatac (3 flight cards for 6 trains) are not spent on a route
    whose own color can still pay it: a claim of another planned route using wilds is set aside
    while the flight route still needs them, a claim without wilds is not."""
    from mapkit.sim.engine import CLAIM
    from mapkit.sim.view import SeatView

    t, rules = seattle
    s, r = _scarce_flight_position(t, rules, 3)
    agent = make_agent("expert")
    agent.reset(0, t, 2, __import__("random").Random(7))
    other = next(x for x in range(t.n_routes) if t.route_color[x] == t.color_ids.index("sounder") and t.route_len[x] == 2)
    sounder = t.color_ids.index("sounder")
    claims = [(CLAIM, other, sounder, 1), (CLAIM, other, sounder, 0), (CLAIM, r, t.color_ids.index("flight"), 3)]
    view = SeatView(s, 0)
    assert agent.wilds_needed(view, [r, other]) == (3, {t.color_ids.index("flight")})
    assert agent.keep_wilds(view, [r, other], claims) == claims[1:]
    assert agent.keep_wilds(view, [other], claims) == claims  # nothing scarce planned: any payment


def _plan_done_position(t, rules, players: int, trains: int):
    """North-america after setup, seat 0 to play with every ticket given up (nothing planned),
    `trains` trains left, the others all 45, and 20 turns a seat played (so turns remain)."""
    from mapkit.sim import engine

    s = engine.new_game(t, rules, players, 3)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << s.min_keep) - 1))
    s.current = 0
    s.tickets[0] = []
    s.trains[0] = trains
    s.turn = 20 * players
    return s


@pytest.mark.parametrize("players, trains, draws_tickets", [(2, 20, False), (2, 30, True), (4, 20, True)])
def test_expert_draws_tickets_after_its_plan_by_the_table(na, players, trains, draws_tickets):
    """Its plan done, the expert draws tickets while trains and turns remain: at four players from
    12 trains, at two from 25 (it is the seat that ends a two-player game: with fewer trains it
    spends them on routes and ends it)."""
    from mapkit.sim.engine import TICKETS
    from mapkit.sim.legal import Legal
    from mapkit.sim.view import SeatView

    t, rules = na
    s = _plan_done_position(t, rules, players, trains)
    agent = make_agent("expert")
    agent.reset(0, t, players, __import__("random").Random(7))
    view = SeatView(s, 0)
    assert agent.plan(view)[0] == [] and agent.turns_left(view) >= agent.more_tickets_turns
    assert (agent.act(view, Legal(s))[0] == TICKETS) == draws_tickets


def test_expert_plans_the_cheaper_of_two_ticket_orders(na):
    """Shortest connections one ticket after another depend on the order: calgary-charleston (17)
    planned first and calgary-saint-louis (12) after it take 25 trains on the open board, the
    other order 17 (the first connection reused by the second). The plan is the cheaper."""
    from mapkit.sim import engine
    from mapkit.sim.view import SeatView

    t, rules = na
    s = engine.new_game(t, rules, 2, 3)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << s.min_keep) - 1))
    st = t.station_ids.index
    big = next(x for x in s.ticket_pool if {x[0], x[1]} == {st("calgary"), st("charleston")})
    small = next(x for x in s.ticket_pool if {x[0], x[1]} == {st("calgary"), st("saint-louis")})
    agent = make_agent("expert")
    agent.reset(0, t, 2, __import__("random").Random(7))
    view = SeatView(s, 0)
    costs = agent._costs(view)
    assert big[2] > small[2]
    assert agent._plan_for(view, [big, small], costs)[1] == 25
    assert agent._plan_for(view, [small, big], costs)[1] == 17
    routes, need, given_up = agent.plan_for(view, [big, small])
    assert need == 17 and given_up == [] and sum(t.route_len[r] for r in routes) == 17


def _na_turn(t, rules, players=4):
    """North-america, setup done: seat 0 to play, holding no ticket and no card."""
    from mapkit.sim import engine

    s = engine.new_game(t, rules, players, 3)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << s.min_keep) - 1))
    assert s.phase == engine.TURN and s.current == 0
    s.tickets[0] = []
    s.hands[0] = [0] * (t.wild + 1)
    return s


def _ticket(s, t, a: str, b: str, points: int) -> int:
    s.ticket_pool = tuple(s.ticket_pool) + ((t.station_ids.index(a), t.station_ids.index(b), points, 0),)
    return len(s.ticket_pool) - 1


@pytest.mark.parametrize("players, cards, stuck_wild_hand, takes_wild",
                         [(4, 6, 6, True), (4, 5, 6, False), (4, 9, None, False), (2, 9, 6, False)])
def test_expert_takes_a_face_up_wild_one_card_from_a_claim_with_a_big_hand(na, players, cards, stuck_wild_hand, takes_wild):
    """Waiting for one color with a big hand: its only planned route, helena-denver (4 green),
    lacks one green card. A face-up wild makes it payable next turn, where each blind card is red
    or wild about one time in four (against two cards): with 6+ cards the expert takes the wild; with 5, or with the
    rule off (`stuck_wild_hand = None`), or at two players (a card matters more than a turn to
    the seat that ends the game), it draws blind."""
    from mapkit.sim.engine import BLIND, FACE_UP
    from mapkit.sim.legal import Legal
    from mapkit.sim.view import SeatView

    t, rules = na
    s = _na_turn(t, rules, players)
    r = t.route_ids.index("helena-denver")
    green, yellow, black = t.color_ids.index("green"), t.color_ids.index("yellow"), t.color_ids.index("black")
    assert t.route_color[r] == green and t.route_len[r] == 4
    s.tickets[0] = [_ticket(s, t, "helena", "denver", 4)]
    s.hands[0][green] = 3
    s.hands[0][black] = cards - 3  # a color the plan does not use
    s.face_up = [t.wild] + [yellow] * (len(s.face_up) - 1)
    agent = make_agent("expert")
    agent.stuck_wild_hand = stuck_wild_hand
    agent.reset(0, t, players, __import__("random").Random(7))
    view = SeatView(s, 0)
    assert agent.plan(view)[0] == [r]
    act = agent.act(view, Legal(s))
    assert act == ((FACE_UP, 0) if takes_wild else (BLIND,))


@pytest.mark.parametrize("credit, kept", [(0.5, "seattle-helena"), (0.0, "dallas-chicago")])
def test_expert_keeps_the_ticket_whose_plan_runs_along_long_routes(na, credit, kept):
    """Two tickets of 6 trains each, only one fitting the 16 trains left (30 turns a seat played): seattle-helena (7 points)
    along one 6-train route (15 route points) and dallas-chicago (9 points) over three 2-train
    hops (6 route points). Counting the plan's route points (`keep_route_credit`) the expert keeps
    seattle-helena; on the ticket points alone, dallas-chicago."""
    from mapkit.sim import engine
    from mapkit.sim.legal import Legal
    from mapkit.sim.view import SeatView

    t, rules = na
    s = _na_turn(t, rules)
    s.trains[0] = 16
    s.turn = 120
    engine.apply(s, (engine.TICKETS,))
    assert s.phase == engine.KEEP_PHASE and s.min_keep == 1
    x = _ticket(s, t, "seattle", "helena", 7)
    y = _ticket(s, t, "dallas", "chicago", 9)
    s.offer = [x, y]
    agent = make_agent("expert")
    agent.keep_route_credit = credit
    agent.ticket_chance = False  # the plan's one curve, as the scenario was built for (ticket_keeps.py)
    agent.reset(0, t, 4, __import__("random").Random(7))
    act = agent.act(SeatView(s, 0), Legal(s))
    assert act[0] == engine.KEEP
    names = {"seattle-helena": 1, "dallas-chicago": 2}  # offer slot 0 and 1 as mask bits
    assert act[1] == names[kept]


def _late_draw_position(t, rules, offer_names):
    """North-america, four players, seat 0 choosing from a ticket draw of `offer_names` with no
    other ticket, 20 trains left and 20 turns a seat played."""
    from mapkit.sim import engine

    s = engine.new_game(t, rules, 4, 3)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << s.min_keep) - 1))
    names = t.ticket_names["standard"]
    s.current, s.tickets[0], s.trains[0], s.turn = 0, [], 20, 4 * 20
    s.phase, s.offer, s.min_keep = engine.KEEP_PHASE, [names.index(n) for n in offer_names], 1
    return s


@pytest.mark.parametrize("extra, kept", [(3, 0b011), (0, 0b001)])
def test_expert_keeps_a_ticket_more_when_it_adds_few_trains(na, extra, kept):
    """After a draw the expert keeps duluth-pittsburgh (6) alone by expected value; new-york-omaha
    (9) adds at most 3 trains to that plan (it reuses it), so it keeps both: a ticket kept now
    saves the turn of a later draw. dallas-helena, far off, stays returned."""
    from mapkit.sim.engine import KEEP
    from mapkit.sim.legal import Legal
    from mapkit.sim.view import SeatView

    t, rules = na
    s = _late_draw_position(t, rules, ["duluth-pittsburgh", "new-york-omaha", "dallas-helena"])
    agent = make_agent("expert")
    agent.extra_keep_trains = extra
    agent.ticket_chance = False  # the plan's one curve, as the scenario was built for (ticket_keeps.py)
    agent.reset(0, t, 4, __import__("random").Random(7))
    view = SeatView(s, 0)
    assert agent.act(view, Legal(s)) == (KEEP, kept)
    offer = view.offer
    alone = agent.plan_for(view, offer[:1])[1]
    both = agent.plan_for(view, offer[:2])[1]
    assert 0 < both - alone <= 3




@pytest.mark.parametrize("unseen, draws", [
    (["denver-el-paso", "los-angeles-salt-lake-city", "el-paso-las-vegas"], True),
    (["sault-st-marie-seattle", "calgary-charleston", "portland-washington"], False),
])
def test_expert_draws_tickets_by_what_the_pool_can_offer_its_network(na, unseen, draws):
    """Its plan done, with 14 trains and turns to spare (the old rule, 12 trains and 8 turns, draws
    in both cases), at four players the expert draws tickets only when a draw is worth it over the
    tickets it has not seen: here every one left is complete on its network in the south-west (it
    draws), or every one needs more than its 14 trains (a forced keep would fail: it does not)."""
    from mapkit.sim.engine import TICKETS
    from mapkit.sim.legal import Legal
    from mapkit.sim.view import SeatView

    t, rules = na
    s = network_position(t, rules, ["denver-santa-fe", "santa-fe-el-paso", "salt-lake-city-denver#1",
                                     "las-vegas-salt-lake-city", "los-angeles-las-vegas"], 14)
    agent = make_agent("expert")
    agent.reset(0, t, 4, __import__("random").Random(7))
    names = t.ticket_names["standard"]
    pool = agent._pool(SeatView(s, 0))
    agent._seen_tickets = {x for x, n in zip(pool, names) if n not in unseen}
    view = SeatView(s, 0)
    assert agent.plan(view)[0] == [] and agent.turns_left(view) >= agent.more_tickets_turns
    assert (agent.act(view, Legal(s))[0] == TICKETS) == draws
    old = make_agent("expert")
    old.draw_ev_min = None
    old.reset(0, t, 4, __import__("random").Random(7))
    assert old.act(view, Legal(s))[0] == TICKETS
