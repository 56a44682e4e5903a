"""`mapkit import gtfs` on the real feeds in ../shared/data/gtfs/ (skipped where they are not
there): the tiny sample feed refused, and the Cairns bus network imported once for the module and
checked without the layout; marked slow, the whole command on Cairns with the layout."""

from __future__ import annotations

import json
import math
import re

import pytest
from shapely.geometry import LineString

from test_import_gtfs import SHARED

pytest.importorskip("partridge", reason="the GTFS extra (pip install -e '.[gtfs]' or '.[test]') is not installed")

from mapkit.importers.gtfs import fit, import_feed  # noqa: E402
from mapkit.importers.gtfs import lines as L  # noqa: E402


def _shared(name):
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"{path} is not there (CI has ../shared beside the clone; see shared/data/gtfs/README.md)")
    return path


def test_sample_feed_is_too_small_and_says_so():
    from mapkit.errors import MapkitError

    with pytest.raises(MapkitError, match=r"9 stations and 8 routes of \d+ spaces in all: too small for a board"):
        import_feed(_shared("sample_gtfs.zip"))


@pytest.fixture(scope="module")
def cairns():
    """The Cairns bus feed imported with the default options (no layout), once for the module."""
    return import_feed(_shared("cairns_gtfs.zip"))


def test_cairns_feed_imports(cairns):
    s = cairns.summary
    assert s["modes"] == ["bus"] and len(s["lines"]) == 22
    assert s["stations"]["stops_used"] == 416
    # the default station count is one of the tried targets, the one that holds the most spaces
    tried = next(n for n in s["notes"] if n.startswith("station target"))
    assert s["stations"]["target"] in (60, 50, 42, 35) and f"{s['stations']['target']}: {s['lengths']['spaces']} spaces" in tried
    assert 5 <= len(s["colors"]) <= 8 and s["gray_lines"]
    assert any("agency's color" in n for n in s["notes"])
    trains = s["trains"]
    assert s["lengths"]["spaces"] >= L.ROOM * s["players"][1] * trains and L.MIN_TRAINS <= trains <= 45
    # the downtown trunk carries many lines: each crowded segment draws the most frequent first
    trips = {ln["name"].split()[0]: ln["trips"] for ln in s["lines"]}
    assert s["crowded_segments"]
    for c in s["crowded_segments"]:
        assert len(c["lines"]) > 2 and c["drawn"][0] == c["lines"][0] and set(c["drawn"]) <= set(c["lines"])
        assert trips[c["lines"][0]] == max(trips[x] for x in c["lines"])


def test_cairns_draft_has_no_crossings_and_few_doubles(cairns):
    data, s = cairns.data, cairns.summary
    pos = {st["id"]: (st["lon"] * math.cos(math.radians(st["lat"])), st["lat"]) for st in data["stations"]}
    seg = {frozenset((r["from"], r["to"])) for r in data["routes"] if not r.get("overpass")}
    lines = [(p, LineString([pos[x] for x in p])) for p in seg]
    crossing = [(tuple(p), tuple(q)) for i, (p, g) in enumerate(lines) for q, h in lines[i + 1:]
                if not p & q and g.intersects(h)]
    assert crossing == [] and s["drawable"]["crossings_left"] == 0
    doubles = {r["double"] for r in data["routes"] if "double" in r}
    assert len(doubles) == s["doubles"] <= round(L.DOUBLE_SHARE * len(seg)) + 1
    # every decision made for drawing is in the summary, with board ids
    d = s["drawable"]
    ids = {st["id"] for st in data["stations"]}
    assert d["merged_side_by_side"] and all(x["through"] in ids for x in d["merged_side_by_side"])
    assert all(set(x["route"]) <= ids for x in d["dropped"] + d["overpass"])


def test_cairns_station_ids_are_whole_words_and_unique(cairns):
    from mapkit.importers.gtfs.board import slug as full_slug

    ids = [st["id"] for st in cairns.data["stations"]]
    assert len(ids) == len(set(ids))
    for st in cairns.data["stations"]:
        whole = full_slug(re.sub(r" \d+$", "", st["name"]), 200)
        base = re.sub(r"-\d+$", "", st["id"]) if not whole.startswith(st["id"]) else st["id"]
        assert len(st["id"]) <= 30 and (whole + "-").startswith(base + "-"), (st["id"], st["name"])
    assert "mother-of-good-counsel" in ids


def test_cairns_board_estimate_fits_the_largest_board(cairns):
    ln = cairns.summary["lengths"]
    assert ln["fits"] and ln["board_mm"][0] * ln["board_mm"][1] <= fit.FIT_BOARD[0] * fit.FIT_BOARD[1]
    trains = cairns.data.get("rules", {}).get("overrides", {}).get("trains", 45)
    assert ln["spaces"] >= L.ROOM * cairns.summary["players"][1] * trains
    if ln["shrunk_from_mm"]:
        assert trains < 45 and any("scaled down" in n for n in cairns.summary["notes"])



@pytest.mark.slow
def test_cli_cairns_lines_make_a_strictly_valid_board(cli, tmp_path):
    """Five Cairns bus lines, laid out and with their decks (about 15 s)."""
    out = tmp_path / "cairns.json"
    r = cli("import", "gtfs", _shared("cairns_gtfs.zip"), "--out", out, "--route", "110,123,133,140,150",
            "--stations", "30", "--format", "json")
    summary = json.loads(r.output)
    assert r.exit_code == 0, summary["problems"][:5]
    assert cli("validate", out, "--strict").exit_code == 0
    assert summary["stations"]["kept"] == 30 and len(summary["colors"]) == 5


@pytest.mark.slow
def test_cli_cairns_whole_network_default_is_written_valid(cli, tmp_path):
    """The whole Cairns bus network with the default options: written, `validate --strict` passes
    (one to three layouts, 1-3 minutes on a shared 2-core machine)."""
    out = tmp_path / "cairns.json"
    r = cli("import", "gtfs", _shared("cairns_gtfs.zip"), "--out", out, "--format", "json")
    summary = json.loads(r.output)
    assert r.exit_code == 0, (summary["problems"][:5], summary["attempts"])
    assert cli("validate", out, "--strict").exit_code == 0
    data = json.loads(out.read_text())
    assert len(summary["lines"]) == 22 and 35 <= len(data["stations"]) <= 65
    assert summary["attempts"][-1]["valid"] and summary["drawable"]["crossings_left"] == 0
    # every card color has a track, and the ids are readable
    assert {c["id"] for c in data["palette"]} <= {r_["color"] for r_ in data["routes"]}
    assert all(len(s["id"]) <= 30 for s in data["stations"])
