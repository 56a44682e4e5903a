"""The gap rule holding (docs/design/layout.md, "The gap rule"): the repair's memo kept
apart for the even spread and the placement by needs, the rule lifted from the routes of a problem
that persists from one round of repairs to the next (checked_repairs._release_gaps), and the first rounds
run without the rule (onboard._first_rounds). Small boards, each test a few seconds."""
from __future__ import annotations

import math

import numpy as np

from mapkit.errors import Problem
from mapkit.layout.judge import even_problems, geometry_problems
from mapkit.layout import LayoutOptions, checked_repairs, first, onboard, pipeline
from mapkit.layout.network import MAX_GAP_MM, build_network
from mapkit.layout.optimize import Drawing
from mapkit.layout.repair import Repair
from mapkit.layout.synthetic import layout_board_data
from conftest import red_blue_board


def _board():
    stations = {"a": (100, 100), "b": (250, 100), "c": (175, 220), "d": (330, 220)}
    data = red_blue_board(
        stations=[{"id": i, "name": i.upper(), "lat": 45.0 - y / 5000, "lon": -122.0 + x / 5000}
                  for i, (x, y) in stations.items()],
        routes=[{"from": a, "to": b, "color": "red", "length": n}
                for a, b, n in (("a", "b", 4), ("b", "c", 3), ("a", "c", 3), ("c", "d", 3), ("b", "d", 3))])
    return data, np.array(list(stations.values()), dtype=float)


def _drawing(gap_rule=True):
    data, pos = _board()
    net = build_network(data, gap_rule=gap_rule)
    dr = Drawing(pos, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool),
                 bounds=(20.0, 20.0, 780.0, 510.0))
    return net, dr


def _crossing(a, b):
    return Problem("warning", "crossing", f"crosses route '{b}' at (1, 1) mm; move a station", subject=f"route {a}")


def test_memo_kept_apart_for_the_even_spread_and_the_needs():
    # the same points: what the even spread's checks found is not what the needs' checks are told
    net, dr = _drawing()
    even = Repair(net, dr, None, even_problems)
    even.full()
    memo = even._memo("full-board")
    for key in memo:
        memo[key] = ["the even spread's findings"]
    rp = Repair(net, dr, None, geometry_problems)
    assert rp._memo("full-board") is not memo
    assert "the even spread's findings" not in rp.full()
    assert even.full() == ["the even spread's findings"]


def test_a_persisting_crossing_lifts_the_rule_from_its_routes_only():
    net, dr = _drawing()
    k_ab = next(k for k, b in enumerate(net.bundles) if {net.ids[b.a], net.ids[b.b]} == {"a", "b"})
    k_cd = next(k for k, b in enumerate(net.bundles) if {net.ids[b.a], net.ids[b.b]} == {"c", "d"})
    before = [(b.gap_max, b.lsoft) for b in net.bundles]
    found = [_crossing("a-b", "c-d")]
    assert checked_repairs._release_gaps(net, found, dr) == set()      # first seen: the rule holds
    assert [(b.gap_max, b.lsoft) for b in net.bundles] == before
    assert checked_repairs._release_gaps(net, found, dr) == {k_ab, k_cd}   # seen again: lifted from both
    for k, b in enumerate(net.bundles):
        if k in (k_ab, k_cd):
            assert math.isinf(b.gap_max) and b.lsoft == b.lmax
        else:
            assert (b.gap_max, b.lsoft) == before[k]


def test_a_problem_that_went_away_and_came_back_is_not_persisting():
    net, dr = _drawing()
    checked_repairs._release_gaps(net, [_crossing("a-b", "c-d")], dr)
    checked_repairs._release_gaps(net, [], dr)
    assert checked_repairs._release_gaps(net, [_crossing("a-b", "c-d")], dr) == set()
    assert all(b.gap_max <= MAX_GAP_MM + 5 for b in net.bundles)


def test_relax_gaps_leaves_released_routes_unbounded():
    net, dr = _drawing()
    found = [_crossing("a-b", "c-d")]
    checked_repairs._relax_gaps(net, found, dr)
    checked_repairs._relax_gaps(net, found, dr)
    checked_repairs._relax_gaps(net, found, dr)
    assert sum(math.isinf(b.gap_max) for b in net.bundles) == 2


def _spy_rounds(monkeypatch) -> list:
    """The gap_rule of each network onboard.run_rounds is called with, in order."""
    seen = []
    real = onboard.run_rounds

    def spy(net, dr, *a, **k):
        seen.append(net.gap_rule)
        return real(net, dr, *a, **k)

    monkeypatch.setattr(onboard, "run_rounds", spy)
    return seen


def _first_rounds_spied(monkeypatch, data):
    seen = _spy_rounds(monkeypatch)
    net = build_network(data, gap_rule=True)
    pos = np.array([[s["lon"] * 1000.0, -s["lat"] * 1000.0] for s in data["stations"]])
    dr = Drawing(pos - pos.min(0) + 50.0, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool))
    onboard._first_rounds(net, dr, first._weights_for("geographic"), "geographic")
    return seen, net, dr


def test_first_rounds_without_crossings_keep_the_rule(monkeypatch):
    data, _ = _board()
    seen, net, dr = _first_rounds_spied(monkeypatch, data)
    assert not onboard._crossings(net, dr)
    assert seen == [True]        # the rule's rounds left no crossing: the soft ones never run


def test_first_rounds_with_crossings_try_them_without_the_rule(monkeypatch):
    # a square whose diagonal routes cross: the rule's rounds leave crossings, so the soft rounds
    # run from the same drawing, and what is kept has no more crossings than the rule's
    stations = {"a": (0, 0), "b": (1, 0), "c": (1, 1), "d": (0, 1)}
    data = red_blue_board(
        stations=[{"id": i, "name": i.upper(), "lat": 45.0 - y / 20, "lon": -122.0 + x / 20}
                  for i, (x, y) in stations.items()],
        routes=[{"from": a, "to": b, "color": "red", "length": 3} for a, b in (("a", "c"), ("b", "d"))])
    net = build_network(data, gap_rule=True)
    start = Drawing(np.array([[100.0, 100.0], [300.0, 100.0], [300.0, 300.0], [100.0, 300.0]]), net.n,
                    [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool))
    assert onboard._crossings(net, start)
    seen = _spy_rounds(monkeypatch)
    onboard._first_rounds(net, start, first._weights_for("geographic"), "geographic")
    # the soft rounds ran (without the rule) unless the rule's own rounds took the crossing out
    assert seen == [True, False] or (seen == [True] and not onboard._crossings(net, start))


def test_the_rule_holds_on_a_small_synthetic_board():
    from mapkit.layout import layout_board
    from mapkit.layout.figures import measure

    res = layout_board(layout_board_data(20, seed=0), seed=0, size="auto", gap_rule=True)
    m = measure(res.data, labels=False)
    assert res.figures["gap_rule"] == "held"
    assert (m["errors"], m["warnings"]) == (0, 0)


def test_with_the_fallback_the_rule_gets_one_size_and_the_soft_layout_its_usual_ones(monkeypatch):
    calls = []

    def fake(data, opts, larger=None, refine=None):
        calls.append((opts.gap_rule, larger))
        return {}, {}, {"errors": 1 if opts.gap_rule else 0, "warnings": 0}, []
    monkeypatch.setattr(pipeline, "layout_sizes", fake)
    _, _, figures, _ = pipeline.layout_board_impl({}, LayoutOptions(gap_rule=True))
    assert calls == [(True, pipeline.RULE_LARGER), (False, None)] and pipeline.RULE_LARGER == 0
    assert figures["gap_rule"].startswith("not held")
