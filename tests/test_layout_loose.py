"""The routes that read as dashes (figures.loose_routes) and what `mapkit layout` tells the designer
of them: each route's gap, how much it is drawn longer than 6 mm gaps need, the length that would
fit the drawing, and the one-space routes already as short as their crowded stations allow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mapkit.boardfile import build_board
from mapkit.cli.layout import _echo_loose
from mapkit.geometry import Layout, RouteShape
from mapkit.layout.figures import gap_figures, loose_routes

BOARDS = Path(__file__).resolve().parent.parent / "boards"
PORTLAND = json.loads((BOARDS / "portland.json").read_text(encoding="utf-8"))


class Drawn:
    """A Layout stand-in whose routes are drawn as the test says."""
    def __init__(self, shapes):
        self.routes = shapes


def shape(rid, usable, gaps, needs=(0.0, 0.0)):
    return RouteShape(rid, ((0.0, 0.0), (usable, 0.0)), usable, 0.0, (), gaps, needs)


def test_a_loose_route_is_named_with_its_excess_and_the_length_that_fits():
    board = build_board(PORTLAND)
    two = next(r for r in board.routes if r.length == 3 and r.kind != "flight")
    # 3 spaces of 22 mm on 106 mm: four gaps of 10 mm; at 6 mm they need 66 + 24 = 90 mm
    found = loose_routes(None, board, Drawn({two.id: shape(two.id, 106.0, (10.0, 10.0, 10.0))}))
    assert found == [{"route": two.id, "a": two.a, "b": two.b, "length": 3, "gap_mm": 10.0, "needs_mm": [0.0, 0.0],
                      "over_mm": 16.0, "held": False, "fits": 4}]   # 4 spaces: (106 - 88) / 5 = 3.6 mm gaps


def test_within_6mm_as_rounded_is_not_loose_and_far_over_fits_no_near_length():
    board = build_board(PORTLAND)
    r1, r2 = [r for r in board.routes if r.length == 2 and r.kind != "flight"][:2]
    drawn = Drawn({r1.id: shape(r1.id, 62.1, (6.04, 6.04, 6.04)),
                   # 2 spaces on 300 mm: even 5 more spaces leave gaps over 6 mm
                   r2.id: shape(r2.id, 300.0, (85.3, 85.3, 85.3))})
    found = loose_routes(None, board, drawn)
    assert [x["route"] for x in found] == [r2.id] and found[0]["fits"] is None


def test_a_one_space_route_at_a_crowded_station_is_held_not_loose():
    """One space centred on 42.2 mm: 10.1 mm either side, but its end at the hub needs 15 mm to
    clear the neighbours there: 22 + 15 + 6 = 43 mm is as short as it can be drawn."""
    board = build_board(PORTLAND)
    one, other = [r for r in board.routes if r.length == 1 and r.kind != "flight"][:2]
    drawn = Drawn({one.id: shape(one.id, 42.2, (10.1, 10.1, 10.1), (0.0, 15.0)),
                   other.id: shape(other.id, 42.2, (10.1, 10.1, 10.1))})
    found = {x["route"]: x for x in loose_routes(None, board, drawn)}
    assert found[one.id]["held"] and found[one.id]["over_mm"] == -0.8
    assert not found[other.id]["held"] and found[other.id]["over_mm"] == pytest.approx(8.2)
    # the loose ones first, the held ones after them
    assert list(found) == [other.id, one.id]


@pytest.mark.parametrize("name", ["portland", "seattle", "north-america"])
def test_the_list_is_what_routes_over_gap_counts(name):
    data = json.loads((BOARDS / f"{name}.json").read_text(encoding="utf-8"))
    board = build_board(data)
    layout = Layout(board)
    found = loose_routes(data, board, layout)
    assert len(found) == gap_figures(data, board, layout)["routes_over_gap"]
    assert max(x["gap_mm"] for x in found) == gap_figures(data, board, layout)["largest_gap_mm"]
    for x in found:
        assert x["fits"] is None or x["fits"] > x["length"]


def test_the_text_names_the_loose_routes_and_the_held_ones_apart(capsys):
    loose = [{"route": f"r{i}", "a": "a", "b": "b", "length": 2, "gap_mm": 20.0 - i, "needs_mm": [0.0, 0.0],
              "over_mm": 30.0, "held": False, "fits": 3} for i in range(14)]
    held = [{"route": "h1", "a": "hub", "b": "c", "length": 1, "gap_mm": 9.0, "needs_mm": [15.0, 0.0],
             "over_mm": -1.0, "held": True, "fits": None}]
    _echo_loose(loose + held)
    out = capsys.readouterr().out
    assert out.startswith("14 routes read as dashes")
    assert "route r0 (a - b, 2 spaces): gaps 20 mm, drawn 30 mm longer than 6 mm gaps need; 3 spaces" in out
    assert "r11" in out and "r12 " not in out and "and 2 more" in out
    assert "1 route of one space has more than 6 mm round its space but is as short" in out and "h1" in out
    _echo_loose([])
    assert capsys.readouterr().out == ""


def test_labels_without_room_are_named():
    """figures.label_figures names the stations whose label the renderer found no room for, even at
    its smallest size (what `mapkit layout` prints after the loose routes)."""
    from mapkit.layout.figures import label_figures
    data = json.loads((BOARDS / "portland.json").read_text(encoding="utf-8"))
    board = build_board(data)
    assert label_figures(board, Layout(board))["labels_unplaced_at"] == []
    # the same board drawn at 45 % of its size round its centre: labels crowd each other out
    xs = [s["board"]["x"] for s in data["stations"]]
    ys = [s["board"]["y"] for s in data["stations"]]
    cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
    for s in data["stations"]:
        s["board"] = {"x": cx + 0.45 * (s["board"]["x"] - cx), "y": cy + 0.45 * (s["board"]["y"] - cy)}
    for r in data["routes"]:
        r.pop("waypoints", None)
    board = build_board(data)
    found = label_figures(board, Layout(board))
    ids = {s["id"] for s in data["stations"]}
    assert found["labels_unplaced"] == len(found["labels_unplaced_at"]) > 0
    assert set(found["labels_unplaced_at"]) <= ids and found["labels_unplaced_at"] == sorted(found["labels_unplaced_at"])
