"""Scenario tests for the rules in every combination: each builds a position by hand,
applies an action and checks the rule's result. The readings they pin are in RuleSet's docstring."""

import itertools
import random
from dataclasses import replace

import pytest

from mapkit.boardfile import load_board
from mapkit.errors import UsageError
from mapkit.resources import boards_dir
from mapkit.sim import engine, legal
from mapkit.sim.engine import BLIND, BUS, CLAIM, EMPTY, FACE_UP, KEEP, REDRAW, STATION, TRAIN, TURN
from mapkit.sim.legal import claim_actions, is_legal, legal_actions
from mapkit.sim.rules import PRESETS, resolve_rules
from mapkit.sim.runner import play_game
from mapkit.sim.scoring import final_scores, winners
from mapkit.sim.tables import GRAY, build_tables
from mapkit.sim.transit import station_actions, station_cost
from simhelp import card_total, started, tiny_tables

RED, BLUE, FERRY, WILD = 0, 1, 2, 3


def route(t, rid):
    return t.route_ids.index(rid)


def station(t, sid):
    return t.station_ids.index(sid)


def transit_game(players=2, **changes):
    return started(players=players, **{"transit": True, "ticket_decks": ("transit",), "double_routes_min_players": 3,
                                       "double_either_color": True, **changes})


def bundled(name):
    board = load_board(boards_dir() / f"{name}.json")
    return board, build_tables(board)


# ---------------------------------------------------------------- transit stations (seed 003)

def test_gray_routes_into_a_station_are_paid_by_cards_of_different_colors():
    t, s = transit_game()
    fir = station(t, "fir")  # cedar-fir and elm-fir, both gray
    s.hands[0][:] = [1, 1, 0, 0]  # a red and a blue: no two cards of one color
    act = (STATION, fir, BUS, RED)
    assert act in legal_actions(s) and is_legal(s, act)
    before = card_total(s)
    engine.apply(s, act)
    assert s.hands[0] == [0, 0, 0, 0] and s.markers[fir][BUS] == 0
    assert sorted(s.discard[-2:]) == [RED, BLUE] and card_total(s) == before
    assert s.station_score[0] == t.points_table[1]  # two cards played


def test_gray_routes_take_the_named_color_first_then_the_least_plentiful():
    t, s = transit_game()
    fir = station(t, "fir")
    s.hands[0][:] = [3, 1, 2, 1]
    # red covers both gray routes: nothing spills
    assert station_cost(s, fir, BUS, RED, 0) == {RED: 2}
    # blue covers one; the other takes the least plentiful other color (ferry: 2 < red: 3)
    assert station_cost(s, fir, BUS, BLUE, 0) == {BLUE: 1, FERRY: 1}
    # the wild first, then a regular card
    assert station_cost(s, fir, BUS, WILD, 0) == {WILD: 1, BLUE: 1}
    s.hands[0][:] = [0, 1, 0, 1]
    # a color the seat does not hold is not a payment it can name
    assert station_cost(s, fir, BUS, RED, 0) is None and not is_legal(s, (STATION, fir, BUS, RED))


def _buildable(t, hand, st, kind):
    """Brute force: can some assignment of one card per route (its color or a wild; any card for a
    gray route), plus a wild for a train station, be paid from the hand?"""
    options = []
    for r in t.routes_at[st]:
        c = t.route_color[r]
        options.append(range(t.wild + 1) if c == GRAY else (c, t.wild))
    for choice in itertools.product(*options):
        need = [0] * (t.wild + 1)
        for c in choice:
            need[c] += 1
        need[t.wild] += kind == TRAIN
        if all(need[c] <= hand[c] for c in range(t.wild + 1)):
            return True
    return False


@pytest.mark.parametrize("seed", range(3))
def test_station_listing_is_legal_and_build_agree_with_a_brute_force(seed):
    t, s = transit_game()
    rng = random.Random(seed)
    for _ in range(60):
        s.hands[0][:] = [rng.randrange(3) for _ in range(t.wild + 1)]
        listed = station_actions(s, 0)
        for st in range(t.n_stations):
            for kind in (BUS, TRAIN):
                mine = [a for a in listed if a[1] == st and a[2] == kind]
                assert bool(mine) == _buildable(t, s.hands[0], st, kind), (s.hands[0], st, kind)
                for color in range(-1, t.wild + 1):
                    a = (STATION, st, kind, color)
                    assert is_legal(s, a) == (a in listed)
        for a in listed:
            c = s.copy()
            engine.apply(c, a)
            paid = [s.hands[0][x] - c.hands[0][x] for x in range(t.wild + 1)]
            st, kind = a[1], a[2]
            assert min(c.hands[0]) >= 0
            assert sum(paid) == len(t.routes_at[st]) + (kind == TRAIN)  # one card per route (+ the wild)
            for col, n in t.station_colors[st]:
                assert paid[col] <= n or paid[col] - n <= t.station_gray[st]
            if kind == TRAIN:
                assert paid[t.wild] >= 1


def test_doubles_count_both_tracks_for_a_station_at_two_players():
    t, s = transit_game(players=2)
    birch = station(t, "birch")  # alder-birch#1 red, #2 blue, birch-cedar blue, birch-elm ferry
    assert not s.shared[route(t, "alder-birch#1")]  # one track only at 2 players
    s.hands[0][:] = [1, 1, 1, 0]  # one card short if both tracks count
    assert not any(a[1] == birch for a in station_actions(s, 0))
    s.hands[0][:] = [1, 2, 1, 0]
    assert station_cost(s, birch, BUS, -1, 0) == {RED: 1, BLUE: 2, FERRY: 1}


def test_station_points_past_the_scoring_table_take_its_last_value():
    t, s = transit_game()
    s.t = replace(t, points_table=(1, 2, 4))  # a table shorter than the 4 cards birch takes
    birch = station(t, "birch")
    s.hands[0][:] = [1, 2, 1, 0]
    engine.apply(s, (STATION, birch, BUS, -1))
    assert s.station_score[0] == 4


def test_transit_is_for_two_to_four_players():
    rules = PRESETS["transit"]
    assert (rules.min_players, rules.max_players) == (2, 4)
    t = tiny_tables()
    with pytest.raises(UsageError):
        engine.new_game(t, replace(rules, ticket_decks=("transit",)), 5, 1)


def test_family_makes_an_unfinished_two_valued_ticket_score_zero():
    for factor, lost in ((-1, -3), (0, 0)):
        t, s = transit_game(failed_ticket_factor=factor)
        s.ticket_pool = ((station(t, "dogwood"), station(t, "fir"), 8, 3),)
        s.tickets = [[0], []]
        assert final_scores(s)[0]["tickets_lost"] == lost
    resolved = resolve_rules("standard", {}, "transit", ("family",))
    assert resolved.transit and resolved.failed_ticket_factor == 0


# ---------------------------------------------------------------- the face-up row

def test_wiping_works_again_after_the_guard_gave_up():
    t, s = started()
    others = [c for c in s.deck + s.discard if c != WILD]
    # the top of the deck is nothing but wilds: every wipe turns five more, until the guard stops
    s.deck = others + [WILD] * (5 * engine.MAX_WIPES + 20)
    s.discard = []
    s.face_up[:] = [WILD, WILD, RED, WILD, BLUE]
    s.hands[0][RED] = 0
    engine.apply(s, (FACE_UP, 2))  # the refill is a wild: three or more, wipe after wipe
    assert s.gaps["endless_wipes"] == 1 and s.face_up.count(WILD) >= 3
    # later in the game, with ordinary cards on top, a row of three wilds is wiped again
    s.deck = [WILD] * 20 + others
    s.face_up[:] = [WILD, WILD, RED, WILD, BLUE]
    engine.apply(s, (FACE_UP, 4))  # seat 0's second card (the first was the face-up red)
    assert s.face_up.count(WILD) < 3 and s.gaps["endless_wipes"] == 1


def _drain(s, keep_in_row):
    """Everything but the row into seat 1's hand; the row as given."""
    for c in s.deck + s.discard + [c for c in s.face_up if c != EMPTY]:
        s.hands[1][c] += 1
    s.deck, s.discard = [], []
    for c in keep_in_row:
        if c != EMPTY:
            s.hands[1][c] -= 1
    s.face_up[:] = keep_in_row


def test_a_claim_that_refills_the_discards_wipes_a_stuck_row():
    t, s = started()
    r = route(t, "birch-cedar")  # blue, 4
    s.hands[0][:] = [0, 4, 0, 0]
    _drain(s, [WILD, WILD, WILD, RED, RED])
    total = card_total(s)
    engine._refill(s)  # nothing but the row is left: no wipe can help, the guard leaves it
    assert s.face_up.count(WILD) == 3 and s.gaps["endless_wipes"] == 1
    engine.apply(s, (CLAIM, r, BLUE, 0))  # four blue cards reach the discards
    assert s.face_up.count(WILD) < 3 and EMPTY not in s.face_up
    assert card_total(s) == total


def test_an_empty_face_up_slot_is_refilled_when_cards_come_back():
    t, s = started()
    r = route(t, "birch-cedar")
    s.hands[0][:] = [0, 4, 0, 0]
    _drain(s, [RED, EMPTY, EMPTY, BLUE, EMPTY])
    total = card_total(s)
    assert (BLIND,) not in legal_actions(s)
    engine.apply(s, (CLAIM, r, BLUE, 0))
    assert s.face_up == [RED, BLUE, BLUE, BLUE, BLUE] and s.deck == [BLUE] and s.discard == []
    assert card_total(s) == total


def test_solo_slides_the_row_and_turns_the_new_card_at_the_right():
    t, s = started(players=1, solo=True, min_players=1, max_players=1)
    s.face_up[:] = [RED, BLUE, FERRY, RED, BLUE]
    s.deck.extend([FERRY, BLUE, FERRY])  # the blind draws take FERRY and BLUE; the refill is the next
    engine.apply(s, (BLIND,))
    engine.apply(s, (BLIND,))
    assert s.discard[-1] == RED
    assert s.face_up == [BLUE, FERRY, RED, BLUE, FERRY]


# ---------------------------------------------------------------- Mega: the 69 tickets (seed 004)

def test_mega_plays_69_tickets_on_the_standard_map():
    board, t = bundled("north-america")
    rules = resolve_rules(board.rules.preset, board.rules.overrides, "mega")
    assert sum(len(t.ticket_decks[d]) for d in rules.ticket_decks) == 69
    s = engine.new_game(t, rules, 3, 1)
    assert len(s.ticket_pool) == 69 and len(s.offer) == 5 and s.min_keep == 3
    assert len(t.ticket_decks["standard"]) == 30  # 004: the base game's 30 tickets, with 1910's
    assert {"standard", "1910"} <= set(rules.ticket_decks)


# ---------------------------------------------------------------- friendly route protection

def test_protection_holds_for_payment_in_the_other_tracks_color():
    t, s = transit_game(friendly_protection_turns=2)
    one, two = route(t, "alder-birch#1"), route(t, "alder-birch#2")  # red and blue
    s.owner[route(t, "alder-dogwood")] = 0  # alder's last way in is the double; seat 1 owns nothing there
    s.hands[0][:] = [0, 8, 0, 0]  # only blue: the red track would be paid in its partner's color
    assert not any(a[1] in (one, two) for a in claim_actions(s, 0))
    assert not is_legal(s, (CLAIM, one, BLUE, 0))
    s.turns_taken[1] = 2
    assert (CLAIM, one, BLUE, 0) in claim_actions(s, 0) and is_legal(s, (CLAIM, one, BLUE, 0))


def test_protection_uses_the_games_double_table_with_its_exceptions():
    t, s = transit_game(friendly_protection_turns=2, double_exceptions=("alder-birch",))
    one = route(t, "alder-birch#1")
    s.owner[route(t, "alder-dogwood")] = 0
    s.hands[0][:] = [8, 0, 0, 0]
    # the named double is open on both tracks even at 2 players: the blue track stays open to seat 1
    assert (CLAIM, one, RED, 0) in claim_actions(s, 0)
    t, s = transit_game(friendly_protection_turns=2)
    s.owner[route(t, "alder-dogwood")] = 0
    s.hands[0][:] = [8, 0, 0, 0]
    assert (CLAIM, one, RED, 0) not in claim_actions(s, 0)


def test_protection_does_not_forbid_the_only_route_into_a_dead_end():
    board, t = bundled("seattle")
    rules = resolve_rules(board.rules.preset, board.rules.overrides, None, ("friendly-protection",))
    s = engine.new_game(t, rules, 2, 3)
    while s.phase != TURN:
        engine.apply(s, legal_actions(s)[-1])
    dead = [st for st in range(t.n_stations) if len(t.routes_at[st]) == 1]
    assert dead
    s.hands[0] = [20] * (t.wild + 1)
    s.trains[0] = 45
    claimable = {a[1] for a in claim_actions(s, 0)}
    for st in dead:
        (r,) = t.routes_at[st]
        assert r in claimable, t.route_ids[r]
    # the protection itself is on: a route closing a two-route station to seat 1 is refused
    two = next(st for st in range(t.n_stations) if len(t.routes_at[st]) == 2
               and t.route_partner[t.routes_at[st][0]] != t.routes_at[st][1])
    first, last = t.routes_at[two]
    s.owner[first] = 0
    assert last not in {a[1] for a in claim_actions(s, 0)}


# ---------------------------------------------------------------- quick and long games

def test_quick_redraw_replaces_one_starting_ticket_before_the_keep():
    t = tiny_tables()
    rules = resolve_rules("standard", {"trains": 20}, None, ("quick-redraw",))
    assert rules.starting_replacements == 1 and rules.trains_for(2) == 30
    s = engine.new_game(t, rules, 2, 4)
    assert s.phase == engine.REDRAW_PHASE and s.current == 0
    acts = legal_actions(s)
    assert acts[0] == (REDRAW, -1) and acts == [(REDRAW, -1)] + [(REDRAW, i) for i in range(len(s.offer))]
    assert all(is_legal(s, a) for a in acts) and not is_legal(s, (REDRAW, len(s.offer)))
    assert legal.Legal(s).redraws() == acts and legal.Legal(s).draws() == []
    assert not is_legal(s, (KEEP, 0b111))  # the keep comes after the choice
    offer, top = list(s.offer), s.ticket_deck[0]
    engine.apply(s, (REDRAW, 1))
    assert s.offer == [offer[0], top, offer[2]] and s.ticket_deck[-1] == offer[1]
    assert s.phase == engine.SETUP and s.min_keep == 2  # one replacement only, then the usual keep
    engine.apply(s, (KEEP, 0b011))
    assert s.tickets[0] == [offer[0], top] and s.phase == engine.REDRAW_PHASE and s.current == 1
    engine.apply(s, (REDRAW, -1))
    assert s.phase == engine.SETUP and s.current == 1


def test_agents_that_do_not_know_the_redraw_play_on():
    t = tiny_tables()
    rules = resolve_rules("standard", {"trains": 20}, None, ("quick-redraw",))
    for agents in (["route-focus", "one-step"], ["long-route", "ticket-hungry"]):
        r = play_game(t, rules, agents, 5, log=True)
        assert r["gaps"].get("agent_error", 0) == 0
        assert r["actions"][0] == [REDRAW, -1]  # they decline (the first legal action)


def test_long_game_uses_all_45_trains_whatever_the_preset():
    for preset in ("standard", "stop-requested", "transit"):
        rules = resolve_rules("standard", {}, preset, ("long",))
        assert [rules.trains_for(n) for n in range(rules.min_players, rules.max_players + 1)] == \
            [45] * (rules.max_players - rules.min_players + 1)
        assert rules.end_trigger == 1


# ---------------------------------------------------------------- tie-breaks

def _tied(preset_changes, players=3):
    t, s = started(players=players, **preset_changes)
    s.tickets = [[] for _ in range(players)]
    return t, s


def _give(t, s, seat, rids):
    for rid in rids:
        r = route(t, rid)
        s.owner[r] = seat
        s.claims[seat].append(r)


def test_second_tie_break_is_the_longer_path_in_1910():
    t, s = _tied({"ticket_decks": ("1910",), "longest_path_bonus": 0, "globetrotter_bonus": 15}, players=2)
    _give(t, s, 0, ["alder-dogwood"])             # a 5-space path
    _give(t, s, 1, ["birch-cedar", "cedar-fir"])  # 4 + 5 spaces
    s.route_score = [12, 12]
    rows = final_scores(s)
    assert rows[0]["total"] == rows[1]["total"] and rows[0]["longest_bonus"] == rows[1]["longest_bonus"] == 0
    assert winners(s, rows) == [1]


def test_second_tie_break_between_seats_without_the_bonus():
    t, s = _tied({}, players=3)
    _give(t, s, 0, ["alder-dogwood"])                        # 5
    _give(t, s, 1, ["birch-cedar"])                           # 4
    _give(t, s, 2, ["dogwood-elm", "elm-fir"])                # 8: the bonus, but fewer points
    s.route_score = [20, 20, 0]
    rows = final_scores(s)
    assert rows[2]["longest_bonus"] == 10 and rows[0]["total"] == rows[1]["total"] > rows[2]["total"]
    assert winners(s, rows) == [0]


# ---------------------------------------------------------------- keeping tickets

def test_keep_is_checked_directly_from_the_mask(monkeypatch):
    t, s = started()
    engine.apply(s, (engine.TICKETS, 0))
    n, k = len(s.offer), s.min_keep
    listed = set(legal_actions(s))
    monkeypatch.setattr(legal, "legal_actions", lambda s: pytest.fail("is_legal listed every keep"))
    for mask in range(-1, 1 << (n + 1)):
        assert is_legal(s, (KEEP, mask)) == ((KEEP, mask) in listed)
        assert is_legal(s, (KEEP, mask)) == (0 < mask < 1 << n and bin(mask).count("1") >= k)


def test_large_offers_list_a_bounded_set_and_any_keep_stays_legal():
    t, s = started()
    s.ticket_pool = tuple((0, 5, 3, 0) for _ in range(40))
    s.phase, s.offer, s.min_keep = engine.KEEP_PHASE, list(range(20)), 1
    acts = legal_actions(s)
    assert len(acts) == len(set(acts)) <= 1 + 20 + 190 + 20
    full = (1 << 20) - 1
    assert (KEEP, full) in acts and (KEEP, 1 << 7) in acts and (KEEP, full & ~(1 << 3)) in acts
    assert all(is_legal(s, a) for a in acts)
    assert is_legal(s, (KEEP, 0b1010101)) and not is_legal(s, (KEEP, 0)) and not is_legal(s, (KEEP, 1 << 20))
    s.min_keep = 10  # C(20, 10) smallest keeps are too many to list: only the bounded families
    acts = legal_actions(s)
    assert all(bin(a[1]).count("1") >= 18 for a in acts) and is_legal(s, (KEEP, (1 << 10) - 1))
    assert not is_legal(s, (KEEP, (1 << 9) - 1))
    small = legal.keep_masks(5, 3)
    assert small == [m for m in range(32) if bin(m).count("1") >= 3]
