"""Tiled sheets that assemble as the assembly page says."""

import pytest
from shapely.geometry import LineString, box

from mapkit.geometry import Layout
from mapkit.render import tiles, tiling
from mapkit.render.draw import Area, Line, Text


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("size", [(900, 600), (600, 900), (800, 530), (1200, 800)])
def test_overlaps_are_no_larger_than_the_glue_zone(paper, size):
    # Portland on A4 duplicated 111 mm (40 % of each sheet) when spare length went into the overlaps
    t = tiling.tile_board(*size, paper)
    for r in range(t.rows):
        for c in range(t.cols):
            a = t.tile(r, c).window
            if c + 1 < t.cols:
                assert a[2] - t.tile(r, c + 1).window[0] == pytest.approx(tiling.OVERLAP_MM)
            if r + 1 < t.rows:
                assert a[3] - t.tile(r + 1, c).window[1] == pytest.approx(tiling.OVERLAP_MM)
    # and no more sheets than the board needs with that overlap
    cw, ch = t.content[2], t.content[3]
    bw, bh = size
    assert (t.cols - 1) * (cw - tiling.OVERLAP_MM) < bw - tiling.OVERLAP_MM + 1e-6 or t.cols == 1
    assert (t.rows - 1) * (ch - tiling.OVERLAP_MM) < bh - tiling.OVERLAP_MM + 1e-6 or t.rows == 1


def test_glue_zones_are_shaded_and_say_their_width():
    t = tiling.tile_board(900, 600, "a4")
    a1 = t.tile(0, 0)
    items = tiles.glue_items(t, a1)
    shaded = [i for i in items if isinstance(i, Area)]
    assert len(shaded) == 2  # right (under A2) and bottom (under B1)
    for zone in shaded:
        x0, y0, x1, y1 = zone.bbox
        assert min(x1 - x0, y1 - y0) == pytest.approx(tiling.OVERLAP_MM)
    texts = [" ".join(i.lines) for i in items if isinstance(i, Text)]
    assert any("glue zone 10 mm" in s and "A2" in s for s in texts)
    assert any("glue zone 10 mm" in s and "B1" in s for s in texts)
    last = t.tile(t.rows - 1, t.cols - 1)
    assert tiles.glue_items(t, last) == []  # nothing covers the bottom-right sheet


@pytest.fixture(scope="module")
def portland(bundled_scene):
    return bundled_scene("portland")   # built once per session (conftest), shared with test_kit_board


def test_registration_ticks_are_seen_on_both_sheets_and_miss_the_playing_pieces(portland):
    b, sc = portland
    t = tiling.tile_board(b.physical.width_mm, b.physical.height_mm, "a4")
    ticks = tiling.registration_ticks(t, tiles.mark_obstacles(sc))
    pieces = [box(*bx) for bx in tiles.mark_obstacles(sc)]
    for tick in ticks:
        seg = LineString(tick.segment())
        assert not any(seg.intersects(p) for p in pieces), tick
        # on the seam: the half before it is on the lower sheet's visible part, the half after it on
        # the covering sheet (its cut edge), so the two halves meet when the sheets are aligned
        (ax, ay), (bx_, by) = tick.segment()
        if tick.vertical:
            assert ax < tick.x < bx_ and tick.x in tiling.seams(t)[0]
        else:
            assert ay < tick.y < by and tick.y in tiling.seams(t)[1]
    # the sheet page draws them, and no crosshair sits inside an overlap any more
    items = tiles.tick_items(ticks)
    assert all(isinstance(i, Line) and i.z >= 30 for i in items) and len(items) == len(ticks) > 0


def test_assembly_steps_name_the_overlap_and_the_cut_edges(tmp_path, portland):
    from pypdf import PdfReader

    b, sc = portland
    t = tiling.tile_board(b.physical.width_mm, b.physical.height_mm, "a4")
    path = tmp_path / "tiles.pdf"
    from mapkit.render import pdf

    with pdf.pdf_document(path) as doc:
        doc.add(tiles.assembly_page(b, Layout(b), t))
        doc.add(tiles.sheet_page(sc, b, t, t.tile(1, 1), []))
    text = [p.extract_text() for p in PdfReader(path).pages]
    assert "10 mm" in text[0] and "dashed left edge" in text[0] and "glue zone" in text[0]
    assert "cut along the dashed left and top edge" in text[1]
    assert "glue zone 10 mm" in text[1]
