"""A designer's journey on a city the importer was not tuned on: São Paulo's metro and CPTM lines
(tests/data/gtfs/sao-paulo.zip, see its README), and synthetic feeds for each thing that feed
showed: lines' colors as riders know them, ASCII ids from accented names, service run by
frequencies.txt, the gray routes' name, and stop_times read in bounded memory."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("partridge", reason="the GTFS extra (pip install -e '.[gtfs]' or '.[test]') is not installed")

from test_import_gtfs import FeedBuilder, _line_points  # noqa: E402

from mapkit.colors import GRAY_DISPLAY_HEX, MIN_COLOR_DELTA_E, color_distance  # noqa: E402
from mapkit.importers.gtfs import import_feed  # noqa: E402

SAO_PAULO = Path(__file__).parent / "data" / "gtfs" / "sao-paulo.zip"


def crossing_feed(color_a: str, color_b: str, short_b: str = "B", long_b: str = "Beta Line") -> FeedBuilder:
    """Two subway lines of 14 stations crossing at a shared one."""
    f = FeedBuilder()
    a = [f.stop(f"A{i}", f"Alpha {i}", *p) for i, p in enumerate(_line_points((40.0, -74.30), (40.0, -73.90), 14))]
    b = [f.stop(f"B{i}", f"Beta {i}", *p) for i, p in enumerate(_line_points((40.20, -74.10), (39.80, -74.10), 14))]
    b[7] = "A7"
    f.stops = [r for r in f.stops if r[0] != "B7"]
    f.route("A", "A", "Alpha Line", 1, color_a)
    f.trips_of("A", a, 10)
    f.route("B", short_b, long_b, 1, color_b)
    f.trips_of("B", b, 10)
    return f


def _own_color(r, line: str) -> str:
    cid = next(x["color"] for x in r.data["routes"] if x["line"] == line and x["color"] != "gray")
    return next(c["hex"] for c in r.data["palette"] if c["id"] == cid)


def test_a_line_whose_color_clashes_keeps_a_shade_of_it(tmp_path):
    # São Paulo: Metrô line 1 is blue (#0455A1), CPTM line 12 navy (#133C8D), 9 apart; line 1 was
    # printed bright green, the color farthest from every other, which no rider calls line 1
    r = import_feed(crossing_feed("133C8D", "0455A1").folder(tmp_path / "feed"), stations=20)
    a, b = _own_color(r, "A").lower(), _own_color(r, "B").lower()
    assert "#133c8d" in (a, b) or "#0455a1" in (a, b)    # one keeps its own color
    assert color_distance(a, "#133c8d") < 15, a          # the other a shade of its own
    assert color_distance(b, "#0455a1") < 15, b
    assert color_distance(a, b) >= MIN_COLOR_DELTA_E     # told apart
    hexes = [c["hex"] for c in r.data["palette"]] + [GRAY_DISPLAY_HEX]
    assert all(color_distance(x, y) >= MIN_COLOR_DELTA_E for i, x in enumerate(hexes) for y in hexes[i + 1:])


def test_color_ids_from_accented_line_names_keep_their_letters(tmp_path):
    r = import_feed(crossing_feed("E32017", "0455A1", "METRÔ L1", "Tucuruvi - Jabaquara").folder(tmp_path / "feed"),
                    stations=20)
    ids = {c["id"] for c in r.data["palette"]}
    assert "metro-l1" in ids, ids
