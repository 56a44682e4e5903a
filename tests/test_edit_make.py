"""Making a board through the editor's API: each edit is a patch of the file (only what changed), checked,
refused with a clear reason when it cannot be made, and undone byte for byte.

A real server runs on 127.0.0.1 for each test (urllib talks to it as the page does).
"""

import json
import shutil
import stat
from pathlib import Path

import pytest

from mapkit.edit import Session, serve
from mapkit.textpatch import append_item
from mapkit.validate import validate_file

from test_edit import REPO, TINY, call, open_editor


@pytest.fixture
def make(tmp_path):
    """(server, file, do): an editor on an empty file; do(path, **body) posts with the current hash."""
    path = tmp_path / "new.json"
    path.write_bytes(b"")
    session, server, do = open_editor(path)
    yield server, path, do
    server.shutdown()
    session.stop()


def tiny_editor(tmp_path):
    path = tmp_path / "tiny.json"
    shutil.copy(TINY, path)
    session = Session(path, str(path), print_labels=False)
    return session, serve(session), path


def state(server):
    return call(server, "/api/state")[1]


def six_station_board(do):
    do("/api/new", name="Six Stops", width=400, height=300)
    do("/api/board/edit", trains=8, max_players=3)
    do("/api/color/add", name="Red Line", hex="#D11241", kind="light-rail")
    do("/api/color/add", name="Blue Line", hex="#114c96")
    for name, x, y in (("Alder", 80, 80), ("Birch", 200, 80), ("Cedar", 320, 80), ("Dogwood", 80, 220),
                       ("Elm", 200, 220), ("Fir", 320, 220)):
        do("/api/station/add", name=name, x=x, y=y)
    for a, b, color, extra in (("alder", "birch", "red-line", {"double": True, "color2": "blue-line"}),
                               ("birch", "cedar", "blue-line", {}), ("alder", "dogwood", "gray", {}),
                               ("birch", "elm", "red-line", {}), ("cedar", "fir", "gray", {}),
                               ("dogwood", "elm", "red-line", {}), ("elm", "fir", "gray", {})):
        do("/api/route/add", **{"from": a, "to": b, "color": color, "length": 4 if a != "alder" or b != "dogwood" else 5,
                                **extra})
    do("/api/route/edit", id="cedar-fir", length=5)
    do("/api/route/edit", id="birch-elm", length=5)
    for a, b in (("alder", "fir"), ("dogwood", "cedar")):
        do("/api/ticket/add", **{"from": a, "to": b})


def test_a_board_made_from_an_empty_file_validates_and_undoes_to_the_empty_file(make):
    server, path, do = make
    assert state(server)["empty"] and not state(server)["loads"]
    six_station_board(do)
    report, board = validate_file(path)
    assert report.valid and not report.warnings, [p.format() for p in report.problems]
    assert len(board.stations) == 6 and len(board.routes) == 8 and len(board.ticket_decks["standard"]) == 2
    text = path.read_text()
    # one station, route, color and ticket a line, in mapkit's layout
    assert text.count('\n    {"id": "') == 6 + 2 and text.count('\n    {"from": "') == 8
    assert '"hex": "#d11241"' in text  # written as the schema's examples are: lowercase
    # the tickets' points are their shortest connections
    assert [t.points for t in board.ticket_decks["standard"]] == [
        t["length"] for t in state(server)["tickets"]] or all(t["points"] >= t["length"] for t in state(server)["tickets"])
    steps = state(server)["undo"]
    for _ in range(steps):
        do("/api/undo")
    assert path.read_bytes() == b"" and state(server)["empty"]
    for _ in range(steps):
        do("/api/redo")
    assert path.read_text() == text


def test_a_board_in_the_making_is_drawn_and_says_what_it_needs(make):
    server, path, do = make
    do("/api/new", name="Draft")
    st = state(server)
    assert st["loads"] and st["draft"] and not st["valid"]
    messages = " ".join(p["message"] for p in st["problems"])
    assert "a board needs at least 2 stations" in messages and "palette color" in messages
    do("/api/station/add", name="Only One", lat=45.5, lon=-122.6)
    st = state(server)
    assert [s["id"] for s in st["stations"]] == ["only-one"] and "placed" in st["stations"][0]
    assert call(server, "/api/svg")[1].count('data-station="only-one"') >= 1
    assert validate_file(path)[0].valid is False  # validate says the same: it is not a board yet


def test_edits_change_only_their_values(tmp_path):
    session, server, path = tiny_editor(tmp_path)
    try:
        before = path.read_text()

        def do(endpoint, **body):
            body["hash"] = state(server)["hash"]
            code, reply = call(server, endpoint, body)
            assert code == 200, reply
            return reply

        do("/api/station/edit", id="elm", name="Elm Street")
        assert path.read_text() == before.replace('"name": "Elm"', '"name": "Elm Street"')
        do("/api/undo")
        do("/api/route/edit", id="birch-cedar", color="red", length=3)
        assert path.read_text() == before.replace('{"from": "birch", "to": "cedar", "color": "blue", "length": 4}',
                                                  '{"from": "birch", "to": "cedar", "color": "red", "length": 3}')
        do("/api/undo")
        assert path.read_text() == before
    finally:
        server.shutdown()
        session.stop()


def test_deleting_a_station_takes_its_routes_and_tickets_and_undo_brings_them_back(tmp_path):
    session, server, path = tiny_editor(tmp_path)
    try:
        before = path.read_bytes()
        body = {"id": "alder", "hash": state(server)["hash"]}
        code, reply = call(server, "/api/station/delete", body)
        assert code == 200 and "alder" in reply["done"]
        data = json.loads(path.read_text())
        assert "alder" not in {s["id"] for s in data["stations"]}
        assert not [r for r in data["routes"] if "alder" in (r["from"], r["to"])]
        assert not [t for d in data["ticket_decks"].values() for t in d if "alder" in (t["from"], t["to"])]
        report, _ = validate_file(path)
        assert not [p for p in report.problems if p.code in ("json-syntax", "schema", "unknown-station")]
        call(server, "/api/undo", {"hash": state(server)["hash"]})
        assert path.read_bytes() == before
    finally:
        server.shutdown()
        session.stop()


def test_a_double_route_bends_on_both_tracks(tmp_path):
    session, server, path = tiny_editor(tmp_path)
    try:
        h = state(server)["hash"]
        code, reply = call(server, "/api/bend/add", {"id": "alder-birch#1", "x": 140, "y": 60, "hash": h})
        assert code == 200, reply
        tracks = [r for r in json.loads(path.read_text())["routes"] if r.get("double") == "alder-birch"]
        assert [t["waypoints"] for t in tracks] == [[{"x": 140, "y": 60}]] * 2
        # dragging the bend of one track moves the other's too (before: one track only, a new overlap)
        code, reply = call(server, "/api/move", {"kind": "waypoint", "id": "alder-birch#2", "waypoint": 0,
                                                 "x": 150, "y": 55, "hash": state(server)["hash"]})
        assert code == 200, reply
        tracks = [r for r in json.loads(path.read_text())["routes"] if r.get("double") == "alder-birch"]
        assert [t["waypoints"] for t in tracks] == [[{"x": 150, "y": 55}]] * 2
        code, _ = call(server, "/api/bend/delete", {"id": "alder-birch#1", "waypoint": 0, "hash": state(server)["hash"]})
        assert code == 200
        assert not [r for r in json.loads(path.read_text())["routes"] if "waypoints" in r]
    finally:
        server.shutdown()
        session.stop()


def test_pin_and_unpin_give_a_lat_lon_station_its_drawn_position(tmp_path):
    data = json.loads(TINY.read_text())
    del data["stations"][2]["board"]
    path = tmp_path / "ll.json"
    path.write_text(json.dumps(data, indent=2))
    session = Session(path, str(path), print_labels=False)
    server = serve(session)
    try:
        drawn = next(s for s in state(server)["stations"] if s["id"] == "cedar")
        code, _ = call(server, "/api/station/edit", {"id": "cedar", "pinned": True, "hash": state(server)["hash"]})
        assert code == 200
        cedar = json.loads(path.read_text())["stations"][2]
        assert cedar["pinned"] is True
        assert abs(cedar["board"]["x"] - drawn["x"]) < 0.06 and abs(cedar["board"]["y"] - drawn["y"]) < 0.06
        assert state(server)["pinned"] == ["cedar"]
        code, _ = call(server, "/api/station/edit", {"id": "cedar", "pinned": False, "hash": state(server)["hash"]})
        assert "pinned" not in json.loads(path.read_text())["stations"][2]
    finally:
        server.shutdown()
        session.stop()


def test_a_station_placed_by_a_click_gets_the_lat_lon_drawn_there(tmp_path):
    """Where some stations are drawn from lat/lon, the new one's lat/lon project to where it was put."""
    from mapkit.boardfile import load_board
    from mapkit.geometry import Layout

    data = json.loads(TINY.read_text())
    for s in data["stations"]:
        del s["board"]
    path = tmp_path / "ll.json"
    path.write_text(json.dumps(data, indent=2))
    session = Session(path, str(path), print_labels=False)
    server = serve(session)
    try:
        code, reply = call(server, "/api/station/add", {"name": "Hazel", "x": 150, "y": 150, "hash": state(server)["hash"]})
        assert code == 200, reply
        board = load_board(path)
        hazel = next(s for s in board.stations if s.id == "hazel")
        from mapkit.geometry import projector
        x, y = projector(board)(hazel.lat, hazel.lon)
        assert abs(x - 150) < 0.1 and abs(y - 150) < 0.1
        assert Layout(board).positions["hazel"] == (150, 150)
    finally:
        server.shutdown()
        session.stop()


@pytest.mark.parametrize("endpoint, body, status, words", [
    ("/api/station/add", {"name": "X"}, 400, "give the station a place"),
    ("/api/station/add", {"name": "X", "x": -5, "y": 10}, 400, "off the"),
    ("/api/station/add", {"name": "Alder", "id": "alder", "x": 10, "y": 10}, 400, "already"),
    ("/api/station/add", {"name": "X", "x": 10, "y": "ten"}, 400, "wrong type"),
    ("/api/station/edit", {"id": "nope", "name": "Y"}, 404, "no station 'nope'"),
    ("/api/route/add", {"from": "alder", "to": "alder", "color": "red", "length": 2}, 400, "two different stations"),
    ("/api/route/add", {"from": "alder", "to": "fir", "color": "pink", "length": 2}, 400, "no color 'pink'"),
    ("/api/route/add", {"from": "alder", "to": "fir", "color": "red", "length": 21}, 400, "1 to 20"),
    ("/api/route/add", {"from": "alder", "to": "fir", "color": "red", "length": 3, "kind": "rocket"}, 400, "kind is one of"),
    ("/api/route/add", {"from": "birch", "to": "cedar", "color": "red", "length": 3}, 400, "already"),
    ("/api/route/double", {"id": "alder-birch#1", "color": "red"}, 400, "double already"),
    ("/api/bend/delete", {"id": "birch-cedar", "waypoint": 0}, 400, "no waypoint 0"),
    ("/api/color/add", {"name": "Pink", "hex": "pink"}, 400, "#rrggbb"),
    ("/api/color/add", {"name": "Gray", "id": "gray", "hex": "#777777"}, 400, "reserved"),
    ("/api/color/delete", {"id": "red"}, 409, "recolor or delete them first"),
    ("/api/ticket/delete", {"deck": "standard", "index": 99}, 404, "no ticket 99"),
    ("/api/board/edit", {"width": 50}, 400, "100 to 5000"),
    ("/api/new", {"name": "Again"}, 409, "not empty"),
    ("/api/station/add", {"name": "X", "x": 10, "y": 10, "path": "/etc/passwd"}, 400, "cannot name a file"),
])
def test_bad_edits_are_refused_with_the_reason_and_write_nothing(tmp_path, endpoint, body, status, words):
    session, server, path = tiny_editor(tmp_path)
    try:
        before = path.read_bytes()
        code, reply = call(server, endpoint, {**body, "hash": state(server)["hash"]})
        assert code == status and words in reply["error"], reply
        assert path.read_bytes() == before
    finally:
        server.shutdown()
        session.stop()


def test_an_edit_needs_the_token_and_the_current_hash(tmp_path):
    session, server, path = tiny_editor(tmp_path)
    try:
        before = path.read_bytes()
        body = {"name": "X", "x": 10, "y": 10, "hash": state(server)["hash"]}
        assert call(server, "/api/station/add", body, token="nope")[0] == 403
        code, reply = call(server, "/api/station/add", {**body, "hash": "0" * 64})
        assert code == 409 and reply.get("stale")
        assert path.read_bytes() == before
    finally:
        server.shutdown()
        session.stop()


def test_a_read_only_file_is_refused_with_the_reason(tmp_path):
    session, server, path = tiny_editor(tmp_path)
    try:
        path.chmod(stat.S_IRUSR)
        code, reply = call(server, "/api/station/edit", {"id": "elm", "name": "E", "hash": state(server)["hash"]})
        assert code in (403, 409) and "read-only" in reply["error"], reply
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)
        server.shutdown()
        session.stop()


def test_the_length_suggested_is_what_the_drawn_distance_holds(tmp_path):
    session, server, path = tiny_editor(tmp_path)
    try:
        board = validate_file(TINY)[1]
        ph = board.physical
        code, s = call(server, "/api/suggest?from=alder&to=birch")
        assert code == 200
        need = s["suggest"] * ph.space_length_mm + (s["suggest"] + 1) * ph.space_gap_mm
        assert need <= s["drawn_mm"] <= need * ph.max_stretch and s["suggest"] == max(s["fit"])
        # a route longer than the scoring table holds, stretched: the longest, and why
        code, s = call(server, "/api/suggest?from=alder&to=fir")
        assert s["fit"] == [] and s["suggest"] == len(board.route_points) and "stretched" in s["note"]
        assert call(server, "/api/suggest?from=alder&to=nowhere")[0] == 404
    finally:
        server.shutdown()
        session.stop()


def test_problems_list_errors_first_then_the_newest(tmp_path):
    session, server, path = tiny_editor(tmp_path)
    try:
        # a warning first (an unused color), then an error made after it (a station dropped on another)
        call(server, "/api/color/add", {"name": "Unused", "hex": "#00aa00", "hash": state(server)["hash"]})
        call(server, "/api/move", {"kind": "station", "id": "elm", "x": 82, "y": 82, "hash": state(server)["hash"]})
        problems = state(server)["problems"]
        sev = [p["severity"] for p in problems]
        assert sev == sorted(sev, key=lambda s: s != "error")  # errors, then warnings
        assert problems[0]["new"] and "elm" in (problems[0]["subject"] + problems[0]["message"])
    finally:
        server.shutdown()
        session.stop()


def test_append_item_puts_the_first_item_of_an_empty_array_on_its_own_line():
    text = '{\r\n  "stations": [],\r\n  "x": 1\r\n}\r\n'
    one = append_item(text, ("stations",), {"id": "a"})
    assert one == '{\r\n  "stations": [\r\n    {"id": "a"}\r\n  ],\r\n  "x": 1\r\n}\r\n'
    two = append_item(one, ("stations",), {"id": "b"})
    assert two == '{\r\n  "stations": [\r\n    {"id": "a"},\r\n    {"id": "b"}\r\n  ],\r\n  "x": 1\r\n}\r\n'
    assert append_item('{"a": []}', ("a",), 1) == '{"a": [1]}'  # one line stays one line
    with pytest.raises(ValueError):
        append_item(text, ("x",), 2)


def test_the_editor_knows_the_layout_styles_without_importing_the_layout():
    from mapkit.edit import api
    from mapkit.layout import STYLES

    assert tuple(api.LAYOUT_STYLES) == tuple(STYLES)


def test_the_first_state_imports_no_layout_and_scores_tickets_as_the_scorer_does(tmp_path):
    """The page's first /api/state: no `mapkit.layout` import (3.6 s of the 4.1 s it took), and each
    ticket's path and length are the ones `mapkit tickets score` finds."""
    import subprocess
    import sys

    code = ("import sys, time; from pathlib import Path; from mapkit.edit import Session, api; "
            f"s = Session(Path({str(REPO / 'boards' / 'seattle.json')!r}), 'seattle', print_labels=False); "
            "api.state(s, None, api.layout_module()[1]); print('mapkit.layout' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**__import__('os').environ,
                         "PYTHONPATH": str(REPO)})
    assert out.stdout.strip() == "False", out.stdout + out.stderr
    from mapkit.edit.api import _compute_ticket_paths
    from mapkit.tickets import TicketScorer

    board = validate_file(REPO / "boards" / "portland.json")[1]
    paths, lengths = _compute_ticket_paths(board)
    scorer = TicketScorer(board)
    for (deck, a, b), length in lengths.items():
        assert length == scorer.score(a, b).length


def test_the_remembered_flight_search_draws_what_the_print_draws(monkeypatch):
    """The drawing process keeps the flight search's result while nothing within its reach changes
    (edit.flightcache): after drags near and far from the flight, each drawing is the one made
    without it, and a drag far away does not run the search again."""
    from mapkit.edit import flightcache
    from mapkit.edit.worker import draw
    from mapkit.render import flights

    data = json.loads(TINY.read_text())
    data["physical"] = {"width_mm": 900, "height_mm": 300}
    data["stations"].append({"id": "gum", "name": "Gum", "lat": 45.4, "lon": -122.3, "board": {"x": 800, "y": 150}})
    data["stations"].append({"id": "hazel", "name": "Hazel", "lat": 45.4, "lon": -122.2, "board": {"x": 860, "y": 250}})
    data["routes"].append({"from": "gum", "to": "hazel", "color": "gray", "length": 2})
    data["routes"].append({"from": "alder", "to": "fir", "color": "gray", "length": 6, "kind": "flight", "overpass": True})
    data["routes"].append({"from": "fir", "to": "gum", "color": "gray", "length": 6})

    def moved(sid, dx):
        d = json.loads(json.dumps(data))
        s = next(s for s in d["stations"] if s["id"] == sid)
        s["board"] = {"x": s["board"]["x"] + dx, "y": s["board"]["y"]}
        return json.dumps(d)

    cases = [json.dumps(data), moved("hazel", 4), moved("elm", 6), moved("hazel", -3)]
    plain = [draw({"text": t, "hash": "h"})["svg"] for t in cases]
    runs = []
    original = flightcache._ORIGINAL
    monkeypatch.setattr(flightcache, "_ORIGINAL", lambda *a: runs.append(1) or original(*a))
    monkeypatch.setattr(flights, "reroute", flightcache.reroute)
    monkeypatch.setattr(flightcache, "_KEPT", {})
    cached = []
    for t in cases:
        before = len(runs)
        cached.append(draw({"text": t, "hash": "h"})["svg"])
        runs.append(("ran", len(runs) - before))
    assert cached == plain
    searched = [n for x, n in (r for r in runs if isinstance(r, tuple))]
    assert searched == [1, 0, 1, 1]  # hazel is out of the flight's reach; elm is in it (and then hazel's
    #                                   drag, after elm's, finds elm moved back)


def test_the_state_carries_the_derived_card_deck(tmp_path):
    from mapkit.cards import derive_deck

    session, server, path = tiny_editor(tmp_path)
    try:
        cards = state(server)["cards"]
        deck = derive_deck(validate_file(path)[1])
        assert {c["id"]: c["cards"] for c in cards["colors"]} == deck.counts
        assert cards["total"] == deck.total and cards["warnings"] == list(deck.warnings)
    finally:
        server.shutdown()
        session.stop()


def test_a_first_layout_of_a_changed_file_is_estimated_from_the_last_one(tmp_path):
    import time

    from mapkit.edit import api, layout_job

    api.layout_module()[0] or pytest.skip("no mapkit.layout")
    layout_job._LAST_SECONDS.clear()
    layout_job._PER_STATION.clear()
    session, server, path = tiny_editor(tmp_path)
    try:
        code, st = call(server, "/api/layout/preview", {"hash": state(server)["hash"]})
        assert code == 200 and st["expected"] is None  # nothing to go by yet
        deadline = time.time() + 120
        while st["state"] == "running" and time.time() < deadline:
            time.sleep(0.2)
            st = call(server, f"/api/layout/status?job={st['job']}")[1]
        assert st["state"] == "done", st
        call(server, "/api/move", {"kind": "station", "id": "elm", "x": 210, "y": 215, "hash": state(server)["hash"]})
        code, again = call(server, "/api/layout/preview", {"hash": state(server)["hash"]})
        assert again["estimated"] and again["expected"] == pytest.approx(st["elapsed"], rel=0.2, abs=0.2)
        call(server, "/api/layout/cancel", {"job": again["job"]})
    finally:
        server.shutdown()
        session.stop()


def test_mapkit_edit_new_creates_an_empty_board_file(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import mapkit.cli.edit
    from mapkit.cli import main

    def interrupt():
        raise KeyboardInterrupt

    monkeypatch.setattr(mapkit.cli.edit, "wait_for_interrupt", interrupt)
    target = tmp_path / "my-city.json"
    result = CliRunner().invoke(main, ["edit", str(target), "--new", "--no-browser", "--quick-labels"])
    assert result.exit_code == 0, result.output
    assert target.read_bytes() == b"" and "start the board in the page" in result.output
    missing = CliRunner().invoke(main, ["edit", str(tmp_path / "other.json"), "--no-browser"])
    assert missing.exit_code == 2 and "--new" in missing.output
    nowhere = CliRunner().invoke(main, ["edit", str(tmp_path / "no" / "such.json"), "--new", "--no-browser"])
    assert nowhere.exit_code == 2 and "existing folder" in nowhere.output


@pytest.mark.parametrize("changes, passes", [
    ({("stations", 0, "board"): {"x": 12.5, "y": 40}}, True),
    ({("stations", 0, "board"): {"x": 6000, "y": 40}}, False),          # past the schema's 5000 mm
    ({("stations", 0, "board"): {"x": 1, "y": 2, "z": 3}}, False),
    ({("stations", 0, "pinned"): True}, False),                        # a new key: the whole file is checked
    ({("routes", 0, "length"): 3}, True),
    ({("routes", 0, "length"): 0}, False),
    ({("palette", 0, "id"): "gray"}, False),                           # reserved (the schema's "not")
    ({("ticket_decks", "standard", 0, "points"): 9}, True),
    ({("stations", 0): {"id": "alder", "name": "A", "lat": 1, "lon": 2}}, True),
])
def test_a_change_checked_by_its_values_alone_gives_the_whole_files_verdict(changes, passes):
    """The editor's fast schema check (edit.draft.values_pass) agrees with the whole-file check."""
    from mapkit.boardfile import schema_problems
    from mapkit.edit.draft import values_pass

    data = json.loads(TINY.read_text())
    assert values_pass(changes, data) is passes
    new = json.loads(json.dumps(data))
    for path, value in changes.items():
        cur = new
        for part in path[:-1]:
            cur = cur[part]
        cur[path[-1]] = value
    if passes:
        assert schema_problems(new, "t") == []
