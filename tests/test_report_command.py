"""The balance report's "Regenerate with" line: a command that makes the same report again."""

import json
import re
import shlex

import pytest


def _regenerated(cli, tmp_path, in_repo, *options):
    """(report.json of `mapkit report` on a copy of the tiny board with `options`, report.json of
    the command its report.md's Regenerate line gives, that line's words)."""
    board = tmp_path / "my board.json"
    board.write_text((in_repo / "tests/fixtures/tiny.json").read_text())
    first = tmp_path / "first"
    made = cli("report", board, "--games", "12", "--players", "2", "--agents", "random", "--seed", "5",
               "--variant", "quick", *options, "--out", first, "--quiet")
    assert made.exit_code == 0, made.output
    line = re.search(r"Regenerate with `([^`]+)`", (first / "report.md").read_text()).group(1)
    words = shlex.split(line)
    assert words[:3] == ["mapkit", "report", str(board)]   # the file as given, not the board's id
    again = tmp_path / "again"
    redo = cli(*words[1:], "--out", again, "--quiet")
    assert redo.exit_code == 0, redo.output
    return json.loads((first / "report.json").read_text()), json.loads((again / "report.json").read_text()), words


def test_the_regenerate_line_remakes_the_report_from_a_board_file(cli, tmp_path, in_repo, few_strategy_games):
    """Fixed cut-offs (`--reference none`, carried by the line): the same runs and verdicts."""
    a, b, words = _regenerated(cli, tmp_path, in_repo, "--reference", "none")
    assert "--reference" in words and "none" in words and "quick" in words
    assert a["runs"] == b["runs"] and a["verdicts"] == b["verdicts"]


@pytest.mark.slow  # the published map is played first by this panel and variant (about 50 s)
def test_the_regenerate_line_remakes_a_report_judged_against_the_published_map(cli, tmp_path, in_repo):
    a, b, _ = _regenerated(cli, tmp_path, in_repo)
    assert a["reference"] and a["runs"] == b["runs"] and a["verdicts"] == b["verdicts"]
