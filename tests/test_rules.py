"""Scenario tests: one hand-built position, one action, the rule's expected result."""

import pytest

from mapkit.sim import engine
from mapkit.sim.legal import claim_actions, legal_actions
from mapkit.sim.engine import BLIND, CLAIM, DRAW2, FACE_UP, KEEP, TICKETS, TURN, EMPTY
from mapkit.sim.scoring import final_scores, winners
from simhelp import card_total, started

RED, BLUE, FERRY, WILD = 0, 1, 2, 3


def route(t, rid):
    return t.route_ids.index(rid)


def test_face_up_wild_first_is_the_only_card():
    t, s = started()
    s.face_up[0] = WILD
    engine.apply(s, (FACE_UP, 0))
    assert s.phase == TURN and s.current == 1


def test_face_up_wild_cannot_be_second_card_but_blind_wild_counts_as_one():
    t, s = started()
    s.face_up[:] = [RED, WILD, BLUE, FERRY, RED]
    s.deck.append(WILD)  # the blind draw will be a wild
    engine.apply(s, (BLIND,))
    assert s.phase == DRAW2 and s.current == 0  # a blind wild still leaves a second draw
    legal = legal_actions(s)
    assert (FACE_UP, 1) not in legal and (FACE_UP, 0) in legal and (BLIND,) in legal


def test_relaxed_variant_face_up_wild_counts_as_one():
    t, s = started(face_up_wild_takes_turn=False)
    s.face_up[0] = WILD
    engine.apply(s, (FACE_UP, 0))
    assert s.phase == DRAW2
    s.face_up[2] = WILD
    assert (FACE_UP, 2) in legal_actions(s)


def test_three_face_up_wilds_wipe_the_row():
    t, s = started()
    s.face_up[:] = [WILD, WILD, RED, BLUE, RED]
    s.deck.extend([RED, BLUE, FERRY, RED, BLUE, WILD])  # the refill after taking slot 2 is a wild
    before = card_total(s)
    engine.apply(s, (FACE_UP, 2))
    assert s.face_up.count(WILD) < 3
    assert s.discard[-5:].count(WILD) == 3  # the wiped row went to the discards
    assert card_total(s) == before


def test_endless_wipes_are_guarded_and_recorded():
    t, s = started()
    # every card left is a wild: no row can have fewer than three
    n = len(s.deck) + len(s.discard)
    s.deck = [WILD] * n
    s.discard = []
    s.face_up[:] = [WILD, WILD, RED, WILD, WILD]
    engine.apply(s, (FACE_UP, 2))
    assert s.gaps["endless_wipes"] >= 1


def test_empty_deck_reshuffles_the_discards():
    t, s = started()
    s.discard = s.deck + s.discard
    s.deck = []
    n = len(s.discard)
    engine.apply(s, (BLIND,))
    assert len(s.deck) == n - 1 and s.discard == []


def test_no_cards_anywhere_means_no_draw():
    t, s = started()
    s.hands[0][RED] += len(s.deck) + len(s.discard)
    s.deck, s.discard = [], []
    for i, c in enumerate(s.face_up):
        if c != EMPTY:
            s.hands[0][c] += 1
            s.face_up[i] = EMPTY
    kinds = {a[0] for a in legal_actions(s)}
    assert FACE_UP not in kinds and BLIND not in kinds


def test_gray_route_takes_one_color_plus_wilds():
    t, s = started()
    r = route(t, "alder-dogwood")  # gray, 5 spaces
    s.hands[0][:] = [3, 2, 0, 2]
    claims = {a for a in claim_actions(s, 0) if a[1] == r}
    assert claims == {(CLAIM, r, RED, 2), (CLAIM, r, BLUE, 2 + 1)} - {(CLAIM, r, BLUE, 3)}
    s.hands[0][:] = [2, 2, 0, 1]  # red+blue+wild would be 5 but colors cannot mix
    assert not any(a[1] == r for a in claim_actions(s, 0))


def test_colored_route_payments_and_trains():
    t, s = started()
    r = route(t, "birch-cedar")  # blue, 4
    s.hands[0][:] = [0, 3, 0, 2]
    assert {a for a in claim_actions(s, 0) if a[1] == r} == {(CLAIM, r, BLUE, 1), (CLAIM, r, BLUE, 2)}
    s.trains[0] = 3
    assert not any(a[1] == r for a in claim_actions(s, 0))


def test_claim_pays_scores_and_discards():
    t, s = started()
    r = route(t, "birch-cedar")
    s.hands[0][:] = [0, 3, 0, 2]
    before = card_total(s)
    engine.apply(s, (CLAIM, r, BLUE, 1))
    assert s.hands[0] == [0, 0, 0, 1] and s.owner[r] == 0 and s.route_score[0] == 7 and s.trains[0] == 16
    assert s.discard[-4:].count(BLUE) == 3 and card_total(s) == before


@pytest.mark.parametrize("players, other_can_claim", [(2, False), (3, False), (4, True)])
def test_double_routes_by_player_count(players, other_can_claim):
    t, s = started(players=players)
    one, two = route(t, "alder-birch#1"), route(t, "alder-birch#2")
    s.hands[0][:] = [10, 10, 10, 10]
    engine.apply(s, (CLAIM, one, RED, 0))
    # the same seat can never take the other track
    assert not any(a[1] == two for a in claim_actions(s, 0))
    s.hands[1][:] = [10, 10, 10, 10]
    assert any(a[1] == two for a in claim_actions(s, 1)) == other_can_claim


def test_returned_tickets_go_to_the_bottom_and_short_deck_draws_fewer():
    t, s = started()
    s.ticket_deck = s.ticket_deck[:2]
    bottom = list(s.ticket_deck)
    engine.apply(s, (TICKETS, 0))
    assert len(s.offer) == 2 and s.min_keep == 1
    engine.apply(s, (KEEP, 0b01))
    assert s.ticket_deck == [bottom[1]]


def test_final_round_gives_everyone_one_more_turn():
    t, s = started(players=3)
    r = route(t, "birch-cedar")
    s.trains[0] = 5
    s.hands[0][:] = [0, 4, 0, 0]
    engine.apply(s, (CLAIM, r, BLUE, 0))  # seat 0 ends its turn with 1 train
    assert s.final_turns_left == 3
    for seat in (1, 2, 0):
        assert s.current == seat and not engine.is_over(s)
        engine.apply(s, (BLIND,))
        engine.apply(s, (BLIND,))
    assert engine.is_over(s) and s.end_reason == "final_round"


def test_long_game_triggers_at_one():
    t, s = started(end_trigger=1)
    s.trains[0] = 6
    s.hands[0][:] = [0, 4, 0, 0]
    engine.apply(s, (CLAIM, route(t, "birch-cedar"), BLUE, 0))
    assert s.final_turns_left is None


def test_longest_path_ties_all_score_and_tie_breaks():
    t, s = started()
    s.tickets = [[], []]
    for seat, rid in ((0, "birch-cedar"), (1, "dogwood-elm")):
        r = route(t, rid)
        s.owner[r] = seat
        s.claims[seat].append(r)
        s.route_score[seat] += 7
    rows = final_scores(s)
    assert [r["longest_bonus"] for r in rows] == [10, 10]
    assert winners(s, rows) == [0, 1]  # same score, tickets, bonus: shared
    s.tickets[1] = [0]
    a, b, pts, _ = s.ticket_pool[0]
    rows = final_scores(s)
    assert rows[1]["tickets_lost"] == -pts


def test_most_completed_tickets_breaks_a_tie():
    t, s = started()
    s.ticket_pool = ((0, 1, 3, 0),)  # alder-birch, 3 points
    s.tickets = [[], [0]]
    for seat, rid, points in ((0, "dogwood-elm", 10), (1, "alder-birch#1", 7)):
        r = route(t, rid)
        s.owner[r] = seat
        s.claims[seat].append(r)
        s.route_score[seat] = points
    s.parent[1][0] = 1  # seat 1's network joins alder and birch
    rows = final_scores(s)
    assert rows[0]["total"] == rows[1]["total"] == 20  # both 4-space paths tie for the bonus
    assert winners(s, rows) == [1]


def test_family_variant_failed_tickets_score_zero():
    t, s = started(failed_ticket_factor=0)
    rows = final_scores(s)
    assert all(r["tickets_lost"] == 0 for r in rows)
    assert all(r["held"] > 0 for r in rows)


def test_shared_team_tickets_use_the_teammates_routes():
    t, s = started(players=4, teams=2, shared_team_tickets=True, min_players=4, max_players=4)
    s.tickets = [[0], [], [], []]
    s.ticket_pool = ((0, 1, 4, 0),)  # alder-birch
    r = route(t, "alder-birch#1")
    s.owner[r] = 2  # seat 2 is seat 0's teammate
    s.claims[2].append(r)
    assert final_scores(s)[0]["completed"] == 1
    from dataclasses import replace
    s.rules = replace(s.rules, shared_team_tickets=False)
    assert final_scores(s)[0]["completed"] == 0


def test_solo_discards_the_leftmost_face_up_card_each_turn():
    t, s = started(players=1, solo=True, min_players=1, max_players=1)
    first = s.face_up[0]
    n = len(s.discard)
    engine.apply(s, (TICKETS, 0))
    engine.apply(s, (KEEP, 1))
    assert len(s.discard) == n + 1 and s.discard[-1] == first


def test_ticket_market_takes_from_the_market_and_refills():
    t, s = started(ticket_market=3)
    s.ticket_deck, s.tickets = s.tickets[0] + s.tickets[1], [[], []]  # give the deck its tickets back
    market = list(s.market)
    assert len(market) == 3
    engine.apply(s, (TICKETS, 0b101))
    assert s.offer[:2] == [market[0], market[2]] and len(s.offer) == 3
    engine.apply(s, (KEEP, 0b111))
    assert len(s.market) == 3 and market[1] in s.market


def test_friendly_protection_forbids_trapping_a_station():
    t, s = started(players=2, friendly_protection_turns=2)
    # cedar has two routes: birch-cedar and cedar-fir; seat 1 owns neither
    s.owner[route(t, "cedar-fir")] = 0
    s.hands[0][:] = [10, 10, 10, 10]
    assert not any(a[1] == route(t, "birch-cedar") for a in claim_actions(s, 0))
    s.turns_taken[1] = 2
    assert any(a[1] == route(t, "birch-cedar") for a in claim_actions(s, 0))


def test_no_legal_action_passes_and_a_stalled_game_ends():
    t, s = started()
    for p in range(2):
        s.hands[p] = [0, 0, 0, 0]
    s.deck, s.discard, s.ticket_deck, s.market = [], [], [], []
    s.face_up[:] = [EMPTY] * 5
    assert legal_actions(s) == [(engine.PASS,)]
    engine.apply(s, (engine.PASS,))
    engine.apply(s, (engine.PASS,))
    assert engine.is_over(s) and s.end_reason == "stalled" and s.gaps["no_legal_action"] == 2


# ---------------------------------------------------------------- the transit expansion (seed 003)

def transit_game(players=2, **changes):
    return started(players=players, **{"transit": True, "ticket_decks": ("transit",), "double_routes_min_players": 3,
                                       "double_either_color": True, **changes})


def station(t, sid):
    return t.station_ids.index(sid)


def test_station_costs_one_card_per_route_in_its_colors():
    t, s = transit_game()
    birch = station(t, "birch")  # red and blue (the double), blue, ferry
    s.hands[0][:] = [1, 2, 1, 0]
    assert (engine.STATION, birch, engine.BUS, -1) in legal_actions(s)
    assert (engine.STATION, birch, engine.TRAIN, -1) not in legal_actions(s)  # needs a wild too
    before = card_total(s)
    engine.apply(s, (engine.STATION, birch, engine.BUS, -1))
    assert s.hands[0] == [0, 0, 0, 0] and s.markers[birch][engine.BUS] == 0
    assert s.station_score[0] == 7  # four cards: the 4-space value
    assert card_total(s) == before and s.tokens_left == 16


def test_second_type_scores_half_and_one_of_each_type():
    t, s = transit_game()
    birch = station(t, "birch")
    s.markers[birch][engine.BUS] = 1
    s.hands[0][:] = [1, 2, 1, 1]
    assert (engine.STATION, birch, engine.BUS, -1) not in legal_actions(s)
    engine.apply(s, (engine.STATION, birch, engine.TRAIN, -1))
    assert s.station_score[0] == 4  # half of 7, rounded up; the train's extra wild scores nothing


def test_a_gray_route_into_a_station_is_paid_by_a_color_left_after_the_colored_routes():
    t, s = transit_game()
    dogwood = station(t, "dogwood")  # alder-dogwood gray, dogwood-elm red
    s.hands[0][:] = [1, 1, 0, 0]
    builds = {a for a in legal_actions(s) if a[0] == engine.STATION and a[1] == dogwood and a[2] == engine.BUS}
    # red is needed for dogwood-elm, so blue pays the gray route (naming red would name no card)
    assert builds == {(engine.STATION, dogwood, engine.BUS, 1)}


def test_last_token_starts_the_final_round():
    t, s = transit_game(transit_tokens=1)
    birch = station(t, "birch")
    s.hands[0][:] = [1, 2, 1, 0]
    engine.apply(s, (engine.STATION, birch, engine.BUS, -1))
    assert s.final_turns_left == 2
    engine.apply(s, (BLIND,))
    engine.apply(s, (BLIND,))
    assert not engine.is_over(s)
    engine.apply(s, (BLIND,))
    engine.apply(s, (BLIND,))
    assert engine.is_over(s)


def test_transit_tickets_score_by_bus_chain_and_fail_at_the_lower_value():
    t, s = transit_game()
    s.ticket_pool = ((station(t, "alder"), station(t, "cedar"), 8, 4), (station(t, "dogwood"), station(t, "fir"), 8, 3))
    s.tickets = [[0, 1], []]
    for sid in ("alder", "birch", "cedar"):
        s.markers[station(t, sid)][engine.BUS] = 1  # anyone's stations count
    row = final_scores(s)[0]
    assert row["tickets_won"] == 4 and row["tickets_lost"] == -3 and row["bus_tickets"] == 1
    assert row["transit_bonus"] == 10  # most bus tickets (seat 1 has none); train tickets: nobody


def test_two_players_one_track_either_color_except_named_doubles():
    t, s = transit_game()
    one, two = route(t, "alder-birch#1"), route(t, "alder-birch#2")  # red and blue
    s.hands[0][:] = [0, 4, 0, 0]
    assert (CLAIM, one, BLUE, 0) in claim_actions(s, 0)  # the red track, paid in blue
    engine.apply(s, (CLAIM, one, BLUE, 0))
    s.hands[1][:] = [4, 4, 0, 0]
    assert not any(a[1] == two for a in claim_actions(s, 1))
    t, s = transit_game(double_exceptions=("alder-birch",))
    s.owner[one] = 0
    s.hands[1][:] = [4, 4, 0, 0]
    assert (CLAIM, two, BLUE, 0) in claim_actions(s, 1)
