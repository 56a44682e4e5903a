import json

import pytest

from conftest import FIXTURES


def test_valid_board_exits_zero(cli, in_repo):
    result = cli("validate", "tests/fixtures/tiny.json")
    assert result.exit_code == 0
    assert result.output == "tests/fixtures/tiny.json: valid (0 errors, 0 warnings)\n"


def test_json_format_shape(cli, in_repo):
    result = cli("validate", "--format", "json", "tests/fixtures/tiny.json")
    assert json.loads(result.output) == {
        "board": "tiny", "source": "tests/fixtures/tiny.json", "valid": True,
        "problem_count": 0, "error_count": 0, "warning_count": 0, "problems": []}


def test_several_boards_give_a_list_and_the_worst_exit(cli, in_repo):
    result = cli("validate", "--format", "json", "tests/fixtures/tiny.json", "tests/bad_boards/self-loop.json")
    out = json.loads(result.output)
    assert [r["valid"] for r in out] == [True, False]
    assert result.exit_code == 1


@pytest.mark.parametrize("args, needle", [
    (["validate", "no-such-board"], "no board file or bundled board named 'no-such-board'"),
    (["validate", "--format", "xml", "tests/fixtures/tiny.json"], "'xml' is not one of"),
    (["validate"], "Missing argument"),
    (["frobnicate"], "No such command"),
])
def test_bad_usage_exits_two(cli, in_repo, args, needle):
    result = cli(*args)
    assert result.exit_code == 2
    assert needle in result.output
    assert "Traceback" not in result.output


def test_missing_file_and_directory(cli, in_repo, tmp_path):
    missing = cli("validate", tmp_path / "gone.json")
    assert missing.exit_code == 1 and "[not-found]" in missing.output
    folder = cli("validate", tmp_path)
    assert folder.exit_code == 1 and "[not-a-file] is a directory" in folder.output


def test_bundled_board_name_suggests(cli):
    result = cli("validate", "portlnd")
    assert result.exit_code == 2
    assert "did you mean 'portland'?" in result.output


def test_deeply_nested_json_is_a_clean_error(cli, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000 + "]" * 100000)
    result = cli("validate", path)
    assert result.exit_code == 1
    assert "[json-syntax]" in result.output


def test_info_text_and_json(cli, in_repo):
    text = cli("info", "tests/fixtures/tiny.json")
    assert text.exit_code == 0
    assert "6 stations, 8 routes (1 double), 35 spaces" in text.output
    data = json.loads(cli("info", "--format", "json", "tests/fixtures/tiny.json").output)
    assert data["stations"] == 6 and data["spaces"] == 35
    assert sum(c["spaces"] for c in data["colors"]) == data["spaces"]
    assert data["degree"]["max"] == 3


def test_info_on_invalid_board_prints_problems(cli, in_repo):
    result = cli("info", "tests/bad_boards/self-loop.json")
    assert result.exit_code == 1
    assert "[self-loop]" in result.output


def test_python_dash_m(in_repo):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "mapkit", "validate", str(FIXTURES / "tiny.json")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "valid (0 errors, 0 warnings)" in done.stdout


def test_a_folder_named_like_a_bundled_board_does_not_hide_it(cli, tmp_path, monkeypatch):
    (tmp_path / "portland").mkdir()
    monkeypatch.chdir(tmp_path)
    result = cli("validate", "portland")
    assert result.exit_code == 0 and "boards/portland.json: valid" in result.output
