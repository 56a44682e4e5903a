"""A deck that plays, from synthetic feeds (importers/gtfs/palette.py, lines.py, playtest.py): two
lines of one route_color, a one-route line, a tiny two-line network, a large network of many lines
on shared trunks; no starved color, no ticket within one place, the playtest's fixes."""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict

import pytest

pytest.importorskip("partridge", reason="the GTFS extra (pip install -e '.[gtfs]' or '.[test]') is not installed")

from test_import_gtfs import FeedBuilder, _line_points  # noqa: E402

from mapkit.colors import GRAY_DISPLAY_HEX, MIN_COLOR_DELTA_E, color_distance  # noqa: E402
from mapkit.importers.gtfs import import_feed  # noqa: E402
from mapkit.importers.gtfs import lines as L  # noqa: E402
from mapkit.importers.gtfs.palette import MAX_DECK_COLORS, MIN_DECK_COLORS  # noqa: E402
from mapkit.importers.gtfs.playtest import SPARE_CARDS, deck_with_room, one_place_tickets, playtest  # noqa: E402


def subway_feed(color2="E32017", extra_one_route=False) -> FeedBuilder:
    """Two subway lines crossing at a shared station, both the same red (color2 for the second)."""
    f = FeedBuilder()
    a = [f.stop(f"A{i}", f"Alpha {i}", *p) for i, p in enumerate(_line_points((40.0, -74.30), (40.0, -73.90), 14))]
    b = [f.stop(f"B{i}", f"Beta {i}", *p) for i, p in enumerate(_line_points((40.20, -74.10), (39.80, -74.10), 14))]
    mid = "A7"
    b[7] = mid
    f.stops = [r for r in f.stops if r[0] != "B7"]
    f.route("A", "A", "Alpha Line", 1, "E32017")
    f.trips_of("A", a, 10)
    f.route("B", "B", "Beta Line", 1, color2)
    f.trips_of("B", b, 10)
    if extra_one_route:
        f.stop("S1", "Shuttle End", 40.05, -74.20)
        f.route("S", "S", "Shuttle", 1, "00A0E0")
        f.trips_of("S", ["A2", "S1"], 4)
    return f


def trunk_feed(lines=14) -> FeedBuilder:
    """A bus city: `lines` lines from a centre out in all directions, in pairs sharing a trunk of
    three stations before they part, each in its own route_color."""
    f = FeedBuilder()
    f.stop("HUB", "City Centre", 40.0, -75.0)
    colors = ["E6194B", "3CB44B", "4363D8", "F58231", "911EB4", "46F0F0", "F032E6", "BCF60C", "008080",
              "9A6324", "800000", "808000", "000075", "AA6E28", "FFD8B1", "000000", "A9A9A9", "FABEBE"]
    for k in range(lines // 2):
        ang = 2 * math.pi * k / (lines // 2)
        trunk = [f.stop(f"T{k}-{i}", f"Trunk {k} Stop {i}", 40.0 + 0.012 * i * math.sin(ang),
                        -75.0 + 0.016 * i * math.cos(ang)) for i in range(1, 4)]
        for side in (0, 1):
            a2 = ang + (0.25 if side else -0.25)
            tail = [f.stop(f"L{k}{side}-{i}", f"Branch {k}{'ab'[side]} Stop {i}",
                           40.0 + 0.036 * math.sin(ang) + 0.012 * i * math.sin(a2),
                           -75.0 + 0.048 * math.cos(ang) + 0.016 * i * math.cos(a2)) for i in range(1, 5)]
            rid = f"R{k}{side}"
            f.route(rid, f"{10 * k + side + 1}", f"Route {10 * k + side + 1}", 3, colors[(2 * k + side) % len(colors)])
            f.trips_of(rid, ["HUB", *trunk, *tail], 8 - side)
    return f


def _colors_of(r):
    by = defaultdict(int)
    for x in r.data["routes"]:
        by[x["color"]] += x["length"]
    return by


def _distinct(palette):
    hexes = [c["hex"] for c in palette]
    for i, a in enumerate(hexes):
        assert color_distance(a, GRAY_DISPLAY_HEX) >= MIN_COLOR_DELTA_E
        for b in hexes[i + 1:]:
            assert color_distance(a, b) >= MIN_COLOR_DELTA_E, (a, b)


def test_two_lines_of_one_color_get_a_deck_of_distinct_colors_spread_over_both(tmp_path):
    r = import_feed(subway_feed().folder(tmp_path / "feed"), stations=20)
    palette = r.data["palette"]
    assert MIN_DECK_COLORS <= len(palette) <= MAX_DECK_COLORS
    _distinct(palette)
    # every color is used, on both lines where it can be, and holds about as many spaces as the others
    spaces = _colors_of(r)
    assert set(spaces) - {"gray"} == {c["id"] for c in palette}
    assert max(spaces.values()) <= 2.5 * min(v for k, v in spaces.items() if k != "gray")
    on_line = defaultdict(set)
    for x in r.data["routes"]:
        on_line[x["line"]].add(x["color"])
    assert all(len(v) >= 2 for v in on_line.values())
    # no two routes at a station share a color where the station has room for more
    at = defaultdict(Counter)
    for x in r.data["routes"]:
        at[x["from"]][x["color"]] += 1
        at[x["to"]][x["color"]] += 1
    assert sum(1 for c in at.values() for n in c.values() if n > 1) <= 2
    assert any("card colors from" in n for n in r.notes)


def test_a_one_route_line_is_gray_or_joins_a_neighbour(tmp_path):
    r = import_feed(subway_feed(color2="0019A8", extra_one_route=True).folder(tmp_path / "feed"), stations=22)
    shuttle = [x for x in r.data["routes"] if x["line"] == "S"]
    assert shuttle and all(x["color"] == "gray" for x in shuttle)
    assert not any("S" == ln for c in r.summary["colors"] for ln in c["lines"])
    assert any("made gray" in n and "Shuttle" in n for n in r.notes)


def test_many_lines_on_shared_trunks_make_at_most_eight_colors_by_family(tmp_path):
    r = import_feed(trunk_feed().folder(tmp_path / "feed"), stations=40)
    palette = r.data["palette"]
    assert len(palette) <= MAX_DECK_COLORS
    _distinct(palette)
    joined = [n for n in r.notes if " joins " in n]
    assert joined and all(" shared)" in n for n in joined)
    # --colors chooses the count
    five = import_feed(trunk_feed().folder(tmp_path / "feed2"), stations=40, colors=5)
    assert len(five.data["palette"]) == 5 and any("(--colors)" in n for n in five.notes)


def test_a_tiny_network_plays_with_fewer_players_and_says_so(tmp_path):
    f = FeedBuilder()
    a = [f.stop(f"A{i}", f"Alpha {i}", *p) for i, p in enumerate(_line_points((40.0, -74.30), (40.0, -74.10), 6))]
    b = [f.stop(f"B{i}", f"Beta {i}", *p) for i, p in enumerate(_line_points((40.1, -74.20), (39.9, -74.20), 6))]
    f.route("A", "A", "Alpha", 1, "E32017")
    f.trips_of("A", a, 4)
    f.route("B", "B", "Beta", 1, "0019A8")
    f.trips_of("B", [*b[:3], "A3", *b[3:]], 4)
    r = import_feed(f.folder(tmp_path / "feed"), stations=12)
    over = r.data["rules"].get("overrides", {})
    lo, hi = r.summary["players"]
    assert lo == 2 and hi < 5 and over["max_players"] == hi
    trains = over.get("trains", 45)
    assert trains >= L.MIN_TRAINS and r.summary["lengths"]["spaces"] >= L.ROOM * hi * trains
    assert any((f"2-{hi} players" if hi > 2 else "so 2 players") in n for n in r.notes)


def test_players_and_trains_follow_the_standard_maps_room():
    assert L.ROOM == pytest.approx(309 / 225)
    assert L.players_and_trains(309) == (5, 45)
    assert L.players_and_trains(2000) == (5, 45)
    p, t = L.players_and_trains(250)
    assert p == 5 and t == math.floor(250 / (5 * L.ROOM)) >= L.FIVE_PLAYER_TRAINS
    # too few for five players of FIVE_PLAYER_TRAINS: 2-4 players, as the city maps
    p, t = L.players_and_trains(150)
    assert p == 4 and t == math.floor(150 / (4 * L.ROOM))
    p, t = L.players_and_trains(80)
    assert p < 5 and t >= L.MIN_TRAINS and 80 >= p * t * L.ROOM
    assert L.players_and_trains(20) is None


def _board(data):
    from mapkit.boardfile import build_board, whole_numbers

    return build_board(whole_numbers(json.loads(json.dumps(data))), "test")


def test_no_color_is_starved_each_holds_its_longest_route_and_more(tmp_path):
    r = import_feed(subway_feed(color2="0019A8", extra_one_route=True).folder(tmp_path / "feed"), stations=22)
    data = json.loads(json.dumps(r.data))
    # a color with one long route among many: derive_deck alone would starve it
    data["routes"][0]["length"] = 8
    data["route_points"] = L.route_points(8)
    board = _board(data)
    deck, raised = deck_with_room(board)
    longest = Counter()
    for x in data["routes"]:
        longest[x["color"]] = max(longest[x["color"]], x["length"])
    for c, n in deck.counts.items():
        assert n >= longest[c] + SPARE_CARDS, (c, n, longest[c])
    assert sum(deck.counts.values()) + deck.wild == deck.total
    assert not [w for w in deck.warnings if "starved" in w and "can never" in w]


def test_tickets_between_two_stations_of_one_place_are_found():
    data = {"stations": [{"id": "a", "lat": 40.0, "lon": -75.0}, {"id": "b", "lat": 40.0 + 100 / 110540, "lon": -75.0},
                         {"id": "c", "lat": 40.1, "lon": -75.0}],
            "ticket_decks": {"standard": [{"from": "a", "to": "b", "points": 8}, {"from": "a", "to": "c", "points": 5}]}}
    assert one_place_tickets(data) == [("a", "b")]


def test_playtest_adds_cards_when_the_deck_runs_out_and_reports_the_rest(tmp_path):
    from mapkit.ticket_deck import generate

    r = import_feed(subway_feed(color2="0019A8").folder(tmp_path / "feed"), stations=20)
    data = json.loads(json.dumps(r.data))
    board = _board(data)
    deck, _ = deck_with_room(board, total=20, wild=2)
    data["deck"] = deck.deck_json()
    import dataclasses

    from mapkit.model import Deck
    data["ticket_decks"] = {"standard": generate(dataclasses.replace(board, deck=Deck(deck.total, deck.wild, dict(deck.counts))),
                                                 count=5).deck_json()}
    res = playtest(data, games=20, seed=1)
    assert res.by_players and all(r["games"] == 20 for r in res.by_players.values())
    grew = [f for f in res.fixes if "more train cards" in f]
    assert grew and res.data["deck"]["total"] > 20
    for p, r in res.by_players.items():
        if p <= res.data.get("rules", {}).get("overrides", {}).get("max_players", 5):
            assert r["gaps"].get("cards_exhausted", 0) <= 0.05 * r["games"] or any(f"{p} players" in x for x in res.left)
    # the input is not changed
    assert data["deck"]["total"] == 20


def test_board_sizes_from_the_published_maps_size_up(tmp_path):
    from mapkit.importers.gtfs import fit

    sizes = fit.board_sizes()
    assert sizes[0] == fit.GAME_BOARD and all(a[0] * a[1] < b[0] * b[1] for a, b in zip(sizes, sizes[1:]))
    assert fit.board_sizes((900, 600)) == [(900.0, 600.0)]
    # a tall network is fitted to the board turned upright; a fixed --size is taken as given
    assert fit.oriented((800.0, 530.0), (100, 300), fixed=False) == (530.0, 800.0)
    assert fit.oriented((800.0, 530.0), (100, 300), fixed=True) == (800.0, 530.0)
    r = import_feed(trunk_feed().folder(tmp_path / "feed"), stations=35, size=(900, 600))
    assert r.summary["lengths"]["board_mm"] == [900.0, 600.0]
    # by default the smallest board two players can play: no smaller standard size would do
    d = import_feed(subway_feed().folder(tmp_path / "feed2"), stations=20)
    area = d.summary["lengths"]["board_mm"][0] * d.summary["lengths"]["board_mm"][1]
    assert area >= fit.GAME_BOARD[0] * fit.GAME_BOARD[1] and d.summary["players"][1] >= 2


def test_playtest_takes_out_tickets_nobody_completes_and_lowers_the_players_when_cards_cannot(monkeypatch):
    import mapkit.importers.gtfs.playtest as P

    tickets = [{"from": f"s{i}", "to": f"t{i}", "points": 5} for i in range(24)]
    data = {"rules": {"preset": "standard"}, "deck": {"total": P.MAX_DECK, "wild": 19, "counts": {}},
            "ticket_decks": {"standard": tickets}}
    played = []

    def fake_play(d, players, games, seed):
        played.append((players, len(d["ticket_decks"]["standard"])))
        exhausted = games if players == 5 else 0          # the deck runs out at five players only
        never = ["s0-t0"] if len(d["ticket_decks"]["standard"]) == 24 else []
        return {"games": games, "gaps": {"cards_exhausted": exhausted} if exhausted else {}, "completion": 0.5,
                "never_completed": never}

    monkeypatch.setattr(P, "_play", fake_play)
    res = P.playtest(data, games=10)
    assert res.data["rules"]["overrides"]["max_players"] == 4
    assert any("the board is for 2-4 players" in f for f in res.fixes)
    assert [t for t in res.data["ticket_decks"]["standard"] if t["from"] == "s0"] == []
    assert any("never completed" in f and "s0-t0" in f for f in res.fixes)
    assert sorted(p for p in res.by_players if p <= 4) == [2, 3, 4] and not res.left
    assert data["ticket_decks"]["standard"] == tickets      # the input is not changed
