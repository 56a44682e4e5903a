"""Where a route's spaces are placed (mapkit.geometry.space_placement, end_needs): an end at a narrow
fan gets the room its first space needs to clear its neighbours, the other end keeps its even gap
and the gaps between spaces share the rest; a wide fan keeps the even spread, number for number; a
route too short for its need falls back to the even spread; the figures count the gaps between
spaces and the end gaps apart."""
from __future__ import annotations

import math
import random

import numpy as np

from conftest import red_blue_board
from mapkit.boardfile import build_board
from mapkit.checks import check_geometry
from mapkit.geometry import Layout, space_centres, space_placement, space_placement_arrays, symmetric_need
from mapkit.layout.figures import gap_figures

SL, SG, R = 22.0, 1.5, 7.0   # the model's default space length, smallest gap, station radius


def _fan(angle_deg: float, far: float = 140.0, n: int = 3) -> dict:
    """Station s with two routes of n spaces leaving it `angle_deg` apart, `far` mm long."""
    s = (300.0, 260.0)
    half = math.radians(angle_deg / 2)
    pts = {"s": s, "a": (s[0] + far * math.cos(half), s[1] - far * math.sin(half)),
           "b": (s[0] + far * math.cos(half), s[1] + far * math.sin(half))}
    return red_blue_board(
        stations=[{"id": k, "name": k.upper(), "lat": 45.0 - y / 5000, "lon": -122.0 + x / 5000,
                   "board": {"x": round(x, 3), "y": round(y, 3)}} for k, (x, y) in pts.items()],
        routes=[{"from": "s", "to": "a", "color": "red", "length": n},
                {"from": "s", "to": "b", "color": "blue", "length": n}])


def _even_corners(lay: Layout, rid: str) -> bool:
    sh = lay.routes[rid]
    return sh.gaps[0] == sh.gaps[1] == sh.gaps[2]


def test_a_narrow_fan_end_gets_its_need_and_the_gaps_between_spaces_shrink():
    data = _fan(30.0, far=110.0)
    board = build_board(data)
    lay = Layout(board)
    for rid in ("s-a", "s-b"):
        sh = lay.routes[rid]
        end_s, inner, end_far = sh.gaps
        need_s, need_far = sh.needs
        even = (sh.usable_mm - 3 * SL) / 4
        assert need_s > even and need_far == 0.0
        assert end_s == need_s                      # the narrow end: its need, no more
        assert end_far == even                      # the other end: as before
        assert inner < even and inner >= SG         # between spaces: tighter than the even spread
    assert list(check_geometry(board)) == []        # and the two first spaces clear


def test_a_wide_fan_keeps_the_even_spread_number_for_number():
    board = build_board(_fan(120.0))
    lay = Layout(board)
    for rid in ("s-a", "s-b"):
        sh = lay.routes[rid]
        assert sh.needs == (0.0, 0.0) and _even_corners(lay, rid)
        even = (sh.usable_mm - 3 * SL) / 4
        # the centres are the even spread's arithmetic, operation for operation
        assert space_centres(sh.usable_mm, 3, R, SL, SG) == \
            [R + even * (i + 1) + SL * (i + 0.5) for i in range(3)]


def test_a_route_too_short_for_its_need_falls_back_to_the_even_spread():
    # 3 spaces on 80 mm: 66 mm of spaces, 14 mm for 4 gaps; an end needing 10 would leave under 1.5
    assert space_placement(80.0, 3, SL, SG, 10.0, 0.0) == (3.5, 3.5, 3.5)
    # and one that fits: end a 6, end b its even 3.5, the two gaps between spaces share 4.5
    assert space_placement(80.0, 3, SL, SG, 6.0, 0.0) == (6.0, 2.25, 3.5)
    # both ends needing more: both get it, the two gaps between spaces share the rest
    assert space_placement(100.0, 3, SL, SG, 9.0, 10.0) == (9.0, (34.0 - 19.0) / 2, 10.0)
    # one space: no gap between spaces to take the room from: the even spread
    assert space_placement(60.0, 1, SL, SG, 12.0, 0.0) == (19.0, 19.0, 19.0)


def test_the_layouts_array_placement_is_the_geometrys():
    rng = random.Random(3)
    for _ in range(3000):
        n = rng.randint(1, 6)
        usable = rng.uniform(0.0, 200.0)
        na = rng.choice([0.0, rng.uniform(0.0, 20.0)])
        nb = rng.choice([0.0, rng.uniform(0.0, 20.0)])
        want = space_placement(usable, n, SL, SG, na, nb)
        got = space_placement_arrays(np.array([usable]), np.array([float(n)]), SL, SG, np.array([na]), np.array([nb]))
        assert np.allclose(want, [g[0] for g in got])


def test_the_figures_count_gaps_between_spaces_and_end_gaps_apart():
    data = _fan(30.0, far=125.0)
    board = build_board(data)
    lay = Layout(board)
    fig = gap_figures(data, board, lay)
    sh = lay.routes["s-a"]
    end_s, inner, end_far = sh.gaps
    assert end_s == sh.needs[0] > 6.0 and inner > 6.0   # long: its gaps between spaces are wide too
    assert fig["largest_gap_mm"] == round(inner, 1)
    assert fig["routes_over_gap"] == 2 and fig["routes_drawn"] == 2
    # the far ends' gaps (their even gap, over 6 mm and needing nothing) are counted; the narrow
    # ends' (their need) are not
    assert fig["end_gaps_over_need"] == 2
    assert fig["largest_end_gap_mm"] == round(end_s, 1)
    assert fig["routes_over_gap_even"] == 2


def test_the_narrow_fan_overlaps_with_the_even_spread():
    """The drawing of the first test, its spaces spread evenly (Layout's even, how the layout's
    repairs judge it): the two first spaces overlap at the station, which is what the need is for."""
    from mapkit.geometry import Layout

    board = build_board(_fan(30.0, far=110.0))
    assert "space-overlap" not in [p.code for p in check_geometry(board)]
    found = [p.code for p in check_geometry(board, Layout(board, even=True))]
    assert "space-overlap" in found


def test_the_symmetric_need_is_crowdings_corner_geometry():
    from mapkit.layout.crowding import need_of

    rng = random.Random(5)
    for _ in range(2000):
        s = rng.uniform(7.0, 40.0)
        h1, h2 = sorted((rng.uniform(3.0, 12.0), rng.uniform(3.0, 12.0)))
        want = float(need_of(np.array([s]), np.array([s]), np.array([h1]), np.array([h2]))[0])
        assert abs(symmetric_need(s, h1, h2) - want) < 1e-12


def test_the_one_pair_angle_is_the_array_corner_geometry():
    # pair_angle (the checks' placement, one pair at a time) and need_of (the layout's terms, on arrays)
    # are one geometry written twice for speed: they must agree, ends starting apart or alike,
    # corners before, at and beyond the other space's start
    from mapkit.geometry import need_of, pair_angle
    from mapkit.layout import crowding

    assert crowding.need_of is need_of   # the layout takes it from the geometry, one copy
    rng = random.Random(11)
    s1 = np.array([rng.uniform(7.0, 45.0) for _ in range(3000)])
    s2 = np.where(np.arange(3000) % 3 == 0, s1, [rng.uniform(7.0, 45.0) for _ in range(3000)])
    h1 = np.array([rng.uniform(3.0, 12.0) for _ in range(3000)])
    h2 = np.array([rng.uniform(3.0, 12.0) for _ in range(3000)])
    want = need_of(s1, s2, h1, h2)
    got = np.array([pair_angle(*v) for v in zip(s1.tolist(), s2.tolist(), h1.tolist(), h2.tolist())])
    assert np.abs(got - want).max() < 1e-12
    assert (want > 0).all()


def test_station_fan_is_fan_needs_one_station_at_a_time():
    """station_fan (the repair's and the tightening's fan of one station) gives each band the need
    fan_needs gives it on a board of many stations: a station's needs depend only on its own bands,
    ties in angle kept in the loop's order. Random fans, some crowded (needs > 0), some not."""
    import math
    import random

    from mapkit.geometry import fan_needs, station_fan

    rng = random.Random(7)
    asked = 0
    for _ in range(300):
        stations, items = {}, []
        for s in range(rng.randint(1, 4)):
            at = {}
            for b in range(rng.randint(1, 7)):
                angle = rng.choice([rng.uniform(-math.pi, math.pi), 0.5])   # some ties in angle
                band = [angle, rng.choice([4.0, 9.0]), [(len(items), 0)], rng.uniform(-2.0, 12.0)]
                at[(s, b)] = band
                items.append((s, band))
            stations[s] = at
        whole = fan_needs(stations, len(items), 5.0, 2.0)
        for s, at in stations.items():
            got = station_fan([(v[0], v[1], v[3]) for v in at.values()], 5.0, 2.0)
            want = [whole[v[2][0][0]][0] for v in at.values()]
            assert got == want
            asked += sum(n > 0 for n in got)
    assert asked > 50   # the fans were crowded often enough to ask for room
