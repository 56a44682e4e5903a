"""The boards mapkit ships: real, valid with no warnings, playable, and with the seeds' facts."""

import json

import pytest

from mapkit.boardfile import load_board
from mapkit.checks import capacity
from mapkit.resources import boards_dir

NAMES = ["portland", "seattle", "north-america"]


def board(name):
    return load_board(boards_dir() / f"{name}.json")


def route_between(b, x, y):
    return [r for r in b.routes if r.ends == frozenset((x, y))]


@pytest.mark.parametrize("name", NAMES)
def test_validates_clean(name, cli):
    result = cli("validate", "--strict", name)
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("valid (0 errors, 0 warnings)")


@pytest.mark.parametrize("name", ["portland", "seattle"])
def test_fan_boards_have_the_size_the_issue_asks(name):
    b = board(name)
    assert 35 <= len(b.stations) <= 60
    rows = {r["players"]: r for r in capacity(b)}
    assert rows[5]["ratio"] >= 1.25  # room to spare for five players' trains


def test_portland_facts_from_the_seed():
    b = board("portland")
    assert b.wild.name == "Transit Pass" and b.rules.preset == "stop-requested"
    assert len(b.palette) == 10
    kinds = [c.kind for c in b.palette]
    assert kinds.count("bus") == 2
    (pdx,) = route_between(b, "parkrose", "pdx")
    assert (pdx.color, pdx.length) == ("red", 3)
    (nw,) = route_between(b, "nw-23rd", "goose-hollow")
    assert (nw.color, nw.length) == ("gray", 2)
    (kill,) = route_between(b, "killingsworth", "st-johns")
    assert kill.length == 4 and b.color(kill.color).kind == "bus" and b.color(kill.color).hex.lower() != "#808080"
    (tram,) = route_between(b, "ohsu", "south-waterfront")
    assert tram.length == 1 and tram.bonus.points == 5 and b.color(tram.color).cards.fixed == 1
    assert any(r.double for r in b.routes)
    names = {s.name for s in b.stations}
    for needed in ("Hillsboro", "Gresham", "Expo Center", "Oregon City", "Milwaukie", "St. Johns"):
        assert any(needed.lower().replace(".", "") in n.lower().replace(".", "") for n in names), needed


def test_seattle_facts_from_the_seed():
    b = board("seattle")
    assert b.wild.name == "ORCA Card" and b.rules.preset == "stop-requested"
    assert len(b.palette) == 12
    (mono,) = route_between(b, "westlake", "seattle-center")
    assert mono.length == 1 and mono.bonus.points == 5 and b.color(mono.color).cards.fixed == 1
    (flight,) = route_between(b, "paine-field", "seatac")
    assert flight.kind == "flight" and flight.bonus.points == 5 and flight.overpass
    assert b.route_points_for(flight.length) == 15
    assert b.color(flight.color).cards.below_longest_route
    assert route_between(b, "intl-district", "mercer-island")
    assert any(b.color(r.color).kind == "ferry" for r in route_between(b, "pioneer-square", "bainbridge"))
    assert any(r.is_gray for r in route_between(b, "ballard", "northgate"))
    kinds = {c.kind for c in b.palette}
    assert {"ferry", "water-taxi", "monorail", "flight", "commuter-rail", "light-rail"} <= kinds


def test_north_america_is_the_standard_map():
    b = board("north-america")
    assert len(b.stations) == 36 and len(b.palette) == 8 and b.wild.name == "Locomotive"
    assert len(b.routes) == 100
    spaces = {}
    for r in b.routes:
        spaces[r.color] = spaces.get(r.color, 0) + r.length
    colored = [v for k, v in spaces.items() if k != "gray"]
    assert len(set(colored)) == 1  # every color covers the same number of spaces
    hubs = {s.id for s in b.stations if s.hub}
    assert hubs == {"chicago", "dallas", "houston", "los-angeles", "miami", "new-york", "seattle"}


def test_north_america_deck_is_twelve_per_color(cli):
    result = cli("cards", "north-america", "--format", "json")
    data = json.loads(result.output)
    assert set(data["counts"].values()) == {12} and data["wild"] == 14


@pytest.mark.parametrize("name", NAMES)
def test_lat_lon_are_real_places_in_the_region(name):
    b = board(name)
    lats = [s.lat for s in b.stations]
    lons = [s.lon for s in b.stations]
    box = {"portland": (45.2, 45.7, -123.1, -122.3), "seattle": (46.9, 48.1, -122.8, -121.9),
           "north-america": (25, 52, -124, -70)}[name]
    assert box[0] <= min(lats) and max(lats) <= box[1] and box[2] <= min(lons) and max(lons) <= box[3]


@pytest.mark.parametrize("name, pairs, count", [
    ("portland", [("hillsboro", "gresham"), ("expo-center", "milwaukie")], 30),
    ("seattle", [("everett", "tacoma-dome"), ("bremerton", "issaquah")], 31),
    ("north-america", [], 30),
])
def test_bundled_decks(name, pairs, count):
    b = board(name)
    deck = b.ticket_decks["standard"]
    assert len(deck) == count
    held = {frozenset((t.a, t.b)) for t in deck}
    for pair in pairs:
        assert frozenset(pair) in held  # the seed's named tickets
    assert b.deck is not None and b.deck.total == 110 and b.deck.wild == 14
