"""A fixed board far too small for its network gives up soon: after the repair, errors on more than
a third of the routes (knots.KNOT_SHARE) mean the board lacks room, not that the drawing has a
knot, so the steps that undo a few local knots each (untangling, unfolding, uncrossing, finishing)
are left out and the fit report says so, with the size --size auto would start from. Before, 20
stations on 300 x 200 mm spent about 65 s of CPU in those steps to undo 3 of 39 errors."""

from __future__ import annotations

import re

import pytest

import mapkit.layout.knots as knots
from layoutgen import layout_board_data
from mapkit.layout.fit import STANDARD_SIZES
from mapkit.errors import Problem
from mapkit.layout import layout_board
from mapkit.layout.network import build_network

KNOT_STEPS = ("untangle", "unfold", "uncross", "finish")


def counting(monkeypatch) -> dict:
    calls = dict.fromkeys(KNOT_STEPS, 0)
    for name in KNOT_STEPS:
        def step(*a, _f=getattr(knots, name), _n=name, **k):
            calls[_n] += 1
            return _f(*a, **k)
        monkeypatch.setattr(knots, name, step)
    return calls


def test_errors_on_more_than_a_third_of_the_routes_are_too_many():
    net = build_network(layout_board_data(8, seed=3))
    routes = len(net.route_ids)
    err = Problem("error", "route-too-short", "short", subject="route x")
    warn = Problem("warning", "crossing", "crosses", subject="route x")
    third = int(routes * knots.KNOT_SHARE)
    assert not knots._too_many([err] * third, net)
    assert knots._too_many([err] * (third + 1), net)
    assert not knots._too_many([err] * third + [warn] * routes, net)   # warnings are not counted


def test_a_board_far_too_small_leaves_the_knot_steps_out_and_says_so(monkeypatch):
    calls = counting(monkeypatch)
    res = layout_board(layout_board_data(20, seed=0), seed=0, size=(300, 200))
    assert res.figures["errors"] > 0
    assert calls == dict.fromkeys(KNOT_STEPS, 0), calls
    said = [p for p in res.problems if "rather than knotted" in p]
    assert len(said) == 1, res.problems
    # a standard size larger than the one asked (which one: what the drawing on this machine spans)
    w, h = (int(x) for x in re.search(r"--size auto would start from (\d+) x (\d+) mm", said[0]).groups())
    assert ((w, h) in STANDARD_SIZES or (h, w) in STANDARD_SIZES) and w * h > 300 * 200, said[0]
    # the note of how far it shrank comes first
    assert int(re.search(r"on 300 x 200 mm it had to shrink to (\d+)%", res.problems[0]).group(1)) < 100
    assert any(p.startswith("route ") and "short by" in p for p in res.problems)


def test_a_knot_on_a_board_of_the_right_size_still_gets_the_knot_steps(monkeypatch):
    """20/1 on its auto size brings 2 errors on 39 routes to the untangling (and comes out clean)."""
    calls = counting(monkeypatch)
    res = layout_board(layout_board_data(20, seed=1), seed=0)
    assert calls["untangle"] >= 1, calls
    assert res.figures["errors"] == 0 and not any("rather than knotted" in p for p in res.problems)


def test_the_text_output_names_the_first_lines_and_counts_the_rest(tmp_path, monkeypatch):
    """Each problem is said twice (the fit report's words, then as `validate` says it): on a board
    far too small, the first FIT_SHOWN of each and how many more; --format json keeps them all."""
    import json

    from click.testing import CliRunner

    import mapkit.cli.layout as cli_layout
    from mapkit.cli import main

    path = tmp_path / "b.json"
    path.write_text(json.dumps(layout_board_data(8, seed=3)), encoding="utf-8")
    monkeypatch.setattr(cli_layout, "FIT_SHOWN", 2)
    args = ["layout", str(path), "--size", "200x150", "--out", str(tmp_path / "o.json")]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 1, text.output
    said = [line for line in text.output.splitlines() if line.startswith("does not fit: ")]
    assert len(said) == 2, text.output
    more = [line for line in text.output.splitlines() if line.startswith("... and ")]
    assert len(more) == 2 and "more lines of what does not fit (--format json lists them all)" in more[0]
    assert "more problems left (--format json lists them all)" in more[1], text.output
    data = json.loads(CliRunner().invoke(main, args + ["--format", "json"]).output)
    shown_more = int(more[0].split()[2])
    assert len(data["problems"]) == 2 + shown_more
    assert len(data["remaining"]) == 2 + int(more[1].split()[2])
