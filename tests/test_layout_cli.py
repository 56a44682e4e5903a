"""`mapkit layout` on the command line: --out, --write (only positions and waypoints change),
and bad input refused with exit 2."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from layoutgen import layout_board_data
from mapkit.cli import main


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.json"
    text = json.dumps(layout_board_data(6, seed=2), indent=2).replace("\n", "\r\n") + "\r\n"
    path.write_bytes(text.encode("utf-8"))
    return path


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("args, message", [
    (["--keep", "nowhere"], "unknown station 'nowhere'"),
    (["--keep", "s1"], "no \"board\" position"),
    (["--size", "huge"], "WIDTHxHEIGHT"),
    (["--size", "10x10"], "100 to 5000"),
    (["--style", "octo"], "octo"),
    (["--write", "--out", "x.json"], "not both"),
])
def test_bad_input_exits_2(tiny, args, message):
    r = run("layout", tiny, *args)
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert "Traceback" not in r.output


def test_out_may_not_be_the_input(tiny):
    r = run("layout", tiny, "--out", tiny)
    assert r.exit_code == 2 and "overwrite the input" in r.output


def test_write_changes_only_positions_and_keeps_line_endings(tiny, tmp_path):
    before = tiny.read_bytes()
    r = run("layout", tiny, "--write", "--format", "json")
    out = json.loads(r.output)
    assert r.exit_code == (0 if out["passes_strict"] else 1), r.output
    after = tiny.read_bytes()
    assert after != before and b"\r\n" in after and b"\n" not in after.replace(b"\r\n", b"")
    old, new = json.loads(before), json.loads(after)
    assert {k: v for k, v in old.items() if k != "stations" and k != "physical"} == \
           {k: v for k, v in new.items() if k != "stations" and k != "physical"}
    for a, b in zip(old["stations"], new["stations"]):
        assert {k: v for k, v in a.items() if k != "board"} == {k: v for k, v in b.items() if k != "board"}
        assert "board" in b
    assert out["passes_strict"] and out["figures"]["errors"] == 0
    # --out writes a new file and leaves the input alone
    again = tmp_path / "again.json"
    r = run("layout", tiny, "--out", again)
    assert r.exit_code == 0, r.output
    assert tiny.read_bytes() == after and json.loads(again.read_text())["stations"][0]["board"]
    assert "geometry passes mapkit validate --strict" in r.output


def test_geo_anchor_out_of_range_is_refused(tiny):
    res = run("layout", tiny, "--geo-anchor", "11")
    assert res.exit_code == 2 and "--geo-anchor" in res.output


@pytest.mark.slow
@pytest.mark.parametrize("name, size", [("portland", "900x600"), ("north-america", "800x530")])
def test_the_shipped_layouts_can_be_recomputed_clean(tmp_path, name, size):
    """boards/portland.json and north-america.json carry computed layouts (docs/design/layout.md
    says why they were shipped). A designer re-running `mapkit layout --geo-anchor 1.0 --write` on
    them gets a strict-clean board, the same bytes every time on their machine. Not necessarily the
    shipped bytes: the optimization is chaotic and numpy's SIMD kernels round differently from one
    processor to another (numpy's AVX-512 kernels give other layouts than its AVX2 ones)."""
    from pathlib import Path
    src = Path(__file__).resolve().parent.parent / "boards" / f"{name}.json"
    outs = []
    for k in range(2):
        copy = tmp_path / f"{name}-{k}.json"
        copy.write_bytes(src.read_bytes())
        res = run("layout", copy, "--size", size, "--geo-anchor", "1.0", "--write")
        assert res.exit_code == 0, res.output
        assert "geometry passes mapkit validate --strict" in res.output
        outs.append(copy.read_bytes())
    assert outs[0] == outs[1]
    old, new = json.loads(src.read_bytes()), json.loads(outs[0])
    # only positions and waypoints move
    assert [{k: v for k, v in s.items() if k != "board"} for s in old["stations"]] == \
           [{k: v for k, v in s.items() if k != "board"} for s in new["stations"]]
    assert [(r["from"], r["to"], r["length"]) for r in old["routes"]] == [(r["from"], r["to"], r["length"]) for r in new["routes"]]


def test_size_auto_says_when_it_went_past_the_smallest_size():
    """--size auto's line names the smallest size that fits, unless the layout it kept is on a
    larger one because the smallest left problems (figure auto_sizes_tried)."""
    from mapkit.cli_layout import _auto_note
    smallest = {"board_mm": [841.0, 1189.0]}
    assert "smallest standard size that fits)" in _auto_note(smallest)
    same = {"board_mm": [841.0, 1189.0], "auto_sizes_tried": "841x1189 clean"}
    assert "smallest standard size that fits)" in _auto_note(same)
    larger = {"board_mm": [1000.0, 1400.0],
              "auto_sizes_tried": "841x1189 0 error(s), 1 warning(s); 1000x1400 clean"}
    assert "larger one" in _auto_note(larger)
