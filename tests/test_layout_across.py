"""The routes drawn more than 90° off the real map (figures.routes_across) and what `mapkit layout`
tells the designer of them: the station on the wrong side, where it is drawn and where the real map
has it."""

from __future__ import annotations

import json
from pathlib import Path

from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.layout.figures import COMPASS, _compass, bearing_errors, measure, routes_across

BOARDS = Path(__file__).resolve().parent.parent / "boards"
PORTLAND = json.loads((BOARDS / "portland.json").read_text(encoding="utf-8"))


def _turned(data, sid, about, turn):
    """data with station sid's board position turned by `turn` (90 or 180 degrees, clockwise on
    the board) about its neighbour `about`, the rest as it is."""
    out = json.loads(json.dumps(data))
    st = {s["id"]: s for s in out["stations"]}
    cx, cy = st[about]["board"]["x"], st[about]["board"]["y"]
    dx, dy = st[sid]["board"]["x"] - cx, st[sid]["board"]["y"] - cy
    nx, ny = {180: (-dx, -dy), 90: (-dy, dx)}[turn]
    st[sid]["board"] = {"x": round(cx + nx, 1), "y": round(cy + ny, 1)}
    for r in out["routes"]:
        if sid in (r["from"], r["to"]):
            r.pop("waypoints", None)
    return out


def test_the_shipped_board_has_none_and_a_station_turned_round_is_named():
    assert routes_across(PORTLAND) == [] and measure(PORTLAND, labels=False)["routes_over_90deg"] == 0
    # Wilsonville hangs on Tualatin alone (WES), drawn south-east of it as on the real map
    assert {r["to"] for r in PORTLAND["routes"] if r["from"] == "wilsonville"} | \
        {r["from"] for r in PORTLAND["routes"] if r["to"] == "wilsonville"} == {"tualatin"}
    turned = _turned(PORTLAND, "wilsonville", "tualatin", 180)
    found = routes_across(turned)
    assert [x["route"] for x in found] == [r.id for r in build_board(PORTLAND).routes
                                           if {r.a, r.b} == {"tualatin", "wilsonville"}]
    x = found[0]
    # the hanging station is the one to move (one neighbour against Tualatin's several); turned
    # round, the route is as far off as it was near before (180° less its shipped error), drawn
    # the opposite way, and the real map's side is where it was drawn (within 90°)
    board = build_board(PORTLAND)
    shipped = dict((r.id, d) for r, d in bearing_errors(board, Layout(board)))[x["route"]]
    assert x["move"] == "wilsonville" and abs(x["off_deg"] - (180 - shipped)) < 0.1
    st = {s["id"]: s["board"] for s in PORTLAND["stations"]}
    was = COMPASS.index(_compass(st["wilsonville"]["x"] - st["tualatin"]["x"], st["wilsonville"]["y"] - st["tualatin"]["y"]))
    assert x["drawn"] == COMPASS[(was + 4) % 8]
    assert min((COMPASS.index(x["real"]) - was) % 8, (was - COMPASS.index(x["real"])) % 8) <= 2
    assert measure(turned, labels=False)["routes_over_90deg"] == len(found)


def test_a_quarter_turn_is_not_across():
    # 90 degrees round is off its bearing, but not across: not named (the figure counts over 90°)
    turned = _turned(PORTLAND, "wilsonville", "tualatin", 90)
    board = build_board(turned)
    assert all("wilsonville" not in (x["a"], x["b"]) for x in routes_across(None, board, Layout(board)))


def test_mapkit_layout_names_them(cli, tmp_path):
    # a board laid out from lat/lon alone: the text names each route over 90° with its fix, and
    # the json lists the same routes the figure counts
    from mapkit.layout.synthetic import layout_board_data

    path = tmp_path / "b.json"
    path.write_text(json.dumps(layout_board_data(20, seed=0)))
    out = json.loads(cli("layout", str(path), "--format", "json").output)
    across = out["routes_across"]
    assert len(across) == out["figures"]["routes_over_90deg"] > 0
    text = cli("layout", str(path)).output
    n = len(across)
    assert f"{n} {'route is' if n == 1 else 'routes are'} drawn more than 90° off the real map" in text
    first = across[0]
    assert f"route {first['route']}: " in text and f"the real map has it {first['real']}" in text
    assert "move the station named first to the real map's side and pin it, then run layout --refine" in text
