"""--size auto, last step: the finished drawing moved onto the smallest standard board that holds it
(mapkit/layout/board_size.py)."""

from __future__ import annotations

import numpy as np

from mapkit.layout import judge, layout_board, pipeline
from mapkit.layout.labelroom import ROOM_SIZES, without_room
from mapkit.layout.network import build_network
from mapkit.layout.optimize import Drawing
from mapkit.layout.board_size import smaller_board
from mapkit.layout.result import build_result
from mapkit.layout.synthetic import layout_board_data


def _on_a_larger_board(size=(1189, 841)):
    """A clean small layout, its drawing centred on a board far larger than it needs."""
    res = layout_board(layout_board_data(14, seed=3), seed=0)
    data = res.data
    net = build_network(data)
    pos = [[s["board"]["x"], s["board"]["y"]] for s in data["stations"]]
    lines = []
    for b in net.bundles:
        wps = data["routes"][b.routes[0]].get("waypoints", [])
        line = [b.a]
        for w in wps:
            pos.append([w["x"], w["y"]])
            line.append(len(pos) - 1)
        lines.append(line + [b.b])
    pos = np.array(pos, dtype=float)
    pos += np.array(size) / 2 - (pos.min(0) + pos.max(0)) / 2
    dr = Drawing(pos, net.n, lines, np.ones(len(pos), dtype=bool))
    return res, net, dr, size


def test_a_drawing_on_too_large_a_board_moves_to_a_smaller_one_clean_with_its_labels():
    res, net, dr, size = _on_a_larger_board()
    shape_before = np.diff(dr.pos, axis=0)
    assert not judge.geometry_problems(build_result(net, dr, size)[0])
    new = smaller_board(net, dr, size, judge.geometry_problems)
    assert new[0] * new[1] < size[0] * size[1]
    # the same drawing (only moved), clean on the new board, no label with less room
    assert np.allclose(np.diff(dr.pos, axis=0), shape_before)
    data = build_result(net, dr, new)[0]
    assert (data["physical"]["width_mm"], data["physical"]["height_mm"]) == new
    assert not judge.geometry_problems(data)
    before = build_result(net, _on_a_larger_board()[2], size)[0]
    for pt in ROOM_SIZES:
        assert len(without_room(data, size=pt)) <= len(without_room(before, size=pt))
    # the smallest that holds it: every smaller standard size is too small for its points either way round
    span = dr.pos.max(0) - dr.pos.min(0)
    e = 2 * (net.board.physical.margin_mm + net.board.physical.station_radius_mm)
    from mapkit.layout.fit import STANDARD_SIZES
    for w, h in STANDARD_SIZES:
        for W, H in ((w, h), (h, w)):
            if W * H < new[0] * new[1]:
                assert span[0] > W - e or span[1] > H - e, (W, H)


def test_where_every_smaller_board_finds_a_problem_nothing_moves():
    res, net, dr, size = _on_a_larger_board()
    pos, lines = dr.pos.copy(), [list(line) for line in dr.lines]
    calls = []

    def always_a_problem(data):
        calls.append(data["physical"])
        return ["something"]

    assert smaller_board(net, dr, size, always_a_problem) == size
    assert calls   # smaller sizes were tried
    assert np.array_equal(dr.pos, pos) and dr.lines == lines


def test_size_auto_says_when_it_moved_the_drawing_to_a_smaller_board(monkeypatch):
    # the first size picked far too large (as a network drawn in by the rule leaves it): the figure
    # names both sizes and the board written is the smaller; a fixed size never resizes
    from mapkit.layout import fit

    monkeypatch.setattr(fit, "pick_size", lambda *a, **k: (1189, 841))
    res = layout_board(layout_board_data(14, seed=3), seed=0)
    got = (res.data["physical"]["width_mm"], res.data["physical"]["height_mm"])
    assert got[0] * got[1] < 1189 * 841
    assert res.figures["smaller_board"] == f"1189x841 -> {got[0]:g}x{got[1]:g}"
    assert res.figures["board_mm"] == list(got) and res.figures["errors"] == res.figures["warnings"] == 0
    seen = []
    real = pipeline.smaller_board
    monkeypatch.setattr(pipeline, "smaller_board", lambda *a: seen.append(a) or real(*a))
    fixed = layout_board(layout_board_data(14, seed=3), seed=0, size=(900, 600))
    assert not seen and "smaller_board" not in fixed.figures
