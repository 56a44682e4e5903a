"""`mapkit layout --refine`: from the board as the file draws it, not from the real map. A designer
who moved or pinned a station gets the others where they were (laid out anew from the real map,
every station moves: the optimization's path is chaotic); a clean board comes back nearly as it
was; the board keeps its own size; a file without board positions is refused with what to do.

The computed board these start from is another one on another processor (docs/board-format.md:
same seed, same layout on one machine), so what is asserted holds for any of them: every station
that moves more than 1 mm is one the checks, the gaps or the labels name on the board refined
(asked), and those are few."""

from __future__ import annotations

import json
import math
import re

import pytest
from click.testing import CliRunner

from layoutgen import layout_board_data
from mapkit.boardfile import build_board
from mapkit.checks import check_geometry
from mapkit.cli import main
from mapkit.layout import LayoutError, layout_board
from mapkit.layout.figures import loose_routes
from mapkit.layout.labels import without_room


@pytest.fixture(scope="module")
def laid_out():
    res = layout_board(layout_board_data(20, seed=0), seed=0)
    assert res.figures["errors"] == 0 and res.figures["warnings"] == 0
    return res.data


def moved(a: dict, b: dict) -> dict:
    A = {s["id"]: s["board"] for s in a["stations"]}
    return {s["id"]: math.hypot(s["board"]["x"] - A[s["id"]]["x"], s["board"]["y"] - A[s["id"]]["y"])
            for s in b["stations"]}


def clean(data: dict) -> bool:
    return list(check_geometry(build_board(data))) == []


def asked(data: dict) -> set[str]:
    """The stations --refine may move on this board: the ends of the routes the geometry checks
    name and the stations they name, the ends of routes with gaps over 6 mm (loose_routes), the
    stations without label room at 10 pt."""
    board = build_board(data)
    ends = {r.id: (r.a, r.b) for r in board.routes}
    out = {x for r in loose_routes(data) for x in (r["a"], r["b"])} | set(without_room(data))
    for p in check_geometry(board):
        for rid in re.findall(r"route '([^']+)'", p.message) + ([p.subject[6:]] if p.subject.startswith("route ") else []):
            out |= set(ends.get(rid, ()))
        out |= set(re.findall(r"station '([^']+)'", p.message))
        if p.subject.startswith("station "):
            out.add(p.subject[8:])
    return out


def only_asked_moved(before: dict, after: dict) -> None:
    """Every station more than 1 mm from where it was is one the board before names (asked), and
    those are at most half the stations (else the assertion says little)."""
    named = asked(before)
    far = {sid: round(x, 2) for sid, x in moved(before, after).items() if x > 1.0}
    assert set(far) <= named, (far, sorted(named))
    assert len(named) <= len(before["stations"]) // 2, sorted(named)


def test_a_clean_board_comes_back_nearly_as_it_was(laid_out):
    res = layout_board(laid_out, refine=True)
    assert clean(res.data)
    # only what the gaps ask: the tightening draws in the routes still over 6 mm, moving their ends
    # one at a time (never one side of the board: the stations are the designer's)
    only_asked_moved(laid_out, res.data)
    from mapkit.layout.figures import gap_figures
    assert gap_figures(res.data)["routes_over_gap"] <= gap_figures(laid_out)["routes_over_gap"]
    assert res.figures["refined"] == "local steps"
    assert res.figures["board_mm"] == [laid_out["physical"]["width_mm"], laid_out["physical"]["height_mm"]]
    tightened = res.figures["tightened"]
    assert tightened["kinds"]["cut"] == 0 and tightened["shrunk"] is None


def test_a_station_moved_and_pinned_keeps_the_others_where_they_were(laid_out):
    data = json.loads(json.dumps(laid_out))
    # the first station moved 7.8 mm and pinned: its routes get longer or shorter, and what that
    # asks (a route too short, one over 6 mm) moves a few of the others, no more
    st = data["stations"][0]
    st["board"] = {"x": st["board"]["x"] + 6.0, "y": st["board"]["y"] + 5.0}
    st["pinned"] = True
    refined = layout_board(data, refine=True)
    anew = layout_board(data)
    assert clean(refined.data) and clean(anew.data)
    assert next(s for s in refined.data["stations"] if s["id"] == st["id"])["board"] == st["board"]
    only_asked_moved(data, refined.data)
    near = sum(x <= 1.0 for x in moved(data, refined.data).values())
    near_anew = sum(x <= 1.0 for x in moved(data, anew.data).values())
    assert near_anew < near   # laid out anew from the real map, the others move


def test_refine_moves_no_side_of_the_board(laid_out, monkeypatch):
    """--refine's tightening and label step move points one at a time: no cut or shrink of the
    tightening, no slide of the label step (each moves one side of the board, or all of it: a
    label short of room or a route 1 mm over 6 mm would move most of the designer's stations)."""
    import mapkit.layout.labels as labels
    import mapkit.layout.tighten as tighten

    called = []
    for mod, name in ((tighten.Tighten, "try_cuts"), (tighten.Tighten, "shrink"), (labels, "slide_repair")):
        real = getattr(mod, name)
        monkeypatch.setattr(mod, name, lambda *a, _n=name, _f=real, **k: called.append(_n) or _f(*a, **k))
    data = json.loads(json.dumps(laid_out))
    st = data["stations"][0]
    st["board"], st["pinned"] = {"x": st["board"]["x"] + 6.0, "y": st["board"]["y"] + 5.0}, True
    assert clean(layout_board(data, refine=True).data)
    assert called == []
    layout_board(layout_board_data(8, seed=3), seed=0)   # laid out from the real map: all three run
    assert {"try_cuts", "shrink", "slide_repair"} <= set(called)


def test_the_label_step_of_refine_moves_the_bends_beside_a_station():
    """Without slides, a station without label room gets moves of the first bend of each of its
    routes (labels.bends_beside): not a station's, not a fixed waypoint, each once."""
    import numpy as np

    from mapkit.layout.labels import bends_beside
    from mapkit.layout.optimize import Drawing

    # stations 0-2; 3 a bend of 0-1, 4 a fixed waypoint of 0-2, 5 a bend of 2-1 (its last point before 1)
    dr = Drawing(np.zeros((6, 2)), 3, [[0, 3, 1], [0, 4, 2], [2, 5, 1], [1, 2]],
                 np.array([True, True, True, True, False, True]))
    assert bends_beside(dr, 0) == [3]
    assert bends_beside(dr, 1) == [3, 5]
    assert bends_beside(dr, 2) == [5]


def test_a_board_without_positions_is_refused_with_what_to_do(tmp_path):
    data = layout_board_data(8, seed=3)
    with pytest.raises(LayoutError, match=r"--refine starts from the board positions .* run layout without --refine"):
        layout_board(data, refine=True)
    path = tmp_path / "b.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = CliRunner().invoke(main, ["layout", str(path), "--refine", "--out", str(tmp_path / "o.json")])
    assert out.exit_code == 2 and "run layout without --refine first" in out.output
    assert "Traceback" not in out.output


def test_where_the_local_steps_leave_a_problem_the_rounds_run_and_the_cleaner_is_kept(laid_out, monkeypatch):
    """The choice between the local steps and the optimization's rounds: a local result said to
    leave an error (as Seattle's White Center pinned 100 mm away left a 1 mm² overlap) is followed
    by the rounds, which are kept when their checks find less, and named in the figure refined."""
    import mapkit.layout.pipeline as pipeline

    real, modes = pipeline.layout_rule_or_soft, []

    def spy(data, opts, refine=None):
        modes.append(refine)
        out = real(data, opts, refine=refine)
        if refine == "local":
            out[2]["errors"] = 1
        return out

    monkeypatch.setattr(pipeline, "layout_rule_or_soft", spy)
    res = layout_board(laid_out, refine=True)
    assert modes == ["local", "rounds"]
    assert res.figures["refined"] == "with the optimization's rounds (the local steps left 1 error(s), 0 warning(s))"
    assert res.figures["errors"] == 0 and clean(res.data)


@pytest.mark.slow
def test_the_shipped_seattle_is_its_hand_layout_refined_and_refines_to_itself():
    """Seattle ships its hand layout refined (docs/design/layout.md): refined once more it comes back
    strict-clean with nearly every station where it is (the refinement has converged)."""
    from mapkit.resources import boards_dir

    data = json.loads((boards_dir() / "seattle.json").read_text(encoding="utf-8"))
    res = layout_board(data, refine=True)
    assert clean(res.data) and res.figures["refined"] == "local steps"
    d = moved(data, res.data)
    assert sum(x <= 1.0 for x in d.values()) >= len(d) - 5, sorted(d.items(), key=lambda kv: -kv[1])[:6]
