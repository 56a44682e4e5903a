"""The board as a display list: every primitive to draw, in board mm, built once.

Inputs are the board, its `Layout` (station positions, route centrelines and spaces) and the
board file's content hash; label boxes come from `labels`, drawing geometry from `shapes`, the
legend from `legend`. The board page, the tiled sheets and the preview all draw this one scene.

Layers (z): paper 0, track 1, water/cable lines and the lines across wide route-end gaps 2
(`leads`), spaces 3, their symbols 4, the flight 6–8,
stations 9, labels and badges 10–11, legend and title 12.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from shapely import STRtree
from shapely.geometry import LineString, Point, Polygon, box
from shapely.ops import unary_union

from mapkit.geometry import Layout
from mapkit.model import Board
from mapkit.render import flights, fonts, labels, legend, marks, shapes, sides, style, symbols
from mapkit.render.draw import Area, Disc, Line, Text

SPACE_CORNER_MM = 1.6
BADGE_PT = 9.0
TRACK_PT = 9.0
BADGE_REACH_MM = 12.0   # a badge sits within this of its route's centreline
SYMBOL_SCALE = 0.55          # of the space width
DISCLAIMER = ("Unofficial, non-commercial fan-made map for personal use. Not affiliated with or endorsed by "
              "Days of Wonder. Ticket to Ride was designed by Alan R. Moon and is a trademark of Days of Wonder, Inc.")


@dataclass
class BoardScene:
    width: float
    height: float
    items: list
    placement: labels.Placement
    unplaced: list[str]              # labels that collide with something: station ids, "bonus:<route id>"
    legend_collides: bool = False    # no free spot for the legend: it covers part of the board
    label_obstacles: list = field(default_factory=list)
    label_bounds: Polygon | None = None
    symbols: dict = field(default_factory=dict)
    routes: dict = field(default_factory=dict)       # route id → the RouteShape drawn (flights moved clear)
    lines: dict = field(default_factory=dict)        # route id → its drawn line's outline (water, cable, flight)
    warnings: list = field(default_factory=list)     # what could not be drawn as it should
    route_ends: dict = field(default_factory=dict)   # route_end_figures: the gaps at route ends, as drawn
    flight_lines: dict = field(default_factory=dict)  # route id → a flight's line as the pieces drawn (flights)


def disclaimer_text(board: Board) -> str:
    return board.disclaimer or DISCLAIMER


def build_scene(board: Board, layout: Layout, content_hash: str) -> BoardScene:
    ph = board.physical
    W, H = ph.width_mm, ph.height_mm
    sym = symbols.assign_symbols(board)
    items: list = [Area((shapes.rect_ring(0, 0, W, H),), face=style.PAPER, z=0),
                   Area((shapes.rect_ring(ph.margin_mm, ph.margin_mm, W - ph.margin_mm, H - ph.margin_mm),),
                        face=style.INNER, edge=style.HAIRLINE, lw=0.5, z=0.1)]
    items += track_items(W, H, ph.margin_mm)
    band_items, band_boxes = margin_text_items(board, content_hash)
    items += band_items

    by_id = {r.id: r for r in board.routes}
    routes, flight_lines, warnings = flights.reroute(board, layout, sides.keep_sides(board, layout.positions,
                                                                                   layout.routes))
    space_polys = [Polygon(c) for shape in routes.values() for c in shape.spaces]
    owners = [rid for rid, shape in routes.items() for _ in shape.spaces]
    in_way = _lead_obstacles(space_polys, owners, layout.positions, ph.station_radius_mm)

    def aim(rid, boxes=None):
        """The route's leads (`leads`), clear of other routes and stations, and of boxes (label boxes)."""
        r = by_id[rid]
        tree = STRtree(boxes) if boxes else None

        def blocked(seg):
            if in_way(seg, rid, (r.a, r.b)):
                return True
            return tree is not None and len(tree.query(lead_outline(seg), predicate="intersects")) > 0
        return tuple(leads(ph, routes[rid].centerline, routes[rid].spaces,
                           (layout.positions[r.a], layout.positions[r.b]), blocked))

    led = {rid: aim(rid) for rid in routes if by_id[rid].kind != "flight" and by_id[rid].kind not in GUIDE_KINDS}
    # a drawn line (water, cable, flight, a lead) is as much in a label's way as a space is
    drawn_lines = {rid: _outline(route_items(board, by_id[rid], shape, sym, flight_lines.get(rid), led.get(rid)))
                   for rid, shape in routes.items()}
    drawn_lines = {rid: g for rid, g in drawn_lines.items() if g is not None}
    bonus_requests = [bonus_request(by_id[rid], shape, ph.space_width_mm) for rid, shape in routes.items()
                      if by_id[rid].bonus]

    discs = [Point(xy).buffer(ph.station_radius_mm, quad_segs=8) for xy in layout.positions.values()]
    bands = [box(*b) for b in band_boxes]
    obstacles = discs + space_polys + list(drawn_lines.values()) + bands
    track = shapes.track_band(ph.margin_mm)
    inset = track.inner + 1.0
    bounds = box(inset, inset, W - inset, H - inset)
    requests = list(bonus_requests)
    for s in board.stations:
        requests.append(labels.station_request(s.id, s.name, layout.positions[s.id], ph.station_radius_mm,
                                               s.label, s.hub))
    placement = labels.raised(labels.place(requests, obstacles, bounds), requests, obstacles, bounds)

    # a label still below its normal size where its own station's leads took its room: raised over
    # them where they can be aimed again clear of every label (kept as they were where they cannot)
    for req in requests:
        c = placement.placed.get(req.key)
        if c is None or not req.least or c.size >= req.least:
            continue
        at = [rid for rid in led if led[rid] and req.key in (by_id[rid].a, by_id[rid].b)]
        if not at:
            continue
        kept = [_outline(route_items(board, by_id[rid], routes[rid], sym, flight_lines.get(rid), ())) for rid in at]
        rest = (discs + space_polys + [g for rid, g in drawn_lines.items() if rid not in at]
                + [g for g in kept if g is not None] + bands)
        grown = {gap: labels._buffered(rest, gap) for gap in (labels.CLEARANCE_MM, labels.CLEARANCE_MM * labels.TIGHT)}
        tried = []
        for choice in labels.normal_boxes(placement, req, grown, bounds, limit=LEAD_LABEL_TRIES):
            trial = labels.moved(placement, req.key, choice)
            boxes = [box(*b).buffer(labels.CLEARANCE_MM) for b in trial.boxes()]
            again = {rid: aim(rid, boxes) for rid in at}
            hits = sum(lead_outline(seg).intersects(g) for segs in again.values() for seg in segs for g in boxes)
            tried.append((hits, len(tried), trial, again, boxes))
            if not hits:
                break
        if not tried:
            continue
        # the fewest leads in the label's way; those are left out (their ends stay bare: BoardScene.bare_ends)
        _, _, placement, again, boxes = min(tried, key=lambda t: (t[0], t[1]))
        for rid, segs in again.items():
            led[rid] = tuple(seg for seg in segs if not any(lead_outline(seg).intersects(g) for g in boxes))
            drawn_lines[rid] = _outline(route_items(board, by_id[rid], routes[rid], sym, flight_lines.get(rid), led[rid]))
        drawn_lines = {rid: g for rid, g in drawn_lines.items() if g is not None}
        obstacles = discs + space_polys + list(drawn_lines.values()) + bands

    for rid, shape in routes.items():
        items += route_items(board, by_id[rid], shape, sym, flight_lines.get(rid), led.get(rid))

    for s in board.stations:
        items += station_items(layout.positions[s.id], ph.station_radius_mm, s.hub)
    for key, c in placement.placed.items():
        if key.startswith("bonus:"):
            items += badge_items(c)
            continue
        items.append(Text(c.center, c.lines, c.size, style.INK, z=10, bold=c.bold, align=c.align, box=c.box))
        if key in placement.unplaced:  # keep it readable over whatever it covers
            items.append(Area((shapes.rect_ring(*c.box),), face="white", alpha=0.75, z=9.5))

    inner = box(ph.margin_mm, ph.margin_mm, W - ph.margin_mm, H - ph.margin_mm)
    legend_items, legend_box = legend.place_legend(board, sym, inner, obstacles + [box(*b) for b in placement.boxes()])
    items += legend_items
    return BoardScene(W, H, items, placement, list(placement.unplaced), legend_box is None, obstacles, bounds, sym,
                      routes, drawn_lines, warnings, route_end_figures(board, routes, led, layout.positions),
                      flight_lines)


def route_end_figures(board: Board, routes: dict, led: dict, positions: dict) -> dict:
    """The gaps between route ends and their stations as drawn (flights left out: their line is
    drawn to the station): largest_gap_mm (from a station's rim to the route's first space),
    limit_mm (END_GAP_MM), over_limit (ends whose gap is wider), led (of those, drawn with a lead
    or a water/cable line across the gap), bare (the others, each [route id, station id, gap mm]:
    a lead there would have crossed another route's space or a label), largest_bare_gap_mm (the
    widest stretch of bare board left at a route end: the largest of END_GAP_MM's ends and the bare)."""
    ph = board.physical
    by_id = {r.id: r for r in board.routes}
    largest, over, bare, widest_bare = 0.0, 0, [], 0.0
    for rid, shape in routes.items():
        r = by_id[rid]
        if r.kind == "flight":
            continue
        near = {r.a: positions[r.a], r.b: positions[r.b]}
        reached = {min(near, key=lambda sid: math.dist(near[sid], seg[0])) for seg in led.get(rid, ())}
        for sid, gap in zip((r.a, r.b), end_gaps(ph, shape.centerline, shape.spaces)):
            largest = max(largest, gap)
            if gap <= END_GAP_MM:
                widest_bare = max(widest_bare, gap)
                continue
            over += 1
            if r.kind not in GUIDE_KINDS and sid not in reached:
                bare.append([rid, sid, round(gap, 1)])
                widest_bare = max(widest_bare, gap)
    return {"largest_gap_mm": round(largest, 1), "limit_mm": END_GAP_MM, "over_limit": over,
            "led": over - len(bare), "bare": bare, "largest_bare_gap_mm": round(widest_bare, 1)}


def track_items(W: float, H: float, margin: float) -> list:
    out = []
    cells = shapes.track_cells(W, H, margin)
    # score numbers are read across the table: TRACK_PT where the cell allows, smaller where not
    size = min(TRACK_PT, shapes.track_band(margin).width / fonts.MM_PER_PT * 0.6)
    for cell in cells:
        n = cell.number
        face = "#efe6cf" if n % 5 == 0 else style.TRACK
        out.append(Area((shapes.rect_ring(*cell.rect),), face=face, edge=style.HAIRLINE, lw=0.4, z=1))
        cx, cy = (cell.rect[0] + cell.rect[2]) / 2, (cell.rect[1] + cell.rect[3]) / 2
        text = "0/100" if n == 0 else str(n)
        s = size
        while s > 4 and fonts.line_width(text, s, True) > (cell.rect[2] - cell.rect[0]) - 1.0:
            s -= 0.5
        out.append(Text((cx, cy), (text,), s, style.INK, z=1.5, bold=n % 5 == 0, box=cell.rect))
    return out


def margin_text_items(board: Board, content_hash: str) -> tuple[list, list]:
    """The bands between the scoring track and the playing area: at the top the title with the
    version, the file's hash and a playtest box (marks.Stamp), and the "print at 100 %" notice with calibration bars; at the
    bottom the credits and the disclaimer. Returns items and their boxes (label obstacles)."""
    ph = board.physical
    W, H = ph.width_mm, ph.height_mm
    track = shapes.track_band(ph.margin_mm)
    band_h = max(3.0, ph.margin_mm - track.inner - 1.0)
    top_c = (track.inner + ph.margin_mm) / 2
    left, right = track.inner + 3, W - track.inner - 3
    items, boxes = [], []

    strip_w = marks.scale_strip_width()
    stamp = f"{marks.Stamp(board.name, board.version, content_hash).ident()} · {marks.PLAYTEST}"
    title_size = min(24.0, band_h / (1.15 * fonts.MM_PER_PT))
    while True:
        tw, th = fonts.block_size([board.name], title_size, True)
        sw, sh = fonts.block_size([stamp], 6, False)
        room = right - left - (strip_w + 8 if right - left > strip_w + 150 else 0)
        if tw + 4 + sw <= room or title_size <= 8:
            break
        title_size -= 1
    tbox = (left, top_c - th / 2, left + tw, top_c + th / 2)
    items.append(Text((left + tw / 2, top_c), (board.name,), title_size, style.INK, z=12, bold=True, box=tbox))
    sbox = (tbox[2] + 4, top_c - sh / 2, tbox[2] + 4 + sw, top_c + sh / 2)
    items.append(Text(((sbox[0] + sbox[2]) / 2, top_c + th / 2 - sh / 2 - 0.6), (stamp,), 6, style.INK, z=12, box=sbox))
    boxes += [tbox, sbox]
    room_for_strip = right - left > strip_w + 150
    if room_for_strip:
        strip, strip_box = marks.scale_strip(right - strip_w, top_c - marks.BAR_MM / 2)
        items += strip
        boxes.append(strip_box)

    text = disclaimer_text(board)
    if not room_for_strip:  # a small board: the notice goes with the small print
        text = f"{marks.NOTICE}.  {text}"
    if board.credits:
        text = f"{board.credits}  ·  {text}"
    width = W - 2 * (track.inner + 4)
    lines, size = fonts.fit_lines(text, width, band_h, (6.5, 6, 5.5, 5, 4.5, 4))
    dw, dh = fonts.block_size(lines, size)
    bottom_c = H - top_c
    dbox = (W / 2 - dw / 2, bottom_c - dh / 2, W / 2 + dw / 2, bottom_c + dh / 2)
    items.append(Text((W / 2, bottom_c), tuple(lines), size, "#444444", z=12, box=dbox))
    boxes.append(dbox)
    return items, boxes


# What route_items made, by everything it reads: `mapkit edit` draws the board again after every
# drag, and only the routes at the moved station change (the items are frozen values, so sharing
# them between drawings is safe). Bounded: cleared when it grows past ROUTE_MEMO_SIZE.
ROUTE_MEMO_SIZE = 4096
_ROUTE_MEMO: dict = {}


def route_items(board: Board, r, shape, sym: dict, pieces=None, led=None) -> list:
    """A route's spaces and symbols, its line when it has one and the lines across its wide end
    gaps; pieces: the flight's line as the parts to draw (see `flights`); led: those lines (`leads`,
    as build_scene aims them clear of the other routes), default aimed at the stations' centres."""
    ph = board.physical
    hex_ = style.route_hex(board, r.color)
    mark = None if r.is_gray else sym.get(r.color)
    if led is None and r.kind != "flight" and r.kind not in GUIDE_KINDS:
        led = tuple(leads(ph, shape.centerline, shape.spaces, (_station_xy(board, r.a, shape.centerline[0]),
                                                               _station_xy(board, r.b, shape.centerline[-1]))))
    key = (ph.station_radius_mm, ph.space_width_mm, hex_, r.kind, mark, tuple(shape.centerline),
           tuple(shape.spaces), pieces, led)
    found = _ROUTE_MEMO.get(key)
    if found is None:
        if len(_ROUTE_MEMO) >= ROUTE_MEMO_SIZE:
            _ROUTE_MEMO.clear()
        found = _ROUTE_MEMO[key] = tuple(_route_items(ph, r.kind, hex_, mark, shape, pieces, led or ()))
    return list(found)


def _station_xy(board: Board, station_id: str, fallback):
    """A station's board position (the centre its routes' leads point at), or fallback (the line's
    end) for a station placed from its lat/lon."""
    p = board.station(station_id).board
    return (p.x, p.y) if p is not None else tuple(fallback)


GUIDE_KINDS = frozenset(style.WATER_KINDS) | {"aerial-tram"}   # routes drawn with a line beside their spaces (guide_line)


def guide_line(ph, kind: str, centerline) -> tuple | None:
    """(coords, colour, line width in pt, dash) of the line drawn along a route beside its spaces: a
    wave for a ferry or water taxi, the cable of an aerial tram; None for other kinds (a flight's
    line follows a path of its own, mapkit.render.flights). The layout's label room counts these
    too (mapkit.layout.labels)."""
    if kind not in GUIDE_KINDS:
        return None
    path = shapes.trimmed(centerline, ph.station_radius_mm, ph.station_radius_mm)
    if kind in style.WATER_KINDS:
        return tuple(shapes.wavy(path)), style.WATER, 0.9, None
    return tuple(path), style.INK, 0.8, (1.0, 1.5)


# A route end whose first space starts more than END_GAP_MM from its station's rim (a station with
# routes leaving close together needs its first spaces farther out: geometry.end_needs) gets its
# line drawn across that gap, LEAD_PT wide in the route's color with its spaces' outline, so that
# the route reads as reaching its station: no route end leaves more than END_GAP_MM of bare board.
END_GAP_MM = 6.0
LEAD_PT = 3.0


def end_gaps(ph, centerline, spaces) -> tuple[float, float]:
    """(gap at end a, gap at end b): from each end station's rim along the line to the near edge
    of the route's first (last) space, as drawn."""
    if not spaces:
        return 0.0, 0.0
    line = LineString(centerline)
    half = ph.space_length_mm / 2

    def at(corners):
        return line.project(Point(sum(p[0] for p in corners) / 4, sum(p[1] for p in corners) / 4))

    r = ph.station_radius_mm
    return max(0.0, at(spaces[0]) - half - r), max(0.0, line.length - r - at(spaces[-1]) - half)


LEAD_SWING_DEG = tuple(d * s for d in range(5, 50, 5) for s in (1, -1))
LEAD_SLIDE = (0.0, 0.3, -0.3)   # where a lead meets its space: the near edge's middle, then this share of the width either side


def leads(ph, centerline, spaces, ends=None, in_way=None) -> list[tuple]:
    """The lines drawn across a route's end gaps wider than END_GAP_MM (`end_gaps`): each straight
    from the middle of the first (last) space's near edge to its station's rim, aimed at the
    station's centre (ends: the two stations' centres; default the line's ends), so that a double's
    two tracks meet at their station; where in_way(segment) says that line would pass under
    something (another route's space, another station), the rim point swung round the station by
    LEAD_SWING_DEG in turn, then the same from points of the edge either side of its middle
    (LEAD_SLIDE): the first that clears (the aimed one where none does)."""
    if not spaces:
        return []
    gap_a, gap_b = end_gaps(ph, centerline, spaces)
    a, b = ends if ends is not None else (centerline[0], centerline[-1])
    r = ph.station_radius_mm
    out = []
    for gap, station, (p, q) in ((gap_a, a, (spaces[0][0], spaces[0][3])), (gap_b, b, (spaces[-1][1], spaces[-1][2]))):
        if gap <= END_GAP_MM:
            continue
        tries = []
        for t in LEAD_SLIDE:
            edge = ((p[0] + q[0]) / 2 + t * (q[0] - p[0]), (p[1] + q[1]) / 2 + t * (q[1] - p[1]))
            if math.dist(edge, station) <= r:
                continue
            aim = math.atan2(edge[1] - station[1], edge[0] - station[0])
            tries += [((station[0] + r * math.cos(aim + math.radians(d)), station[1] + r * math.sin(aim + math.radians(d))),
                       edge) for d in (0, *LEAD_SWING_DEG)]
        if tries:
            out.append(next((seg for seg in tries if in_way is None or not in_way(seg)), tries[0]))
    return out


LEAD_LABEL_TRIES = 40   # a label below its normal size: its normal-size boxes tried over its station's leads
LEAD_CLEAR_MM2 = 0.05   # a lead may touch another route's space by less than this (a corner's rounding)


def _lead_obstacles(space_polys: list, owners: list, positions: dict, radius: float):
    """in_way(segment, route id, its two stations) for `leads`: whether a lead drawn along segment
    would cover another route's space (by LEAD_CLEAR_MM2 or more) or a station other than its own."""
    tree = STRtree(space_polys) if space_polys else None
    ids = list(positions)
    discs = [Point(positions[i]).buffer(radius, quad_segs=8) for i in ids]
    disc_tree = STRtree(discs) if discs else None
    def in_way(seg, rid: str, own: tuple) -> bool:
        g = lead_outline(seg)
        if tree is not None:
            for i in tree.query(g, predicate="intersects"):
                if owners[i] != rid and g.intersection(space_polys[i]).area >= LEAD_CLEAR_MM2:
                    return True
        if disc_tree is not None:
            return any(ids[i] not in own for i in disc_tree.query(g, predicate="intersects"))
        return False

    return in_way


def lead_outline(seg):
    """The area a lead takes (its outline's width), for the checks that keep it clear."""
    return LineString(seg).buffer((LEAD_PT + 2 * 0.6) * fonts.MM_PER_PT / 2, quad_segs=4)


def _outline(route: list):
    """The area a route's drawn lines take (None where it has none): a label obstacle."""
    outline = [line_outline(i.coords, i.lw) for i in route if isinstance(i, Line)]
    return unary_union(outline) if outline else None


def line_outline(coords, lw: float):
    """The area a drawn line of width lw (pt) takes, with 0.2 mm to spare: an obstacle for labels."""
    return LineString(coords).buffer(lw * fonts.MM_PER_PT / 2 + 0.2, quad_segs=2)


def _route_items(ph, kind: str, hex_: str, mark, shape, pieces, led) -> list:
    flight = kind == "flight"
    base_z = 6 if flight else 2
    out = []
    guide = guide_line(ph, kind, shape.centerline)
    if guide is not None:
        coords, colour, lw, dash = guide
        out.append(Line(coords, colour, lw, z=base_z, dash=dash))
    elif flight:
        path = shapes.trimmed(shape.centerline, ph.station_radius_mm, ph.station_radius_mm)
        for part in (pieces if pieces is not None else (tuple(path),)):
            out.append(Line(tuple(part), style.INK, 1.4, z=base_z, dash=(5.0, 3.0)))
    edge, lw = style.space_edge(hex_)
    ink = style.ink_on(hex_)
    if guide is None and not flight:
        for piece in led:
            out.append(Line(piece, edge, LEAD_PT + 2 * lw, z=base_z - 0.1))
            out.append(Line(piece, hex_, LEAD_PT, z=base_z))
    for corners in shape.spaces:
        ring = shapes.rounded(corners, SPACE_CORNER_MM)
        out.append(Area((ring,), face=hex_, edge=edge, lw=lw, z=base_z + 1,
                        dash=(3.0, 1.5) if flight else None))
        if mark:
            cx = sum(p[0] for p in corners) / 4
            cy = sum(p[1] for p in corners) / 4
            for rings_ in symbols.rings(mark, (cx, cy), SYMBOL_SCALE * ph.space_width_mm):
                out.append(Area(tuple(rings_), face=ink, z=base_z + 2, alpha=0.8))
    return out


def bonus_request(r, shape, space_width: float) -> labels.LabelRequest:
    """Candidates for a special route's badge: beside its middle space, either side, or further along."""
    text = (f"+{r.bonus.points} {r.bonus.name}",)
    cands = []
    line = LineString(shape.centerline)
    # first right against the line between two spaces, then beside a space, then a little further
    for reach in (1.8, space_width / 2 + 1.5, space_width / 2 + 4.0, space_width / 2 + 6.5):
        for t in (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1, 0.9):
            p = line.interpolate(line.length * t)
            nx, ny = shapes.normal_at(line, line.length * t)
            for side in (1, -1):
                anchor = (p.x + side * nx * reach, p.y + side * ny * reach)
                direction = (_sign(side * nx), _sign(side * ny))
                if direction == (0, 0):
                    direction = (0, -1)
                cands.append(labels.text_candidate("badge", text, BADGE_PT, True, anchor, direction))
    return labels.LabelRequest(f"bonus:{r.id}", tuple(cands))


def _sign(v: float) -> int:
    return 1 if v > 0.38 else -1 if v < -0.38 else 0


def badge_items(c: labels.Candidate) -> list:
    x0, y0, x1, y1 = c.box
    return [Area((shapes.rounded_rect(x0, y0, x1, y1, 1.2),), face="white", edge=style.ACCENT, lw=0.8, z=10.5),
            Text(c.center, c.lines, c.size, style.ACCENT, z=11, bold=True, box=c.box)]


def station_items(xy, radius: float, hub: bool) -> list:
    if hub:
        return [Disc(xy, radius, "white", style.INK, 2.2, z=9), Disc(xy, radius * 0.45, style.INK, None, 0, z=9.1)]
    return [Disc(xy, radius, "white", style.INK, 1.4, z=9), Disc(xy, radius * 0.25, style.HAIRLINE, None, 0, z=9.1)]
