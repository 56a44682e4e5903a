"""Generated ticket decks: reproducible by seed, and meeting their stated targets."""

import pytest

from mapkit.boardfile import load_board
from mapkit.graph import station_graph
from mapkit.resources import boards_dir
from mapkit.ticket_deck import generate

# The bundled boards' standard decks, as their commits say they were made: seed, required pairs, count.
BUNDLED_DECKS = {
    "portland": (1, [("hillsboro", "gresham"), ("expo-center", "milwaukie")], 30),
    "seattle": (9, [("everett", "tacoma-dome"), ("bremerton", "issaquah")], 31),
    "north-america": (1, [], 30),
}
NAMES = list(BUNDLED_DECKS)
# styles whose property is a filter on the candidate pairs (every pair touches a hub, is long, carries
# a station count) hold whatever the search's length: those tests search a tenth as long
SHORT_SEARCH = 600


@pytest.fixture(scope="module")
def decks():
    """name -> (board, the deck `generate` makes with the bundled seed, pairs and count and default
    settings), made once: a deck takes about 4 s of CPU, and the targets, required-pairs and
    stored-deck tests read the same three."""
    out = {}
    for name, (seed, required, count) in BUNDLED_DECKS.items():
        b = load_board(boards_dir() / f"{name}.json")
        out[name] = (b, generate(b, seed=seed, required=required, count=count))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_generated_deck_meets_targets(decks, name):
    b, g = decks[name]
    count = BUNDLED_DECKS[name][2]
    t, f = g.targets, g.figures
    assert len(g.tickets) == count
    for (lo, hi, want), got in zip(t.buckets, f["bucket_counts"]):
        assert abs(got - want) <= 2, (lo, hi, want, got)
    assert f["near_duplicates"] == 0
    assert f["max_station_uses"] <= t.max_station_uses
    assert f["longest"] >= t.longest_at_least - 1
    assert len(f["uncovered"]) <= 0.25 * len(b.stations)
    g_ = station_graph(b)
    for ticket in g.tickets:
        assert not g_.has_edge(ticket.a, ticket.b), "adjacent pair"
        assert ticket.points == ticket.length + ticket.adjustment
    pairs = {frozenset((x.a, x.b)) for x in g.tickets}
    assert len(pairs) == count


@pytest.mark.parametrize("name", NAMES)
def test_the_default_deck_is_the_stored_one_with_points_equal_to_length(decks, name):
    """The bundled seed, pairs and count give the stored deck's tickets (the stored decks were made
    with both point adjustments on: tests/test_ticket_deck_bundled.py), with the published
    convention: points = length."""
    b, plain = decks[name]
    assert {(t.a, t.b) for t in plain.tickets} == {(t.a, t.b) for t in b.ticket_decks["standard"]}
    assert all(t.points == t.length for t in plain.tickets)


def test_same_seed_same_deck_other_seed_other_deck(decks):
    b, _ = decks["portland"]
    # the same seed twice: every step of the search draws from the seeded generator, so a short
    # search shows it as well as a full one
    once, again = (generate(b, seed=4, iterations=SHORT_SEARCH) for _ in range(2))
    assert [(x.a, x.b, x.points) for x in again.tickets] == [(x.a, x.b, x.points) for x in once.tickets]
    # another seed, searched as briefly, ends elsewhere
    other = generate(b, seed=5, iterations=SHORT_SEARCH)
    assert [(x.a, x.b) for x in other.tickets] != [(x.a, x.b) for x in once.tickets]


def test_required_pairs_are_kept(decks):
    b, g = decks["portland"]   # made with two required pairs
    pairs = {(x.a, x.b) for x in g.tickets}
    assert BUNDLED_DECKS["portland"][1] == [("hillsboro", "gresham"), ("expo-center", "milwaukie")]
    assert ("gresham", "hillsboro") in pairs and ("expo-center", "milwaukie") in pairs


def test_cities_style_touches_a_hub(decks):
    b, _ = decks["north-america"]
    hubs = {s.id for s in b.stations if s.hub}
    g = generate(b, style="cities", count=35, seed=2, iterations=SHORT_SEARCH)
    assert len(g.tickets) == 35
    assert all(x.a in hubs or x.b in hubs for x in g.tickets)


def test_long_style_is_long(decks):
    b, _ = decks["north-america"]
    g = generate(b, style="long", seed=2, iterations=SHORT_SEARCH)
    assert len(g.tickets) == 6
    assert min(x.length for x in g.tickets) >= g.targets.buckets[0][0]


def test_generate_cli_write_keeps_other_decks(cli, tmp_path):
    path = tmp_path / "portland.json"
    path.write_text((boards_dir() / "portland.json").read_text())
    result = cli("tickets", "generate", path, "--style", "long", "--deck", "long", "--write")
    assert result.exit_code == 0, result.output
    b = load_board(path)
    assert len(b.ticket_decks["long"]) == 6
    assert "standard" in b.ticket_decks


def test_transit_style_carries_a_second_value(decks):
    b, _ = decks["north-america"]
    g = generate(b, style="transit", seed=3, iterations=SHORT_SEARCH)
    assert len(g.tickets) == 30
    for ticket, raw in zip(g.tickets, g.deck_json()):
        assert raw["transit_points"] == len(ticket.path) >= 3  # stations to build a chain through


def test_a_deck_that_misses_its_length_targets_says_by_how_much():
    """Eight stations in a line, 2 spaces apart: 7 pairs of 7-10 spaces and 3 of 11-14, too few for
    the 9 medium and 4 long tickets a deck of 20 wants."""
    import re

    from conftest import red_blue_board

    from mapkit.boardfile import build_board
    from mapkit.ticket_deck import format_generated

    stations = [{"id": f"s{i}", "name": f"S{i}", "lat": 45.0, "lon": -122.0 + 0.1 * i,
                 "board": {"x": 60.0 + 80 * i, "y": 100.0}} for i in range(8)]
    routes = [{"from": f"s{i}", "to": f"s{i + 1}", "color": "red", "length": 2} for i in range(7)]
    g = generate(build_board(red_blue_board(stations, routes)), count=20, iterations=SHORT_SEARCH)
    misses = g.figures["length_misses"]
    wanted = {tuple(b[:2]): b[2] for b in g.targets.buckets}
    got = dict(zip(wanted, g.figures["bucket_counts"]))
    assert [m["what"] for m in misses] == [f"length {lo}-{hi}" for (lo, hi) in wanted if got[(lo, hi)] != wanted[(lo, hi)]]
    assert misses and all(m["tickets"] - m["wanted"] == got[tuple(map(int, re.findall(r"\d+", m["what"])))]
                          - wanted[tuple(map(int, re.findall(r"\d+", m["what"])))] for m in misses)
    text = format_generated(g)
    warning = [line for line in text.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1 and "fewer than the" in warning[0] and "the board has 3 such pairs" in warning[0]


def test_a_required_pair_outside_the_length_ranges_is_named_as_the_miss(decks):
    g = decks["portland"][1]     # hillsboro-gresham is 32 spaces, past the longest range's 22
    misses = {m["what"]: m for m in g.figures["length_misses"]}
    assert misses["outside every length range"]["tickets"] == len(g.tickets) - sum(g.figures["bucket_counts"]) >= 1
