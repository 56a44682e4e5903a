"""Gaps between spaces held to about 6 mm (network.MAX_GAP_MM) as the layout's own rule (--gap-rule;
the default, --no-gap-rule, only prefers it: docs/design/layout.md says why), except where a crowded station
needs its first spaces farther out (crowding.py) or first spaces still touching asked for more
(checked_repairs._relax_gaps); the figure that counts routes over it; the fill note and --size auto's
preference for a size the network fills."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from layoutgen import layout_board_data
from mapkit.layout import layout_board
from click.testing import CliRunner

from mapkit.cli import main
from mapkit.layout import LayoutOptions, first, pipeline
from mapkit.layout.crowding import ANGLE_CLEAR, HALF_EXTRA_MM, circle_need, need_of, pair_gap, station_gap
from mapkit.layout.figures import measure
from mapkit.layout.fit import FILL, pick_size
from mapkit.layout.network import GAP_MARGIN_MM, MAX_GAP_MM, build_network
from mapkit.layout.checked_repairs import _cycle_gaps
from mapkit.layout.report import _fill_note

BOARDS = Path(__file__).resolve().parent.parent / "boards"
RADIUS = 7.0
SINGLE, DOUBLE = 5.0, 11.0   # half-widths of a route's band and of a double's (10 mm spaces, 1 mm apart)


def test_a_crowded_station_needs_wider_gaps_and_a_quiet_one_does_not():
    # seven routes, two of them doubles (north-america's Pittsburgh): more than the circle at 6 mm
    crowded = np.array([SINGLE, DOUBLE, SINGLE, SINGLE, DOUBLE, SINGLE, SINGLE])
    assert circle_need(crowded, MAX_GAP_MM, RADIUS) > 2 * math.pi
    need = station_gap(crowded, RADIUS, MAX_GAP_MM)
    assert MAX_GAP_MM < need < 12.0
    assert circle_need(crowded, need, RADIUS) <= 2 * math.pi + 1e-9
    assert circle_need(crowded, need - 0.05, RADIUS) > 2 * math.pi   # the smallest such gap
    # three routes fit at 6 mm: the rule stays
    assert station_gap(np.array([SINGLE] * 3), RADIUS, MAX_GAP_MM) == MAX_GAP_MM
    # the wider the gap, the less angle the first spaces take
    assert circle_need(crowded, 4.0, RADIUS) > circle_need(crowded, 8.0, RADIUS)


def test_only_the_routes_of_crowded_stations_may_have_gaps_over_6_mm():
    net = build_network(json.loads((BOARDS / "north-america.json").read_text(encoding="utf-8")), gap_rule=True)
    ph = net.board.physical
    wide = {net.route_ids[b.routes[0]] for b in net.bundles if b.gap_max > MAX_GAP_MM}
    assert wide and len(wide) < len(net.bundles) / 3
    assert all("pittsburgh" in r or "denver" in r for r in wide), sorted(wide)
    for b in net.bundles:
        if b.flight:
            continue
        # the longest the layout draws it: its spaces at gap_max less the margin, inside the checks' limit
        at_max = b.length * ph.space_length_mm + (b.length + 1) * (b.gap_max - GAP_MARGIN_MM) + 2 * ph.station_radius_mm
        assert b.lmin < b.lsoft <= b.lmax
        assert b.lsoft == pytest.approx(min(b.lmax, max(b.lmin + 1.0, at_max)))


def test_routes_over_gap_counts_a_stretched_route():
    res = layout_board(layout_board_data(8, seed=1), seed=0)
    before = measure(res.data, labels=False)
    data = copy.deepcopy(res.data)
    stations = {s["id"]: s for s in data["stations"]}
    from mapkit.boardfile import build_board
    from mapkit.geometry import Layout
    board = build_board(data)
    shapes, ph = Layout(board).routes, board.physical
    # a straight route within 6 mm (its id as the checks name it), made to stretch
    rid = next(r.id for r in board.routes if not r.waypoints and r.kind != "flight" and not r.double
               and (shapes[r.id].usable_mm - r.length * ph.space_length_mm) / (r.length + 1) <= MAX_GAP_MM)
    r = next(x for x, br in zip(data["routes"], board.routes) if br.id == rid)
    a, b = stations[r["from"]]["board"], stations[r["to"]]["board"]
    # its far end pulled out along the route to 1.5 times its length: gaps well over 6 mm
    b["x"], b["y"] = a["x"] + 1.5 * (b["x"] - a["x"]), a["y"] + 1.5 * (b["y"] - a["y"])
    after = measure(data, labels=False)
    assert after["routes_drawn"] == before["routes_drawn"]
    assert after["routes_over_gap"] > before["routes_over_gap"]
    assert after["largest_gap_mm"] > MAX_GAP_MM


def _drawn_gaps(data: dict) -> dict:
    """Each route's gap between spaces as drawn (along its waypoints), by route id."""
    from mapkit.boardfile import build_board
    from mapkit.geometry import Layout

    board = build_board(data)
    shapes, ph = Layout(board).routes, board.physical
    return {r.id: (shapes[r.id].usable_mm - r.length * ph.space_length_mm) / (r.length + 1)
            for r in board.routes if r.kind != "flight"}


def test_with_the_rule_a_small_board_comes_out_with_its_gaps_held(monkeypatch):
    nets = []
    build = first.build_network
    monkeypatch.setattr(first, "build_network", lambda *a, **k: nets.append(build(*a, **k)) or nets[-1])
    res = layout_board(layout_board_data(14, seed=3), seed=0, gap_rule=True)
    assert nets and all(net.gap_rule for net in nets)
    assert res.figures["errors"] == 0 and res.figures["warnings"] == 0
    assert res.figures["gap_rule"] == "held"
    # each route within the gap its bundle was allowed (6 mm, or more where a crowded station or first
    # spaces still touching asked for it), to the checks' rounding
    net = nets[-1]
    allowed = {net.route_ids[r]: b.gap_max for b in net.bundles for r in b.routes if not b.flight}
    drawn = _drawn_gaps(res.data)
    assert set(drawn) == set(allowed)
    over = {rid: (round(g, 2), allowed[rid]) for rid, g in drawn.items() if g > allowed[rid] + 0.1}
    assert not over, over
    assert res.figures["routes_over_gap"] <= res.figures["routes_gap_widened"], res.figures
    assert res.figures["routes_drawn"] == len(res.data["routes"])
    # fewer routes over 6 mm than the soft layout of the same board
    soft = layout_board(layout_board_data(14, seed=3), seed=0, gap_rule=False)
    assert "gap_rule" not in soft.figures
    assert res.figures["routes_over_gap"] < soft.figures["routes_over_gap"]


def test_the_gap_rule_is_the_default_and_no_gap_rule_gives_the_soft_layout(tmp_path):
    path = tmp_path / "b.json"
    data = layout_board_data(14, seed=3)
    path.write_text(json.dumps(data), encoding="utf-8")
    outs = {}
    for flag in ("--gap-rule", "--no-gap-rule"):
        res = CliRunner().invoke(main, ["layout", str(path), "--format", "json", "--out", str(tmp_path / f"o{flag}.json"), flag])
        assert res.exit_code in (0, 1), res.output
        outs[flag] = json.loads(res.output)
    default = CliRunner().invoke(main, ["layout", str(path), "--format", "json"])
    assert json.loads(default.output)["figures"] == outs["--gap-rule"]["figures"]   # the rule is the default
    assert "gap_rule" in outs["--gap-rule"]["figures"] and "gap_rule" not in outs["--no-gap-rule"]["figures"]
    soft = outs["--no-gap-rule"]["figures"]
    # the figures only the rule has (routes allowed wider gaps), and the soft layout's own positions
    assert "routes_gap_widened" in outs["--gap-rule"]["figures"] and "routes_gap_widened" not in soft
    assert soft == {**layout_board(data, seed=0, gap_rule=False).figures, **measure(
        json.loads((tmp_path / "o--no-gap-rule.json").read_text(encoding="utf-8")))}
    assert outs["--gap-rule"]["changes"] != outs["--no-gap-rule"]["changes"]


@pytest.mark.parametrize("rule_left, soft_left, kept", [
    ((1, 0), (0, 0), "soft"), ((0, 2), (0, 1), "soft"), ((1, 0), (1, 0), "rule"), ((0, 1), (2, 0), "rule"),
    ((0, 0), None, "rule")])
def test_where_the_rule_leaves_problems_the_soft_layout_is_kept_if_cleaner(monkeypatch, rule_left, soft_left, kept):
    calls = []

    def fake(data, opts, larger=None, refine=None):
        gap_rule = opts.gap_rule
        calls.append(gap_rule)
        left = rule_left if gap_rule else (soft_left or (0, 0))
        return {"rule" if gap_rule else "soft": 1}, {}, {"errors": left[0], "warnings": left[1]}, []
    monkeypatch.setattr(pipeline, "layout_sizes", fake)
    new, _, figures, _ = pipeline.layout_board_impl({}, LayoutOptions(gap_rule=True))
    assert kept in new
    assert calls == ([True] if soft_left is None else [True, False])   # the soft layout only where the rule left something
    if kept == "soft":
        assert figures["gap_rule"].startswith(f"not held: with it {rule_left[0]} error(s), {rule_left[1]} warning(s) left")
    else:
        assert figures["gap_rule"].startswith("held")
    # without the rule: one layout, no figure
    calls.clear()
    _, _, figures, _ = pipeline.layout_board_impl({}, LayoutOptions(gap_rule=False))
    assert calls == [False] and "gap_rule" not in figures


def test_a_narrow_angle_needs_a_wider_gap_and_a_wide_one_does_not():
    h1 = h2 = SINGLE
    assert pair_gap(math.radians(120), h1, h2, RADIUS, MAX_GAP_MM) == MAX_GAP_MM
    theta = math.radians(35)
    g = pair_gap(theta, h1, h2, RADIUS, MAX_GAP_MM)
    assert MAX_GAP_MM < g < 40.0

    def need(gap):
        s = np.array([RADIUS + gap])
        return float(need_of(s, s, np.array([h1 + HALF_EXTRA_MM]), np.array([h2 + HALF_EXTRA_MM]))[0]) + ANGLE_CLEAR
    assert need(g) <= theta < need(g - 0.05)   # the smallest such gap
    # a double takes more room than a single at the same angle
    assert pair_gap(theta, DOUBLE, h2, RADIUS, MAX_GAP_MM) > g


def test_a_too_short_route_widens_the_cycle_that_holds_its_ends():
    # a route named too short: the other routes between its ends (at their widest drawings, the
    # shortest such path) are the cycle that holds them too close
    data = layout_board_data(8, seed=1)
    net = build_network(data, gap_rule=True)
    from types import SimpleNamespace
    k = max(range(len(net.bundles)), key=lambda i: net.bundles[i].length)
    b = net.bundles[k]
    rid = net.route_ids[b.routes[0]]
    found = [SimpleNamespace(code="route-too-short", subject=f"route {rid}", message="")]
    path = _cycle_gaps(net, found)
    assert path and k not in path
    # the bundles named join the route's two ends: a path round the cycle
    ends = {}
    for i in path:
        for s in (net.bundles[i].a, net.bundles[i].b):
            ends[s] = ends.get(s, 0) + 1
    assert {s for s, c in ends.items() if c == 1} == {b.a, b.b}
    assert _cycle_gaps(net, [SimpleNamespace(code="space-overlap", subject=f"route {rid}", message="")]) == []


@pytest.mark.parametrize("degrees, widened", [(25, True), (150, False)])
def test_first_spaces_touching_get_wider_gaps_only_where_their_angle_is_too_narrow(degrees, widened):
    from types import SimpleNamespace
    from mapkit.layout.optimize import Drawing
    from mapkit.layout.checked_repairs import GAP_JUMP_MM, _relax_gaps

    net = build_network(layout_board_data(8, seed=1), gap_rule=True)
    s = next(i for i in range(net.n) if len(net.at_station(i)) >= 2)
    k, j = net.at_station(s)[:2]
    # every station far apart on a circle, then the two routes' far ends at the angle asked from s
    ang = np.arange(net.n) * 2 * np.pi / net.n
    pos = np.c_[500 + 400 * np.cos(ang), 500 + 400 * np.sin(ang)]
    fk, fj = (net.bundles[m].b if net.bundles[m].a == s else net.bundles[m].a for m in (k, j))
    pos[s] = (500, 500)
    pos[fk] = pos[s] + 100 * np.array([1.0, 0.0])
    pos[fj] = pos[s] + 100 * np.array([math.cos(math.radians(degrees)), math.sin(math.radians(degrees))])
    dr = Drawing(pos, net.n, [[b.a, b.b] for b in net.bundles], np.ones(net.n, dtype=bool))
    before = {m: (net.bundles[m].gap_max, net.bundles[m].lsoft) for m in (k, j)}
    rk, rj = (net.route_ids[net.bundles[m].routes[0]] for m in (k, j))
    _relax_gaps(net, [SimpleNamespace(code="space-overlap", subject=f"route {rk}", message=f"spaces overlap route '{rj}' (4 mm²)")], dr)
    for m in (k, j):
        b = net.bundles[m]
        if widened:
            assert before[m][0] < b.gap_max <= before[m][0] + GAP_JUMP_MM + 1e-9
            assert b.lsoft >= before[m][1] and b.lsoft <= b.lmax
        else:
            assert (b.gap_max, b.lsoft) == before[m]


def test_a_board_not_filled_says_which_size_would_be():
    figures = {"board_mm": [800, 530], "fill_w": 0.71, "fill_h": 0.64}
    note = _fill_note(figures, 25.0)
    assert note.startswith("the stations fill 71% x 64% of 800 x 530 mm at gaps between spaces of at most 6 mm")
    # 71 % of 750 mm is 532 mm of stations: filled FILL on a board of 532 / 0.8 + 50 = 715 mm, 10 mm down
    assert "a 710 x 430 mm board would be filled, or lengthen routes" in note
    assert _fill_note({"board_mm": [800, 530], "fill_w": FILL, "fill_h": 0.9}, 25.0) is None
    # filled one way only: that side keeps its size
    assert "a 800 x 430 mm board" in _fill_note({"board_mm": [800, 530], "fill_w": 0.9, "fill_h": 0.64}, 25.0)


def test_size_auto_prefers_a_size_the_network_fills():
    # 560 x 330 mm of stations: 594 x 420 holds it shrunk to 97.5 % and is filled; 800 x 530 holds it
    # as it is but would be filled only 75 % across
    assert pick_size(560, 330, 25, prefer_fill=True) == (594, 420)
    assert pick_size(560, 330, 25) == (800, 530)   # without the gap rule: the smallest that holds it
    # a network that fits 800 x 530 and fills it stays there
    assert pick_size(700, 400, 25, prefer_fill=True) == (800, 530)
    # too much to shrink (below fit.SHRINK_OK): the first size that holds it
    assert pick_size(640, 330, 25, prefer_fill=True) == (800, 530)
    # a line of stations (no height): no division by its zero extent, the same size either way
    assert pick_size(460, 0, 25, prefer_fill=True) == pick_size(460, 0, 25) == (594, 420)


def test_without_the_gap_rule_the_layout_is_as_it_was():
    net = build_network(json.loads((BOARDS / "north-america.json").read_text(encoding="utf-8")))
    ph = net.board.physical
    assert not net.gap_rule and all(b.gap_max == math.inf for b in net.bundles)
    for b in net.bundles:   # lsoft: the soft term's 6 mm preference, no margin, no crowding
        at6 = b.length * ph.space_length_mm + (b.length + 1) * MAX_GAP_MM + 2 * ph.station_radius_mm
        assert b.lsoft == pytest.approx(min(b.lmax, max(b.lmin + 1.0, at6)))
