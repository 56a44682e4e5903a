"""A flight is drawn clear of other routes, or render says it could not be."""

import pytest
from shapely.geometry import LineString, Polygon
from shapely.ops import unary_union

from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.render import flights


@pytest.fixture
def flight_board(tiny_data):
    """The tiny board with a flight from alder to cedar: straight, it runs over birch and the two
    routes alder–birch and birch–cedar (so `validate` refuses it, as the checks see the board's
    path; the renderer is given it unchecked to see what it does with such a path)."""
    tiny_data["palette"].append({"id": "air", "name": "Air", "hex": "#303030", "kind": "flight"})
    tiny_data["routes"].append({"from": "alder", "to": "cedar", "color": "air", "length": 3})
    return build_board(tiny_data, "flight.json")


def _covered(board, routes, rid):
    others = unary_union([Polygon(c) for k, s in routes.items() if k != rid for c in s.spaces])
    own = unary_union([Polygon(c) for c in routes[rid].spaces])
    return own.intersection(others).area


def test_a_flight_is_moved_off_what_it_would_cover(flight_board):
    layout = Layout(flight_board)
    rid = next(r.id for r in flight_board.routes if r.kind == "flight")
    assert _covered(flight_board, layout.routes, rid) > 10  # the board's straight path
    routes, drawn, warnings = flights.reroute(flight_board, layout)
    assert warnings == []
    assert _covered(flight_board, routes, rid) < 0.5
    birch = layout.station_discs["birch"]
    assert all(not LineString(p).intersects(birch) for p in drawn[rid])


def test_render_warns_when_no_path_is_clear(flight_board, monkeypatch):
    monkeypatch.setattr(flights, "BULGES", ())
    monkeypatch.setattr(flights, "_nudged", lambda coords, score, **kw: (coords, score(coords)))
    routes, drawn, warnings = flights.reroute(flight_board, Layout(flight_board))
    assert len(warnings) == 1 and "alder-cedar" in warnings[0] and "spaces" in warnings[0]
