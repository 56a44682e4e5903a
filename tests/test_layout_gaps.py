"""Gaps between spaces held to about 6 mm (network.MAX_GAP_MM) as the layout's own rule, except
where a crowded station needs its first spaces farther out (crowding.py); the figure that counts
routes over it; the fill note and --size auto's preference for a size the network fills."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from layoutgen import layout_board_data
from mapkit.layout import layout_board
from mapkit.layout.crowding import circle_need, station_gap
from mapkit.layout.figures import measure
from mapkit.layout.fit import FILL, pick_size
from mapkit.layout.network import GAP_MARGIN_MM, MAX_GAP_MM, build_network
from mapkit.layout.pipeline import fill_note

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


def test_a_small_board_comes_out_with_its_gaps_held():
    res = layout_board(layout_board_data(14, seed=3), seed=0, gap_rule=True)
    assert res.figures["errors"] == 0 and res.figures["warnings"] == 0
    # over 6 mm only where a crowded station or first spaces still touching asked for wider gaps
    assert res.figures["routes_over_gap"] <= res.figures["routes_gap_widened"], res.figures
    assert res.figures["largest_gap_mm"] < 10.0
    assert "routes_over_gap" in res.figures and res.figures["routes_drawn"] == len(res.data["routes"])


def test_a_board_not_filled_says_which_size_would_be():
    figures = {"board_mm": [800, 530], "fill_w": 0.71, "fill_h": 0.64}
    note = fill_note(figures, 25.0)
    assert note.startswith("the stations fill 71% x 64% of 800 x 530 mm at gaps between spaces of at most 6 mm")
    # 71 % of 750 mm is 532 mm of stations: filled FILL on a board of 532 / 0.8 + 50 = 715 mm, 10 mm down
    assert "a 710 x 430 mm board would be filled, or lengthen routes" in note
    assert fill_note({"board_mm": [800, 530], "fill_w": FILL, "fill_h": 0.9}, 25.0) is None
    # filled one way only: that side keeps its size
    assert "a 800 x 430 mm board" in fill_note({"board_mm": [800, 530], "fill_w": 0.9, "fill_h": 0.64}, 25.0)


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
