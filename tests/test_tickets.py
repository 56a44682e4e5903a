import itertools
import math

import networkx as nx
import pytest

from mapkit.boardfile import build_board
from mapkit.graph import station_graph
from mapkit.tickets import TicketScorer


@pytest.fixture
def board(tiny_data):
    return build_board(tiny_data)


def test_scores_agree_with_networkx(board):
    scorer = TicketScorer(board)
    g = station_graph(board)
    for a, b in itertools.combinations(sorted(s.id for s in board.stations), 2):
        s = scorer.score(a, b)
        assert s.length == nx.dijkstra_path_length(g, a, b, weight="length")
        # the reported path is a real path of the reported length
        assert s.path[0] == a and s.path[-1] == b
        assert sum(g[u][v]["length"] for u, v in zip(s.path, s.path[1:])) == s.length
        assert s.shortest_paths == len(list(nx.all_shortest_paths(g, a, b, weight="length")))
        all_paths = [set(map(frozenset, zip(p, p[1:]))) for p in nx.all_shortest_paths(g, a, b, weight="length")]
        on_all = set.intersection(*all_paths)
        assert set(s.bottlenecks) == {"-".join(sorted(e)) for e in on_all}
        assert s.cut == nx.edge_connectivity(g, a, b)


def test_points_follow_length_and_adjustment_can_be_switched_off(board):
    plain = TicketScorer(board, adjust=False)
    for a, b in [("alder", "fir"), ("dogwood", "cedar"), ("alder", "elm")]:
        s = plain.score(a, b)
        assert s.adjustment == 0 and s.points == s.length


def test_bottleneck_and_rare_color_adjust(tiny_data):
    # cut cedar off except through birch: birch-cedar becomes a bridge
    tiny_data["routes"] = [r for r in tiny_data["routes"] if not (r["from"] == "cedar" and r["to"] == "fir")]
    board = build_board(tiny_data)
    counts = {"red": 40, "blue": 3, "ferry": 40}
    s = TicketScorer(board, adjust=True, deck_counts=counts).score("alder", "cedar")
    assert math.isinf(s.detour) and s.cut == 1
    assert s.rare_colors == ("blue",)  # birch-cedar is blue and 3 blue cards cannot pay 4 spaces
    assert s.adjustment == 2 and s.suggested == s.length + 2
    # each adjustment on its own, and none by default (the published convention: points = length)
    assert TicketScorer(board, adjust="bottleneck", deck_counts=counts).score("alder", "cedar").adjustment == 1
    assert TicketScorer(board, adjust=["rare-color"], deck_counts=counts).score("alder", "cedar").adjustment == 1
    default = TicketScorer(board, deck_counts=counts).score("alder", "cedar")
    assert default.adjustment == 0 and default.points == default.length


def test_printed_points_are_kept(board):
    s = TicketScorer(board).score("alder", "fir", printed=21)
    assert s.points == 21 and s.suggested == 13


def test_pairs_csv_errors_name_the_line(cli, in_repo, tmp_path):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("from,to\nAlder,Fir\nalder,cedr\nbirch\n")
    result = cli("tickets", "score", "tests/fixtures/tiny.json", "--pairs", pairs)
    assert result.exit_code == 1
    assert f"{pairs}:3: unknown station 'cedr' (did you mean 'cedar'?)" in result.output
    assert f"{pairs}:4: expected two stations" in result.output
    pairs.write_text("from,to\nAlder,Fir\n")
    ok = cli("tickets", "score", "tests/fixtures/tiny.json", "--pairs", pairs, "--format", "json")
    assert ok.exit_code == 0
    import json
    assert json.loads(ok.output)[0]["length"] == 13


def test_pairs_file_needs_header(cli, in_repo, tmp_path):
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("alder,fir\n")
    result = cli("tickets", "score", "tests/fixtures/tiny.json", "--pairs", pairs)
    assert result.exit_code == 1 and "header row 'from,to'" in result.output
