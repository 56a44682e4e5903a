"""Quick balance in the editor: a short balance report played in a child process (its own process
group) with progress and cancel, whose findings are the report's causes and verdicts placed on the map.

A real server runs on 127.0.0.1 for each test (urllib talks to it as the page does). The tiny board
plays a few dozen games in well under a second.
"""

import json
import os
import shutil
import subprocess
import time

import networkx as nx
import pytest

from mapkit.balance.panel import default_panel
from mapkit.balance.reference import reference_for
from mapkit.balance.report import balance_report
from mapkit.boardfile import load_board
from mapkit.edit import Session, serve
from mapkit.edit.api import _ticket_paths
from mapkit.edit.balance_job import findings
from mapkit.edit.worker import child_command, child_env, send
from mapkit.textpatch import DELETE, patch_text

from test_edit import REPO, TINY, call

PORTLAND = REPO / "boards" / "portland.json"


@pytest.fixture
def editor(tmp_path):
    """(server, file): an editor on a copy of the tiny board."""
    path = tmp_path / "tiny.json"
    shutil.copy(TINY, path)
    session = Session(path, str(path), print_labels=False)
    server = serve(session)
    yield server, path
    server.shutdown()
    session.stop()


def start(server, expect=200, **body):
    body["hash"] = call(server, "/api/state")[1]["hash"]
    code, reply = call(server, "/api/balance/run", body)
    assert code == expect, reply
    return reply


def follow(server, st, timeout=60):
    end = time.monotonic() + timeout
    seen = [st]
    while st["state"] == "running":
        assert time.monotonic() < end, st
        time.sleep(0.1)
        st = call(server, f"/api/balance/status?job={st['job']}")[1]
        seen.append(st)
    return st, seen


def gone(pid: int) -> bool:
    try:
        os.killpg(pid, 0)   # the child led its own group: nothing of it may be left
    except ProcessLookupError:
        return True
    return False


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if gone(pid):
            return True
        time.sleep(0.05)
    return gone(pid)


def test_findings_are_the_reports_causes_placed_on_the_map(editor):
    server, path = editor
    st, seen = follow(server, start(server, games=24, players="2,3", seed=5))
    assert st["state"] == "done", st
    assert st["done"] == st["total"] == st["findings"]["games"] >= 48 and not st["stale"]  # whole seat rotations
    assert any(0 < s["done"] < s["total"] for s in seen) or len(seen) <= 3   # progress as games finish
    got = st["findings"]
    # the same as the report mapkit.balance makes of these games (reused, not forked), whatever its --jobs
    board = load_board(path)
    panel = default_panel()
    report = balance_report(board, [2, 3], 24, panel, 5, jobs=2, reference=reference_for(panel, [2, 3], 24, 5),
                            tested=0)
    assert got == json.loads(json.dumps(findings(report, board, _ticket_paths(board))))
    assert got["causes"], "the tiny board's report finds causes"
    assert got["seed"] == 5 and got["panel"] == panel
    routes = {r.id: r for r in board.routes}
    g = nx.Graph()
    for r in board.routes:
        if g.has_edge(r.a, r.b):
            g[r.a][r.b]["length"] = min(g[r.a][r.b]["length"], r.length)
        else:
            g.add_edge(r.a, r.b, length=r.length)
    tickets = {f"{t.a}-{t.b}": t for deck in board.ticket_decks.values() for t in deck}
    placed = 0
    for c in got["causes"]:
        assert c["change"] or c["kind"] == "seat-advantage"
        assert all(rid in routes for rid in c["routes"]) and all(sid in g for sid in c["stations"])
        if c["kind"].startswith("ticket"):
            t = tickets[c["subjects"][0]]
            assert set(c["stations"]) == {t.a, t.b}
            # the routes drawn are a shortest connection of the ticket's stations
            sub = nx.Graph()
            for rid in c["routes"]:
                sub.add_edge(routes[rid].a, routes[rid].b, length=routes[rid].length)
            assert nx.has_path(sub, t.a, t.b)
            assert nx.shortest_path_length(sub, t.a, t.b, weight="length") == \
                nx.shortest_path_length(g, t.a, t.b, weight="length")
            placed += 1
        if c["kind"] == "color-short":
            assert c["routes"] and {routes[rid].color for rid in c["routes"]} == {c["subjects"][0]}
            placed += 1
        assert c["verdicts"] or c["kind"] == "deck-runs-out"
        for text in c["verdicts"]:
            assert "interval" in text and "games" in text          # the uncertainty, in the report's words
        if c["agent_dependent"]:
            assert any("depends on the agents" in text for text in c["verdicts"])
    assert placed
    for v in got["disputed"]:
        assert "AI players disagree" in v["text"]


def test_the_findings_go_stale_when_the_board_changes(editor):
    server, path = editor
    st, _ = follow(server, start(server, games=12, players="2"))
    assert st["state"] == "done" and not st["stale"]
    text = path.read_text(encoding="utf-8")
    path.write_text(patch_text(text, {("ticket_decks", "standard", 0, "points"): 14}), encoding="utf-8")
    server.session.refresh()
    st = call(server, f"/api/balance/status?job={st['job']}")[1]
    assert st["stale"] and st["state"] == "done"
    assert call(server, "/api/balance/status")[1] == st   # a page opened again finds the last run


def test_no_run_yet_is_a_clear_404(editor):
    server, _ = editor
    code, reply = call(server, "/api/balance/status")
    assert code == 404 and "run it again" in reply["error"]


def test_cancel_kills_the_child_at_once(tmp_path):
    path = tmp_path / "portland.json"
    shutil.copy(PORTLAND, path)
    session = Session(path, str(path), print_labels=False)
    server = serve(session)
    try:
        st = start(server, games=5000)
        pid = st["pid"]
        assert not gone(pid)
        while st["done"] == 0:   # playing: the estimate comes with the first games
            time.sleep(0.1)
            st = call(server, f"/api/balance/status?job={st['job']}")[1]
        assert st["state"] == "running" and st["first_progress"] is not None
        t0 = time.monotonic()
        code, st = call(server, "/api/balance/cancel", {"job": st["job"]})
        assert code == 200 and st["state"] == "cancelled"
        assert gone(pid), "the child is gone when cancel answers"
        assert time.monotonic() - t0 < 2
        # a new run replaces one still running, and stopping the server stops it
        pid2 = start(server, games=5000)["pid"]
        pid3 = start(server, games=5000)["pid"]
        assert wait_gone(pid2, 2) and not gone(pid3)
    finally:
        server.shutdown()
        session.stop()
    assert gone(pid3), "no child outlives the server"


def test_the_child_stops_when_its_parent_goes():
    """A server killed outright closes the child's stdin: the child stops instead of playing on."""
    data = json.loads(PORTLAND.read_text(encoding="utf-8"))
    proc = subprocess.Popen(child_command("mapkit.edit.balance_job"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=child_env(), start_new_session=True)
    try:
        send(proc.stdin, {"data": data, "players": [2], "games": 5000, "seed": 0})
        proc.stdout.read(8)          # its first progress frame: it is playing
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("body, status, words", [
    ({"games": 5}, 400, "10 to 20000"),
    ({"players": "2,7"}, 400, "play 2 to 3 players"),
    ({"players": "two"}, 400, "not a list of numbers"),
    ({"seed": -1}, 400, "seed"),
    ({"file": "x.json"}, 400, "cannot name a file"),
])
def test_bad_options_are_refused_with_the_reason(editor, body, status, words):
    server, _ = editor
    reply = start(server, status, **body)
    assert words in reply["error"]


def test_a_board_without_tickets_says_what_it_needs(editor):
    server, path = editor
    path.write_text(patch_text(path.read_text(encoding="utf-8"), {("ticket_decks",): DELETE}), encoding="utf-8")
    server.session.refresh()
    reply = start(server, 409)
    assert "Generate tickets" in reply["error"]


def test_a_finished_child_exits_cleanly():
    """After its result the child's interpreter shuts down without an error (its stdin watcher
    must not hold the buffered stdin's lock then)."""
    from mapkit.edit.worker import receive

    data = json.loads(TINY.read_text(encoding="utf-8"))
    for _ in range(2):   # (the error showed in most runs, not all)
        proc = subprocess.Popen(child_command("mapkit.edit.balance_job"), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env())
        send(proc.stdin, {"data": data, "players": [2], "games": 10, "seed": 0})
        while (frame := receive(proc.stdout)) is not None and "progress" in frame:
            pass
        assert frame is not None and "report" in frame
        err = proc.stderr.read()   # until the child has gone (stdin still open: it ends on its own)
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0 and b"Fatal" not in err, err.decode()
