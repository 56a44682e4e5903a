"""Issue 9, item 10 (part): the checks scale with the board, not with its square.

The route-reference check used to rebuild the set of station ids for every route end (n^2: 2.3 CPU
seconds of a 3,000-station board's 5.2). Counting passes over the stations pins that down without
a timing test that a busy machine would make flaky.
"""

import math
from dataclasses import replace

import pytest

from mapkit import checks
from mapkit.boardfile import build_board


class CountingStations(tuple):
    """The board's stations, counting how often something walks through all of them."""

    passes = 0

    def __iter__(self):
        CountingStations.passes += 1
        return super().__iter__()


def grid_board(n: int):
    """n stations on a grid, 80 mm apart, joined to their right and lower neighbours by 2-space routes."""
    side, step = math.ceil(math.sqrt(n)), 80.0
    stations = [{"id": f"s{i}", "name": f"Station {i}", "lat": 45 + (i // side) * 0.01, "lon": -122 + (i % side) * 0.01,
                 "board": {"x": 40 + (i % side) * step, "y": 40 + (i // side) * step}} for i in range(n)]
    routes = []
    for i in range(n):
        if i % side + 1 < side and i + 1 < n:
            routes.append({"from": f"s{i}", "to": f"s{i + 1}", "color": "gray", "length": 2})
        if i + side < n:
            routes.append({"from": f"s{i}", "to": f"s{i + side}", "color": "red", "length": 2})
    size = 80 + (side - 1) * step
    data = {"schema_version": 1, "id": "grid", "name": "Grid", "physical": {"width_mm": size, "height_mm": size},
            "palette": [{"id": "red", "name": "Red", "hex": "#d11241", "kind": "rail"}],
            "wild": {"name": "Loco"}, "stations": stations, "routes": routes}
    return build_board(data, "grid.json")


@pytest.mark.parametrize("check", [checks.check_route_references, checks.check_tickets, checks.check_connectivity,
                                   checks.check_duplicates])
def test_reference_checks_walk_the_stations_a_fixed_number_of_times(check):
    passes = []
    for n in (100, 400):
        board = grid_board(n)
        board = replace(board, stations=CountingStations(board.stations))
        CountingStations.passes = 0
        assert list(check(board)) == []
        passes.append(CountingStations.passes)
    assert passes[0] == passes[1] <= 4, passes  # the same for 4x the stations: no pass per route


def test_a_bad_reference_is_still_found_with_its_hint():
    board = grid_board(9)
    bad = replace(board.routes[0], b="Station 3")
    board = replace(board, routes=(bad,) + board.routes[1:])
    found = list(checks.check_route_references(board))
    assert [p.code for p in found] == ["unknown-station"]
    assert "use the station's id 's3', not its name" in found[0].message
