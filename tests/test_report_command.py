"""The balance report's "Regenerate with" line: a command that makes the same report again."""

import json
import re
import shlex


def test_the_regenerate_line_remakes_the_report_from_a_board_file(cli, tmp_path, in_repo):
    board = tmp_path / "my board.json"
    board.write_text((in_repo / "tests/fixtures/tiny.json").read_text())
    first = tmp_path / "first"
    made = cli("report", board, "--games", "12", "--players", "2", "--agents", "random", "--seed", "5",
               "--variant", "quick", "--out", first, "--quiet")
    assert made.exit_code == 0, made.output
    line = re.search(r"Regenerate with `([^`]+)`", (first / "report.md").read_text()).group(1)
    words = shlex.split(line)
    assert words[:3] == ["mapkit", "report", str(board)]   # the file as given, not the board's id
    again = tmp_path / "again"
    redo = cli(*words[1:], "--out", again, "--quiet")
    assert redo.exit_code == 0, redo.output
    a = json.loads((first / "report.json").read_text())
    b = json.loads((again / "report.json").read_text())
    assert a["runs"] == b["runs"] and a["verdicts"] == b["verdicts"]
