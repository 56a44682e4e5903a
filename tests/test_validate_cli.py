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


# ------------------------------------------------------------------ messages that lead a designer right

def _latlon_only(name: str) -> dict:
    """A bundled board as a designer starts one: lat/lon only, no board position, no waypoint."""
    from mapkit.resources import boards_dir

    data = json.loads((boards_dir() / f"{name}.json").read_text())
    for s in data["stations"]:
        s.pop("board", None)
        s.pop("pinned", None)
    for r in data["routes"]:
        r.pop("waypoints", None)
    return data


def test_a_board_without_a_drawing_says_so_once_and_names_layout(cli, write_board):
    path = write_board(_latlon_only("north-america"), "my map.json")
    result = cli("validate", path)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert len(lines) == 2, result.output          # one problem and the verdict, not one a route
    assert "[no-drawing]" in lines[0] and "no station has a board position" in lines[0]
    assert f"mapkit layout '{path}' --write" in lines[0]   # the path as given, quoted for the shell
    assert "move its stations apart" not in result.output


def test_a_partly_drawn_board_still_gets_every_geometry_problem(tiny_data):
    from mapkit.boardfile import build_board
    from mapkit.checks import problems

    tiny_data["stations"][1]["board"] = dict(tiny_data["stations"][0]["board"])   # on top of another
    codes = {p.code for p in problems(build_board(tiny_data))}
    assert "station-overlap" in codes and "no-drawing" not in codes


def test_a_projected_station_on_the_edge_is_not_off_the_board():
    """The projection fits the stations' markers to the playing area exactly; Vancouver's marker
    (x = 32 - 1e-13 mm against 25 + 7) was flagged off the board by the last bit."""
    from mapkit.boardfile import build_board
    from mapkit.checks import check_geometry

    board = build_board(_latlon_only("north-america"))
    off = [p.subject for p in check_geometry(board) if p.code == "off-board"]
    assert not [s for s in off if s.startswith("station ")]


@pytest.mark.parametrize("y, flagged", [(268.00000000000006, False), (268.0, False), (268.5, True)])
def test_off_board_compares_with_a_tolerance(tiny_data, y, flagged):
    """tiny is 300 mm high with a 25 mm margin and 7 mm markers: y = 268 touches the edge."""
    from mapkit.boardfile import build_board
    from mapkit.checks import check_geometry

    tiny_data["stations"][5]["board"]["y"] = y
    found = [p for p in check_geometry(build_board(tiny_data)) if p.code == "off-board" and p.subject == "station fir"]
    assert bool(found) == flagged
    for p in found:
        assert "x 25-375 mm, y 25-275 mm" in p.message


def _two_stations(distance: float, length: int) -> dict:
    from conftest import red_blue_board

    stations = [{"id": "a", "name": "A", "lat": 45.0, "lon": -122.0, "board": {"x": 100.0, "y": 100.0}},
                {"id": "b", "name": "B", "lat": 45.0, "lon": -121.9, "board": {"x": 100.0 + distance, "y": 100.0}}]
    return red_blue_board(stations, [{"from": "a", "to": "b", "color": "red", "length": length}])


@pytest.mark.parametrize("short_by", [0.4, 0.04, 1e-5])
def test_route_too_short_prints_two_different_numbers(short_by):
    """1 space needs 22 + 2 x 1.5 = 25 mm; markers of 7 mm take 14 mm of the line."""
    import re

    from mapkit.boardfile import build_board
    from mapkit.checks import check_geometry

    found = [p for p in check_geometry(build_board(_two_stations(25 + 14 - short_by, 1))) if p.code == "route-too-short"]
    assert len(found) == 1
    m = re.search(r"^1 space needs ([\d.]+) mm but the route is drawn ([\d.]+) mm long", found[0].message)
    assert m, found[0].message
    need, drawn = (float(x) for x in m.groups())
    assert need != drawn and need - drawn == pytest.approx(short_by, rel=0.5)


def test_route_drawn_its_length_up_to_rounding_is_not_too_short():
    from mapkit.boardfile import build_board
    from mapkit.checks import check_geometry

    for distance in (39.0, 39.0 - 1e-9, 39.0 + 1e-9):
        assert not [p for p in check_geometry(build_board(_two_stations(distance, 1))) if p.code == "route-too-short"]


def _starved(tiny_data) -> dict:
    """tiny with a fourth color on one 4-space route: 1 card of 110 at the deck's shares."""
    tiny_data["palette"].append({"id": "shuttle-line-to-the-university-hospital", "name": "Shuttle", "hex": "#7f3fbf",
                                 "kind": "bus"})
    tiny_data["routes"][5]["color"] = "shuttle-line-to-the-university-hospital"
    tiny_data["routes"][5]["length"] = 4
    tiny_data["palette"][3]["cards"] = {"max": 1}
    return tiny_data


def test_strict_validate_warns_about_what_cards_warns_about(cli, write_board, tiny_data):
    path = write_board(_starved(tiny_data))
    cards = cli("cards", path)
    assert "[starved-color]" in cards.output
    loose = cli("validate", path)
    assert loose.exit_code == 0 and "[starved-color]" in loose.output
    strict = cli("validate", "--strict", "--format", "json", path)
    assert strict.exit_code == 1
    found = [p for p in json.loads(strict.output)["problems"] if p["code"] == "starved-color"]
    assert found and found[0]["subject"] == "color shuttle-line-to-the-university-hospital"
    # the same rule, said the same way: each cards warning is a validate warning
    said = {p["message"] for p in found}
    assert all(any(m in line for m in said) for line in cards.output.splitlines() if line.startswith("warning:"))
    assert "more cards" in found[0]["message"] and "gray" in found[0]["message"]


def test_a_one_color_deck_is_a_warning(cli, write_board, tiny_data):
    for r in tiny_data["routes"]:
        r["color"] = "red" if r["color"] != "gray" else "gray"
    tiny_data["routes"][1]["double"] = tiny_data["routes"][0]["double"]
    tiny_data["palette"] = tiny_data["palette"][:1]
    result = cli("validate", "--strict", write_board(tiny_data))
    assert result.exit_code == 1 and "[one-color-deck]" in result.output
    assert "[one-color-deck]" in cli("cards", write_board(tiny_data)).output


@pytest.mark.parametrize("name", ["north-america", "portland", "seattle"])
def test_bundled_decks_play_without_warnings(name):
    from mapkit.cards import deck_warnings
    from mapkit.resources import boards_dir
    from mapkit.boardfile import load_board

    board = load_board(boards_dir() / f"{name}.json")
    assert deck_warnings(board, board.deck.counts, board.deck.wild) == []
