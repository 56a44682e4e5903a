"""The layout as a row of named stages over one Draft (mapkit/layout/pipeline.py), steered by one
LayoutOptions passed down, not by module-level switches."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from mapkit.layout import LayoutOptions, layout_board, pipeline
from mapkit.layout.synthetic import layout_board_data

LAYOUT = Path(__file__).resolve().parent.parent / "mapkit" / "layout"


def test_no_module_level_switches_in_the_layout():
    """A module-level True/False in mapkit/layout is a switch a test would flip: what the product
    runs both ways is a LayoutOptions field, a fast path's switch a parameter of its function."""
    found = []
    for path in sorted(LAYOUT.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, bool):
                found.append(f"{path.relative_to(LAYOUT)}:{node.lineno}")
    assert not found, found


def test_the_options_are_one_frozen_value():
    opts = LayoutOptions(style="schematic", size=(600, 900), keep=frozenset({"a"}))
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.style = "geographic"
    assert dataclasses.replace(opts, gap_rule=False).gap_rule is False and opts.gap_rule is True


def test_layout_once_runs_its_stages_in_order_on_one_draft(monkeypatch):
    """Each stage is called once in the row's order (the knot stage twice: with the even spread,
    then as printed where the checks find something), every one on the Draft the first made."""
    seen = []
    for name in ("first_drawing", "onto_board", "checked_repairs", "untie_knots", "finish_board", "layout_result"):
        real = getattr(pipeline, name)

        def spy(*a, _real=real, _name=name, **k):
            out = _real(*a, **k)
            draft = out if _name == "first_drawing" else a[0]
            seen.append((_name, id(draft), getattr(a[1], "__name__", None) if _name == "untie_knots" else None))
            return out
        monkeypatch.setattr(pipeline, name, spy)
    res = layout_board(layout_board_data(8, seed=1), seed=0, size=(420, 297), gap_rule=False)
    names = [n for n, _, _ in seen]
    assert names[:4] == ["first_drawing", "onto_board", "checked_repairs", "untie_knots"]
    assert seen[3][2] == "even_problems"
    assert names[-1] == "layout_result" and names.count("first_drawing") == 1
    assert names.index("finish_board") > 3 if "finish_board" in names else res.figures["errors"] > 0
    assert all(s[2] == "geometry_problems" for s in seen[4:] if s[0] == "untie_knots")
    assert len({d for _, d, _ in seen}) == 1   # one Draft passed along
