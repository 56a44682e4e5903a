"""The drawn board of the bundled boards, measured in the scene.

A scene is built once per board per test session (conftest's bundled_scene, about 4–11 s each, shared
with test_kit_tiles); nothing here writes a PDF.
"""

import statistics

import pytest
from shapely.geometry import LineString, Polygon, box
from shapely.ops import unary_union

from mapkit.geometry import Layout
from mapkit.render import labels, legend, scene as scene_mod
from mapkit.render.draw import Line, Text

MM_PER_PT = 25.4 / 72


@pytest.fixture(scope="module")
def seattle(bundled_scene):
    return bundled_scene("seattle")


@pytest.fixture(scope="module")
def portland(bundled_scene):
    return bundled_scene("portland")


@pytest.mark.parametrize("name", ["portland", "seattle", "north-america"])
def test_bundled_boards_place_every_label(name, bundled_scene):
    b, scene = bundled_scene(name)
    assert scene.unplaced == []
    placed = {k: c for k, c in scene.placement.placed.items()}
    assert labels.collisions(labels.Placement(placed, []), scene.label_obstacles, scene.label_bounds) == []


@pytest.mark.parametrize("name", ["portland", "seattle", "north-america"])
def test_every_station_label_is_drawn_at_the_normal_size_or_larger(name, bundled_scene):
    # Portland drew Beaverton TC and Hollywood at 8 pt: every 10 pt box missed by a sliver
    # (0.14 and 0.23 mm² of a space) and the first free box in order was an 8 pt one
    b, scene = bundled_scene(name)
    hubs = {s.id: s.hub for s in b.stations}
    small = {k: c.size for k, c in scene.placement.placed.items()
             if k in hubs and c.size < (labels.HUB_NORMAL_PT if hubs[k] else labels.NORMAL_PT)}
    assert small == {}


def test_a_label_with_no_room_at_the_normal_size_keeps_its_smaller_box():
    from shapely.geometry import box as shape_box
    request = labels.station_request("s", "Somewhere Long", (50.0, 50.0), 3.0)
    bounds = shape_box(0, 0, 100, 100)
    # everything round the marker is taken but a small box far out
    walls = [shape_box(0, 0, 100, 100).difference(shape_box(30, 30, 70, 70)), shape_box(47, 47, 53, 53),
             shape_box(30, 34.6, 70, 65.4)]
    first = labels.place([request], walls, bounds)
    assert first.placed["s"].size < labels.NORMAL_PT
    again = labels.raised(first, [request], walls, bounds)
    assert again.placed["s"] == first.placed["s"]


def drawn_lines(sc):
    """Every line drawn on the playing area (water, cable, flight), as its inked outline."""
    return [LineString(i.coords).buffer(i.lw * MM_PER_PT / 2) for i in sc.items
            if isinstance(i, Line) and i.z < 9 and len(i.coords) > 1]


def test_no_label_or_badge_is_crossed_by_a_drawn_line(seattle):
    b, sc = seattle
    lines = unary_union(drawn_lines(sc))
    assert not lines.is_empty  # Seattle has ferries, water taxis and a flight
    crossed = [k for k, c in sc.placement.placed.items() if box(*c.box).intersects(lines)]
    assert crossed == []
    assert sc.unplaced == [] and sc.warnings == []


def test_the_flight_covers_no_other_routes_spaces(seattle):
    b, sc = seattle
    flight = next(r for r in b.routes if r.kind == "flight")
    others = unary_union([Polygon(c) for rid, s in sc.routes.items() if rid != flight.id for c in s.spaces])
    own = unary_union([Polygon(c) for c in sc.routes[flight.id].spaces])
    assert own.intersection(others).area < 0.5
    flight_lines = [LineString(i.coords).buffer(i.lw * MM_PER_PT / 2) for i in sc.items
                    if isinstance(i, Line) and i.z == 6]
    assert flight_lines
    assert unary_union(flight_lines).intersection(others).area < 0.5
    # and passes through no station but its own two
    discs = unary_union([sc_disc for sid, sc_disc in Layout(b).station_discs.items() if sid not in flight.ends])
    assert unary_union(flight_lines).intersection(discs).area < 0.5


@pytest.mark.parametrize("board", ["seattle", "portland"])
def test_a_special_routes_badge_sits_by_its_route(board, seattle, portland):
    b, sc = {"seattle": seattle, "portland": portland}[board]
    badges = {k.split(":", 1)[1]: c for k, c in sc.placement.placed.items() if k.startswith("bonus:")}
    assert badges
    for rid, c in badges.items():
        route = LineString(sc.routes[rid].centerline)
        assert route.distance(box(*c.box)) <= scene_mod.BADGE_REACH_MM, rid


def test_station_labels_and_score_numbers_are_readable(portland):
    b, sc = portland
    sizes = [c.size for k, c in sc.placement.placed.items() if not k.startswith("bonus:")]
    # ~12 pt where the board allows (cap height ~3 mm), never below 7 pt
    assert statistics.median(sizes) >= 12 and min(sizes) >= 7
    assert sum(s >= 11 for s in sizes) >= 0.85 * len(sizes)
    track = [i for i in sc.items if isinstance(i, Text) and i.z == 1.5 and i.lines[0] != "0/100"]
    assert len(track) == 99 and min(t.size for t in track) >= 9


def test_the_playing_area_is_used(portland):
    """Blank share: the playing area not covered by spaces, stations, labels, badges, lines or the legend."""
    b, sc = portland
    ph = b.physical
    inner = box(ph.margin_mm, ph.margin_mm, ph.width_mm - ph.margin_mm, ph.height_mm - ph.margin_mm)
    used = [Polygon(c) for s in sc.routes.values() for c in s.spaces]
    used += [box(*c.box) for c in sc.placement.placed.values()]
    used += drawn_lines(sc)
    used += [g for g in sc.label_obstacles]
    used += [box(*i.bbox) for i in sc.items if type(i).__name__ == "Area" and i.z == 12]  # the legend
    blank = 1 - unary_union(used).intersection(inner).area / inner.area
    assert blank < 0.82  # 0.825 with 8 pt labels (the positions and space size are the board's)


def test_gray_routes_are_named_by_what_they_are(seattle):
    b, sc = seattle
    rows = [text for kind, arg, text in legend.rows(b, sc.symbols) if arg == "gray"]
    joined = " ".join(rows)
    assert "Bus" in joined and "Streetcar" in joined and "Rail" in joined and "Light rail" in joined
    assert "First Hill Streetcar" in joined and "Amtrak" in joined
    # and the drawn legend says it
    texts = " ".join(" ".join(i.lines) for i in sc.items if isinstance(i, Text))
    assert "Gray — Streetcar" in texts


@pytest.mark.parametrize("board", ["seattle", "portland"])
def test_shared_track_lines_keep_their_side(board, seattle, portland):
    """Where two lines share consecutive doubles, each line's track at a shared station continues
    into its own track on the next double, not into the other line's (they would cross there)."""
    import math

    b, sc = {"seattle": seattle, "portland": portland}[board]
    groups = {}
    for r in b.routes:
        if r.double:
            groups.setdefault(r.double, []).append(r)
    pairs = [ms for ms in groups.values() if len(ms) == 2 and ms[0].color != ms[1].color]
    checked = 0
    for i, p in enumerate(pairs):
        for q in pairs[i + 1:]:
            colors = {m.color for m in p}
            shared = p[0].ends & q[0].ends
            if colors != {m.color for m in q} or not shared:
                continue
            (s,) = shared
            here = b.station(s)

            def end_near(route):
                c = sc.routes[route.id].centerline
                return c[0] if route.a == s else c[-1]

            def away(route):
                # the direction the double leaves the station in (its centreline's first leg from here)
                c = sc.routes[route.id].centerline
                (x0, y0), (x1, y1) = (c[0], c[1]) if route.a == s else (c[-1], c[-2])
                return math.atan2(y1 - y0, x1 - x0)

            turn = abs((away(p[0]) - away(q[0]) + math.pi) % (2 * math.pi) - math.pi)
            if turn < math.radians(100):
                # a sharp turn: the inner track of one double ends past the outer one of the
                # other inside the station's disc, so ends' nearness says nothing of sides there
                # (test_bundled_boards_draw_no_line_swapping_sides reads the sides themselves)
                continue
            for color in colors:
                mine_p = end_near(next(m for m in p if m.color == color))
                mine_q = end_near(next(m for m in q if m.color == color))
                other_q = end_near(next(m for m in q if m.color != color))
                assert math.dist(mine_p, mine_q) < math.dist(mine_p, other_q), (here.id, color)
            checked += 1
    assert checked >= 5


def test_track_side_reads_a_bent_double_against_its_other_track():
    """A double that bends (a waypoint) has its centreline's middle off the straight line between
    its stations by the bend; the side must come from the other track, or the line swaps sides
    (Seattle's Canyon Park–Lynnwood was drawn that way)."""
    import math
    from types import SimpleNamespace

    from mapkit.render.sides import track_side

    # two tracks 4 mm apart, straight, and the same two bent 40 mm off their chord
    a, b = SimpleNamespace(centerline=[(0, -2), (100, -2)]), SimpleNamespace(centerline=[(0, 2), (100, 2)])
    bent_a = SimpleNamespace(centerline=[(0, -2), (50, 38), (100, -2)])
    bent_b = SimpleNamespace(centerline=[(0, 2), (50, 42), (100, 2)])
    straight = track_side(a, b, (0, 0))
    assert straight != 0
    # the bend does not change which side a track is on, nor does the order they are asked in
    assert math.copysign(1, track_side(bent_a, bent_b, (0, 0))) == math.copysign(1, straight)
    assert math.copysign(1, track_side(bent_b, bent_a, (0, 0))) == -math.copysign(1, straight)
    # walking the other way round reads the other side
    assert math.copysign(1, track_side(bent_a, bent_b, (100, 0))) == -math.copysign(1, straight)
    # bent the other way (above the chord) too
    up_a = SimpleNamespace(centerline=[(0, -2), (50, -42), (100, -2)])
    up_b = SimpleNamespace(centerline=[(0, 2), (50, -38), (100, 2)])
    assert math.copysign(1, track_side(up_a, up_b, (0, 0))) == math.copysign(1, straight)


@pytest.mark.parametrize("name", ["seattle", "portland", "north-america"])
def test_bundled_boards_draw_no_line_swapping_sides(name):
    import json

    from mapkit.layout.figures import measure
    from mapkit.resources import boards_dir

    data = json.loads((boards_dir() / f"{name}.json").read_text(encoding="utf-8"))
    assert measure(data, labels=False)["trunk_sides_swapped"] == 0
