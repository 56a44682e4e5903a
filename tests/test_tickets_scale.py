"""Ticket generation and scoring at scale, with the same decks as before, and their messages."""

import json
import tracemalloc

import pytest

from boardgen import grid_board, grid_board_data
from mapkit.boardfile import load_board
from mapkit.resources import boards_dir
from mapkit.ticket_deck import generate
from mapkit.tickets import TicketScorer

def test_only_the_chosen_tickets_are_fully_scored(monkeypatch):
    calls = []
    real = TicketScorer.score

    def counting(self, a, b, *args, **kwargs):
        calls.append((a, b))
        return real(self, a, b, *args, **kwargs)

    monkeypatch.setattr(TicketScorer, "score", counting)
    g = generate(grid_board(150), seed=2, iterations=300)
    assert len(calls) == len(g.tickets) == 30


def test_scoring_keeps_memory_per_source_not_all_pairs():
    board = grid_board(700)
    tracemalloc.start()
    scorer = TicketScorer(board)
    for a, b in [("s0", "s699"), ("s13", "s400"), ("s250", "s251")]:
        scorer.score(a, b)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # all pairs would be 490,000 distances (tens of MB); a few single-source maps are well under
    assert peak < 12 * 2**20, peak


def test_a_pair_scores_the_same_whatever_was_scored_before():
    board = grid_board(120)
    alone = TicketScorer(board).score("s5", "s100")
    scorer = TicketScorer(board)
    for a, b in [("s0", "s119"), ("s5", "s60"), ("s40", "s100"), ("s1", "s99")]:
        scorer.score(a, b)
    assert scorer.score("s5", "s100") == alone


def test_progress_is_reported_by_phase():
    seen = []
    generate(grid_board(60), seed=1, iterations=200, progress=lambda phase, done, total: seen.append((phase, done, total)))
    phases = [p for p, _, _ in seen]
    assert phases[0] == "candidates" and "search" in phases and phases[-1] == "scoring"
    assert all(0 <= done <= total for _, done, total in seen)
    assert ("scoring", 30, 30) in seen


@pytest.mark.slow  # ~18 s: the schema's largest board; tests/bench_tickets.py measures the scaling
def test_generate_cli_on_a_500_station_board(cli, tmp_path):
    path = tmp_path / "grid.json"
    path.write_text(json.dumps(grid_board_data(500)))
    result = cli("tickets", "generate", path, "--seed", "1", "--format", "json")
    assert result.exit_code == 0, result.output[-2000:]
    deck = json.loads(result.output[result.output.index("{"):])
    assert len(deck["tickets"]) == 30
    assert all(t["points"] == t["length"] for t in deck["tickets"])


# ---------------------------------------------------------------- messages

def test_require_a_station_to_itself_is_a_usage_error(cli, in_repo):
    result = cli("tickets", "generate", "portland", "--require", "hillsboro:Hillsboro")
    assert result.exit_code == 2
    assert "joins 'hillsboro' to itself" in result.output and "Traceback" not in result.output


def test_too_few_candidates_says_what_to_do(cli, in_repo):
    result = cli("tickets", "generate", "tests/fixtures/tiny.json")
    assert result.exit_code == 1
    assert "only 0 candidate" not in result.output
    assert "no station pair fits" in result.output and "add stations or longer routes" in result.output
    some = cli("tickets", "generate", "portland", "--style", "long", "--count", "400")
    assert some.exit_code == 1
    assert "ask for at most" in some.output and "--count" in some.output


def test_score_defaults_to_the_published_convention(cli, in_repo):
    plain = json.loads(cli("tickets", "score", "north-america", "--deck", "standard", "--format", "json").output)
    assert all(s["suggested"] == s["length"] and s["adjustment"] == 0 for s in plain)
    adjusted = json.loads(cli("tickets", "score", "north-america", "--deck", "standard",
                              "--adjust", "bottleneck,rare-color", "--format", "json").output)
    assert any(s["adjustment"] > 0 for s in adjusted)
    old_flag = cli("tickets", "score", "north-america", "--deck", "standard", "--no-adjust", "--format", "json")
    assert old_flag.exit_code == 0 and json.loads(old_flag.output) == plain
    both = cli("tickets", "score", "north-america", "--no-adjust", "--adjust", "bottleneck")
    assert both.exit_code == 2
    bad = cli("tickets", "score", "north-america", "--adjust", "botleneck")
    assert bad.exit_code == 2 and "did you mean 'bottleneck'" in bad.output


# The original USA deck's 30 tickets (values as printed; written down from memory of the
# published game, not copied from a file): points = shortest length agrees far better than the
# old default of +1 for a bottleneck and +1 for a rare color.
PUBLISHED = """los-angeles new-york 21; duluth houston 8; sault-st-marie nashville 8; new-york atlanta 6;
portland nashville 17; vancouver montreal 20; duluth el-paso 10; toronto miami 10; portland phoenix 11;
dallas new-york 11; calgary salt-lake-city 7; calgary phoenix 13; los-angeles miami 20; winnipeg little-rock 11;
san-francisco atlanta 17; kansas-city houston 5; los-angeles chicago 16; denver pittsburgh 11; chicago santa-fe 9;
vancouver santa-fe 13; boston miami 12; chicago new-orleans 7; montreal atlanta 9; seattle new-york 22;
denver el-paso 4; helena los-angeles 8; winnipeg houston 12; montreal new-orleans 13;
sault-st-marie oklahoma-city 9; seattle los-angeles 9"""


def test_default_points_agree_with_the_published_deck():
    from mapkit.tickets import resolve_station

    b = load_board(boards_dir() / "north-america.json")
    plain, adjusted = TicketScorer(b), TicketScorer(b, adjust=True)
    agree_plain = agree_adjusted = 0
    for item in PUBLISHED.split(";"):
        x, y, points = item.split()
        x, y = resolve_station(b, x), resolve_station(b, y)  # the board uses these ids
        agree_plain += plain.score(x, y).suggested == int(points)
        agree_adjusted += adjusted.score(x, y).suggested == int(points)
    assert agree_plain >= 25 > agree_adjusted


def test_replayed_paths_match_networkx_with_its_reinsertions():
    # the pool's own Dijkstra must pick the same path among equal-length ones as networkx does
    # on a graph whose path connections were removed and re-added (what old scoring did)
    import networkx as nx

    from mapkit.graph import station_graph
    from mapkit.ticket_deck import CandidatePool, make_targets

    board = grid_board(80, seed=3)
    scorer = TicketScorer(board)
    targets = make_targets(scorer, "standard", 30, 45)
    pool = CandidatePool(scorer, "standard", targets)
    g = station_graph(board)
    for i in range(len(pool)):
        a, b = pool.ids[pool.a[i]], pool.ids[pool.b[i]]
        path = nx.dijkstra_path(g, a, b, weight="length")
        for u, v in zip(path, path[1:]):
            w = g[u][v]["length"]
            g.remove_edge(u, v)
            g.add_edge(u, v, length=w)
        assert list(pool[i].path) == path, (a, b)
