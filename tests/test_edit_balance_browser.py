"""Decks and balance beside the map, in a real browser (headless Chromium, as tests/test_edit_browser.py):
generate a ticket deck, run a quick balance and cancel one, see the findings drawn on the map and go
stale when the board changes, and undo back to the file byte for byte.

Set MAPKIT_EDIT_SHOTS=folder to keep screenshots.
"""

import json
import os

from mapkit.boardfile import load_board
from mapkit.ticket_deck import generate

from test_edit_browser import browser, editor_on, shot  # noqa: F401 - browser is a fixture
from test_edit_tickets_generate import small_board


def gone(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_generate_tickets_then_quick_balance_with_cancel_and_findings_on_the_map(browser, tmp_path):  # noqa: F811
    (tmp_path / "source").mkdir()
    source = small_board(tmp_path / "source" / "grid.json")
    original = source.read_bytes()
    with editor_on(browser, source, tmp_path) as (page, server, session, board):
        # 1. Generate tickets: the deck mapkit tickets generate makes, written and drawn
        page.click("#generate-box summary")
        page.fill("#tg-count", "8")
        page.press("#tg-count", "Tab")
        page.wait_for_function("document.getElementById('tg-targets').textContent.includes('of')", timeout=5000)
        assert "aims at" in page.inner_text("#tg-targets")
        page.fill("#tg-seed", "1")
        loads = page.evaluate("window.mapkit.loads")
        page.click("#tg-run")
        page.wait_for_function(f"window.mapkit.loads > {loads}", timeout=30000)
        expected = generate(load_board(source), count=8, seed=1).deck_json()
        assert json.loads(board.read_bytes())["ticket_decks"]["standard"] == expected
        assert "Wrote the standard deck: 8 tickets" in page.inner_text("#tg-result")
        assert page.locator("#ticket-list li[data-ticket]").count() == 8
        assert "generate standard deck" in (page.get_attribute("#undo", "title") or "") + page.inner_text("#undo")
        shot(page, "balance-1-generated")

        # 2. A long quick balance, cancelled while it plays: its process is gone
        page.fill("#qb-games", "5000")
        page.click("#qb-run")
        page.wait_for_function("document.getElementById('qb-progress') && +document.getElementById('qb-progress').value > 0",
                               timeout=30000)
        assert "games" in page.inner_text("#qb-out") and "left" in page.inner_text("#qb-out")
        pid = page.evaluate("balanceJob.pid")
        assert not gone(pid)
        shot(page, "balance-2-running")
        page.click("#qb-cancel")
        page.wait_for_function("document.getElementById('qb-out').innerText.includes('Cancelled')", timeout=5000)
        assert gone(pid)

        # 3. A short one: its findings listed and drawn where they are
        page.fill("#qb-games", "20")
        page.click("#qb-run")
        page.wait_for_selector("ol.findings > li", timeout=60000)
        job = page.evaluate("balanceJob")
        causes = job["findings"]["causes"]
        assert causes and page.locator("#qb-out > ol.findings > li").count() == len(causes)
        text = page.inner_text("#qb-out")
        assert "What to do" in text and "games" in text
        drawn = page.evaluate("[...document.querySelectorAll('#layer-balance [data-finding]')].length")
        rings = page.evaluate("[...document.querySelectorAll('#layer-balance [data-finding-station]')]"
                              ".map((e) => e.getAttribute('data-finding-station'))")
        assert drawn == sum(len(c["routes"]) for c in causes if not c["kind"].startswith("ticket"))
        assert sorted(rings) == sorted(s for c in causes for s in c["stations"])
        shot(page, "balance-3-findings")
        # one finding alone: a ticket's whole path
        i = next(k for k, c in enumerate(causes) if c["kind"].startswith("ticket"))
        page.click(f"#qb-out > ol.findings > li:nth-child({i + 1})")
        page.mouse.move(5, 5)
        shown = page.evaluate("[...document.querySelectorAll('#layer-balance [data-finding]')].length")
        assert shown == len(causes[i]["routes"]) > 0
        shot(page, "balance-4-one-ticket")

        # 4. The board changes: the findings say they are stale and offer to run again
        loads = page.evaluate("window.mapkit.loads")
        page.click("#undo")
        page.wait_for_function(f"window.mapkit.loads > {loads}", timeout=15000)
        assert board.read_bytes() == original
        page.wait_for_selector("#qb-again", timeout=5000)
        assert "board changed since this run" in page.inner_text("#qb-out")
        shot(page, "balance-5-stale")
        # the page opened again shows the server's last run, still stale
        page.reload()
        page.wait_for_function("window.mapkit && window.mapkit.ready", timeout=15000)
        page.wait_for_selector("#qb-again", timeout=5000)
        assert page.locator("#qb-out > ol.findings > li").count() == len(causes)
    assert gone(pid)
