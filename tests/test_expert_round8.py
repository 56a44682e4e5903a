"""The eighth round's oracles and look-ahead (mapkit/sim/expert_oracle.py, expert_lookahead.py;
docs/design/expert.md, "Why the winner's score stops near 130"). Each test builds a position and checks that the variant does
what it says: the clairvoyant draw reads the real top of the ticket deck, the play-out keep takes
the option whose play-outs score most, and the look-ahead's determinization keeps what the seat
can see and never what it cannot."""

from __future__ import annotations

import random

import pytest

from mapkit.sim import engine, expert_lookahead, expert_oracle
from mapkit.sim.expert_lookahead import LookaheadKeepAgent, determinize
from mapkit.sim.expert_oracle import ClairvoyantDrawAgent, RolloutDrawOracle, RolloutKeepOracle
from mapkit.sim.legal import Legal
from mapkit.sim.paths import INF
from mapkit.sim.view import SeatView
from conftest import network_position


SOUTH_WEST = ["denver-santa-fe", "santa-fe-el-paso", "salt-lake-city-denver#1", "las-vegas-salt-lake-city",
              "los-angeles-las-vegas"]
COMPLETE = ["denver-el-paso", "los-angeles-salt-lake-city", "el-paso-las-vegas"]  # on that network


def _top(t, s, names):
    """Put the named tickets on top of the ticket deck, in that order."""
    all_names = t.ticket_names["standard"]
    idx = [all_names.index(n) for n in names]
    s.ticket_deck = idx + [x for x in s.ticket_deck if x not in idx]


def _far(t, s, n=3):
    """The n tickets of the deck worth the most points: coast to coast, far from the south-west
    network and more trains than the 8 the seat has."""
    pool = s.ticket_pool
    return [t.ticket_names["standard"][i] for i in sorted(s.ticket_deck, key=lambda i: -pool[i][2])[:n]]


def _clairvoyant(t):
    agent = ClairvoyantDrawAgent()
    agent.reset(0, t, 4, random.Random(7))
    return agent


def test_clairvoyant_draw_draws_when_the_top_tickets_are_complete_and_declines_when_worthless(na):
    t, rules = na
    s = network_position(t, rules, SOUTH_WEST, 8, 30)
    view = SeatView(s, 0)
    agent = _clairvoyant(t)
    _top(t, s, COMPLETE)
    good = agent.draw_value(view, 8, 10.0)
    assert good > agent.draw_ev_min
    far = _far(t, s)
    _top(t, s, far)
    bad = agent.draw_value(view, 8, 10.0)
    assert bad < agent.draw_ev_min and bad < good - 10
    # the expert's own value does not change with the deck's order (it cannot see it)
    plain = _clairvoyant(t)
    expert_value = super(ClairvoyantDrawAgent, plain).draw_value(view, 8, 10.0)
    _top(t, s, COMPLETE)
    assert super(ClairvoyantDrawAgent, plain).draw_value(view, 8, 10.0) == pytest.approx(expert_value)


def test_clairvoyant_bar_moves_the_decision(na):
    """`oracle_draw_min` is the bar the offer must reach: an offer worth v passes a bar below v
    and fails one above it (the value handed to `_act` is shifted by the difference of bars)."""
    t, rules = na
    s = network_position(t, rules, SOUTH_WEST, 8, 30)
    view = SeatView(s, 0)
    _top(t, s, COMPLETE)
    agent = _clairvoyant(t)
    v = agent.offer_value(view, 8, 10.0, [s.ticket_pool[i] for i in s.ticket_deck[:3]])
    agent.oracle_draw_min = v - 1
    assert agent.draw_value(view, 8, 10.0) >= agent.draw_ev_min
    agent.oracle_draw_min = v + 1
    assert agent.draw_value(view, 8, 10.0) < agent.draw_ev_min


def _setup_position(t, rules, seed=5):
    s = engine.new_game(t, rules, 4, seed)
    assert s.phase == engine.SETUP and s.current == 0
    return s


def test_rollout_keep_takes_the_option_whose_play_outs_score_most(na, monkeypatch):
    t, rules = na
    s = _setup_position(t, rules)
    legal = Legal(s)
    options = list(legal)
    assert len(options) >= 2
    agent = RolloutKeepOracle()
    agent.reset(0, t, 4, random.Random(1))
    seen = {}

    def fake(states, seat, first, seeds, cls=None, no_draw=None):
        seen["states"] = states
        # the last option scores most, whatever the expert would keep
        return [float(i) for i in range(len(first))]

    monkeypatch.setattr(expert_oracle, "option_scores", fake)
    assert agent.act(SeatView(s, 0), legal) == options[-1]
    assert seen["states"] == [s]  # the oracle judges from the real state


def test_rollout_keep_real_play_outs_agree_with_its_choice(na):
    """Without stubs: the oracle's setup keep is an option of the best play-out score (the play
    is reproducible: the same position gives the same scores again)."""
    t, rules = na
    s = _setup_position(t, rules, seed=11)
    legal = Legal(s)
    options = list(legal)
    agent = RolloutKeepOracle()
    agent.reset(0, t, 4, random.Random(1))
    chosen = agent.act(SeatView(s, 0), legal)
    seeds = [expert_oracle._seed_of(s, 0, 0)]
    scores = expert_oracle.option_scores([s], 0, options, seeds)
    assert scores == expert_oracle.option_scores([s], 0, options, seeds)
    assert scores[options.index(chosen)] == max(scores)
    assert s.phase == engine.SETUP and s.current == 0  # the real state is not played on


def test_rollout_draw_oracle_draws_when_the_drawing_play_out_scores_more(na, monkeypatch):
    t, rules = na
    s = network_position(t, rules, SOUTH_WEST, 20, 20)
    view = SeatView(s, 0)
    agent = RolloutDrawOracle()
    agent.reset(0, t, 4, random.Random(1))
    calls = []

    def fake(states, seat, first, seeds, cls=None, no_draw=None):
        calls.append((first, no_draw))
        return scores

    monkeypatch.setattr(expert_oracle, "option_scores", fake)
    scores = [50.0, 40.0]
    assert agent.draw_value(view, 20, 10.0) == INF
    scores = [40.0, 50.0]
    assert agent.draw_value(view, 20, 10.0) == -INF
    assert calls[0] == ([(engine.TICKETS, 0), None], {1})


def test_no_draw_once_declines_only_the_first_draw(na):
    t, rules = na
    s = network_position(t, rules, SOUTH_WEST, 20, 20)
    view = SeatView(s, 0)
    a = expert_oracle.RolloutExpert()
    a.reset(0, t, 4, random.Random(1))
    a.no_draw_once = True
    assert a.draw_value(view, 20, 10.0) == -INF
    assert a.draw_value(view, 20, 10.0) > -INF


def test_determinization_keeps_the_public_and_deals_the_hidden_again(na):
    t, rules = na
    s = engine.new_game(t, rules, 4, 9)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << s.min_keep) - 1))
    for _ in range(10):  # a few turns of blind draws, so hands and deck differ from the deal
        engine.apply(s, (engine.BLIND,))
    view = SeatView(s, s.current)
    seat = s.current
    d = determinize(view, 4)
    # public and own facts kept
    assert d.hands[seat] == s.hands[seat] and d.tickets[seat] == s.tickets[seat]
    assert d.face_up == s.face_up and d.owner == s.owner and d.trains == s.trains
    assert [sum(h) for h in d.hands] == [sum(h) for h in s.hands]
    assert [len(x) for x in d.tickets] == [len(x) for x in s.tickets]
    assert len(d.deck) == len(s.deck) and len(d.discard) == len(s.discard)
    assert len(d.ticket_deck) == len(s.ticket_deck)
    # every card and ticket still exists exactly once
    total = [0] * (t.wild + 1)
    for h in d.hands:
        for c, n in enumerate(h):
            total[c] += n
    for c in d.deck + d.discard + [c for c in d.face_up if c != engine.EMPTY]:
        total[c] += 1
    assert total == [t.deck.count(c) for c in range(t.wild + 1)]
    tickets = sorted(d.ticket_deck + [x for ts in d.tickets for x in ts])
    assert tickets == sorted(s.ticket_deck + [x for ts in s.tickets for x in ts])
    # the hidden parts are dealt again (the real deck order is not kept)
    assert d.deck != s.deck
    # never peeks: two real states that differ only in what this seat cannot see give the same
    # determinization
    other = s.copy()
    q = (seat + 1) % 4
    other.tickets[q], other.ticket_deck[:len(s.tickets[q])] = s.ticket_deck[:len(s.tickets[q])], s.tickets[q]
    other.deck = list(reversed(s.deck))
    other.rng = random.Random(123)
    d2 = determinize(SeatView(other, seat), 4)
    assert d2.deck == d.deck and d2.tickets == d.tickets and d2.ticket_deck == d.ticket_deck
    assert d2.hands == d.hands and d2.rng.getstate() == d.rng.getstate()


def test_lookahead_keep_judges_from_determinizations_not_the_real_state(na, monkeypatch):
    t, rules = na
    s = _setup_position(t, rules)
    legal = Legal(s)
    agent = LookaheadKeepAgent()
    agent.samples = 3
    agent.reset(0, t, 4, random.Random(1))
    seen = {}

    def fake(states, seat, first, seeds, cls=None, no_draw=None):
        seen["states"] = states
        return [0.0] * (len(first) - 1) + [1.0]

    monkeypatch.setattr(expert_oracle, "option_scores", fake)
    assert agent.act(SeatView(s, 0), legal) == list(legal)[-1]
    assert len(seen["states"]) == 3 and all(x is not s for x in seen["states"])
    assert all(x.deck != s.deck for x in seen["states"])


def test_registration_is_explicit(monkeypatch):
    """The cheats are not playstyles: only register() seats them (on a copy of the table here,
    so no other test sees them)."""
    from mapkit.sim import agents

    names = ("oracle-draw", "oracle-cards", "oracle-keep", "oracle-keep-draw", "oracle-all", "lookahead-keep",
             "lookahead-draw")
    assert not any(n in agents.AGENTS for n in names)
    monkeypatch.setattr(agents, "AGENTS", dict(agents.AGENTS))
    expert_oracle.register()
    expert_lookahead.register()
    for name in names:
        assert agents.make_agent(name).name == name


def test_card_oracle_draws_blind_for_a_blind_wild_or_a_more_needed_color(na):
    t, rules = na
    s = network_position(t, rules, SOUTH_WEST, 30, 10)
    wild = t.wild
    s.face_up = [0, 1, 2, 3, 4]  # five colors, no wild
    agent = expert_oracle.CardClairvoyantAgent()
    agent.reset(0, t, 4, random.Random(1))
    agent._target = None
    view = SeatView(s, 0)
    legal = Legal(s)
    need = {0: 2, 5: 3}  # color 5 is not face up
    plain = super(expert_oracle.CardClairvoyantAgent, agent).draw(view, legal, need)
    assert plain == (engine.FACE_UP, 0)  # the expert takes the needed face-up card
    s.deck[-1] = wild
    assert agent.draw(view, legal, need)[0] == engine.BLIND
    s.deck[-1] = 5  # needed more than the face-up color
    assert agent.draw(view, legal, need)[0] == engine.BLIND
    s.deck[-1] = 6  # of no use: the face-up card, as the expert
    assert agent.draw(view, legal, need) == plain


def test_all_oracle_combines_the_card_draw_and_the_play_out_decisions():
    A = expert_oracle.AllOracle
    assert A.draw is expert_oracle.CardClairvoyantAgent.draw
    assert A.choose_keep is RolloutKeepOracle.choose_keep
    assert A.draw_value is RolloutDrawOracle.draw_value


@pytest.mark.parametrize("argv, code, says", [
    (["bogus"], 2, "invalid choice"),
    (["expert", "--games", "0"], 2, "at least 1"),
    (["expert", "--set", "no_such_switch=1"], 2, "an attribute of ExpertAgent"),
    (["oracle-draw", "--set", "oracle_draw_min=x"], 2, "Python literal"),
    (["expert", "--games", "1", "--board", "no-such-board.json"], 1, "not-found"),
])
def test_the_measuring_entry_point_says_what_is_wrong(argv, code, says, capsys):
    from mapkit.sim.expert_oracle import main

    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == code
    assert says in capsys.readouterr().err
