"""A ticket is judged against published tickets needing the same share of a player's trains."""

import json
from conftest import FIXTURES

from mapkit.balance.published import ticket_band
from mapkit.balance.reference import shipped
from mapkit.balance.report import balance_report, rules_for_board
from mapkit.boardfile import build_board


def test_the_band_of_a_ticket_is_the_published_band_at_the_same_share_of_trains():
    bands = shipped()["bands"]["3"]
    assert bands["trains"] == 45
    for p in (4, 8, 13, 20):
        assert ticket_band(bands, p, 45) == ticket_band(bands, p)
    # 4 points of 18 trains is 10 points of 45: a short city ticket is not judged as a 4-point
    # North America ticket (which nearly every player completes)
    assert ticket_band(bands, 4, 18) == ticket_band(bands, 10)
    assert ticket_band(bands, 4, 18)[0] < ticket_band(bands, 4)[0]


def test_the_report_judges_tickets_by_the_boards_own_trains():
    data = json.loads((FIXTURES / "tiny.json").read_text())   # 8 trains a player
    board = build_board(data)
    trains = rules_for_board(board, None, ()).trains_for(2)
    ref = shipped()
    r = balance_report(board, [2], games=24, seed=2, reference=ref, tested=0)
    assert r["bands"]["2"]["trains"] == trains == 8
    ticket_cuts = [v for v in r["verdicts"] if v["kind"] == "ticket-too-hard"]
    assert ticket_cuts
    labels = {v["subject"]: v for v in ticket_cuts}
    points = {f"{t['from']}-{t['to']}": t["points"] for deck in data["ticket_decks"].values() for t in deck}
    for subject, v in labels.items():
        p = points[subject.split(":")[-1]]
        assert v["cutoff"] == round(ticket_band(ref["bands"]["2"], p, trains)[0], 4)
