"""Issue 9, items 1, 2 and 13: rule overrides in range, whole numbers read once, boards nothing can be
claimed on, and route colors a player can tell apart."""

import itertools
import json
from dataclasses import fields

import pytest

from conftest import REPO
from mapkit.boardfile import board_schema, load_board, whole_numbers
from mapkit.sim.rules import RuleSet, board_rules, override_problems


def _problems(cli, path):
    out = json.loads(cli("validate", "--format", "json", path).output)
    return {(p["code"], p["json_path"]) for p in out["problems"]}, out


# ------------------------------------------------------------------ item 2: integers, decided once

def test_whole_floats_are_integers_everywhere_after_the_schema(cli, tiny_data, write_board):
    tiny_data["routes"][0]["length"] = 4.0
    tiny_data["routes"][1]["length"] = 4.0
    tiny_data["rules"]["overrides"] = {"trains": 8.0, "max_players": 3.0, "trains_by_players": [[2.0, 8.0]]}
    tiny_data["deck"] = {"total": 110.0, "wild": 14.0, "counts": {"red": 37.0, "blue": 36.0, "ferry": 23.0}}
    path = write_board(tiny_data)
    assert cli("validate", "--strict", path).exit_code == 0
    board = load_board(path)
    assert type(board.routes[0].length) is int and type(board.deck.counts["red"]) is int
    assert type(board.deck.total) is int and type(board.rules.overrides["trains"]) is int
    assert board_rules(board.rules.preset, board.rules.overrides).trains_for(2) == 8
    game = cli("simulate", path, "--games", "2", "--agents", "random", "--format", "json")
    assert game.exit_code == 0, game.output
    assert json.loads(game.output)["games"] == 2


def test_a_fraction_where_an_integer_is_asked_is_a_schema_error(cli, tiny_data, write_board):
    tiny_data["routes"][2]["length"] = 4.5
    tiny_data["deck"] = {"total": 110, "wild": 14, "counts": {"red": 37, "blue": 36, "ferry": 22.5}}
    found, _ = _problems(cli, write_board(tiny_data))
    assert ("schema", "$.routes[2].length") in found and ("schema", "$.deck.counts.ferry") in found


def test_whole_numbers_leaves_the_rest_alone():
    data = {"a": [1.0, 2.5, -0.0, 1e20, True, "4.0", None], "b": {"c": 3.0}}
    out = whole_numbers(data)
    assert out == {"a": [1, 2.5, 0, 10**20, True, "4.0", None], "b": {"c": 3}}
    assert [type(v) for v in out["a"][:4]] == [int, float, int, int] and out["a"][4] is True
    assert data["a"][0] == 1.0 and type(data["a"][0]) is float  # a copy: the parsed file is not changed


@pytest.mark.parametrize("overrides, path", [
    ({"trains_by_players": [[2]]}, "$.rules.overrides.trains_by_players[0]"),
    ({"trains_by_players": [2, 40]}, "$.rules.overrides.trains_by_players[0]"),
    ({"trains_by_players": [[2, 0]]}, "$.rules.overrides.trains_by_players[0][1]"),
    ({"min_players": 0}, "$.rules.overrides.min_players"),
    ({"trains": 0}, "$.rules.overrides.trains"),
    ({"double_exceptions": [[1]]}, "$.rules.overrides.double_exceptions[0]"),
    ({"deal_tickets": 30}, "$.rules.overrides.deal_tickets"),
    ({"draw_tickets": 0}, "$.rules.overrides.draw_tickets"),
    ({"turn_limit": 0}, "$.rules.overrides.turn_limit"),
    ({"end_trigger": -1}, "$.rules.overrides.end_trigger"),
    ({"face_up": 0}, "$.rules.overrides.face_up"),
    ({"failed_ticket_factor": 3}, "$.rules.overrides.failed_ticket_factor"),
    ({"teams": 1}, "$.rules.overrides.teams"),
    ({"solo": "yes"}, "$.rules.overrides.solo"),
    ({"trian": 4}, "$.rules.overrides.trian"),
])
def test_rule_overrides_out_of_range_are_located_schema_errors(cli, tiny_data, write_board, overrides, path):
    tiny_data["rules"]["overrides"].update(overrides)
    result = cli("validate", write_board(tiny_data))
    assert result.exit_code == 1
    found, _ = _problems(cli, write_board(tiny_data))
    assert ("schema", path) in found
    assert f"{path}: error [schema] rules: " in result.output


def test_for_presets_entries_are_range_checked_too(cli, tiny_data, write_board):
    tiny_data["rules"]["for_presets"] = {"transit": {"min_players": 0, "double_exceptions": [[1]]}}
    found, _ = _problems(cli, write_board(tiny_data))
    assert {("schema", "$.rules.for_presets.transit.min_players"),
            ("schema", "$.rules.for_presets.transit.double_exceptions[0]")} <= found


def test_the_schema_describes_every_ruleset_field_and_the_presets_fit_it():
    props = set(board_schema()["$defs"]["ruleset"]["properties"])
    assert props == {f.name for f in fields(RuleSet)} - {"name"}
    from mapkit.sim.rules import PRESETS, VARIANTS

    for name, rules in PRESETS.items():
        as_overrides = {f.name: getattr(rules, f.name) for f in fields(RuleSet) if f.name != "name"}
        as_overrides = json.loads(json.dumps(as_overrides))  # tuples as JSON lists
        assert override_problems(as_overrides) == [], name
    for name, overrides in VARIANTS.items():
        assert override_problems(json.loads(json.dumps(overrides))) == [], name


def test_board_rules_leaves_out_what_the_schema_refuses():
    rules = board_rules("standard", {"trains": 0, "deal_tickets": 40, "turn_limit": 50})
    assert (rules.trains, rules.deal_tickets, rules.turn_limit) == (45, 3, 50)


# ------------------------------------------------------------------ item 1: boards nothing can be claimed on

def test_too_few_trains_for_any_route_is_an_error(cli, tiny_data, write_board):
    tiny_data["rules"]["overrides"]["trains"] = 3  # every tiny route is 4 or 5 long
    found, out = _problems(cli, write_board(tiny_data))
    assert ("unclaimable", "$.rules") in found and not out["valid"]


def test_a_deck_that_pays_for_no_route_is_an_error(cli, tiny_data, write_board):
    tiny_data["deck"] = {"total": 9, "wild": 0, "counts": {"red": 3, "blue": 3, "ferry": 3}}
    result = cli("validate", write_board(tiny_data))
    assert result.exit_code == 1
    assert "error [unclaimable] board: no route can ever be claimed: no color has enough cards" in result.output


def test_one_short_route_is_enough(cli, tiny_data, write_board):
    tiny_data["rules"]["overrides"]["trains"] = 4
    tiny_data["rules"]["overrides"]["end_trigger"] = 1
    found, _ = _problems(cli, write_board(tiny_data))
    assert "unclaimable" not in {code for code, _ in found}


def test_a_card_constraint_no_deck_can_meet_is_an_error_before_cards_runs(cli, tiny_data, write_board):
    """`mapkit cards` said "at least 1 and at most 0 cards"; validate now says why first."""
    tiny_data["palette"][2]["cards"] = {"below_longest_route": True}
    tiny_data["routes"][4]["length"] = 1  # ferry's only route
    tiny_data["stations"][4]["board"] = {"x": 200, "y": 130}  # keep the drawing fitting a 1-space route
    result = cli("validate", write_board(tiny_data))
    assert "error [card-constraint] color ferry: below_longest_route wants fewer cards than its longest" in result.output
    assert result.exit_code == 1


# ------------------------------------------------------------------ item 13: colors apart

SHARMA_2005 = [  # (Lab 1, Lab 2, ΔE00) from Sharma, Wu, Dalal (2005), table 1
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, -1.3802, -84.2814), (50.0, 0.0, -82.7485), 1.0),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0011), 7.2195),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (50.0, 3.2592, 0.335), 1.0),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((22.7233, 20.0904, -46.694), (23.0331, 14.973, -42.5619), 2.0373),
    ((90.9257, -0.5406, -0.9208), (88.6381, -0.8985, -0.7239), 1.5381),
    ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize("lab1, lab2, expected", SHARMA_2005)
def test_ciede2000_matches_the_published_test_data(lab1, lab2, expected):
    from mapkit.colors import delta_e_2000

    assert delta_e_2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert delta_e_2000(lab2, lab1) == pytest.approx(expected, abs=1e-4)  # symmetric


def test_srgb_to_lab_known_values():
    from mapkit.colors import hex_to_rgb, rgb_to_lab

    assert rgb_to_lab(hex_to_rgb("#ffffff")) == pytest.approx((100, 0, 0), abs=0.01)
    assert rgb_to_lab(hex_to_rgb("#ff0000")) == pytest.approx((53.24, 80.09, 67.20), abs=0.02)
    assert rgb_to_lab(hex_to_rgb("#000000")) == pytest.approx((0, 0, 0), abs=1e-6)


def test_validate_knows_the_gray_that_render_draws():
    pytest.importorskip("matplotlib")
    from mapkit.colors import GRAY_DISPLAY_HEX
    from mapkit.render.style import GRAY_HEX

    assert GRAY_DISPLAY_HEX.lower() == GRAY_HEX.lower()


def test_the_aerial_tram_next_to_gray_was_too_close(cli, tiny_data, write_board):
    from mapkit.colors import MIN_COLOR_DELTA_E, color_distance

    assert color_distance("#898E91", "#A0A0A0") < MIN_COLOR_DELTA_E
    tiny_data["palette"][2]["hex"] = "#898E91"
    result = cli("validate", "--strict", write_board(tiny_data))
    assert result.exit_code == 1
    assert "warning [similar-colors] color ferry: #898E91 is hard to tell from gray routes' display color" in result.output


@pytest.mark.parametrize("name", ["portland", "seattle", "north-america"])
def test_bundled_palettes_are_far_enough_apart(name):
    from mapkit.colors import GRAY_DISPLAY_HEX, MIN_COLOR_DELTA_E, color_distance

    data = json.loads((REPO / "boards" / f"{name}.json").read_text())
    colors = [c["hex"] for c in data["palette"]] + [GRAY_DISPLAY_HEX]
    closest = min(color_distance(a, b) for a, b in itertools.combinations(colors, 2))
    assert closest >= MIN_COLOR_DELTA_E
