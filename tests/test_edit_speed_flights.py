"""The flight search's path costs kept between the editor's drawings (`flights.Trials`) are the costs
measured again, and the search ends where a search from nothing ends.

After each drag of a sequence (stations dragged near the flight, onto its path, far from it, and
a route deleted), every cost the search takes from what it kept is compared, bit for bit, with
measuring that path again on this drawing's blockers, and the routes, line pieces and warnings
with a search that keeps nothing.
"""

import json
import math
import random
from pathlib import Path

import pytest
from shapely.geometry import Point, Polygon
from shapely.ops import unary_union

from mapkit.boardfile import build_board, whole_numbers
from mapkit.geometry import Layout
from mapkit.render import flights, sides

BOARDS = Path(__file__).resolve().parent.parent / "boards"


def _search(data, trials):
    board = build_board(whole_numbers(data), "board.json")
    layout = Layout(board)
    return board, layout, flights.reroute(board, layout, sides.keep_sides(board, layout.positions, layout.routes),
                                          trials=trials)


def check_kept_costs(data, changes, monkeypatch) -> int:
    """Run the search after each change with costs kept; every kept cost must be the measured one.
    Returns how many kept costs were handed back."""
    trials = flights.Trials()
    state = {}
    checked = []
    kept_cost = flights._TrialsView.cost

    def cost(view, coords, beat):
        got = kept_cost(view, coords, beat)
        if got is not None:
            board, r = state["board"], state["flight"]
            ph = board.physical
            m = ph.margin_mm
            inner = Polygon([(m, m), (ph.width_mm - m, m), (ph.width_mm - m, ph.height_mm - m), (m, ph.height_mm - m)])
            ends_cut = unary_union([Point(e).buffer(ph.station_radius_mm + 0.5) for e in view.key[2]])
            spaces = flights.spaces_along(coords, r.length, ph.space_length_mm, ph.space_width_mm, ph.station_radius_mm)
            measured = flights._cost(coords, spaces, view.spaces_b, view.stations_b, inner, ends_cut, beat)
            assert got == measured, f"kept {got}, measured {measured}"
            checked.append(1)
        return got

    monkeypatch.setattr(flights._TrialsView, "cost", cost)
    for change in [None] + changes:
        if change is not None:
            change(data)
        board = build_board(whole_numbers(data), "board.json")
        state["board"] = board
        state["flight"] = next(r for r in board.routes if r.kind == "flight")
        _, _, kept = _search(data, trials)
        _, _, afresh = _search(data, None)
        assert kept == afresh
    return len(checked)


def _drag(sid, dx, dy):
    def change(data):
        st = next(s for s in data["stations"] if s["id"] == sid)
        board = build_board(whole_numbers(data), "board.json")
        x, y = Layout(board).positions[sid]
        st["board"] = {"x": round(x + dx, 1), "y": round(y + dy, 1)}
    return change


def _drag_onto_path(sid, flight_index):
    """The station dragged onto the middle of the flight's path as last drawn."""
    def change(data):
        board = build_board(whole_numbers(data), "board.json")
        layout = Layout(board)
        r = [r for r in board.routes if r.kind == "flight"][flight_index]
        routes, _, _ = flights.reroute(board, layout, sides.keep_sides(board, layout.positions, layout.routes))
        line = routes[r.id].centerline
        x, y = line[len(line) // 2]
        next(s for s in data["stations"] if s["id"] == sid)["board"] = {"x": round(x, 1), "y": round(y, 1)}
    return change


def _delete_route_under_flight(data):
    """A route the flight's path crosses deleted (its spaces gone: nothing new in their place)."""
    from shapely.geometry import LineString

    board = build_board(whole_numbers(data), "board.json")
    layout = Layout(board)
    routes, _, _ = flights.reroute(board, layout, sides.keep_sides(board, layout.positions, layout.routes))
    flight = next(r for r in board.routes if r.kind == "flight")
    path = LineString(routes[flight.id].centerline).buffer(2.0)
    i = next(i for i, r in enumerate(board.routes) if r.kind != "flight" and not r.double
             and any(Polygon(c).intersects(path) for c in routes[r.id].spaces))
    del data["routes"][i]


def _portland_with_a_flight():
    data = json.loads((BOARDS / "portland.json").read_text(encoding="utf-8"))
    data["palette"].append({"id": "air", "name": "Air", "hex": "#303030", "kind": "flight"})
    data["routes"].append({"from": "hillsboro-airport", "to": "pdx", "color": "air", "length": 6})
    return data


def test_portland_flight_costs_kept_across_drags_are_the_measured_ones(monkeypatch):
    data = _portland_with_a_flight()
    changes = [_drag("pioneer-square", 6, 4), _drag("pioneer-square", -11, 2), _drag("gresham", 9, -7),
               _drag_onto_path("pioneer-square", 0), _delete_route_under_flight, _drag("beaverton-tc", -5, 5)]
    assert check_kept_costs(data, changes, monkeypatch) > 500   # most of the search kept


def test_tiny_flight_costs_kept_across_drags_are_the_measured_ones(tiny_data, monkeypatch):
    tiny_data["palette"].append({"id": "air", "name": "Air", "hex": "#303030", "kind": "flight"})
    tiny_data["routes"].append({"from": "alder", "to": "cedar", "color": "air", "length": 3})
    ids = [s["id"] for s in tiny_data["stations"]]
    rng = random.Random(4)
    changes = [_drag(rng.choice(ids), rng.uniform(-15, 15), rng.uniform(-15, 15)) for _ in range(6)]
    changes.insert(2, _drag_onto_path(next(i for i in ids if i not in ("alder", "cedar")), 0))
    check_kept_costs(tiny_data, changes, monkeypatch)


@pytest.mark.slow
def test_seattle_flight_costs_kept_across_drags_are_the_measured_ones(monkeypatch):
    data = json.loads((BOARDS / "seattle.json").read_text(encoding="utf-8"))
    changes = [_drag("westlake", 4, 3), _drag("pioneer-square", -7, 4), _drag("everett", 12, -9),
               _drag_onto_path("capitol-hill", 0)]
    assert check_kept_costs(data, changes, monkeypatch) > 300


def test_blockers_groups_are_the_touching_polygons():
    """A group is the union of polygons that touch, made of them alone; the order is that of each
    group's first polygon."""
    polys = [Point(50, 5).buffer(3), Polygon([(0, 0), (10, 0), (10, 10), (0, 10)]),
             Polygon([(5, 0), (15, 0), (15, 10), (5, 10)]), Point(100, 5).buffer(2)]
    b = flights.Blockers(polys, ["disc", "a", "b", "far"])
    assert b.keys == [("disc",), ("a", "b"), ("far",)]
    assert math.isclose(b.parts[1].area, 150.0)
    assert b.hits(Point(12, 5).buffer(1)) == [1]
