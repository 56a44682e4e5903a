"""`mapkit report`: the panel, the games budget, decisions at the printed level, the report.json shape
and the Markdown."""

import json

import pytest

from mapkit.balance.panel import default_panel
from mapkit.balance.report import balance_report, format_markdown
from mapkit.boardfile import load_board
from simhelp import TINY

RUN_KEYS = {"players", "games", "seat_win_share", "first_seat_edge", "score_by_seat", "margins", "longest_decides",
            "tickets", "route_claim_share", "color_use", "tables"}
TICKET_KEYS = {"ticket", "points", "offered", "kept", "keep_rate", "held", "completed", "completion", "low", "high",
               "net_points_per_holding", "holder_win_share", "holder_low", "holder_high"}


@pytest.fixture(scope="module")
def sequential():
    """A small sequential panel report on the tiny board, played once for several tests."""
    return balance_report(load_board(TINY), [2, 3], agents=None, seed=3, max_games=120, batch=60)


def test_report_json_shape(cli, in_repo, tmp_path, few_strategy_games):
    result = cli("report", "tests/fixtures/tiny.json", "--games", "40", "--players", "2,3,9", "--out", tmp_path,
                 "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {"board", "name", "rules", "seed", "panel", "max_games", "runs", "verdicts", "deck_warnings",
            "reference", "causes"} <= set(data)
    assert data["reference"]["board"] == "north-america" and {"2", "3"} <= set(data["reference"]["bands"])
    for c in data["causes"]:
        assert {"kind", "subjects", "players", "change", "tested"} <= set(c)
        if c["tested"] is not None:
            assert {"figure", "before", "after", "low", "high"} <= set(c["tested"])
    assert data["panel"] == default_panel() and len(data["panel"]) >= 3
    assert [r["players"] for r in data["runs"]] == [2, 3]  # 9 is outside the rules and left out
    for run in data["runs"]:
        n = run["players"]
        assert RUN_KEYS <= set(run)
        assert run["games"] >= 40 and run["games"] == sum(tb["games"] for tb in run["tables"])
        assert len(run["seat_win_share"]) == n
        assert sum(x["share"] for x in run["seat_win_share"]) == pytest.approx(1, abs=1e-3)  # ties split
        for x in run["seat_win_share"]:
            assert x["low"] <= x["share"] <= x["high"]
        e = run["first_seat_edge"]
        assert set(e) == {"win_share", "low", "high", "score", "score_low", "score_high"}
        assert e["low"] <= e["win_share"] <= e["high"] and e["score_low"] <= e["score"] <= e["score_high"]
        assert len(run["score_by_seat"]) == n
        m = run["margins"]
        assert len(m["edges"]) == len(m["counts"]) + 1 and sum(m["counts"]) == run["games"]
        assert 0 <= run["longest_decides"]["low"] <= run["longest_decides"]["share"] <= run["longest_decides"]["high"]
        for t in run["tickets"]:
            assert TICKET_KEYS <= set(t) and t["kept"] <= t["offered"] and t["completed"] <= t["held"]
        assert all(0 <= v <= 1 for v in run["route_claim_share"].values())
        for c, x in run["color_use"].items():
            assert {"claimed_share", "low", "high", "wilds_per_claim"} <= set(x)
            assert x["claimed_share"] <= 1 + 1e-9  # doubles counted once: never more track claimed than there is
        labels = [tb["table"] for tb in run["tables"]]
        assert labels == [f"self-play {a}" for a in data["panel"]] + ["mixed " + "/".join(data["panel"])]
    for v in data["verdicts"]:
        assert {"kind", "subject", "players", "verdict", "agents"} <= set(v)
        assert v["verdict"] in ("robust", "agent-dependent", "needs-games", "agents-disagree")
    assert {v["players"] for v in data["verdicts"] if v["kind"] == "seat-advantage"} == {2, 3}
    md = (tmp_path / "report.md").read_text()
    assert "## 2 players" in md and "## 3 players" in md and "## What to change" in md
    assert json.loads((tmp_path / "report.json").read_text())["board"] == "tiny"


def test_single_agent_report(cli, in_repo, tmp_path, few_strategy_games):
    # fixed cut-offs: this panel is not the default, so a published reference would be played first
    result = cli("report", "tests/fixtures/tiny.json", "--games", "30", "--players", "2", "--agents", "one-step",
                 "--reference", "none", "--out", tmp_path, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["panel"] == ["one-step"]
    assert [tb["table"] for tb in data["runs"][0]["tables"]] == ["self-play one-step"]
    assert data["runs"][0]["games"] == 30


def test_every_game_of_the_budget_is_played_and_decided_at_the_printed_level(sequential):
    for run in sequential["runs"]:
        assert run["games"] == sequential["max_games"]
    assert sequential["verdicts"]
    for v in sequential["verdicts"]:
        lo, hi, cut = v["low"], v["high"], v["cutoff"]
        assert lo <= v["estimate"] <= hi
        if v["verdict"] in ("robust", "agent-dependent"):
            # decided: the printed interval clears the cut-off on the side of the finding
            above = v["kind"] in ("seat-advantage", "ticket-too-easy")
            assert (lo > cut - 1e-4) if above == v["finding"] else (hi < cut + 1e-4), v
        else:
            assert lo - 1e-4 <= cut <= hi + 1e-4, v  # undecided: the printed interval holds the cut-off
        if v["verdict"] == "needs-games" and v["games_needed"] is not None:
            assert v["games_needed"] > 0 and "more games" in v["text"]
        if v["verdict"] == "agents-disagree":
            assert v["games_needed"] is None and v["agents"] and v["against"]


def test_sequential_sizing_is_deterministic_and_jobs_independent(sequential):
    again = balance_report(load_board(TINY), [2, 3], agents=None, seed=3, max_games=120, batch=60, jobs=2)
    assert again == sequential
    other = balance_report(load_board(TINY), [2], agents=None, seed=4, max_games=120, batch=60)
    assert other["runs"][0]["tables"] != sequential["runs"][0]["tables"]


def test_markdown_is_built_around_verdicts(sequential):
    md = format_markdown(sequential)
    assert md.index("## What to change") < md.index("## 2 players")
    assert "AI players" in md
    for v in sequential["verdicts"]:
        if v["verdict"] != "robust" or v["finding"]:
            assert v["text"] in md or v["verdict"] in ("needs-games", "agents-disagree")


def test_report_bad_input(cli, in_repo, tmp_path):
    assert cli("report", "tests/fixtures/tiny.json", "--players", "x", "--out", tmp_path).exit_code == 2
    assert cli("report", "tests/fixtures/tiny.json", "--players", "7", "--out", tmp_path).exit_code == 2
    bad = cli("report", "tests/fixtures/tiny.json", "--agents", "route-focus,nobody", "--out", tmp_path)
    assert bad.exit_code == 2 and "unknown agent 'nobody'" in bad.output
    assert cli("report", "tests/fixtures/tiny.json", "--seed", "-1", "--out", tmp_path).exit_code == 2


def test_malformed_scheduler_is_a_clean_error(cli, in_repo):
    pytest.importorskip("distributed")
    result = cli("simulate", "tests/fixtures/tiny.json", "--games", "2", "--scheduler", "tcp://host:port:9")
    assert result.exit_code == 2
    assert "not a Dask scheduler address" in result.output and "Traceback" not in result.output


@pytest.mark.slow  # a LocalCluster takes seconds to start on a busy machine
def test_report_on_a_dask_cluster_is_the_same():
    distributed = pytest.importorskip("distributed")
    board = load_board(TINY)
    here = balance_report(board, [2], games=24, seed=2)
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = balance_report(board, [2], games=24, seed=2, scheduler=client)
    assert remote == here
