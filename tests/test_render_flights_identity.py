"""Where the print draws a flight does not depend on how `flights._cost` measures a path.

`_cost` measures what a candidate path's spaces and line cover of the other routes' spaces and
of the stations from the few parts of those unions near it (`flights.Blockers`, an STRtree);
`plain_cost` below measures it by intersecting with the whole unions, as the renderer did before
the editor needed the print drawing within 2 s of a drag, and is kept here as the yardstick.
Every cost the search computes must equal the plain one, and the search must choose the same
path, spaces and line pieces, on Seattle (its flight: `-m slow`), on Portland with a flight
between its airports across the city centre, and on the tiny board's flight over a station.
"""

import json
import math
import random
from pathlib import Path

import pytest
import shapely
from shapely.geometry import LineString, Point, Polygon, box
from shapely.ops import unary_union

from mapkit.boardfile import build_board, whole_numbers
from mapkit.geometry import Layout
from mapkit.render import flights, sides

BOARDS = Path(__file__).resolve().parent.parent / "boards"


class PlainBlockers(flights.Blockers):
    """Blockers that also keep the whole union, for plain_cost."""

    def __init__(self, polys, keys=None):
        super().__init__(polys, keys)
        self.union = unary_union(polys)


def plain_cost(coords, spaces, spaces_b, stations_b, inner, ends_cut, beat=None):
    """flights._cost measured on the whole unions, the line always measured."""
    spaces_u, stations_u = spaces_b.union, stations_b.union
    path = LineString(coords).difference(ends_cut)
    own = unary_union([Polygon(c) for c in spaces])
    line = path.buffer(flights.LINE_CLEAR_MM, quad_segs=2)
    under = own.difference(inner).area + own.intersection(spaces_u).area + own.intersection(stations_u).area
    over = line.difference(inner).area + line.intersection(spaces_u).area + 5 * line.intersection(stations_u).area
    return under, over


def plain_spaces_along(coords, n, length, width, radius):
    """flights.spaces_along, one point at a time."""
    line = LineString(coords)
    usable = max(0.0, line.length - 2 * radius)
    spread = (usable - n * length) / (n + 1)
    out = []
    for i in range(n):
        s = min(max(radius + spread * (i + 1) + length * (i + 0.5), 0.0), line.length)
        c = line.interpolate(s)
        p0, p1 = line.interpolate(max(0.0, s - 0.5)), line.interpolate(min(line.length, s + 0.5))
        dx, dy = p1.x - p0.x, p1.y - p0.y
        norm = math.hypot(dx, dy) or 1.0
        ux, uy, vx, vy = dx / norm, dy / norm, -dy / norm, dx / norm
        hl, hw = length / 2, width / 2
        out.append(tuple((c.x + ux * a * hl + vx * b * hw, c.y + uy * a * hl + vy * b * hw)
                         for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))))
    return tuple(out)


def _close(a, b) -> bool:
    return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9) for x, y in zip(a, b))


def _reroute(board, monkeypatch, cost):
    monkeypatch.setattr(flights, "Blockers", PlainBlockers)
    monkeypatch.setattr(flights, "_cost", cost)
    layout = Layout(board)
    return flights.reroute(board, layout, sides.keep_sides(board, layout.positions, layout.routes))


def check_same(board, monkeypatch) -> int:
    """Every cost of the search equals the plain one, and the search ends the same way; the
    number of costs compared."""
    fast_cost = flights._cost
    pairs = []

    ph = board.physical

    def both(*args):
        coords, spaces = args[:2]
        assert spaces == plain_spaces_along(coords, len(spaces), ph.space_length_mm, ph.space_width_mm,
                                            ph.station_radius_mm)
        fast = fast_cost(*args)
        pairs.append((fast, plain_cost(*args), args[6] if len(args) > 6 else None))
        return fast

    fast = _reroute(board, monkeypatch, both)
    plain = _reroute(board, monkeypatch, plain_cost)
    bad = [(f, p) for f, p, beat in pairs
           if not (_close(f, p) if f[1] != math.inf else
                   math.isclose(f[0], p[0], rel_tol=1e-9, abs_tol=1e-9) and not flights._better(p, beat))]
    assert not bad, f"{len(bad)} of {len(pairs)} costs differ, e.g. {bad[:3]}"
    assert any(f[1] == math.inf for f, _, _ in pairs)   # some lines left unmeasured
    assert fast == plain   # the routes drawn (centre lines and spaces), the flights' line pieces, the warnings
    return len(pairs)


def _board(name, extra_route=None, extra_palette=None):
    data = json.loads((BOARDS / f"{name}.json").read_text(encoding="utf-8"))
    if extra_palette:
        data["palette"].append(extra_palette)
    if extra_route:
        data["routes"].append(extra_route)
    return build_board(whole_numbers(data), f"{name}.json")


def test_tiny_flight_over_a_station(tiny_data, monkeypatch):
    tiny_data["palette"].append({"id": "air", "name": "Air", "hex": "#303030", "kind": "flight"})
    tiny_data["routes"].append({"from": "alder", "to": "cedar", "color": "air", "length": 3})
    board = build_board(tiny_data, "flight.json")
    assert check_same(board, monkeypatch) > 13   # the straight path, the arcs and the nudges


def test_portland_with_a_flight_across_the_centre(monkeypatch):
    board = _board("portland",
                   {"from": "hillsboro-airport", "to": "pdx", "color": "air", "length": 6},
                   {"id": "air", "name": "Air", "hex": "#303030", "kind": "flight"})
    assert check_same(board, monkeypatch) > 13


@pytest.mark.slow
def test_seattle(monkeypatch):
    board = _board("seattle")
    assert any(r.kind == "flight" for r in board.routes)
    assert check_same(board, monkeypatch) > 13


def test_spaces_along_as_one_point_at_a_time():
    rng = random.Random(7)
    paths = [[(0.0, 0.0), (0.0, 0.0)], [(5.0, 5.0), (6.0, 5.0)], [(0.0, 0.0), (100.0, 0.0), (100.0, 3.0)]]
    paths += [[(rng.uniform(0, 600), rng.uniform(0, 600)) for _ in range(rng.randint(2, 9))] for _ in range(300)]
    for coords in paths:
        for n in (1, 3, 7):
            args = (n, rng.choice([20.0, 25.0]), rng.choice([8.0, 9.5]), rng.choice([0.0, 5.0, 6.5]))
            assert flights.spaces_along(coords, *args) == plain_spaces_along(coords, *args)


def test_no_blockers():
    assert flights.Blockers([]).areas_under([box(0, 0, 1, 1), Polygon()]) == [0.0, 0.0]


def test_area_under_counts_overlapping_polygons_once():
    polys = [box(0, 0, 10, 10), box(5, 0, 15, 10), box(30, 0, 40, 10), Point(50, 5).buffer(3)]
    b = flights.Blockers(polys)
    for geom in (box(2, 2, 12, 8), box(8, 4, 35, 6), LineString([(0, 5), (60, 5)]).buffer(1.5, quad_segs=2),
                 box(100, 100, 101, 101)):
        assert math.isclose(b.areas_under([geom])[0], geom.intersection(unary_union(polys)).area, abs_tol=1e-9)
    assert b.areas_under([box(2, 2, 12, 8), box(-5, -5, -1, -1)]) == pytest.approx([60.0, 0.0])   # not 90: the overlap counts once


def test_the_print_drawing_searches_each_flights_path_once(tiny_data, monkeypatch):
    from mapkit.edit.svg import board_svg, drawn_routes, print_svg
    from mapkit.render.scene import build_scene

    tiny_data["palette"].append({"id": "air", "name": "Air", "hex": "#303030", "kind": "flight"})
    tiny_data["routes"].append({"from": "alder", "to": "cedar", "color": "air", "length": 3})
    board = build_board(tiny_data, "flight.json")
    calls = []
    search = flights.reroute
    monkeypatch.setattr(flights, "reroute", lambda *a, **k: calls.append(1) or search(*a, **k))
    svg, _ = print_svg(board, "00000000")
    assert len(calls) == 1
    layout = Layout(board)   # the drawing as made with the flights' paths searched again
    assert svg == board_svg(board, layout, build_scene(board, layout, "00000000"), drawn_routes(board, layout))
