"""Synthetic planar networks (mapkit.layout.synthetic: lengths 1-6, doubles, a few long routes)
laid out on their auto size come out clean: no error and no warning from the geometry checks,
re-checked here on the written board; a fixed size too small says what does not fit. The 60- to
200-station ones take minutes and are slow-marked; `mapkit bench --only layout` times 60 and 200."""

from __future__ import annotations

import pytest

from layoutgen import layout_board_data
from mapkit.boardfile import build_board
from mapkit.checks import check_geometry
from mapkit.layout import layout_board
from mapkit.errors import Problem
from mapkit.layout.bench import format_layout_bench, run_layout_bench
from mapkit.layout.network import build_network
from mapkit.layout.report import _fit_report


def laid_out_clean(stations: int, seed: int):
    data = layout_board_data(stations, seed=seed)
    res = layout_board(data, seed=0)   # the network's seed varies; the layout's tie-breaking jitter stays
    found = list(check_geometry(build_board(res.data)))
    assert found == [], [p.format() for p in found]
    assert res.problems == []
    assert res.figures["errors"] == 0 and res.figures["warnings"] == 0
    assert all("board" in s for s in res.data["stations"])
    return res


@pytest.mark.parametrize("stations, seed", [(20, 0), (40, 1)])
def test_synthetic_board_comes_out_clean(stations, seed):
    res = laid_out_clean(stations, seed)
    assert res.figures["size_chosen"] is True


@pytest.mark.slow
@pytest.mark.parametrize("stations, seed", [
    (20, 1), (20, 2), (40, 0), (40, 2), (60, 0), (60, 1), (60, 2), (100, 0), (100, 1), (100, 2),
    (200, 0), (200, 1),
    # a network that wants about 1872 x 1246 mm, shrunk to 89 % on the largest standard size: the
    # earlier steps leave a double 8 mm short (or its overlaps); the finishing step (knots/leftovers.py) clears it
    (200, 2)])
def test_large_synthetic_board_comes_out_clean(stations, seed):
    """Which leftovers the earlier steps hand to the finishing step depends on the machine's
    floating point (docs/design/layout.md, "Finishing"): the board must come out
    clean whatever they are."""
    laid_out_clean(stations, seed)


def test_what_is_left_says_why_the_crowded_station_and_a_larger_board():
    """The fit report of problems the repair could not undo: a space overlap between two routes
    that share a station names that station and how many routes (and doubles) leave it; a route
    short by a fraction of a millimetre says so instead of "short by 0 mm"; and the last line
    names the next standard board size."""
    data = layout_board_data(20, seed=0)
    net = build_network(data)
    at = sorted({i for b in net.bundles for i in (b.a, b.b)}, key=lambda i: -sum(i in (b.a, b.b) for b in net.bundles))[0]
    hub = net.ids[at]
    mine = [net.route_ids[b.routes[0]] for b in net.bundles if at in (b.a, b.b)][:2]
    found = [Problem("error", "space-overlap", f"spaces overlap route '{mine[1]}' (2 mm²)", subject=f"route {mine[0]}"),
             Problem("error", "route-too-short", "2 spaces need 48 mm but the route is drawn 48 mm long",
                     subject=f"route {mine[1]}")]
    lines = _fit_report(found, net, (800, 530))
    degree = sum(at in (b.a, b.b) for b in net.bundles)
    assert f"station '{hub}' ({degree} routes leave it" in lines[0], lines
    assert "short by less than 1 mm" in lines[1], lines
    assert lines[-1] == "2 problems left that the repair's moves could not undo on 800 x 530 mm; a larger board " \
        "(--size 841x594) gives the stations more room", lines
    assert _fit_report([], net, (800, 530)) == []


@pytest.mark.slow  # tests/test_layout.py has a fast one on 8 stations
def test_too_small_a_size_says_which_routes_do_not_fit_and_by_how_much():
    data = layout_board_data(20, seed=0)
    res = layout_board(data, seed=0, size=(300, 200))
    assert res.figures["errors"] > 0
    assert any("shrink" in p for p in res.problems), res.problems
    named = [p for p in res.problems if p.startswith("route ")]
    assert named, res.problems
    assert any("short by" in p for p in named) or any("overlap" in p or "covers" in p for p in named)


@pytest.mark.slow
def test_bench_boards_come_out_clean_and_200_stations_within_its_target():
    """Both bench boards clean, with the gap rule (the default) and without; 200 stations within the issue's 60 s of CPU (about 33 s with the rule here;
    the 60-station figure against its 10 s is `mapkit bench --only layout`'s, not a timed test's)."""
    rows = run_layout_bench()
    text = format_layout_bench(rows)
    for r in rows:
        assert r["errors"] == 0 and r["warnings"] == 0, text
    assert [r["layout"] for r in rows] == ["gap rule (default)", "--no-gap-rule"] * 2, text
    assert [r["within_target"] for r in rows if r["stations"] == 200] == [True, True], text
    # the rule leaves fewer routes over 6 mm than the soft layout of the same board
    for n in (60, 200):
        rule, soft = (r["routes_over_gap"] for r in rows if r["stations"] == n)
        assert rule < soft, text


def test_size_auto_tries_the_next_size_up_when_its_size_leaves_problems(monkeypatch):
    """The choice itself, with the layouts faked: a size that leaves a warning is followed by the
    next standard size up, kept when its checks find less; a clean first size lays out once; a
    fixed size or a pinned station never tries another."""
    from mapkit.layout import LayoutOptions, pipeline

    calls = []

    def fake(data, opts, refine=None):
        size = opts.size
        calls.append(size)
        board = (841, 1189) if size == "auto" else size
        warnings = data["warnings_on"].get(board, 0)
        return {}, {}, {"board_mm": list(board), "errors": 0, "warnings": warnings, "size_chosen": size == "auto"}, \
            ["a warning"] * warnings

    monkeypatch.setattr(pipeline, "layout_once", fake)
    data = {"stations": [{"id": "a"}], "warnings_on": {(841, 1189): 1}}
    _, _, figures, problems = pipeline.layout_board_impl(data, LayoutOptions(gap_rule=False))
    assert calls == ["auto", (1000, 1400)] and problems == [] and figures["board_mm"] == [1000, 1400]
    assert figures["auto_sizes_tried"] == "841x1189 0 error(s), 1 warning(s); 1000x1400 clean"
    assert figures["size_chosen"] is True
    calls.clear()   # the larger size no better: the first one kept
    data["warnings_on"][(1000, 1400)] = 1
    _, _, figures, problems = pipeline.layout_board_impl(data, LayoutOptions(gap_rule=False))
    assert calls == ["auto", (1000, 1400)] and figures["board_mm"] == [841, 1189] and problems == ["a warning"]
    for size, stations in (((841, 1189), [{"id": "a"}]), ("auto", [{"id": "a", "pinned": True, "board": {"x": 1, "y": 1}}])):
        calls.clear()
        pipeline.layout_board_impl({"stations": stations, "warnings_on": data["warnings_on"]},
                                   LayoutOptions(size=size, gap_rule=False))
        assert calls == [size]
    calls.clear()
    data["warnings_on"] = {}
    _, _, figures, _ = pipeline.layout_board_impl(data, LayoutOptions(gap_rule=False))
    assert calls == ["auto"] and "auto_sizes_tried" not in figures
