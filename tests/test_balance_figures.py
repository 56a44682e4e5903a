"""The balance report's figures and report.html (mapkit.balance.figures, mapkit.balance.html).

Two inputs: a synthetic report for the tiny fixture board (every number chosen, so the pictures
can be checked pixel by pixel), and a report made from games really played on Portland with the
existing engine, mapped by `played_report` below to the report.json shape the report writes
(fewer games than a real report: it checks that real data draws, not what Portland's balance is).

Set MAPKIT_FIGURES_DEMO to a folder to write a 50-games-per-agent Portland report there to look at.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mapkit.boardfile import load_board
from mapkit.geometry import Layout
from mapkit.resources import resolve_board

from mapkit.balance import figures, html

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "fixtures" / "tiny.json"
HOSTILE = 'Alder <script>alert("x")</script> & Sons'


# ------------------------------------------------------------------ a synthetic report for the tiny board


def tiny_report(board) -> dict:
    shares = {"alder-birch#1": 0.95, "alder-birch#2": 0.05, "birch-cedar": 0.0, "alder-dogwood": 0.4,
              "birch-elm": 0.7, "cedar-fir": 0.2, "dogwood-elm": 0.55}   # elm-fir left out: "no data"
    tickets = []
    for i, t in enumerate(board.ticket_decks["standard"]):
        c = [0.92, 0.15, 0.8, 0.6, 0.5, 0.7, 0.35, 0.88][i]
        tickets.append({"ticket": f"{t.a}-{t.b}", "points": t.points, "offered": 100, "kept": 60 + i,
                        "keep_rate": (60 + i) / 100, "keep_low": (50 + i) / 100, "keep_high": (70 + i) / 100, "held": 40 + 5 * i, "completed": round(c * (40 + 5 * i)),
                        "completion": c, "low": max(0.0, c - 0.12), "high": min(1.0, c + 0.1),
                        "net_points_per_holding": round(t.points * (2 * c - 1), 2),
                        "holder_win_share": 0.5, "holder_low": 0.4, "holder_high": 0.6})
    runs = []
    for n in (2, 3):
        seat = [{"share": s, "low": s - 0.05, "high": s + 0.05} for s in ([0.56, 0.44] if n == 2 else [0.4, 0.33, 0.27])]
        runs.append({
            "players": n, "games": 400,
            "seat_win_share": seat,
            "first_seat_edge": {"win_share": seat[0]["share"] - 1 / n, "low": 0.01, "high": 0.12,
                                "score": 3.2, "score_low": 1.0, "score_high": 5.4},
            "score_by_seat": [{"mean": 60 - 2 * i, "low": 57 - 2 * i, "high": 63 - 2 * i} for i in range(n)],
            "margins": {"edges": [0, 5, 10, 15, 20, 30, 40], "counts": [80, 120, 90, 60, 40, 10]},
            "longest_decides": {"share": 0.18, "low": 0.14, "high": 0.22},
            "tickets": tickets, "rarely_kept": ["birch-dogwood"],
            "route_claim_share": shares,
            "color_use": {"red": {"claimed_share": 0.6, "low": 0.55, "high": 0.65, "wilds_per_claim": 0.4},
                          "blue": {"claimed_share": 0.3, "low": 0.25, "high": 0.35, "wilds_per_claim": 0.9},
                          "gray": {"claimed_share": 0.45, "low": 0.4, "high": 0.5}},
        })
    return {
        "board": "tiny", "name": board.name, "rules": "standard", "seed": 7,
        "panel": ["route-focus", "expert", "ticket-hungry"], "max_games": 2000, "runs": runs,
        "verdicts": [   # the fine one first: the page must put it last
            {"kind": "ticket-too-easy", "subject": "alder-fir", "players": 2, "verdict": "robust", "finding": False,
             "agents": ["route-focus", "expert", "ticket-hungry"], "estimate": 0.62, "low": 0.5, "high": 0.72,
             "cutoff": 0.9, "games": 400},
            {"kind": "seat-advantage", "subject": "first seat", "players": 2, "verdict": "robust", "finding": True,
             "agents": ["route-focus", "expert", "ticket-hungry"], "estimate": 0.06, "low": 0.041, "high": 0.12,
             "cutoff": 0.03, "games": 400, "text": "2 players: the first seat has an <advantage>"},
            {"kind": "hard-ticket", "subject": "dogwood-cedar <13>", "players": 3, "verdict": "agent-dependent",
             "agents": {"route-focus": "hard", "expert": "fine"}},
            {"kind": "route-rarely-claimed", "subject": "birch-cedar", "players": 2, "verdict": "needs-games",
             "agents": [], "estimate": 0.0, "low": 0.0, "high": 0.0602, "cutoff": 0.05, "games": 400,
             "games_needed": 5860},
        ],
        "deck_warnings": ["red & blue are <scarce>"],
    }


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    data = json.loads(TINY.read_text())
    data["stations"][0]["name"] = HOSTILE
    data["name"] = "Tiny <Board> & Co"
    path = tmp_path_factory.mktemp("board") / "tiny.json"
    path.write_text(json.dumps(data))
    return load_board(path)


@pytest.fixture(scope="module")
def tiny_out(tiny, tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-report")
    report = tiny_report(tiny)
    page = html.write_html(report, tiny, out, markdown="# Balance report: Tiny <Board>\n\n- a & b\n")
    return tiny, report, out, page


def test_figures_are_pngs_of_plausible_size(tiny_out):
    _, report, out, _ = tiny_out
    names = ["heatmap-2p.png", "heatmap-3p.png", "completion-vs-points.png", "seat-shares.png", "margins.png"]
    for name in names:
        with Image.open(out / name) as im:
            im.verify()
        with Image.open(out / name) as im:
            w, h = im.size
            assert 600 <= w <= 4000 and 300 <= h <= 4000, (name, im.size)
            # not a blank canvas: a drawn figure has many colors
            assert len(im.convert("RGB").getcolors(1 << 20)) > 50, name
    assert not list(out.glob("*.tmp")), "a temporary file was left behind"


def _rgb(im, xy):
    return np.array(im.getpixel(xy)[:3], dtype=float)


def test_heatmap_colors_spaces_by_claim_share(tiny_out):
    board, report, out, _ = tiny_out
    layout = Layout(board)
    with Image.open(out / "heatmap-2p.png") as im:
        im = im.convert("RGB")

        def centre(rid, i=0):  # the first space: the percentage is written in the middle one
            corners = layout.routes[rid].spaces[i]
            return figures.heatmap_pixel(board, (sum(p[0] for p in corners) / 4, sum(p[1] for p in corners) / 4))

        hot, cold, none = _rgb(im, centre("alder-birch#1")), _rgb(im, centre("birch-cedar")), _rgb(im, centre("elm-fir"))
        expected = {k: np.array(figures.CMAP(v)[:3]) * 255 for k, v in (("hot", 0.95), ("cold", 0.0))}
        assert np.abs(hot - expected["hot"]).max() < 12, hot
        assert np.abs(cold - expected["cold"]).max() < 12, cold
        assert np.abs(hot - cold).sum() > 200
        assert np.abs(none - np.array([0xd9, 0xd9, 0xd9])).max() < 12, none
        # the second track of the double is drawn beside the first, in its own (cold) color
        beside = _rgb(im, centre("alder-birch#2"))
        assert np.abs(beside - np.array(figures.CMAP(0.05)[:3]) * 255).max() < 12


def test_pngs_are_byte_stable(tiny, tiny_out, tmp_path):
    _, report, out, _ = tiny_out
    figures._last.clear()   # draw again rather than reuse the last render
    again = figures.write_figures(report, tiny, tmp_path)
    for path in again:
        assert path.read_bytes() == (out / path.name).read_bytes(), path.name


def test_html_is_self_contained_and_escaped(tiny_out):
    board, report, out, page = tiny_out
    text = page.read_text(encoding="utf-8")
    assert page == out / "report.html"
    assert not re.search(r"https?://", text)
    assert not re.search(r"<(link|script)\b", text, re.I)   # no external CSS, no scripts at all
    assert "<script>alert" not in text and "&lt;script&gt;alert" in text    # the hostile station name
    assert "Tiny &lt;Board&gt; &amp; Co" in text and "<Board>" not in text
    assert "&lt;scarce&gt;" in text and "dogwood-cedar &lt;13&gt;" in text
    # every figure embedded, none fetched from a path
    imgs = re.findall(r'<img [^>]*src="([^"]+)"', text)
    assert len(imgs) == 5 and all(src.startswith("data:image/png;base64,") for src in imgs)
    # the verdicts come first, each with its class and agents: problems every agent agrees on,
    # then agent-dependent, those that need games, and what was found fine last
    assert text.index("Verdicts") < text.index("<img")
    rows = re.findall(r'<tr class="verdict ([a-z -]+)"', text)
    assert rows == ["robust", "agent-dependent", "needs-games", "robust fine"]
    assert '<span class="nw">route-focus: hard</span>' in text
    assert '<span class="nw">route-focus</span>, <span class="nw">expert</span>, <span class="nw">ticket-hungry</span>' in text
    assert "▲ robust: act" in text and "✔ robust: fine" in text
    assert "+6.0 pp" in text and ">+3.0 pp<" in text                # a difference of shares and its cut-off, in points
    assert "about 5,860 more needed" in text                         # what a verdict that needs games would need
    assert 'title="2 players: the first seat has an &lt;advantage&gt;"' in text and 'title="alder-fir"' in text
    assert "Alder &lt;script&gt;" in text.split("Figures")[0]         # the ticket verdict by its stations' names


def test_html_tables_carry_intervals(tiny_out):
    board, report, out, page = tiny_out
    text = page.read_text(encoding="utf-8")
    # a ticket by its stations' names, with its completion interval (dogwood-cedar: 15 %, 3–25 %)
    assert "Dogwood – Cedar" in text
    assert re.search(r"15\s*%.{0,80}3\s*–\s*25\s*%", text, re.S)
    assert "56 %" in text and "51 – 61 %" in text   # seat 1 at two players
    assert "Red Line" in text                        # color use by the palette's names
    assert re.search(r"Birch – Dogwood <span class=\"badge\">rarely kept</span>", text)
    assert "60 %" in text and "50 – 70 %" in text     # the first ticket's keep rate and its interval


def test_missing_optional_keys_do_not_break(tiny, tmp_path):
    # a bare run, and a solo run whose seat and margin figures are empty (there is no runner-up)
    bare = {"board": "tiny", "name": "Tiny", "runs": [
        {"players": 2, "games": 10},
        {"players": 1, "games": 10, "seat_win_share": [{"share": 1.0, "low": None, "high": None}],
         "first_seat_edge": {"win_share": None, "low": None, "high": None, "score": None},
         "margins": {"edges": [0], "counts": []}, "tickets": [{"ticket": "no-such-ticket", "points": 5}],
         "route_claim_share": {"birch-cedar": None, "alder-dogwood": 1.5}}]}
    page = html.write_html(bare, tiny, tmp_path)
    text = page.read_text(encoding="utf-8")
    assert "no verdicts" in text.lower() and "1 player —" in text
    for name in ("heatmap-1p.png", "heatmap-2p.png", "completion-vs-points.png", "seat-shares.png", "margins.png"):
        assert (tmp_path / name).stat().st_size > 1000


def test_atomic_write_keeps_the_old_file_when_it_fails(tmp_path, monkeypatch):
    path = tmp_path / "margins.png"
    path.write_bytes(b"old")

    def refuse(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(figures.os, "replace", refuse)
    from mapkit.errors import MapkitError

    with pytest.raises((OSError, MapkitError)):  # mapkit.outputs names the path in a MapkitError
        figures.atomic_write(path, b"new")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["margins.png"]
    monkeypatch.undo()
    figures.atomic_write(path, b"new")
    assert path.read_bytes() == b"new"
    # mkstemp makes a private file; the report gets the mode any file the user writes gets
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~figures._umask()


def test_ticket_labels_match_the_board(tiny):
    deck, t = figures.ticket_ref(tiny, "standard:dogwood-cedar")
    assert deck == "standard" and (t.a, t.b, t.points) == ("dogwood", "cedar", 13)
    assert figures.ticket_ref(tiny, "tiny:dogwood-cedar")[1] is t   # an unknown prefix is ignored
    assert figures.ticket_ref(tiny, "nowhere-else") == (None, None)
    assert figures.ticket_title(tiny, "nowhere-else") == "nowhere-else"


# ------------------------------------------------------------------ a report from games played on Portland


def wilson(k: float, n: float, z: float = 1.96) -> tuple[float, float]:
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def mean_ci(xs) -> tuple[float, float, float]:
    xs = np.asarray(xs, dtype=float)
    m = float(xs.mean())
    h = 1.96 * float(xs.std(ddof=1)) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return m, m - h, m + h


def played_report(board, players=(2, 3, 4, 5), games=20, panel=("route-focus", "long-route"), seed=0) -> dict:
    """Games played with the existing engine (self-play per agent, pooled per player count),
    summarised in report.json's shape. Offers of tickets and wilds spent are not recorded by the
    engine's game result, so those keys are left out (the figures must cope)."""
    from mapkit.sim.batch import pool_labels
    from mapkit.sim.rules import rules_for_board
    from mapkit.sim.runner import game_seeds, play_game
    from mapkit.sim.tables import build_tables

    rules = rules_for_board(board, None, ())
    t = build_tables(board)
    labels = pool_labels(t, rules)
    points = [x[2] for deck in rules.ticket_decks for x in t.ticket_decks.get(deck, ())]
    by_id = {r.id: r for r in board.routes}
    runs, verdicts = [], []
    for n in players:
        wins = np.zeros(n)
        scores, margins, decides = [], [], 0
        tick: dict[int, list[float]] = {}
        claims: dict[str, int] = {}
        color_games: dict[str, list[float]] = {}
        edge_by_agent = {}
        played = 0
        for ai, agent in enumerate(panel):
            first = 0.0
            for s in game_seeds(seed * 1000 + n * 10 + ai, games):
                r = play_game(t, rules, [agent] * n, s)
                played += 1
                totals = [row["total"] for row in r["scores"]]
                share = {p: 1 / len(r["winners"]) for p in r["winners"]}
                for p, v in share.items():
                    wins[p] += v
                first += share.get(0, 0.0)
                scores.append(totals)
                top = sorted(totals, reverse=True)
                margins.append(top[0] - top[1])
                without = [row["total"] - row["longest_bonus"] for row in r["scores"]]
                if {p for p, v in enumerate(without) if v == max(without)} != set(r["winners"]):
                    decides += 1
                for row in r["scores"]:
                    for i, ok in row["results"]:
                        x = tick.setdefault(i, [0, 0, 0.0, 0.0])
                        x[0] += 1
                        x[1] += ok
                        x[2] += points[i] if ok else -points[i]
                        x[3] += share.get(row["seat"], 0.0)
                taken = {t.route_ids[i] for i in r["claims"]}
                for rid in taken:
                    claims[rid] = claims.get(rid, 0) + 1
                seen_double: set = set()
                avail: dict[str, int] = {}
                used: dict[str, int] = {}
                for rt in board.routes:
                    if rt.double and n < rules.double_routes_min_players:
                        if rt.double in seen_double:  # only one track of it can be taken
                            continue
                        seen_double.add(rt.double)
                        pair = [x for x in board.routes if x.double == rt.double]
                        took = any(x.id in taken for x in pair)
                    else:
                        took = rt.id in taken
                    avail[rt.color] = avail.get(rt.color, 0) + rt.length
                    used[rt.color] = used.get(rt.color, 0) + rt.length * took
                for c in avail:
                    color_games.setdefault(c, []).append(used[c] / avail[c])
            lo, hi = wilson(first, games)
            edge_by_agent[agent] = (lo - 1 / n, hi - 1 / n)
        g = played
        seat = []
        for p in range(n):
            lo, hi = wilson(wins[p], g)
            seat.append({"share": wins[p] / g, "low": lo, "high": hi})
        arr = np.array(scores, dtype=float)
        diff = arr[:, 0] - (arr[:, 1:].sum(axis=1) / (n - 1))
        m, mlo, mhi = mean_ci(diff)
        edges = list(range(0, int(max(margins)) + 10, 5))
        counts = [sum(1 for x in margins if a <= x < b) for a, b in zip(edges, edges[1:])]
        tickets = []
        for i, (held, done, net, hw) in sorted(tick.items()):
            lo, hi = wilson(done, held)
            hlo, hhi = wilson(hw, held)
            tickets.append({"ticket": labels[i], "points": points[i], "held": held, "completed": done,
                            "completion": done / held, "low": lo, "high": hi,
                            "net_points_per_holding": net / held, "holder_win_share": hw / held,
                            "holder_low": hlo, "holder_high": hhi})
        dlo, dhi = wilson(decides, g)
        runs.append({
            "players": n, "games": g, "seat_win_share": seat,
            "first_seat_edge": {"win_share": seat[0]["share"] - 1 / n, "low": seat[0]["low"] - 1 / n,
                                "high": seat[0]["high"] - 1 / n, "score": m, "score_low": mlo, "score_high": mhi},
            "score_by_seat": [dict(zip(("mean", "low", "high"), mean_ci(arr[:, p]))) for p in range(n)],
            "margins": {"edges": edges, "counts": counts},
            "longest_decides": {"share": decides / g, "low": dlo, "high": dhi},
            "tickets": tickets,
            "route_claim_share": {rid: claims.get(rid, 0) / g for rid in by_id},
            "color_use": {c: dict(zip(("claimed_share", "low", "high"), mean_ci(v))) for c, v in sorted(color_games.items())},
        })
        # a verdict on the first seat from each agent's own games: it holds for an agent when
        # the interval of its excess win share clears zero
        holds = [a for a, (lo, hi) in edge_by_agent.items() if lo > 0 or hi < 0]
        verdict = "robust" if len(holds) == len(panel) and len({lo > 0 for lo, _ in edge_by_agent.values()}) == 1 \
            else "agent-dependent" if holds else "needs-games"
        verdicts.append({"kind": "seat-advantage", "subject": "seat 1", "players": n, "verdict": verdict,
                         "agents": holds or list(panel)})
    return {"board": board.id, "name": board.name, "rules": rules.name, "seed": seed, "panel": list(panel),
            "max_games": games * len(panel), "runs": runs, "verdicts": verdicts, "deck_warnings": []}


@pytest.fixture(scope="module")
def portland():
    return load_board(resolve_board("portland"))


def test_portland_played_report_draws(portland, tmp_path):
    report = played_report(portland, players=(4,), games=10)
    page = html.write_html(report, portland, tmp_path, markdown=None)
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"https?://", text)
    for v in report["verdicts"]:
        assert re.search(f'class="verdict {v["verdict"]}[ "]', text)
    layout = Layout(portland)
    run = report["runs"][0]
    shares = run["route_claim_share"]
    # the most and a least claimed route of the four-player games: their spaces must differ in color
    hot = max(shares, key=lambda r: (shares[r], r))
    cold = min(shares, key=lambda r: (shares[r], r))
    assert shares[hot] - shares[cold] >= 0.5
    with Image.open(tmp_path / "heatmap-4p.png") as im:
        im = im.convert("RGB")
        px = [_rgb(im, figures.heatmap_pixel(portland, tuple(np.mean(layout.routes[rid].spaces[0], axis=0))))
              for rid in (hot, cold)]
        for rid, got in zip((hot, cold), px):
            assert np.abs(got - np.array(figures.CMAP(shares[rid])[:3]) * 255).max() < 14, (rid, got)
    assert {p.name for p in tmp_path.glob("*.png")} == {"heatmap-4p.png", "completion-vs-points.png", "seat-shares.png",
                                                        "margins.png"}


@pytest.mark.skipif(not os.environ.get("MAPKIT_FIGURES_DEMO"), reason="set MAPKIT_FIGURES_DEMO=folder to write the demo")
def test_portland_demo(portland):
    out = Path(os.environ["MAPKIT_FIGURES_DEMO"])
    report = played_report(portland, games=50)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(report, indent=1))
    html.write_html(report, portland, out)
