"""Statistics, the panel's seats and seeds, verdict logic, and workers dying with their parent."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from mapkit.balance import stats as st
from mapkit.balance.panel import panel_tables, rotation
from mapkit.balance.verdicts import judge
from mapkit.sim.batch import Totals
from mapkit.sim.runner import game_seeds, play_game
from simhelp import rules, tiny_tables

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (50, 100), (99, 100), (7, 7), (1, 1000)])
def test_wilson_matches_scipy(k, n):
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    lo, hi = st.wilson(k, n)
    assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)


def test_wilson_textbook_and_fractional():
    # Newcombe (1998), example: 81 of 263 -> 0.2553 to 0.3662
    lo, hi = st.wilson(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    # split wins are fractional: the interval lies between those of the neighbouring whole counts
    lo2, hi2 = st.wilson(40.5, 100)
    assert st.wilson(40, 100)[0] < lo2 < st.wilson(41, 100)[0]
    assert st.wilson(0, 0) == (0.0, 1.0)




def test_mean_interval_matches_scipy():
    rng = np.random.default_rng(1)
    x = rng.normal(3, 2, 57)
    mean, lo, hi = st.mean_interval(x.sum(), (x * x).sum(), len(x))
    want = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert mean == pytest.approx(x.mean()) and (lo, hi) == pytest.approx(want)


def test_one_sided_p_values_match_binomtest():
    above, below = st.p_counts_beyond([3, 12, 0], [40, 40, 40], 0.15)
    for k, a, b in zip([3, 12, 0], above, below):
        assert a == pytest.approx(stats.binomtest(k, 40, 0.15, alternative="greater").pvalue)
        assert b == pytest.approx(stats.binomtest(k, 40, 0.15, alternative="less").pvalue)
    pa, pb = st.p_mean_beyond(30.0, 100.0, 10, 1.0)  # mean 3, sd > 0
    assert pa < 0.05 < pb


def test_games_needed():
    near = st.games_needed(0.52, 0.5, 0.53, 1.0, 100)
    far = st.games_needed(0.60, 0.5, 0.53, 1.0, 100)
    assert near > far >= 1
    assert st.games_needed(0.53, 0.5, 0.53, 1.0, 100) is None  # on the cut-off: never decided


def test_ties_split_and_sum_to_the_games():
    assert sum(st.split_ties([0, 2, 3], 5)) == pytest.approx(1)
    assert st.split_ties([1], 3) == [0, 1, 0]
    t = tiny_tables()
    tot = Totals(3)
    for i, seed in enumerate(game_seeds(4, 12)):
        r = play_game(t, rules(), ["route-focus"] * 3, seed)
        if i % 4 == 0:
            r["winners"] = [0, 1, 2] if i % 8 == 0 else [1, 2]  # force shared wins
        tot.add(r)
    assert sum(tot.win_units) == tot.unit * tot.games  # exact, whatever the ties
    assert sum(tot.win_shares) == pytest.approx(12)
    assert tot.win_shares[0] < tot.wins[0] or tot.shared_wins


def test_seeds_independent_per_player_count_and_table():
    # the old SeedSequence(seed + players) made seed s at n players equal seed s+1 at n-1
    assert game_seeds([5, 3, 0], 4) != game_seeds([6, 2, 0], 4)
    assert game_seeds([5, 3, 0], 4) != game_seeds([5, 3, 1], 4)
    tb = panel_tables(["route-focus", "one-step"])[0]
    assert tb.games(5, 3, 0, 4) != panel_tables(["route-focus", "one-step"])[0].games(6, 2, 0, 4)


def test_batches_do_not_change_games():
    tb = panel_tables(["route-focus", "ticket-hungry", "one-step"])[3]
    whole = tb.games(9, 4, 0, 12)
    assert whole == tb.games(9, 4, 0, 5) + tb.games(9, 4, 5, 7)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_seat_rotation_gives_each_agent_each_seat(players):
    panel = ["route-focus", "ticket-hungry", "one-step"]
    mixed = [tb for tb in panel_tables(panel) if tb.mixed][0]
    m = rotation(panel)
    for start in (0, m):  # every whole rotation, wherever it starts
        lineups = [mixed.lineup(start + i, players) for i in range(m)]
        for seat in range(players):
            assert sorted(lu[seat] for lu in lineups) == sorted(panel)
    assert [tb.label for tb in panel_tables(["one-step"])] == ["self-play one-step"]  # no mixed table alone


def test_verdict_logic_on_constructed_inputs():
    F, C, U = st.FLAG, st.CLEAR, st.UNDECIDED
    robust = judge(F, {"a": (F, True), "b": (U, True), "c": (F, True)})
    assert robust == {"verdict": "robust", "agents": ["a", "b", "c"], "against": [], "finding": True}
    assert judge(C, {"a": (C, False), "b": (U, False)})["finding"] is False
    dep = judge(F, {"a": (F, True), "b": (C, False), "c": (F, True)})
    assert dep["verdict"] == "agent-dependent" and dep["agents"] == ["b"]
    # decided pooled, one agent's estimate on the other side even undecided at its table: it depends
    assert judge(F, {"a": (F, True), "b": (U, False)})["verdict"] == "agent-dependent"
    # the pooled games undecided, the agents on both sides: more games would not settle it
    dis = judge(U, {"a": (F, True), "b": (C, False), "c": (U, False)})
    assert dis["verdict"] == "agents-disagree" and dis["agents"] == ["a"] and dis["against"] == ["b", "c"]
    assert dis["finding"] is None
    assert judge(U, {"a": (U, True), "b": (U, True)})["verdict"] == "needs-games"


def test_bh_level_decides_exactly_as_benjamini_hochberg():
    rng = np.random.default_rng(5)
    for m in (1, 3, 10, 40):
        for _ in range(50):
            p = np.concatenate([rng.uniform(0, 1, m // 2 + 1), rng.uniform(0, 0.01, m - m // 2 - 1)])
            level = st.bh_level(p)
            adjusted = stats.false_discovery_control(p, method="bh")
            assert ((p <= level) == (adjusted <= st.ALPHA)).all()


def test_score_p_values_match_the_wilson_interval():
    for k, n in ((0, 20), (7, 40), (33, 60), (59, 60)):
        for level in (0.025, 0.005):
            lo, hi = st.wilson(k, n, conf=1 - 2 * level)
            above, _ = st.p_score_beyond([k], [n], [lo])
            _, below = st.p_score_beyond([k], [n], [hi])
            if lo > 0:
                assert above[0] == pytest.approx(level, rel=1e-6)
            if hi < 1:
                assert below[0] == pytest.approx(level, rel=1e-6)


def _children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                fields = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(d))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_workers_die_with_the_parent(sig):
    proc = subprocess.Popen([sys.executable, "-m", "mapkit", "simulate", "tests/fixtures/tiny.json", "--games",
                             "50000", "--jobs", "2"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        workers = []
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.2)
            workers = _children(proc.pid)
        assert len(workers) >= 2, "the pool never started"
        proc.send_signal(sig)
        proc.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("players", [2, 4])
def test_color_use_counts_each_double_once_below_the_double_count(players):
    from mapkit.balance.report import available_track

    t = tiny_tables()
    rs = rules()
    avail = available_track(t, rs, players)
    pair = [r for r in range(t.n_routes) if t.route_partner[r] >= 0]
    assert pair, "the tiny board has a double"
    whole = sum(2 * t.route_len[r] for r in range(t.n_routes))
    locked = players < rs.double_routes_min_players
    assert sum(avail.values()) == whole - (sum(t.route_len[r] for r in pair) if locked else 0)
    tot = Totals(players)
    for seed in game_seeds(8, 15):
        r = play_game(t, rs, ["route-focus"] * players, seed)
        for c, units in r["color_units"].items():
            assert units <= avail[c]  # never more track of a color claimed than there is
        assert sum(k for k, _ in r["claim_wilds"].values()) == len(r["claims"])
        tot.add(r)
    assert sum(o for o, _ in tot.offers.values()) >= sum(k for _, k in tot.offers.values()) > 0
