"""The editor's server under misuse: children ended with it, idle connections closed, threads bounded,
no framing, foreign pages refused, the token kept off the browser's command line."""

import json
import os
import shutil
import socket
import stat
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from mapkit.edit import Session, serve

from test_edit import REPO, TINY, call, process_gone


@pytest.fixture
def server(tmp_path):
    path = tmp_path / "tiny.json"
    shutil.copy(TINY, path)
    session = Session(path, str(path), print_labels=False)
    srv = serve(session, idle_timeout=1.0, max_connections=8)
    yield srv
    srv.shutdown()
    session.stop()


def test_the_page_cannot_be_framed(server):
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/") as r:
        assert r.headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]


def test_a_write_from_another_origin_is_refused(server):
    path = Path(server.session.path)
    before = path.read_bytes()
    body = {"kind": "station", "id": "elm", "x": 250, "y": 250, "hash": call(server, "/api/state")[1]["hash"]}
    code, reply = call(server, "/api/move", body, headers={"Origin": "http://evil.example"})
    assert code == 403 and "evil.example" in reply["error"]
    assert path.read_bytes() == before
    code, _ = call(server, "/api/move", body, headers={"Origin": f"http://127.0.0.1:{server.port}"})
    assert code == 200


def test_idle_connections_are_closed_and_threads_bounded(server):
    """Many half-sent requests: each is closed after the idle timeout, and no more than
    max_connections threads serve them meanwhile (the others are answered 503 at once)."""
    threads_before = threading.active_count()
    socks = []
    for _ in range(40):
        s = socket.create_connection(("127.0.0.1", server.port))
        s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1")  # never finished
        socks.append(s)
    time.sleep(0.3)
    assert threading.active_count() - threads_before <= 8 + 2
    for s in socks:
        s.settimeout(5)
    closed = 0
    start = time.monotonic()
    for s in socks:
        try:
            data = s.recv(1024)
            while data and b"503" not in data:
                data = s.recv(1024)
            closed += 1
        except (socket.timeout, ConnectionResetError):
            closed += 1 if isinstance(s, socket.socket) else 0
        s.close()
    assert closed == 40 and time.monotonic() - start < 5
    time.sleep(0.5)
    assert threading.active_count() - threads_before <= 2
    # the editor still answers
    assert call(server, "/api/state")[0] == 200


def test_the_browser_is_opened_on_a_private_redirect_file(server):
    page = server.redirect_file()
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
    assert stat.S_IMODE(page.parent.stat().st_mode) == 0o700
    assert server.token in page.read_text() and server.token not in str(page)
    server.shutdown()
    assert not page.exists()


def test_the_cli_opens_the_redirect_file_not_the_tokened_address(tmp_path, monkeypatch):
    import webbrowser

    from click.testing import CliRunner

    from mapkit.cli import main
    import mapkit.cli.edit  # noqa: F401 - registers the command

    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    def interrupt():
        raise KeyboardInterrupt

    monkeypatch.setattr(mapkit.cli.edit, "wait_for_interrupt", interrupt)
    board = tmp_path / "tiny.json"
    shutil.copy(TINY, board)
    result = CliRunner().invoke(main, ["edit", str(board), "--quick-labels"])
    assert result.exit_code == 0, result.output
    assert opened and opened[0].startswith("file://") and "token" not in opened[0]


def test_parallel_layout_previews_leave_no_process_after_shutdown(tmp_path):
    """Previews asked at the same moment (two tabs) each start a process; every one of them is
    ended when the editor stops."""
    from mapkit.edit import api

    api.layout_module()[0] or pytest.skip("no mapkit.layout")
    path = tmp_path / "portland.json"
    shutil.copy(REPO / "boards" / "portland.json", path)
    session = Session(path, str(path), print_labels=False)
    srv = serve(session)
    h = call(srv, "/api/state")[1]["hash"]
    replies = []

    def start():
        replies.append(call(srv, "/api/layout/preview", {"hash": h, "style": "geographic"}))

    starters = [threading.Thread(target=start) for _ in range(4)]
    for t in starters:
        t.start()
    for t in starters:
        t.join()
    pids = [r["pid"] for code, r in replies if code == 200]
    assert len(pids) == 4
    srv.shutdown()
    session.stop()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and not all(process_gone(p) for p in pids):
        time.sleep(0.05)
    assert all(process_gone(p) for p in pids), [p for p in pids if not process_gone(p)]


def test_the_drawing_process_ends_with_the_session(tmp_path):
    path = tmp_path / "tiny.json"
    shutil.copy(TINY, path)
    session = Session(path, str(path), print_labels=True)
    srv = serve(session)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (session._worker is None or session._worker.proc is None):
        time.sleep(0.05)
    pid = session._worker.proc.pid
    srv.shutdown()
    session.stop()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and not process_gone(pid):
        time.sleep(0.05)
    assert process_gone(pid)


def test_os_is_posix():
    assert os.name == "posix"  # process groups and file modes above are POSIX's
