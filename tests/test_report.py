import json


def test_report_writes_markdown_and_json(cli, in_repo, tmp_path):
    result = cli("report", "tests/fixtures/tiny.json", "--games", "40", "--players", "2,3,9", "--out", tmp_path, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [r["players"] for r in data["runs"]] == [2, 3]  # 9 is outside the rules and left out
    for run in data["runs"]:
        assert run["games"] == 40
        assert 0 <= run["seat_p_value"] <= 1
        assert sum(run["win_rate"]) >= 1 - 1e-9  # shared wins count for every winner
        for t in run["hard_tickets"]:
            assert t["rate"] < 0.15
    md = (tmp_path / "report.md").read_text()
    assert "## 2 players" in md and "## 3 players" in md
    assert json.loads((tmp_path / "report.json").read_text())["board"] == "tiny"


def test_report_bad_players(cli, in_repo, tmp_path):
    assert cli("report", "tests/fixtures/tiny.json", "--players", "x", "--out", tmp_path).exit_code == 2
    assert cli("report", "tests/fixtures/tiny.json", "--players", "7", "--out", tmp_path).exit_code == 2
