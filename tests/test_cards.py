import itertools
import json
import random

import pytest

from mapkit.boardfile import build_board
from mapkit.cards import InfeasibleDeck, apportion, color_weights, derive_deck, expected_draws


def brute_force(targets, lower, upper, total):
    best = None
    for combo in itertools.product(*(range(lo, up + 1) for lo, up in zip(lower, upper))):
        if sum(combo) != total:
            continue
        cost = sum((n - t) ** 2 for n, t in zip(combo, targets))
        if best is None or cost < best[0] - 1e-12:
            best = (cost, combo)
    return best


@pytest.mark.parametrize("seed", range(40))
def test_apportion_is_optimal_against_brute_force(seed):
    rng = random.Random(seed)
    k = rng.randint(2, 4)
    total = rng.randint(k, 14)
    raw = [rng.random() for _ in range(k)]
    targets = [total * r / sum(raw) for r in raw]
    lower = [rng.choice([0, 0, 1, 2]) for _ in range(k)]
    upper = [lo + rng.randint(0, 8) for lo in lower]
    if sum(lower) > total or sum(upper) < total:
        with pytest.raises(InfeasibleDeck):
            apportion(targets, lower, upper, total, [f"c{i}" for i in range(k)])
        return
    got = apportion(targets, lower, upper, total, [f"c{i}" for i in range(k)])
    assert sum(got) == total and all(lo <= n <= up for n, lo, up in zip(got, lower, upper))
    cost = sum((n - t) ** 2 for n, t in zip(got, targets))
    assert cost == pytest.approx(brute_force(targets, lower, upper, total)[0])


def test_apportion_ties_are_deterministic():
    assert apportion([1.5, 1.5], [0, 0], [9, 9], 3, ["a", "b"]) == [2, 1]
    assert apportion([1.5, 1.5], [0, 0], [9, 9], 3, ["a", "b"]) == [2, 1]


def test_equal_colors_get_equal_cards(tiny_data):
    # make the three colors cover the same spaces: 8 each
    tiny_data["routes"][4]["length"] = 4  # ferry 4
    tiny_data["routes"].append({"from": "cedar", "to": "fir", "color": "ferry", "length": 4, "id": "cedar-fir-ferry"})
    board = build_board(tiny_data)
    deck = derive_deck(board, total=110, wild=14)
    assert deck.counts == {"red": 32, "blue": 32, "ferry": 32}


def test_fixed_and_below_longest_route_constraints(tiny_data):
    tiny_data["palette"][2]["cards"] = {"below_longest_route": True}
    tiny_data["palette"][0]["cards"] = {"fixed": 1}
    deck = derive_deck(build_board(tiny_data))
    assert deck.counts["red"] == 1
    assert deck.counts["ferry"] == 4  # longest ferry route is 5 spaces
    assert sum(deck.counts.values()) + deck.wild == 110
    assert deck.warnings == ()  # both are by design


def test_infeasible_constraints_name_the_colors(tiny_data):
    tiny_data["palette"][0]["cards"] = {"max": 5}
    tiny_data["palette"][1]["cards"] = {"max": 5}
    tiny_data["palette"][2]["cards"] = {"max": 5}
    with pytest.raises(InfeasibleDeck, match="red at most 5"):
        derive_deck(build_board(tiny_data))


def test_doubles_and_gray_options(tiny_data):
    board = build_board(tiny_data)
    both, spaces = color_weights(board, "both", "ignore")
    one, _ = color_weights(board, "one", "ignore")
    assert both["red"] == 8 and one["red"] + one["blue"] == 12  # the double alder-birch counts once
    spread, _ = color_weights(board, "both", "spread")
    assert spread["red"] == pytest.approx(8 + 14 / 3)


def test_expected_draws():
    assert expected_draws(1, 109, 110) == pytest.approx(111 / 110)
    assert expected_draws(6, 5, 110) == float("inf")
    assert expected_draws(2, 12, 110) == pytest.approx(2 * 111 / 13)


def test_starved_color_warns(tiny_data):
    tiny_data["palette"][2]["cards"] = {"max": 3}
    deck = derive_deck(build_board(tiny_data))
    assert any("ferry" in w and "starved" in w for w in deck.warnings)


def test_cards_cli_write_changes_only_the_deck(cli, tmp_path, in_repo):
    path = tmp_path / "tiny.json"
    original = (in_repo / "tests/fixtures/tiny.json").read_text()
    path.write_text(original)
    result = cli("cards", path, "--write", "--format", "json")
    assert result.exit_code == 0, result.output
    written = path.read_text()
    assert written.startswith(original.rstrip()[:-1].rstrip())  # everything before the new key is untouched
    data = json.loads(written)
    assert data["deck"]["total"] == 110 and sum(data["deck"]["counts"].values()) == 96
    again = cli("cards", path, "--write")
    assert again.exit_code == 0
    assert path.read_text() == written  # idempotent


def test_cards_cli_bad_options(cli, in_repo):
    assert cli("cards", "tests/fixtures/tiny.json", "--wild", "200").exit_code == 2
    assert cli("cards", "tests/fixtures/tiny.json", "--total", "0").exit_code == 2


def test_contradictory_palette_says_which_fields_clash_and_the_fix(cli, write_board, tiny_data):
    # a 1-space ferry whose cards must stay below its longest route: at most 0, yet it has a route
    for r in tiny_data["routes"]:
        if r["color"] == "ferry":
            r["length"] = 1
    for c in tiny_data["palette"]:
        if c["id"] == "ferry":
            c["cards"] = {"below_longest_route": True}
    result = cli("cards", write_board(tiny_data))
    assert result.exit_code == 1
    assert "at least 1 and at most 0" not in result.output
    # validate's card-constraint check catches it before the deck is derived, naming the field
    assert "$.palette[2].cards.below_longest_route" in result.output and "[card-constraint]" in result.output
    assert "color ferry" in result.output and "drop below_longest_route" in result.output
    assert "Traceback" not in result.output


LONG_ID = "central-campus-shuttle-inbound-and-outbound"


def _long_color(tiny_data) -> dict:
    tiny_data["palette"][2]["id"] = LONG_ID
    for r in tiny_data["routes"]:
        if r["color"] == "ferry":
            r["color"] = LONG_ID
    return tiny_data


def _ends(line: str, header: str, word: str) -> int:
    return header.index(word) + len(word)


@pytest.mark.parametrize("command, columns", [("cards", ["spaces", "cards", "longest"]), ("info", ["routes", "spaces", "longest"])])
def test_tables_keep_their_columns_with_long_color_ids(cli, write_board, tiny_data, command, columns):
    out = cli(command, write_board(_long_color(tiny_data))).output.splitlines()
    head = next(i for i, line in enumerate(out) if line.split()[:1] == ["color"])
    rows = [line for line in out[head + 1:] if line.strip().split()[:1] and line.split()[0] in ("red", "blue", LONG_ID)]
    assert len(rows) == 3
    for word in columns:
        end = _ends(out[head], out[head], word)
        for row in rows:   # each right-aligned number ends under its heading
            assert row[end - 1].isdigit() and (len(row) == end or row[end] == " "), (word, row)
