"""`mapkit edit` in a real browser: headless Chromium driven by Playwright (the system's browser).

Skipped with the reason when Playwright (`pip install '.[test]'`) or a Chromium (Debian's
`chromium`, installed by .ci/run) is missing. Set MAPKIT_EDIT_SHOTS=folder to keep screenshots.
"""

import hashlib
import json
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed "
                                     "(pip install '.[test]')")

CHROMIUM = next((p for p in (os.environ.get("MAPKIT_CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser"),
                             "/usr/bin/chromium") if p and Path(p).exists()), None)
if CHROMIUM is None:
    pytest.skip("no Chromium found (apt-get install chromium, or set MAPKIT_CHROMIUM)", allow_module_level=True)

from mapkit.edit import Session, serve  # noqa: E402
from mapkit.textpatch import patch_text  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "fixtures" / "tiny.json"
SHOTS = os.environ.get("MAPKIT_EDIT_SHOTS")


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        except Exception as exc:  # noqa: BLE001 - a browser that will not start is a skip, not a failure
            pytest.skip(f"Chromium at {CHROMIUM} does not start under Playwright: {exc}")
        yield b
        b.close()


@contextmanager
def editor_on(browser, source: Path, tmp_path):
    """(page, server, session, board file) of a fresh editor on a copy of source, loaded; the page's
    script errors fail the test."""
    board = tmp_path / source.name
    shutil.copy(source, board)
    session = Session(board, str(board), print_labels=False)
    server = serve(session)
    # bypass_csp: Playwright's wait_for_function evaluates strings, which the page's policy forbids
    context = browser.new_context(viewport={"width": 1280, "height": 820}, bypass_csp=True)
    errors = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url)
        page.wait_for_function("window.mapkit && window.mapkit.ready", timeout=15000)
        yield page, server, session, board
    finally:
        context.close()
        server.shutdown()
        session.stop()
    assert not errors, errors


@pytest.fixture
def page_on(browser, tmp_path):
    """(page, server, board file) of a fresh editor on a copy of the tiny board."""
    with editor_on(browser, TINY, tmp_path) as (page, server, _, board):
        yield page, server, board


def shot(page, name):
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def marker_centre(page, sid):
    box = page.locator(f'circle[data-station="{sid}"]').first.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def wait_loads(page, n, timeout=5000):
    page.wait_for_function(f"window.mapkit.loads >= {n}", timeout=timeout)
    return page.evaluate("window.mapkit.last")


def test_every_station_is_drawn(page_on):
    page, _, board = page_on
    data = json.loads(board.read_text())
    drawn = set(page.eval_on_selector_all("circle[data-station]", "els => els.map(e => e.dataset.station)"))
    assert drawn == {s["id"] for s in data["stations"]}
    names = page.eval_on_selector_all("text[data-label]", "els => els.map(e => e.textContent)")
    assert sorted(names) == sorted(s["name"] for s in data["stations"])
    routes = set(page.eval_on_selector_all("[data-route]", "els => els.map(e => e.dataset.route)"))
    assert len(routes) == len(data["routes"])
    # hovering a station names it with its tickets
    x, y = marker_centre(page, "birch")
    page.mouse.move(x, y)
    page.wait_for_function("document.getElementById('info').textContent.includes('Birch')", timeout=3000)
    assert "tickets" in page.inner_text("#info")
    shot(page, "loaded-hover")


def test_dragging_a_station_writes_only_its_position(page_on):
    page, _, board = page_on
    before = board.read_text()
    x, y = marker_centre(page, "elm")
    scale = page.evaluate("(() => { const s = document.querySelector('#map svg'); return s.getScreenCTM().a; })()")
    loads = page.evaluate("window.mapkit.loads")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 30, y - 20, steps=5)
    page.mouse.up()
    last = wait_loads(page, loads + 1)
    assert last["reason"] == "redraw after move"
    data = json.loads(board.read_text())
    elm = next(s for s in data["stations"] if s["id"] == "elm")
    assert abs(elm["board"]["x"] - (200 + 30 / scale)) < 0.6 and abs(elm["board"]["y"] - (220 - 20 / scale)) < 0.6
    old_line = next(line for line in before.splitlines() if '"id": "elm"' in line)
    new_line = old_line.replace('{"x": 200, "y": 220}', json.dumps(elm["board"], separators=(", ", ": ")))
    assert board.read_text() == before.replace(old_line, new_line)  # byte for byte elsewhere
    # the page shows the new position and can undo it
    cx = float(page.get_attribute('circle[data-station="elm"]', "cx"))
    assert abs(cx - elm["board"]["x"]) < 0.01
    page.click("#undo")
    wait_loads(page, loads + 2)
    assert board.read_text() == before
    print(f"\nredraw after a drag: {last['total_ms'] if 'total_ms' in last else last['ms']:.0f} ms")
    shot(page, "after-drag")


def test_dragging_a_waypoint_writes_only_that_waypoint(page_on):
    page, _, board = page_on
    route = '{"from": "birch", "to": "cedar", "color": "blue", "length": 4}'
    text = board.read_text().replace(route, route[:-1] + ', "waypoints": [{"x": 260, "y": 60}]}')
    loads = page.evaluate("window.mapkit.loads")
    board.write_text(text)
    wait_loads(page, loads + 1)
    handle = page.locator("rect.handle")
    assert handle.count() == 1
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 25, y + 15, steps=4)
    page.mouse.up()
    wait_loads(page, loads + 2)
    data = json.loads(board.read_text())
    wp = next(r for r in data["routes"] if r.get("waypoints"))["waypoints"][0]
    assert wp != {"x": 260, "y": 60} and wp["x"] > 260 and wp["y"] > 60
    assert board.read_text() == text.replace('{"x": 260, "y": 60}', json.dumps(wp, separators=(", ", ": ")))


def test_the_page_reloads_when_the_file_changes_outside(page_on):
    page, _, board = page_on
    loads = page.evaluate("window.mapkit.loads")
    text = patch_text(board.read_text(), {("stations", 2, "board"): {"x": 330, "y": 100}})
    start = time.perf_counter()
    board.write_text(text)
    page.wait_for_function(f"window.mapkit.loads > {loads}", timeout=3000)
    page.wait_for_function("Math.abs(+document.querySelector('circle[data-station=cedar]').getAttribute('cy') - 100) < 0.01",
                           timeout=3000)
    seconds = time.perf_counter() - start
    print(f"\nreload after an outside edit: {seconds * 1000:.0f} ms")
    assert seconds < 1.5


def test_a_broken_file_shows_its_problems_over_the_last_drawing(page_on):
    page, _, board = page_on
    loads = page.evaluate("window.mapkit.loads")
    board.write_text(board.read_text().replace('"id": "elm"', '"id": "elm",,'))
    wait_loads(page, loads + 1, 3000)
    assert "json-syntax" in page.inner_text("#problems")
    assert "does not load" in page.inner_text("#banner")
    assert page.locator("circle[data-station]").count() >= 6  # the last good drawing stays
    shot(page, "broken-file")
    # an overlap is drawn where it is
    data = json.loads(TINY.read_text())
    data["stations"][4]["board"] = {"x": 88, "y": 222}
    board.write_text(json.dumps(data, indent=2))
    wait_loads(page, loads + 2, 3000)
    assert "station-overlap" in page.inner_text("#problems")
    # (the overlap's own line: which error is listed first depends on where the spaces are placed)
    page.click("#problems li.error:has-text('station-overlap')")
    # (waited for: the page draws the selection after the click's handler returns; a bare count
    # right after the click failed once in a full run of the suite)
    page.wait_for_function("document.querySelectorAll('#layer-problems .hl-selected').length >= 2", timeout=3000)
    shot(page, "problem-selected")


def test_the_page_cannot_write_without_the_token_or_to_another_file(page_on):
    page, server, board = page_on
    before = board.read_bytes()
    digest = hashlib.sha256(before).hexdigest()
    move = {"kind": "station", "id": "elm", "x": 250, "y": 250, "hash": digest}
    no_token = page.evaluate("""async (body) => (await fetch('/api/move', {method: 'POST', body: JSON.stringify(body),
        headers: {'Content-Type': 'application/json'}})).status""", move)
    assert no_token == 403
    other = str(board.parent / "other.json")
    named = page.evaluate("""async ([body, token]) => { const r = await fetch('/api/move', {method: 'POST',
        body: JSON.stringify(body), headers: {'Content-Type': 'application/json', 'X-Mapkit-Token': token}});
        return [r.status, (await r.json()).error]; }""", [{**move, "path": other}, server.token])
    assert named[0] == 400 and "cannot name a file" in named[1]
    assert board.read_bytes() == before and not Path(other).exists()


def test_report_overlays_are_drawn(browser, tmp_path):
    (tmp_path / "boards").mkdir()
    shutil.copy(REPO / "boards" / "portland.json", tmp_path / "boards")
    (tmp_path / "reports" / "portland").mkdir(parents=True)
    shutil.copy(REPO / "reports" / "portland" / "report.json", tmp_path / "reports" / "portland")
    report = json.loads((REPO / "reports" / "portland" / "report.json").read_text())
    board = tmp_path / "boards" / "portland.json"
    session = Session(board, str(board), print_labels=False)
    server = serve(session)
    context = browser.new_context(viewport={"width": 1280, "height": 820}, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_function("window.mapkit && window.mapkit.ready", timeout=15000)
        page.select_option("#players", "4")
        page.select_option("#overlay", "heatmap")
        run = next(r for r in report["runs"] if r["players"] == 4)
        page.wait_for_function(f"document.querySelectorAll('#layer-overlay polyline').length === {len(run['route_claim_share'])}",
                               timeout=5000)
        assert f"{run['games']} games" in page.inner_text("#overlay-info")
        page.select_option("#overlay", "tickets")
        page.wait_for_function("document.querySelectorAll('#overlay-info li[data-ticket]').length > 0", timeout=5000)
        assert page.locator("#overlay-info li[data-ticket]").count() == len(run["tickets"])
        page.select_option("#overlay", "colors")
        page.wait_for_function("document.querySelectorAll('#overlay-info tr[data-color]').length > 0", timeout=5000)
        assert page.locator("#overlay-info tr[data-color]").count() == len(run["color_use"])
        shot(page, "overlay-colors")
    finally:
        context.close()
        server.shutdown()
        session.stop()


def test_undo_survives_a_reload_and_says_what_it_undoes(page_on):
    page, _, board = page_on
    before = board.read_text()
    x, y = marker_centre(page, "elm")
    loads = page.evaluate("window.mapkit.loads")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 30, y + 10, steps=4)
    page.mouse.up()
    wait_loads(page, loads + 1)
    assert board.read_text() != before
    page.reload()  # the history lives in the server's session, not in the page
    page.wait_for_function("window.mapkit && window.mapkit.ready", timeout=15000)
    assert page.inner_text("#undo") == "Undo move station elm" and page.is_enabled("#undo")
    assert not page.is_enabled("#redo")
    loads = page.evaluate("window.mapkit.loads")
    page.click("#undo")
    wait_loads(page, loads + 1)
    assert board.read_text() == before
    assert page.inner_text("#redo") == "Redo move station elm" and page.inner_text("#undo") == "Undo"


def test_a_station_can_be_dragged_by_touch(browser, tmp_path):
    board = tmp_path / "tiny.json"
    shutil.copy(TINY, board)
    session = Session(board, str(board), print_labels=False)
    server = serve(session)
    context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_function("window.mapkit && window.mapkit.ready", timeout=15000)
        x, y = marker_centre(page, "elm")
        loads = page.evaluate("window.mapkit.loads")
        # a finger on the screen: Chromium's own touch input (Playwright's touchscreen only taps)
        cdp = context.new_cdp_session(page)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        for k in range(1, 6):
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x + 6 * k, "y": y + 4 * k}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        last = wait_loads(page, loads + 1)
        assert last["reason"] == "redraw after move"
        assert page.evaluate("window.mapkit.pointer") == "touch"
        elm = next(s for s in json.loads(board.read_text())["stations"] if s["id"] == "elm")
        assert elm["board"]["x"] > 200 and elm["board"]["y"] > 220  # moved down and right, with the finger
        assert page.inner_text("#undo") == "Undo move station elm"
    finally:
        context.close()
        server.shutdown()
        session.stop()


def test_the_layout_preview_shows_its_progress_and_can_be_cancelled(browser, tmp_path):
    from mapkit.edit import api

    if api.layout_module()[0] is None:
        pytest.skip("this mapkit has no mapkit.layout")
    from mapkit.edit import layout_job

    layout_job._LAST_SECONDS.clear()  # a first layout on this server: nothing to estimate from
    layout_job._PER_STATION.clear()
    board = tmp_path / "portland.json"  # seconds of layout: time to see it run and cancel it
    shutil.copy(REPO / "boards" / "portland.json", board)
    before = board.read_bytes()
    session = Session(board, str(board), print_labels=False)
    server = serve(session)
    context = browser.new_context(viewport={"width": 1280, "height": 820}, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_function("window.mapkit && window.mapkit.ready", timeout=15000)
        page.click("#layout-preview")
        page.wait_for_selector("#layout-run:not([hidden])", timeout=5000)
        page.wait_for_function("/\\d+\\.\\d s/.test(document.getElementById('layout-elapsed').textContent)"
                               " && parseFloat(document.getElementById('layout-elapsed').textContent) > 0.3",
                               timeout=5000)
        assert "no estimate yet" in page.inner_text("#layout-elapsed")
        job = page.evaluate("layoutJob")
        status = api.layout_status(session, {"job": job})
        assert status["state"] == "running"
        shot(page, "layout-running")
        page.click("#layout-cancel")
        page.wait_for_function("document.getElementById('banner').textContent.includes('cancelled')", timeout=5000)
        assert "nothing was written" in page.inner_text("#banner")
        assert page.is_hidden("#layout-run") and page.is_hidden("#layout-box")
        assert api.layout_status(session, {"job": job})["state"] == "cancelled"
        with pytest.raises(ProcessLookupError):
            os.kill(status["pid"], 0)  # the layout's process is gone
        assert board.read_bytes() == before
    finally:
        context.close()
        server.shutdown()
        session.stop()


def test_refine_this_drawing_previews_the_board_as_drawn(browser, tmp_path):
    """The layout menu's "refine this drawing": the preview says it was refined, and Portland (a
    clean computed layout) comes back with most stations within 1 mm of where they were."""
    import math

    from mapkit.edit import api

    if api.layout_module()[0] is None:
        pytest.skip("this mapkit has no mapkit.layout")
    with editor_on(browser, REPO / "boards" / "portland.json", tmp_path) as (page, _, session, board):
        before = board.read_bytes()
        page.select_option("#layout-style", "refine")
        page.click("#layout-preview")
        page.wait_for_selector("#layout-box:not([hidden])", timeout=90000)
        text = page.inner_text("#layout-info")
        assert text.startswith("geographic (refined) layout:"), text
        assert "refined" in text and "local steps" in text
        # the figures as a table a person reads, not raw keys and JSON
        assert "mean direction error" in text and "board left empty" in text and "{" not in text
        # the stations within 1 mm of where they were (the tightening draws in a few routes)
        (_, changes, _), = api._PREVIEWS.values()
        data = json.loads(before)
        moved = {path[1]: v for path, v in changes.items() if path[0] == "stations" and path[2:] == ("board",)}
        near = sum(i not in moved or math.dist((moved[i]["x"], moved[i]["y"]), (s_["board"]["x"], s_["board"]["y"])) <= 1.0
                   for i, s_ in enumerate(data["stations"]))
        assert near >= 35, (near, len(data["stations"]))
        shot(page, "layout-refined")
        assert board.read_bytes() == before   # a preview writes nothing


# ---------------------------------------------------------------- making a board in the page

def _screen(page, x, y):
    """Where board position (x, y) mm is on the screen."""
    return page.evaluate(f"(() => {{ const s = document.querySelector('#map svg'); const p = s.createSVGPoint(); p.x = {x}; "
                         f"p.y = {y}; const q = p.matrixTransform(s.getScreenCTM()); return [q.x, q.y]; }})()")


def _loads_after(page, action, timeout=15000):
    n = page.evaluate("window.mapkit.loads")
    action()
    page.wait_for_function(f"window.mapkit.loads > {n}", timeout=timeout)
    return page.evaluate("window.mapkit.last")


SIX = [("Alder", 80, 80), ("Birch", 200, 80), ("Cedar", 320, 80), ("Dogwood", 80, 220), ("Elm", 200, 220), ("Fir", 320, 220)]


def test_a_board_is_made_in_the_page_from_an_empty_file_and_undone_to_it(browser, tmp_path):
    """An empty file, then only clicks and form fields: the board, its colors, six stations, routes
    (a double, grays, a bend), tickets and a pin; the file is valid with --strict and renders; then
    Undo, step by step, gives back the empty file byte for byte."""
    import subprocess
    import sys

    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    (tmp_path / "w").mkdir()
    with editor_on(browser, empty, tmp_path / "w") as (page, server, session, board):
        assert "empty" in page.inner_text("#banner")
        shot(page, "make-0-empty")
        page.fill("#nb-name", "Six Stops")
        page.fill("#nb-width", "400")
        page.fill("#nb-height", "300")
        _loads_after(page, lambda: page.click("#nb-start"))
        assert json.loads(board.read_text())["name"] == "Six Stops"
        page.click("#board-box summary")
        page.fill("#bd-trains", "8")
        page.fill("#bd-players", "3")
        _loads_after(page, lambda: page.click("#bd-save"))
        page.click("#palette-box summary")
        for name, hexv in (("Red Line", "#d11241"), ("Blue Line", "#114c96")):
            page.fill("#pc-new-name", name)
            page.fill("#pc-new-hex", hexv)
            _loads_after(page, lambda: page.click("#pc-add"))
        page.click("[data-mode=station]")
        for name, x, y in SIX:
            page.fill("#new-station-name", name)
            sx, sy = _screen(page, x, y)
            _loads_after(page, lambda: page.mouse.click(sx, sy))
        data = json.loads(board.read_text())
        assert [s["name"] for s in data["stations"]] == [n for n, _, _ in SIX]
        for s, (_, x, y) in zip(data["stations"], SIX):  # placed where clicked, to a click's precision
            assert abs(s["board"]["x"] - x) < 1.5 and abs(s["board"]["y"] - y) < 1.5
        shot(page, "make-1-stations")
        page.click("[data-mode=route]")
        suggested = []
        for a, b, color, second in (("alder", "birch", "red-line", "blue-line"), ("birch", "cedar", "blue-line", None),
                                    ("alder", "dogwood", "gray", None), ("birch", "elm", "red-line", None),
                                    ("cedar", "fir", "gray", None), ("dogwood", "elm", "red-line", None),
                                    ("elm", "fir", "gray", None)):
            page.mouse.click(*marker_centre(page, a))
            page.mouse.click(*marker_centre(page, b))
            page.wait_for_function("/fit|short|long/.test((document.querySelector('#rt-suggest') || {}).textContent || '')")
            suggested.append(int(page.input_value("#rt-length")))
            page.select_option("#rt-color", color)
            if second:
                page.check("#rt-double")
                page.select_option("#rt-color2", second)
            _loads_after(page, lambda: page.click("#rt-add"))
        assert all(n >= 1 for n in suggested)
        shot(page, "make-2-routes")
        page.click("[data-mode=bend]")
        sx, sy = _screen(page, 260, 222)
        _loads_after(page, lambda: page.mouse.click(sx, sy))
        page.click("[data-mode=select]")
        for a, b in (("alder", "fir"), ("dogwood", "cedar"), ("alder", "elm")):
            page.select_option("#tk-from", a)
            page.select_option("#tk-to", b)
            _loads_after(page, lambda: page.click("#tk-add"))
        _loads_after(page, lambda: page.mouse.click(*marker_centre(page, "birch"), button="right"))
        page.mouse.click(*marker_centre(page, "elm"))  # selects it: the panel edits it
        page.wait_for_function("document.getElementById('edit').textContent.includes('Station elm')")
        page.fill("#st-name", "Elm Street")
        _loads_after(page, lambda: page.click("#st-rename"))
        shot(page, "make-3-done")
        data = json.loads(board.read_text())
        assert len(data["routes"]) == 8 and len(data["ticket_decks"]["standard"]) == 3
        assert next(s for s in data["stations"] if s["id"] == "birch")["pinned"] is True
        assert next(r for r in data["routes"] if (r["from"], r["to"]) == ("elm", "fir"))["waypoints"]
        assert page.locator("#layer-picked .pin").count() == 1
        assert page.inner_text("#verdict") == "valid"
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        checked = subprocess.run([sys.executable, "-m", "mapkit", "validate", "--strict", str(board)],
                                 capture_output=True, text=True, env=env)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        out = tmp_path / "kit"
        rendered = subprocess.run([sys.executable, "-m", "mapkit", "render", str(board), "--out", str(out)],
                                  capture_output=True, text=True, env=env)
        assert rendered.returncode == 0, rendered.stdout + rendered.stderr
        assert any(p.suffix == ".pdf" for p in out.rglob("*"))
        steps = 0
        while page.is_enabled("#undo"):
            _loads_after(page, lambda: page.click("#undo"))
            steps += 1
        assert steps == 1 + 1 + 2 + 6 + 7 + 1 + 3 + 1 + 1  # every step the page made, one undo each
        assert board.read_bytes() == b""
        assert "empty" in page.inner_text("#banner")


# ---------------------------------------------------------------- what the page says and shows

def _drag(page, x, y, dx, dy):
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y + dy, steps=5)
    page.mouse.up()


def test_a_refused_write_keeps_its_reason_on_show(page_on):
    """A read-only file: the move is refused, the station goes back, and the banner keeps saying why
    (it was wiped at once by the reload that follows the refusal)."""
    import stat as stat_

    page, _, board = page_on
    board.chmod(stat_.S_IRUSR)
    try:
        cx = page.get_attribute('circle[data-station="elm"]', "cx")
        loads = page.evaluate("window.mapkit.loads")
        _drag(page, *marker_centre(page, "elm"), 40, 0)
        wait_loads(page, loads + 1)
        time.sleep(1.0)  # the long poll and the watcher have had their turn
        text = page.inner_text("#banner")
        assert "Not written" in text and "read-only" in text, text
        assert page.get_attribute('circle[data-station="elm"]', "cx") == cx  # back where the file has it
        shot(page, "refused-write")
        page.click("#banner .close")
        assert page.is_hidden("#banner")
    finally:
        board.chmod(stat_.S_IRUSR | stat_.S_IWUSR)


def test_the_red_banner_goes_when_the_file_is_fixed(page_on):
    """After a move (so there is a history for the outside edit to clear), the file broken and then
    fixed in another editor: the red banner goes with the problem."""
    page, _, board = page_on
    loads = page.evaluate("window.mapkit.loads")
    _drag(page, *marker_centre(page, "elm"), 30, 0)
    wait_loads(page, loads + 1)
    good = board.read_text()
    board.write_text(good.replace('"id": "elm"', '"id": "elm",,'))
    wait_loads(page, loads + 2)
    assert "does not load" in page.inner_text("#banner")
    board.write_text(good)
    wait_loads(page, loads + 3)
    page.wait_for_function("window.mapkit.last.version >= 3 && state.loads")
    assert "does not load" not in page.inner_text("#banner")


def test_the_hover_panel_shows_the_position_after_a_drag(page_on):
    page, _, board = page_on
    x, y = marker_centre(page, "elm")
    page.mouse.move(x, y)
    page.wait_for_function("document.getElementById('info').textContent.includes('200.0, 220.0 mm')")
    loads = page.evaluate("window.mapkit.loads")
    _drag(page, x, y, 30, 0)
    wait_loads(page, loads + 1)
    elm = next(s for s in json.loads(board.read_text())["stations"] if s["id"] == "elm")
    info = page.inner_text("#info")  # the station's own panel again, at its new position
    assert "position" in info and f"{elm['board']['x']:.1f}, {elm['board']['y']:.1f} mm" in info, info


def test_the_toolbar_is_one_line_and_names_are_readable_at_fit(browser, tmp_path):
    with editor_on(browser, REPO / "boards" / "portland.json", tmp_path) as (page, *_):
        page.click("#fit")
        page.wait_for_timeout(300)
        assert page.evaluate("document.getElementById('bar').getBoundingClientRect().height") < 45
        heights = page.eval_on_selector_all("text[data-label]", "els => els.map(e => e.getBoundingClientRect().height)")
        assert heights and min(heights) >= 9, min(heights)
        shot(page, "portland-fit")
        # zoomed in, the names are their print size again (not blown up)
        page.mouse.move(400, 400)
        for _ in range(12):
            page.mouse.wheel(0, -400)
        page.wait_for_timeout(300)
        assert page.eval_on_selector_all("text[data-label]", "els => els.filter(e => (e.getAttribute('transform') || '').includes('scale')).length") == 0
