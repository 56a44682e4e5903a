"""The board as SVG for the editor, drawn from the same geometry and the same drawing code as the print.

Route spaces, lines and symbols come from `render.scene.route_items`, station markers from
`render.scene.station_items`, on the shapes `geometry.Layout` computes (with flights moved clear by
`render.flights` and double tracks kept on their side by `render.sides`, as the print does). Each
element carries `data-route` or `data-station` so the page can show what the pointer is over and
where a problem is.

Two drawings exist because the print's label placement takes seconds on a large board (it tests
thousands of candidate boxes against every space):
- the quick drawing (`board_svg(board, layout)`): routes, stations and each station's name at its
  preferred side, in well under a second, drawn after every change;
- the print drawing (`board_svg(board, layout, scene)`): the same, plus the scene's placed labels,
  badges, scoring track, title band and legend, exactly as `mapkit render` places them; the editor
  computes it in the background and swaps it in when it is ready.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from matplotlib.colors import to_hex
from shapely.geometry import Point, Polygon

from mapkit.geometry import Layout
from mapkit.model import Board
from mapkit.render import flights, labels, scene as scene_mod, shapes, sides, style, symbols
from mapkit.render.draw import Area, Disc, Line, Text
from mapkit.render.fonts import LINE_SPACING, MM_PER_PT
from mapkit.render.pdf import FONT_FAMILY

# scene layers (see render/scene.py): below 2 paper and track, 2-9.1 routes and stations (drawn here
# with ids), 9.5-11 labels and badges (drawn here with ids), 12 and above legend, title and marks
_ROUTE_AND_STATION_LAYERS = (2.0, 12.0)


def _color(c) -> str:
    if c is None:
        return "none"
    return c if isinstance(c, str) and c.startswith("#") else to_hex(c)


def _num(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") if abs(v) < 1e7 else "0"


def _points(coords) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in coords)


def _dash(dash, lw_pt: float) -> str:
    # matplotlib scales dash patterns by the line width (lines.scale_dashes, on by default)
    if not dash:
        return ""
    scale = max(lw_pt, 1.0) * MM_PER_PT
    return f' stroke-dasharray="{" ".join(_num(d * scale) for d in dash)}"'


def _attrs(data: dict) -> str:
    return "".join(f' data-{k}="{escape(str(v))}"' for k, v in data.items())


def element(item, data: dict | None = None) -> str:
    """One display-list primitive as an SVG element (mm units, y down, line widths in pt → mm)."""
    extra = _attrs(data or {})
    if isinstance(item, Area):
        d = " ".join("M" + " L".join(f"{_num(x)},{_num(y)}" for x, y in ring) + " Z" for ring in item.rings)
        stroke = ""
        if item.edge is not None and item.lw:
            stroke = (f' stroke="{_color(item.edge)}" stroke-width="{_num(item.lw * MM_PER_PT)}"'
                      f' stroke-linejoin="round"{_dash(item.dash, item.lw)}')
        alpha = f' opacity="{_num(item.alpha)}"' if item.alpha != 1 else ""
        return f'<path d="{d}" fill="{_color(item.face)}" fill-rule="evenodd"{stroke}{alpha}{extra}/>'
    if isinstance(item, Line):
        alpha = f' opacity="{_num(item.alpha)}"' if item.alpha != 1 else ""
        cap = "butt" if item.dash else "round"
        return (f'<polyline points="{_points(item.coords)}" fill="none" stroke="{_color(item.color)}"'
                f' stroke-width="{_num(item.lw * MM_PER_PT)}" stroke-linecap="{cap}" stroke-linejoin="round"'
                f'{_dash(item.dash, item.lw)}{alpha}{extra}/>')
    if isinstance(item, Disc):
        stroke = (f' stroke="{_color(item.edge)}" stroke-width="{_num(item.lw * MM_PER_PT)}"'
                  if item.edge is not None and item.lw else "")
        return (f'<circle cx="{_num(item.center[0])}" cy="{_num(item.center[1])}" r="{_num(item.radius)}"'
                f' fill="{_color(item.face)}"{stroke}{extra}/>')
    if isinstance(item, Text):
        return _text(item, extra)
    raise TypeError(f"cannot draw {item!r}")  # pragma: no cover - a programming error


def _text(t: Text, extra: str) -> str:
    size = t.size * MM_PER_PT
    cx, cy = t.center
    # where the lines sit horizontally: a measured box lets left/right-aligned blocks line up as
    # matplotlib's multialignment does; without one, the anchor is the text's centre or edge
    if t.box is not None and t.align in ("left", "right") and len(t.lines) > 1:
        x, anchor = (t.box[0], "start") if t.align == "left" else (t.box[2], "end")
    else:
        x, anchor = cx, {"center": "middle", "left": "start", "right": "end"}[t.ha]
    step = size * LINE_SPACING
    y0 = cy - step * (len(t.lines) - 1) / 2
    spans = "".join(f'<tspan x="{_num(x)}" y="{_num(y0 + i * step)}">{escape(line)}</tspan>'
                    for i, line in enumerate(t.lines))
    rot = f' transform="rotate({_num(-t.rotation)} {_num(cx)} {_num(cy)})"' if t.rotation else ""
    weight = ' font-weight="bold"' if t.bold else ""
    return (f'<text font-size="{_num(size)}" fill="{_color(t.color)}" text-anchor="{anchor}"'
            f' dominant-baseline="central"{weight}{rot}{extra}>{spans}</text>')


def drawn_routes(board: Board, layout: Layout, move_flights: bool = True):
    """The route shapes the print draws (double tracks kept on their side, flights moved clear)
    and each flight's line pieces. Moving flights clear is a search of seconds on a board with a
    flight, so the quick drawing leaves them where the checks measure them (move_flights=False)."""
    kept = sides.keep_sides(board, layout.positions, layout.routes)
    if not move_flights:
        return kept, {}
    routes, flight_lines, _ = flights.reroute(board, layout, kept)
    return routes, flight_lines


def quick_label(name: str, xy, radius: float, preferred: str | None, hub: bool) -> Text:
    """A station's name on its preferred side (the first side the print tries), without the
    print's collision search: what the page shows until the print drawing is ready."""
    pos = preferred or labels.ORDER[0]
    dx, dy = labels.COMPASS[pos]
    reach = radius + labels.LABEL_GAP_MM
    if dx and dy:
        reach /= 2 ** 0.5
    size = (labels.HUB_SIZES if hub else labels.STATION_SIZES)[0]
    h = size * MM_PER_PT
    anchor = (xy[0] + dx * reach, xy[1] + dy * (reach + h / 2))
    ha = {-1: "right", 0: "center", 1: "left"}[dx]
    return Text(anchor, (name,), size, style.INK, z=10, bold=hub, ha=ha)


# element() of a route's item with its data, kept between drawings: render.scene keeps a route's
# items while its shape is unchanged (they are frozen values), so a drag draws anew only the
# routes at the moved station
_ELEMENTS: dict = {}


@dataclass
class LastPrint:
    """What the last print drawing placed, and where the stations and routes then were."""

    positions: dict
    centerlines: dict
    placed: dict          # label key → labels.Candidate
    unplaced: list


def changed_routes(board: Board, layout: Layout, last: LastPrint) -> set[str]:
    """The routes whose spaces may be drawn elsewhere than in the last print drawing: those whose
    centreline changed, and those sharing a station with one. A route's spaces move without its
    centreline: an end at a station whose fan changed (another route there moved) keeps the room
    its first space needs (geometry.space_placement). Portland: dragging Pioneer Square shifts
    ohsu-goose-hollow's spaces at Goose Hollow; PSU's label was kept over them."""
    changed = {rid for rid, shape in layout.routes.items() if last.centerlines.get(rid) != tuple(shape.centerline)}
    ends = {r.id: (r.a, r.b) for r in board.routes if r.id in layout.routes}
    at = {s for rid in changed if rid in ends for s in ends[rid]}
    return changed | {rid for rid, ab in ends.items() if at.intersection(ab)}


def carried_labels(board: Board, layout: Layout, last: LastPrint, routes: dict) -> dict:
    """The quick drawing's labels after a change, from the last print drawing: every label the
    change did not touch stays where the print put it; the labels of moved stations, of changed
    routes' badges, and any label now over a moved station or a changed route's spaces are placed
    again (the print's own `labels.place`, against the stations, the spaces and the labels kept),
    so the quick drawing overlaps nothing the print would not. Returns key → Candidate."""
    from shapely import STRtree
    from shapely.geometry import LineString, box as shp_box

    ph = board.physical
    moved = {sid for sid, xy in layout.positions.items() if last.positions.get(sid) != xy}
    changed = changed_routes(board, layout, last)
    fresh = [Point(layout.positions[sid]).buffer(ph.station_radius_mm, quad_segs=8) for sid in moved]
    fresh += [Polygon(c) for rid in changed if rid in routes for c in routes[rid].spaces]
    names = {s.id: s for s in board.stations}
    bonus = {f"bonus:{r.id}": r for r in board.routes if r.bonus and r.id in routes}
    keys = [k for k in last.placed if k in names or k in bonus]  # a station or route since removed is gone
    near = set()
    if fresh and keys:  # labels within the clearance of a moved marker or a changed route's spaces
        grow = labels.CLEARANCE_MM
        boxes = [shp_box(b[0] - grow, b[1] - grow, b[2] + grow, b[3] + grow) for b in (last.placed[k].box for k in keys)]
        near = {keys[i] for i in STRtree(fresh).query(boxes, predicate="intersects")[0]}
    keep, again = {}, []
    for key in keys:
        c = last.placed[key]
        touched = key in moved or key[len("bonus:"):] in changed or key in near
        if touched:
            again.append(key)
        else:
            keep[key] = c
    again += [k for k in list(names) + list(bonus) if k not in last.placed]
    if not again:
        return keep
    requests = []
    for key in again:
        if key in bonus:
            requests.append(scene_mod.bonus_request(bonus[key], routes[bonus[key].id], ph.space_width_mm))
        else:
            st = names[key]
            requests.append(labels.LabelRequest(key, labels.station_candidates(
                st.name, layout.positions[key], ph.station_radius_mm, st.label, st.hub)))
    obstacles = [_shape(("disc", xy, ph.station_radius_mm)) for xy in layout.positions.values()]
    obstacles += [_shape(("space", c)) for shape in routes.values() for c in shape.spaces]
    sym = symbols.assign_symbols(board)
    by_id = {r.id: r for r in board.routes}
    for rid, shape in routes.items():  # a drawn line (water, cable, flight) is in a label's way, as in the print
        if by_id[rid].kind in style.WATER_KINDS or by_id[rid].kind in ("aerial-tram", "flight"):
            obstacles += [LineString(i.coords).buffer(i.lw * MM_PER_PT / 2 + 0.2, quad_segs=2)
                          for i in scene_mod.route_items(board, by_id[rid], shape, sym) if isinstance(i, Line)]
    obstacles += [shp_box(*c.box) for c in keep.values()]
    inset = shapes.track_band(ph.margin_mm).inner + 1.0
    bounds = shp_box(inset, inset, ph.width_mm - inset, ph.height_mm - inset)
    placed = labels.place(requests, obstacles, bounds).placed
    return {**keep, **placed}


_SHAPES: dict = {}   # a marker's disc or a space's polygon, by what it is made of: a drag moves a few


def _shape(key: tuple):
    """("disc", centre, radius): the marker's disc as the print makes it; ("space", corners): the space."""
    found = _SHAPES.get(key)
    if found is None:
        if len(_SHAPES) >= 50_000:
            _SHAPES.clear()
        found = _SHAPES[key] = (Point(key[1]).buffer(key[2], quad_segs=8) if key[0] == "disc" else Polygon(key[1]))
    return found


def board_svg(board: Board, layout: Layout, scene=None, routes=None, last: LastPrint | None = None) -> str:
    """The board as an SVG document; with `scene` (a render.scene.BoardScene of this same board)
    the print's labels, badges, track, title band and legend too. `routes`: drawn_routes() when
    the caller has them already. `last`: the last print drawing's labels, carried over to this
    quick drawing (`carried_labels`)."""
    ph = board.physical
    W, H = ph.width_mm, ph.height_mm
    sym = scene.symbols if scene is not None else symbols.assign_symbols(board)
    shapes_, flight_lines = routes if routes is not None else drawn_routes(board, layout, scene is not None)
    out: list[tuple[float, int, str]] = []  # (z, order, element): drawn by layer as the print is

    def add(item, data=None):
        out.append((item.z, len(out), element(item, data)))

    def add_kept(item, data):
        tag = tuple(data.items())
        found = _ELEMENTS.get(id(item))
        if found is not None and found[0] is item and found[1] == tag:  # the entry keeps item alive
            text = found[2]
        else:
            if len(_ELEMENTS) >= 50_000:
                _ELEMENTS.clear()
            text = element(item, data)
            _ELEMENTS[id(item)] = (item, tag, text)
        out.append((item.z, len(out), text))

    if scene is not None:
        lo, hi = _ROUTE_AND_STATION_LAYERS
        for item in scene.items:
            if item.z < lo or item.z >= hi:
                add(item)
    else:
        add(Area((shapes.rect_ring(0, 0, W, H),), face=style.PAPER, z=0))
        add(Area((shapes.rect_ring(ph.margin_mm, ph.margin_mm, W - ph.margin_mm, H - ph.margin_mm),),
                 face=style.INNER, edge=style.HAIRLINE, lw=0.5, z=0.1))
        if last is not None:  # the print's scoring track (it depends on the board's size only)
            for item in scene_mod.track_items(W, H, ph.margin_mm):
                add(item)
    by_id = {r.id: r for r in board.routes}
    for rid, shape in shapes_.items():
        for item in scene_mod.route_items(board, by_id[rid], shape, sym, flight_lines.get(rid)):
            add_kept(item, {"route": rid})
    for s in board.stations:
        xy = layout.positions[s.id]
        for item in scene_mod.station_items(xy, ph.station_radius_mm, s.hub):
            add_kept(item, {"station": s.id})
    if scene is not None:
        for key, c in scene.placement.placed.items():
            if key.startswith("bonus:"):
                for item in scene_mod.badge_items(c):
                    add(item, {"route": key[len("bonus:"):]})
                continue
            data = {"station": key, "label": "1"}
            add(Text(c.center, c.lines, c.size, style.INK, z=10, bold=c.bold, align=c.align, box=c.box), data)
            if key in scene.placement.unplaced:
                add(Area((shapes.rect_ring(*c.box),), face="white", alpha=0.75, z=9.5), data)
    elif last is not None:
        for key, c in carried_labels(board, layout, last, shapes_).items():
            if key.startswith("bonus:"):
                for item in scene_mod.badge_items(c):
                    add(item, {"route": key[len("bonus:"):]})
            else:
                add(Text(c.center, c.lines, c.size, style.INK, z=10, bold=c.bold, align=c.align, box=c.box),
                    {"station": key, "label": "1"})
    else:
        for s in board.stations:
            add(quick_label(s.name, layout.positions[s.id], ph.station_radius_mm, s.label, s.hub),
                {"station": s.id, "label": "1"})
    out.sort(key=lambda t: (t[0], t[1]))
    body = "\n".join(e for _, _, e in out)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" id="board" viewBox="0 0 {_num(W)} {_num(H)}"'
            f' data-width="{_num(W)}" data-height="{_num(H)}" data-labels="{"print" if scene is not None else "quick"}"'
            f' font-family="{FONT_FAMILY}, sans-serif">\n{body}\n</svg>\n')


def print_svg(board: Board, short_hash: str) -> tuple[str, dict]:
    """The print drawing of a board: its scene (label placement, track, legend) as `mapkit render`
    builds it, as SVG, and its label placement as JSON (`placement_json`). A top-level function so
    that the editor can run it in a worker process."""
    from mapkit.render.scene import build_scene

    layout = Layout(board)
    scene = build_scene(board, layout, short_hash)
    return board_svg(board, layout, scene, (scene.routes, scene.flight_lines)), placement_json(scene.placement)


def placement_json(placement) -> dict:
    return {"placed": {k: [c.position, list(c.lines), c.size, c.bold, list(c.center), list(c.box), c.align]
                       for k, c in placement.placed.items()}, "unplaced": list(placement.unplaced)}


def last_print(data: dict, layout: Layout) -> LastPrint:
    """A print drawing's placement (placement_json) and the layout it was placed on."""
    placed = {k: labels.Candidate(pos, tuple(lines), size, bold, tuple(center), tuple(box_), align)
              for k, (pos, lines, size, bold, center, box_, align) in data["placed"].items()}
    return LastPrint(dict(layout.positions), {rid: tuple(s.centerline) for rid, s in layout.routes.items()},
                     placed, list(data["unplaced"]))
