"""The targets of a generated deck: every length range holds some length, on any board, and every
line's end station is on a ticket."""

from types import SimpleNamespace

from conftest import red_blue_board

from mapkit.boardfile import build_board
from mapkit.ticket_deck import TicketScorer, format_generated, generate, line_ends_uncovered, make_targets


def _grid(trains: int) -> dict:
    """Twelve stations on a 4 x 3 grid, one space between neighbours."""
    stations = [{"id": f"s{i}{j}", "name": f"S{i}{j}", "lat": 45.0 + 0.01 * j, "lon": -122.0 + 0.01 * i,
                 "board": {"x": 60.0 + 60 * i, "y": 60.0 + 60 * j}} for i in range(4) for j in range(3)]
    routes = [{"from": f"s{i}{j}", "to": f"s{i + 1}{j}", "color": "red", "length": 1} for i in range(3) for j in range(3)]
    routes += [{"from": f"s{i}{j}", "to": f"s{i}{j + 1}", "color": "blue", "length": 1} for i in range(4) for j in range(2)]
    data = red_blue_board(stations, routes)
    data["rules"] = {"preset": "standard", "trains": trains, "end_trigger": 2}
    return data


def test_a_small_board_gets_no_empty_length_range():
    board = build_board(_grid(12))
    t = make_targets(TicketScorer(board), "standard", 10, 12)
    assert all(lo <= hi for lo, hi, _ in t.buckets)
    assert sum(n for _, _, n in t.buckets) == 10
    g = generate(board, count=10, iterations=200)
    assert "length 3-2" not in format_generated(g)
    assert all(lo <= hi for lo, hi in (tuple(map(int, m["what"].split()[-1].split("-")))
                                       for m in g.figures["length_misses"] if m["what"].startswith("length ")))


def test_an_end_station_left_off_the_deck_gets_a_ticket_of_the_middle_length():
    stations = [{"id": f"s{i}", "name": f"S{i}", "lat": 45.0, "lon": -122.0 + 0.01 * i} for i in range(10)]
    routes = [{"from": f"s{i}", "to": f"s{i + 1}", "color": "red", "length": 1} for i in range(9)]
    board = build_board(red_blue_board(stations, routes))
    deck = SimpleNamespace(figures={"uncovered": ["s0", "s4"]}, targets=SimpleNamespace(buckets=((3, 4, 10), (5, 6, 14), (7, 8, 6))))
    # s0 is a line's end (s4 is not): its partner is 5 or 6 spaces away, the nearer to 5.5 by id
    assert line_ends_uncovered(board, deck) == [("s0", "s5")]
    # two ends left off, within range of each other: one ticket between them
    deck.figures["uncovered"] = ["s0", "s9"]
    deck.targets = SimpleNamespace(buckets=((3, 4, 10), (5, 6, 14), (7, 9, 6)))
    assert line_ends_uncovered(board, deck) == [("s0", "s9")]
