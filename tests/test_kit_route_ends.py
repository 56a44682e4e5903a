"""Route ends read as reaching their stations: on the shipped north-america,
Chicago–Pittsburgh's spaces stopped 27 mm short of Chicago with bare board between. A station where
routes leave close together needs their first spaces farther out (geometry.end_needs: the checks'
placement, unchanged here), so such an end gets its line drawn across the gap (scene.leads). The
scenes are the session's (conftest's bundled_scene)."""

import math

import pytest
from shapely.geometry import LineString, Point, Polygon, box

from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.render import fonts, scene as scene_mod
from mapkit.render.draw import Line

BOARDS = ["portland", "seattle", "north-america"]


def lead_items(sc):
    """The leads drawn: the route-colored lines LEAD_PT wide (each over its outline)."""
    return [i for i in sc.items if isinstance(i, Line) and i.lw == scene_mod.LEAD_PT and len(i.coords) == 2]


def ends_over(board, sc):
    """(route, station, gap) of every route end drawn more than END_GAP_MM from its station's rim."""
    ph = board.physical
    by_id = {r.id: r for r in board.routes}
    out = []
    for rid, shape in sc.routes.items():
        r = by_id[rid]
        if r.kind == "flight":
            continue
        for sid, gap in zip((r.a, r.b), scene_mod.end_gaps(ph, shape.centerline, shape.spaces)):
            if gap > scene_mod.END_GAP_MM:
                out.append((r, sid, gap))
    return out


@pytest.mark.parametrize("name", BOARDS)
def test_every_wide_route_end_is_drawn_to_its_station(name, bundled_scene):
    b, sc = bundled_scene(name)
    ph = b.physical
    layout_positions = {s.id: (s.board.x, s.board.y) for s in b.stations}
    leads = lead_items(sc)
    bare = {(rid, sid) for rid, sid, _ in sc.route_ends["bare"]}
    wide = ends_over(b, sc)
    assert wide and sc.route_ends["over_limit"] == len(wide)
    for r, sid, gap in wide:
        if r.kind in scene_mod.GUIDE_KINDS or (r.id, sid) in bare:
            continue
        # a lead from this station's rim to within a millimetre of the route's first space
        xy = layout_positions[sid]
        shape = sc.routes[r.id]
        first = shape.spaces[0] if math.dist(shape.centerline[0], xy) < math.dist(shape.centerline[-1], xy) else shape.spaces[-1]
        space = Polygon(first)
        assert any(abs(math.dist(i.coords[0], xy) - ph.station_radius_mm) < 1e-6
                   and space.distance(Point(i.coords[1])) < 1.0 for i in leads), (r.id, sid, gap)
    # the bare board left at a route end: at most END_GAP_MM but where a lead would cross a label
    # or another route's space (each one warned of by `mapkit render`)
    assert len(bare) <= 1
    if not bare:
        assert sc.route_ends["largest_bare_gap_mm"] <= scene_mod.END_GAP_MM + 0.05
    assert sc.route_ends["led"] + len(bare) == sc.route_ends["over_limit"]


@pytest.mark.parametrize("name", BOARDS)
def test_leads_pass_under_no_other_route_station_or_label(name, bundled_scene):
    b, sc = bundled_scene(name)
    ph = b.physical
    spaces = [Polygon(c) for shape in sc.routes.values() for c in shape.spaces]
    centres = {s.id: (s.board.x, s.board.y) for s in b.stations}
    discs = {sid: Point(xy).buffer(ph.station_radius_mm) for sid, xy in centres.items()}
    label_boxes = [box(*c.box) for c in sc.placement.placed.values()]
    for lead in lead_items(sc):
        g = LineString(lead.coords).buffer(lead.lw * fonts.MM_PER_PT / 2)
        own = [sid for sid, xy in centres.items() if abs(math.dist(xy, lead.coords[0]) - ph.station_radius_mm) < 1e-6]
        assert len(own) == 1
        assert not any(g.intersects(d) for sid, d in discs.items() if sid != own[0])
        # its own space it meets at the edge: only the round cap's half is over it
        covered = sorted(g.intersection(s).area for s in spaces if g.intersects(s))
        assert all(a < 0.5 for a in covered[:-1]) and (not covered or covered[-1] < 1.0)
        assert not any(g.intersects(lb) for lb in label_boxes)


def test_a_lead_is_aimed_at_the_station_and_swung_clear_of_what_is_in_its_way():
    from mapkit.model import Physical

    ph = Physical()
    r = ph.station_radius_mm
    line = ((0.0, 0.0), (100.0, 0.0))
    spaces = tuple(((s - 11, -5), (s + 11, -5), (s + 11, 5), (s - 11, 5)) for s in (r + 20 + 11, 100 - r - 3 - 11))
    gaps = scene_mod.end_gaps(ph, line, spaces)
    assert gaps == pytest.approx((20.0, 3.0))
    (seg,) = scene_mod.leads(ph, line, spaces)
    assert seg[0] == pytest.approx((r, 0.0)) and seg[1] == pytest.approx((r + 20, 0.0))
    # something on the straight way: the drawn lead meets the rim elsewhere, clear of it
    block = box(10, -1, 12, 1)
    (swung,) = scene_mod.leads(ph, line, spaces, None, lambda s: scene_mod.lead_outline(s).intersects(block))
    assert math.dist(swung[0], (0, 0)) == pytest.approx(r)
    assert not scene_mod.lead_outline(swung).intersects(block)


def test_render_reports_the_route_end_gaps(tmp_path):
    from click.testing import CliRunner

    from mapkit.cli import main

    path = tmp_path / "b.json"
    data = __import__("json").loads((__import__("pathlib").Path(__file__).parent / "fixtures" / "tiny.json").read_text())
    path.write_text(__import__("json").dumps(data))
    out = tmp_path / "kit"
    result = CliRunner().invoke(main, ["render", str(path), "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "route ends: widest gap to a station" in result.stdout
    b = build_board(data)
    figures = scene_mod.build_scene(b, Layout(b), "0" * 8).route_ends
    assert set(figures) >= {"largest_gap_mm", "limit_mm", "over_limit", "led", "bare", "largest_bare_gap_mm"}
    assert f"{figures['largest_gap_mm']:g} mm" in result.stdout
