"""Stations of one or two neighbours drawn across them, seated again where the real map has them
(mapkit/layout/seats.py; docs/design/layout.md, "Seats and branches")."""

from __future__ import annotations

import math

import numpy as np

from mapkit.layout.network import drawn_mm_at_gap
from mapkit.layout.judge import geometry_problems
from mapkit.layout.repair import Repair
from mapkit.layout.seats import GAPS_MM, TURNS_DEG, candidates_of, reseat
from mapkit.layout.tighten import Tighten
from conftest import red_blue_board
from test_layout_tighten import drawing_of


def _board(drawn, geo, routes):
    """A board whose stations are drawn at `drawn` ({id: (x, y)} mm) and lie on the real map at
    `geo` (the same millimetres, as lat/lon): a station drawn away from its geo is off its bearing."""
    data = red_blue_board(
        stations=[{"id": i, "name": i.upper(), "lat": 45.0 - y / 5000, "lon": -122.0 + x / 5000}
                  for i, (x, y) in geo.items()],
        routes=[{"from": a, "to": b, "color": c, "length": n} for a, b, c, n in routes])
    return drawing_of(data, drawn)


def _bearing_error(net, dr, i, j) -> float:
    """Degrees between the route i-j as drawn and its real bearing."""
    d, g = dr.pos[j] - dr.pos[i], net.geo[j] - net.geo[i]
    return abs(math.degrees(math.atan2(g[0] * d[1] - g[1] * d[0], float(g @ d))))


# three routes of 4 spaces drawn 127 mm long (gaps of 5 mm)
HUB = {"a": (300.0, 260.0), "b": (427.0, 260.0), "d": (363.5, 150.0)}
HUB_ROUTES = [("a", "b", "red", 4), ("a", "d", "blue", 4), ("b", "d", "red", 4)]


def test_a_pendant_station_drawn_across_its_neighbour_is_seated_on_its_bearing():
    # c hangs on a alone; the real map has it south of a, the drawing north-west of it (its route
    # drawn about 150 degrees off its bearing) with gaps far over 6 mm
    geo = {**HUB, "c": (300.0, 360.0)}
    drawn = {**HUB, "c": (220.0, 130.0)}
    net, dr = _board(drawn, geo, HUB_ROUTES + [("a", "c", "blue", 3)])
    assert not [p for p in geometry_problems(_data(net, dr)) if p.severity == "error"]
    a, c = net.ids.index("a"), net.ids.index("c")
    assert _bearing_error(net, dr, a, c) > 140
    did = reseat(Repair(net, dr, None, geometry_problems))
    assert did["reseated"] == 1
    assert _bearing_error(net, dr, a, c) < 1.0   # the first candidate: its real bearing
    assert not geometry_problems(_data(net, dr))
    # drawn at the aimed gap: its length holds 3 spaces with gaps under 6 mm
    L = float(np.hypot(*(dr.pos[c] - dr.pos[a])))
    assert abs(L - drawn_mm_at_gap(3, net.board.physical, GAPS_MM[0])) < 1e-6


def test_a_station_between_two_neighbours_is_put_on_the_real_maps_side_of_their_chord():
    # e between a and b: the real map has it south of their chord, the drawing north of it
    # (every route drawn at gaps of 5 mm: a-b 154 mm, a-e and e-b 100 mm)
    geo = {"a": (300.0, 260.0), "b": (454.0, 260.0), "e": (377.0, 323.8)}
    drawn = {"a": (300.0, 260.0), "b": (454.0, 260.0), "e": (377.0, 196.2)}
    net, dr = _board(drawn, geo, [("a", "e", "red", 3), ("e", "b", "blue", 3), ("a", "b", "red", 5)])
    e = net.ids.index("e")
    assert dr.pos[e][1] < 260
    did = reseat(Repair(net, dr, None, geometry_problems))
    assert did["reseated"] == 1
    assert dr.pos[e][1] > 260   # across the chord a-b, where the real map has it
    for j in ("a", "b"):
        assert _bearing_error(net, dr, net.ids.index(j), e) < 45
    assert not geometry_problems(_data(net, dr))


def test_the_candidates_lie_on_the_routes_lengths():
    geo = {**HUB, "c": (300.0, 360.0)}
    net, dr = _board({**HUB, "c": (220.0, 130.0)}, geo, HUB_ROUTES + [("a", "c", "blue", 3)])
    t = Tighten(Repair(net, dr, None, geometry_problems))
    a, c = net.ids.index("a"), net.ids.index("c")
    ks, cands = candidates_of(t, c)
    assert len(ks) == 1 and len(cands) == len(TURNS_DEG) * len(GAPS_MM)
    radii = {round(drawn_mm_at_gap(3, net.board.physical, g), 6) for g in GAPS_MM}
    assert {round(float(np.hypot(*(p - dr.pos[a]))), 6) for p in cands} == radii
    # the first ones at the real bearing (south: +y on the board), then turned either way
    first = cands[0] - dr.pos[a]
    assert abs(math.degrees(math.atan2(first[1], first[0])) - 90.0) < 1e-9
    # two neighbours: where circles round both meet, on both sides of their chord
    net2, dr2 = _board({"a": (300.0, 260.0), "b": (460.0, 260.0), "e": (380.0, 190.0)},
                       {"a": (300.0, 260.0), "b": (460.0, 260.0), "e": (380.0, 330.0)},
                       [("a", "e", "red", 3), ("e", "b", "blue", 3)])
    t2 = Tighten(Repair(net2, dr2, None, geometry_problems))
    e = net2.ids.index("e")
    ks, cands = candidates_of(t2, e)
    assert len(ks) == 2 and cands
    ph = net2.board.physical
    lengths = {round(drawn_mm_at_gap(3, ph, g), 6) for g in GAPS_MM}
    for p in cands:
        for j in (0, 1):
            assert round(float(np.hypot(*(p - dr2.pos[j]))), 6) in lengths
    assert any(p[1] > 260 for p in cands) and any(p[1] < 260 for p in cands)


def test_pinned_stations_and_the_schematic_style_are_left_alone():
    geo = {**HUB, "c": (300.0, 360.0)}
    drawn = {**HUB, "c": (220.0, 130.0)}
    net, dr = _board(drawn, geo, HUB_ROUTES + [("a", "c", "blue", 3)])
    before = dr.pos.copy()
    assert reseat(Repair(net, dr, None, geometry_problems), style="schematic")["reseated"] == 0
    c = net.ids.index("c")
    dr.free[c] = False
    assert reseat(Repair(net, dr, None, geometry_problems))["reseated"] == 0
    assert np.array_equal(dr.pos, before)


def _data(net, dr):
    from mapkit.layout.result import build_result
    return build_result(net, dr, None)[0]


def test_only_a_station_across_its_neighbour_may_give_up_the_fill():
    # the board asks the stations to span 200 mm across; the hub spans 127 mm, the hung station c
    # makes up the rest: seated on its bearing (south of a) the span drops to 127 mm
    geo = {**HUB, "c": (300.0, 360.0)}
    L = drawn_mm_at_gap(3, _ph(), 4.0)   # c drawn at gaps of 4 mm, 130 or 60 degrees off its bearing
    across = {**HUB, "c": (300.0 - L * math.sin(math.radians(130)), 260.0 + L * math.cos(math.radians(130)))}
    aside = {**HUB, "c": (300.0 - L * math.sin(math.radians(60)), 260.0 + L * math.cos(math.radians(60)))}
    moved = {}
    for name, drawn in (("across", across), ("aside", aside)):
        net, dr = _board(drawn, geo, HUB_ROUTES + [("a", "c", "blue", 3)])
        dr.fill_box = (200.0, 100.0)
        a, c = net.ids.index("a"), net.ids.index("c")
        off = _bearing_error(net, dr, a, c)
        span = dr.pos[:3, 0].max() - dr.pos[:, 0].min()
        assert span > 200.0 and not geometry_problems(_data(net, dr))
        reseat(Repair(net, dr, None, geometry_problems))
        moved[name] = (round(off), _bearing_error(net, dr, a, c))
    assert moved["across"][0] == 130 and moved["across"][1] < 1.0   # seated: the fill given up
    assert moved["aside"][0] == 60 and moved["aside"][1] > 59.0     # kept where it spans the board


def _ph():
    from mapkit.boardfile import build_board
    return build_board(red_blue_board([{"id": "x", "name": "X", "lat": 45.0, "lon": -122.0}], [])).physical


def test_a_branch_drawn_turned_round_its_station_is_turned_back_as_one_piece():
    # c and e hang on a as a chain (a - c - e); the real map has the chain running south of a, the
    # drawing north-west of it (both routes about 135° off their bearings): turned round a as one
    # piece (the seats would move e round c first, then c: the branch's shape is lost on the way)
    from mapkit.layout.seats import turn_branches

    L = drawn_mm_at_gap(3, _ph(), 5.0)
    geo = {**HUB, "c": (300.0, 260.0 + L), "e": (300.0, 260.0 + 2 * L)}
    u = (-math.sqrt(0.5), -math.sqrt(0.5))   # north-west on the board (y down)
    drawn = {**HUB, "c": (300.0 + u[0] * L, 260.0 + u[1] * L), "e": (300.0 + 2 * u[0] * L, 260.0 + 2 * u[1] * L)}
    net, dr = _board(drawn, geo, HUB_ROUTES + [("a", "c", "blue", 3), ("c", "e", "red", 3)])
    assert not geometry_problems(_data(net, dr))
    a, c, e = (net.ids.index(x) for x in "ace")
    assert _bearing_error(net, dr, a, c) > 130 and _bearing_error(net, dr, c, e) > 130
    lengths = (np.hypot(*(dr.pos[c] - dr.pos[a])), np.hypot(*(dr.pos[e] - dr.pos[c])))
    did = turn_branches(Repair(net, dr, None, geometry_problems))
    assert did["turned"] == 1
    assert _bearing_error(net, dr, a, c) < 1.0 and _bearing_error(net, dr, c, e) < 1.0
    # turned as one piece: its routes' lengths kept
    assert np.allclose(lengths, (np.hypot(*(dr.pos[c] - dr.pos[a])), np.hypot(*(dr.pos[e] - dr.pos[c]))))
    assert not geometry_problems(_data(net, dr))
