"""mapkit tune's loop: spoiled ticket values come back, the same seed gives the same result on any
number of workers or a Dask cluster, and the paired decision keeps only what is proven."""

import functools
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from boardgen import grid_board_data  # noqa: E402

from mapkit.boardfile import build_board  # noqa: E402
from mapkit.ticket_deck import generate  # noqa: E402
from mapkit.tune import changelog  # noqa: E402
from mapkit.tune.aims import read_aims  # noqa: E402
from mapkit.tune.design import Spending, decide  # noqa: E402
from mapkit.tune.loop import tune  # noqa: E402
from mapkit.tune.propose import Change  # noqa: E402

CHEAP = ["route-focus", "ticket-hungry"]
# ticket index -> factor: two doubled, two halved (the deck's points are its shortest lengths)
SPOIL = {5: 2.0, 3: 2.0, 8: 0.5, 9: 0.5}


def small_board() -> dict:
    """A 16-station grid with a generated 10-ticket deck (points = shortest length), 30 trains."""
    d = grid_board_data(16, 3)
    d["rules"] = {"preset": "standard", "overrides": {"trains": 30, "max_players": 3}}
    g = generate(build_board(d), count=10, seed=1, iterations=800)
    d["ticket_decks"] = {"standard": g.deck_json()}
    return d


def spoiled(d: dict) -> dict:
    d = json.loads(json.dumps(d))
    for i, f in SPOIL.items():
        t = d["ticket_decks"]["standard"][i]
        t["points"] = max(1, int(t["points"] * f))
    return d


def _run(d, **kw):
    args = dict(allowed=("tickets",), budget=1600, step_games=200, seed=0, jobs=1)
    args.update(kw)
    return tune(d, "grid", read_aims(d), [2], CHEAP, **args)


def closeness(result, original: dict) -> dict:
    """How far each spoiled ticket is from its unspoiled value, before and after tuning."""
    orig = [t["points"] for t in original["ticket_decks"]["standard"]]
    bad = [t["points"] for t in spoiled(original)["ticket_decks"]["standard"]]
    now = [t["points"] for t in result.data["ticket_decks"]["standard"]]
    return {i: (abs(bad[i] - orig[i]), abs(now[i] - orig[i])) for i in SPOIL} | {
        "moved_unspoiled": max(abs(now[i] - orig[i]) for i in range(len(orig)) if i not in SPOIL)}


@functools.lru_cache(maxsize=1)
def fast_run():
    """The fast spoiled-values run, shared by the tests that read it."""
    original = small_board()
    return original, _run(spoiled(original))


def test_spoiled_ticket_values_come_back_fast():
    """Small board, two cheap agents, 2 players, a budget of 1600 games: at least 3 of the 4 spoiled tickets
    come back to within 2 points of their unspoiled values (measured at seed 0: all 4, exactly, in
    one change repricing the four together, undecided on 198 paired games, decided on 594 by the
    sequential extension), their total distance falls to a quarter or less, none moves away, and
    the unspoiled ones move at most 2 points (measured: 0)."""
    original, r = fast_run()
    close = closeness(r, original)
    print("distance from the unspoiled value per spoiled ticket (before, after):", close)
    restored = [i for i in SPOIL if close[i][1] <= 2]
    assert len(restored) >= 3, close
    assert all(close[i][1] <= close[i][0] for i in SPOIL), close
    assert close["moved_unspoiled"] <= 2, close
    assert sum(close[i][1] for i in SPOIL) <= sum(close[i][0] for i in SPOIL) / 4
    # every kept step names its evidence and passed the paired test
    for st in r.steps:
        if st.kept:
            assert st.target["low"] > 0 and all(c.why for c in st.changes)
    assert r.games <= 1600


@pytest.mark.slow
def test_spoiled_ticket_values_come_back_full():
    """The full version: both player counts, 6000 games: every spoiled ticket within 2 points."""
    original = small_board()
    d = spoiled(original)
    r = tune(d, "grid", read_aims(d), [2, 3], CHEAP, allowed=("tickets",), budget=6000, step_games=400, seed=0)
    close = closeness(r, original)
    print("distance from the unspoiled value per spoiled ticket (before, after):", close)
    assert all(close[i][1] <= 2 for i in SPOIL), close
    assert close["moved_unspoiled"] <= 2, close


def test_same_result_whatever_the_workers_or_scheduler():
    d = spoiled(small_board())
    one = changelog.as_json(_run(d, budget=240, step_games=60), read_aims(d), "grid")
    two = changelog.as_json(_run(d, budget=240, step_games=60, jobs=2), read_aims(d), "grid")
    assert one == two
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        dask = changelog.as_json(_run(d, budget=240, step_games=60, scheduler=client), read_aims(d), "grid")
    assert one == dask
    assert one["steps"], "the run must have tried something for the comparison to mean anything"


def _change(targets):
    return Change("ticket-points", "a-b", "ticket-worth", 4, 8, "test", [], frozenset(targets), frozenset(targets))


def test_decide_keeps_only_a_proven_improvement_that_harms_nothing_beyond_its_margin():
    aims = read_aims({})
    rng = np.random.default_rng(0)
    rows = 401
    noise = lambda s: rng.normal(0, s, rows)  # noqa: E731
    key = ("ticket-worth", ("a-b", 2))
    level = 0.01
    ONE = {"ticket-worth": 1, "completion": 1}   # one subject each: the margins are the per-subject ones
    before = {"ticket-worth": {("a-b", 2): 0.30 + noise(0.005)}, "completion": {("a-b", 2): 0.1 + noise(0.002)}}
    better = {"ticket-worth": {("a-b", 2): 0.05 + noise(0.02)}, "completion": {("a-b", 2): 0.1 + noise(0.002)}}
    keep, why, per_aim, target = decide(before, better, [_change([key])], aims, rows, level, ONE)
    assert keep and target["low"] > 0 and per_aim["ticket-worth"]["change"] > 0.2
    # the same improvement bought by completion's miss growing beyond its margin (0.03) is refused ...
    worse = {"ticket-worth": better["ticket-worth"], "completion": {("a-b", 2): 0.2 + noise(0.002)}}
    keep, why, _, _ = decide(before, worse, [_change([key])], aims, rows, level, ONE)
    assert not keep and "completion" in why
    # ... but a growth shown to stay within the margin (0.03) is no harm (non-inferiority) ...
    little = {"ticket-worth": better["ticket-worth"], "completion": {("a-b", 2): 0.11 + noise(0.002)}}
    keep, why, per_aim, _ = decide(before, little, [_change([key])], aims, rows, level, ONE)
    assert keep and per_aim["completion"]["change"] < 0
    # ... and the margin is the designer's to set: with 0.005 the same growth is refused
    strict = read_aims({"tune": {"margins": {"completion": 0.005}}})
    keep, why, _, _ = decide(before, little, [_change([key])], strict, rows, level, ONE)
    assert not keep and "completion" in why
    # a growth within the margin but too noisy to show it is refused too: the data must show it
    noisy = {"ticket-worth": better["ticket-worth"], "completion": {("a-b", 2): 0.12 + noise(0.2)}}
    keep, why, _, _ = decide(before, noisy, [_change([key])], aims, rows, level, ONE)
    assert not keep and "completion" in why
    # a change within the noise is not kept
    same = {"ticket-worth": {("a-b", 2): 0.30 + noise(0.005)}, "completion": before["completion"]}
    keep, why, _, _ = decide(before, same, [_change([key])], aims, rows, level, ONE)
    assert not keep and why == "no improvement beyond the interval"


def test_alpha_spent_in_proportion_to_games_never_passes_alpha():
    sp = Spending(0.05, 10000)
    levels = [sp.spend(g) for g in (600, 600, 1200, 3000, 4600)]
    assert abs(sum(levels) - 0.05) < 1e-12 and abs(levels[0] - 0.003) < 1e-12


def test_an_undecided_change_is_extended_on_the_same_seeds_until_it_decides():
    """The fast run: the four spoiled tickets repriced together are undecided on the first
    confirmation block (their target's bound straddles), extended block by block on the next
    games of the same tables, and kept once the paired games decide it (measured at seed 0:
    undecided on 198 and 396 paired games, kept on 594). The run stays inside its budget and
    its alpha, and does not stop for want of something to try while a change is undecided."""
    _, r = fast_run()
    kept = [st for st in r.steps if st.kept]
    assert kept, [(st.stage, st.reason) for st in r.steps]
    last = kept[-1]
    looks = [st for st in r.steps if st.stage in ("confirmed", "extended")
             and [c.key for c in st.changes] == [c.key for c in last.changes]]
    assert last.look >= 2 and [st.look for st in looks] == list(range(1, last.look + 1))
    first = looks[0].paired_games
    assert [st.paired_games for st in looks] == [first * k for k in range(1, last.look + 1)]
    assert all("undecided" in st.reason for st in looks[:-1])
    # each look is tested at its own share of alpha (its new games), the shares adding up
    assert all(st.target["level"] < 0.05 for st in looks)
    assert r.spending["alpha_spent"] <= 0.05 + 1e-12
    assert r.games <= 1600 and sum(r.spending["games"].values()) == r.games
    for st in r.steps:
        if st.stage in ("confirmed", "extended"):
            assert st.target["level"] <= 0.05
    assert not (r.stop == "nothing more to try" and any(st.stage == "undecided" for st in r.steps))


def test_more_paired_games_decide_what_fewer_left_undecided():
    """The decision on synthetic paired differences: a true improvement of 0.02 with a per-game
    spread that gives sd 0.01 on n games straddles at level 0.005 (z 2.58), and is decided on 2n
    (sd / sqrt 2) and on 3n; a change that made the target worse is a decided no, not extended."""
    from mapkit.tune.design import undecided

    aims = read_aims({})
    rng = np.random.default_rng(1)
    key = ("ticket-worth", ("a-b", 2))
    ONE = {a: 1 for a in aims.active}
    out = []
    for k in (1, 2, 3):
        sd = 0.01 / np.sqrt(k)
        before = {"ticket-worth": {("a-b", 2): 0.3 + rng.normal(0, sd, 1001)}}
        after = {"ticket-worth": {("a-b", 2): np.r_[0.28, 0.28 + rng.normal(0, 1e-9, 1000)]}}
        before["ticket-worth"][("a-b", 2)][0] = 0.3
        keep, why, per_aim, target = decide(before, after, [_change([key])], aims, 1001, 0.005, ONE)
        out.append((keep, undecided(per_aim, target)))
    assert out[0] == (False, True) and out[1][0] and out[2][0], out
    worse = {"ticket-worth": {("a-b", 2): np.r_[0.33, 0.33 + rng.normal(0, 0.01, 1000)]}}
    keep, _, per_aim, target = decide(before, worse, [_change([key])], aims, 1001, 0.005, ONE)
    assert not keep and not undecided(per_aim, target)
