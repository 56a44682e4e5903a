"""The balance report's causes and its published reference: verdicts grouped into what a designer
would change, each change an edit of the board, and cut-offs taken from the published map."""

import pytest

from mapkit.balance import causes
from mapkit.balance.reference import published_board
from mapkit.balance.published import ticket_band
from mapkit.boardfile import load_board
from simhelp import TINY


def _v(kind, subject, players, verdict="robust", finding=True):
    return {"kind": kind, "subject": subject, "players": players, "verdict": verdict, "finding": finding}


def _report(verdicts, gaps=None, games=100):
    runs = [{"players": n, "games": games, "rules_gaps": (gaps or {}).get(n, {})} for n in (2, 3, 4)]
    return {"verdicts": verdicts, "runs": runs, "reference": None}


def test_a_color_short_at_every_count_is_one_cause_with_a_card_change():
    board = load_board(TINY)
    data = causes.board_data(board)
    color = board.routes[0].color
    data["deck"] = {"total": 110, "wild": 14, "counts": {c.id: 96 // len(board.palette) for c in board.palette}}
    found = causes.find_causes(_report([_v("color-starved", color, n) for n in (2, 3, 4)]), data)
    assert len(found) == 1
    c = found[0]
    assert c["kind"] == "color-short" and c["subjects"] == [color] and c["players"] == [2, 3, 4]
    assert "cards +" in c["change"] and c["edits"][0][0] == ["deck", "counts", color]
    assert c["edits"][0][1] > data["deck"]["counts"][color]


def test_tickets_hard_and_losing_are_one_cause_and_its_points_rise():
    board = load_board(TINY)
    data = causes.board_data(board)
    deck, tickets = next(iter(data["ticket_decks"].items()))
    t = tickets[0]
    label = f"{t['from']}-{t['to']}"
    found = causes.find_causes(_report([_v("ticket-too-hard", label, 2), _v("ticket-holders-lose", label, 3),
                                        _v("ticket-too-hard", label, 4, finding=None, verdict="needs-games")]), data)
    assert [c["kind"] for c in found] == ["ticket-not-worth-it"]
    assert found[0]["players"] == [2, 3]  # only decided findings make a cause
    assert found[0]["edits"] == [[["ticket_decks", deck, 0, "points"], t["points"] + 2]]
    changed = causes.board_with(board, found[0]["edits"])
    assert changed.ticket_decks[deck][0].points == t["points"] + 2
    assert board.ticket_decks[deck][0].points == t["points"]  # the board itself is untouched


def test_adjacent_unclaimed_routes_are_one_corridor():
    board = load_board(TINY)
    data = causes.board_data(board)
    routes = data["routes"]
    a = routes[0]
    b = next(r for r in routes[1:] if {r["from"], r["to"]} & {a["from"], a["to"]} and r["id"] != a["id"]
             and not r.get("double"))
    far = next((r for r in routes if not {r["from"], r["to"]} & {a["from"], a["to"], b["from"], b["to"]}), None)
    vs = [_v("route-rarely-claimed", a["id"], 3), _v("route-rarely-claimed", b["id"], 3)]
    if far:
        vs.append(_v("route-rarely-claimed", far["id"], 4))
    found = causes.find_causes(_report(vs), data)
    corridor = [c for c in found if set(c["subjects"]) == {a["id"], b["id"]}]
    assert len(corridor) == 1 and corridor[0]["kind"] == "unclaimed-corridor"
    assert len(found) == (2 if far else 1)
    changed = causes.board_with(board, corridor[0]["edits"])
    assert changed.routes != board.routes


def test_one_track_of_a_double_nobody_claims_is_removed_not_shortened():
    board = load_board(TINY)
    data = causes.board_data(board)
    i, track = next((i, r) for i, r in enumerate(data["routes"]) if r.get("double"))
    found = causes.find_causes(_report([_v("route-rarely-claimed", track["id"], 4)]), data)
    assert found[0]["edits"] == [[["routes", i], None]] and "removed" in found[0]["change"]
    changed = causes.board_with(board, found[0]["edits"])
    assert len(changed.routes) == len(board.routes) - 1
    partner = [r for r in changed.routes if {r.a, r.b} == {track["from"], track["to"]}]
    assert partner and all(r.double is None for r in partner)   # the track left is a single route
    from mapkit.sim.tables import build_tables

    build_tables(changed)   # and the board still plays


def test_a_removed_track_is_tried_by_the_claims_of_the_track_that_stays():
    """A cause that removes one track of a double is tried by a figure the changed board still
    has: the claims of the track that stays (the removed track has no claims to compare)."""
    board = load_board(TINY)
    data = causes.board_data(board)
    i, track = next((i, r) for i, r in enumerate(data["routes"]) if r.get("double"))
    other = next(r["id"] for j, r in enumerate(data["routes"]) if j != i and r.get("double") == track["double"])
    c = causes.find_causes(_report([_v("route-rarely-claimed", track["id"], 4)]), data)[0]
    assert causes.worth_testing(c)
    assert c["figure"]["subject"] == other and "stays" in c["figure"]["name"]
    changed = causes.board_with(board, c["edits"])

    def played(b):   # a report of 100 games in which every route of `b` was claimed in 40
        return {"runs": [{"players": 4, "games": 100, "route_claim_share": {r.id: 0.4 for r in b.routes}}]}

    before, after = causes.figure_of(played(board), c["figure"], 4), causes.figure_of(played(changed), c["figure"], 4)
    assert before is not None and after is not None and after["low"] <= after["value"] <= after["high"]


def test_a_deck_that_runs_out_is_a_cause():
    data = causes.board_data(load_board(TINY))
    found = causes.find_causes(_report([], gaps={4: {"cards_exhausted": {"events": 60, "games": 40}},
                                                 3: {"cards_exhausted": {"events": 1, "games": 1}}}), data)
    assert [c["kind"] for c in found] == ["deck-runs-out"] and found[0]["players"] == [4]
    assert "or at most 3 players" in found[0]["change"]


def test_ticket_band_follows_the_published_trend_and_stays_a_band():
    bands = {"ticket_trend": [1.0, -0.02], "ticket_spread": [-0.2, 0.1], "ticket_points": [4, 22]}
    lows_highs = [ticket_band(bands, p) for p in range(1, 40)]
    for lo, hi in lows_highs:
        assert 0.01 <= lo < hi <= 0.99
    assert ticket_band(bands, 30) == ticket_band(bands, 22)  # longer than any published ticket: as the longest
    assert ticket_band(bands, 10)[0] > ticket_band(bands, 20)[0]


def test_the_published_board_plays_its_published_deck():
    b = published_board()
    assert len(b.ticket_decks["published"]) == 30
    assert b.rules.overrides["ticket_decks"] == ["published"]


@pytest.mark.slow
def test_the_published_map_judged_against_itself_raises_almost_nothing():
    from mapkit.balance.panel import default_panel
    from mapkit.balance.reference import play_reference
    from mapkit.balance.report import balance_report

    ref = play_reference(default_panel(), [3], 800, seed=0, jobs=2)
    r = balance_report(published_board(), [3], 800, None, seed=1, jobs=2, reference=ref, tested=0)
    robust = [v for v in r["verdicts"] if v["verdict"] == "robust" and v["finding"]]
    assert len(robust) <= 1, robust


def test_the_report_shows_the_first_causes_and_folds_the_rest():
    from mapkit.balance import html
    from mapkit.balance.markdown import CAUSES_SHOWN, format_markdown

    cs = [{"kind": "ticket-too-easy", "subjects": [f"t{i}"], "players": [2], "why": "w", "change": "c",
           "robust": True, "tested": None} for i in range(CAUSES_SHOWN + 3)]
    page = "\n".join(html.causes_section({"causes": cs}))
    shown, folded = page.split("<details>")
    assert shown.count("<li>") == CAUSES_SHOWN and folded.count("<li>") == 3
    report = {"name": "x", "rules": "standard", "panel": ["route-focus"], "seed": 0, "games": 10, "max_games": None,
              "board": "x", "verdicts": [], "runs": [], "deck_warnings": [], "causes": cs}
    md = format_markdown(report)
    assert f"{CAUSES_SHOWN}. **t{CAUSES_SHOWN - 1}**" in md and f"**t{CAUSES_SHOWN}**" not in md
    assert "and 3 more causes" in md
