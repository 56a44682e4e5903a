"""The balance report's heatmaps, `heatmap-<n>p.png`, one per player count: the board itself, drawn
from the printed board's geometry (`mapkit.geometry.Layout`: station positions, route spaces, the two
tracks of a double side by side; station labels placed as `mapkit.render.labels` places them on the
board), each route's spaces filled by the share of games in which it was claimed (viridis, a
perceptually uniform colormap that also prints readably in gray), the percentage written in its middle
space, and a colorbar. Routes the report says nothing about are light gray with a dashed edge.
"""

from __future__ import annotations

import matplotlib
from matplotlib.cm import ScalarMappable
from matplotlib.collections import PolyCollection
from matplotlib.colors import Normalize, to_hex
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import PercentFormatter
from shapely.geometry import Point, Polygon, box

from mapkit.balance.report_reading import num as _num
from mapkit.balance.report_reading import players_text
from mapkit.geometry import Layout
from mapkit.model import Board
from mapkit.render import draw, labels, pdf, shapes, style
from mapkit.render.board import preview_dpi
from mapkit.render.draw import Area, Line, Text
from mapkit.render.scene import SPACE_CORNER_MM, station_items

CMAP = matplotlib.colormaps["viridis"]
NO_DATA = "#d9d9d9"


def heatmap_name(players: int) -> str:
    return f"heatmap-{players}p.png"


def heatmap_header_mm(board: Board) -> float:
    """Height of the band above the board that holds the title and the colorbar: room for the
    title and the line under it, whose sizes follow the board's width."""
    return 12.0 + 2.3 * _title_pt(board) * 25.4 / 72


def heatmap_dpi(board: Board) -> float:
    """The resolution of board.png, so that station names read as well as on the preview."""
    return preview_dpi(board.physical.width_mm)


def heatmap_pixel(board: Board, xy: tuple[float, float]) -> tuple[int, int]:
    """(column, row) in a heatmap PNG of the board point xy (mm from the board's top left)."""
    k = heatmap_dpi(board) / pdf.MM_PER_INCH
    return int(xy[0] * k), int((xy[1] + heatmap_header_mm(board)) * k)


class BoardDrawing:
    """What every heatmap of one board shares: its layout and where the station labels go.
    Label placement is the slow part, so it is done once for all player counts."""

    def __init__(self, board: Board):
        self.board = board
        self.layout = Layout(board)
        ph = board.physical
        discs = [Point(xy).buffer(ph.station_radius_mm, quad_segs=8) for xy in self.layout.positions.values()]
        spaces = [Polygon(c) for shape in self.layout.routes.values() for c in shape.spaces]
        requests = [labels.LabelRequest(s.id, labels.station_candidates(
            s.name, self.layout.positions[s.id], ph.station_radius_mm, s.label, s.hub))
            for s in board.stations if s.id in self.layout.positions]
        self.placement = labels.place(requests, discs + spaces, box(2, 2, ph.width_mm - 2, ph.height_mm - 2))
        self.rings = {rid: [shapes.rounded(c, SPACE_CORNER_MM) for c in shape.spaces]
                      for rid, shape in self.layout.routes.items()}
        self.base = self._base_items()

    def _base_items(self) -> list:
        """Everything but the spaces' colors and numbers: paper, track lines, stations, labels."""
        board, ph = self.board, self.board.physical
        W, H = ph.width_mm, ph.height_mm
        out: list = [Area((shapes.rect_ring(0, 0, W, H),), face=style.PAPER, z=0),
                     Area((shapes.rect_ring(ph.margin_mm, ph.margin_mm, W - ph.margin_mm, H - ph.margin_mm),),
                          face=style.INNER, edge=style.HAIRLINE, lw=0.5, z=0.1)]
        for shape in self.layout.routes.values():
            path = shapes.trimmed(shape.centerline, ph.station_radius_mm, ph.station_radius_mm)
            out.append(Line(tuple(path), style.HAIRLINE, 0.6, z=1))
        for s in board.stations:
            if s.id in self.layout.positions:
                out += station_items(self.layout.positions[s.id], ph.station_radius_mm, s.hub)
        for key, c in self.placement.placed.items():
            out.append(Text(c.center, c.lines, c.size, style.INK, z=10, bold=c.bold, align=c.align, box=c.box))
            if key in self.placement.unplaced:  # keep it readable over whatever it covers
                out.append(Area((shapes.rect_ring(*c.box),), face="white", alpha=0.75, z=9.5))
        return out

    def draw(self, ax, shares: dict) -> None:
        """The board on ax with every route's spaces colored by its claim share."""
        ph = self.board.physical
        draw.draw(ax, self.base)
        # the percentage must fit a space whichever way the route runs: "100" is about 1.9 em wide
        pct_size = 0.8 * ph.space_width_mm / 1.9 / (pdf.MM_PER_INCH / 72)
        known, known_faces, unknown, numbers = [], [], [], []
        for rid, shape in self.layout.routes.items():
            share = _num(shares.get(rid))
            if share is None:
                unknown += self.rings[rid]
                continue
            share = min(1.0, max(0.0, share))
            face = CMAP(share)
            known += self.rings[rid]
            known_faces += [face] * len(self.rings[rid])
            if shape.spaces:
                mid = shape.spaces[len(shape.spaces) // 2]
                c = (sum(p[0] for p in mid) / 4, sum(p[1] for p in mid) / 4)
                numbers.append(Text(c, (f"{round(100 * share)}",), pct_size, style.ink_on(to_hex(face)), z=4, bold=True))
        # one collection for all spaces: thousands of single patches are slow to draw
        if known:
            ax.add_collection(PolyCollection(known, facecolors=known_faces, edgecolors="#333333", linewidths=0.6,
                                             zorder=3), autolim=False)
        if unknown:
            ax.add_collection(PolyCollection(unknown, facecolors=NO_DATA, edgecolors="#333333", linewidths=0.6,
                                             linestyles=[(0, (2.0, 1.5))], zorder=3), autolim=False)
        draw.draw(ax, numbers)


def heatmap_figure(drawing: BoardDrawing, run: dict, report: dict) -> Figure:
    board, ph = drawing.board, drawing.board.physical
    W, H = ph.width_mm, ph.height_mm
    head = heatmap_header_mm(board)
    total_h = H + head
    fig = Figure(figsize=(W / pdf.MM_PER_INCH, total_h / pdf.MM_PER_INCH))
    fig.patch.set_facecolor(style.PAPER)   # the header continues the board's paper
    ax = pdf.mm_axes(fig, (0, head, W, H), (0, 0, W, H), (W, total_h))
    shares = run.get("route_claim_share") or {}
    drawing.draw(ax, shares)

    def at(x_mm, y_mm):  # figure fraction of a point in mm from the top left
        return x_mm / W, 1 - y_mm / total_h

    title_pt = _title_pt(board)
    n, games = run["players"], run.get("games")
    fig.text(*at(12, head * 0.36), f"{report.get('name') or board.name}: routes claimed, {players_text(n)}",
             fontsize=title_pt, fontweight="bold", va="center", ha="left", parse_math=False)
    sub = [f"{games:,} games" if isinstance(games, int) else "",
           "the number in a route is the % of games in which it was claimed"]
    if not shares:
        sub.append("no route claims in this report")
    fig.text(*at(12, head * 0.76), " · ".join(x for x in sub if x),
             fontsize=title_pt * 0.55, va="center", ha="left", color="#444444", parse_math=False)

    small = title_pt * 0.5
    bar_w = min(0.3 * W, 300.0)
    bar_h = head * 0.17
    x0, y0 = W - 12 - bar_w, head * 0.34
    cax = fig.add_axes((*at(x0, y0 + bar_h), bar_w / W, bar_h / total_h))
    cb = fig.colorbar(ScalarMappable(Normalize(0, 1), CMAP), cax=cax, orientation="horizontal")
    cb.ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    cb.ax.tick_params(labelsize=small, length=3)
    cb.outline.set_linewidth(0.5)
    cax.set_title("share of games in which the route was claimed", fontsize=small, pad=3)
    if any(_num(shares.get(rid)) is None for rid in drawing.layout.routes):
        sw = bar_h * 1.6
        sx = x0 - 8 - sw - 0.6 * small * 0.3528 * len("no data")
        fig.add_artist(Rectangle(at(sx, y0 + bar_h), sw / W, bar_h / total_h, transform=fig.transFigure,
                                 facecolor=NO_DATA, edgecolor="#333333", linewidth=0.6, linestyle=(0, (2.0, 1.5))))
        fig.text(*at(sx + sw + 2, y0 + bar_h / 2), "no data", fontsize=small, va="center", ha="left")
    return fig


def _title_pt(board: Board) -> float:
    return min(32.0, max(13.0, board.physical.width_mm / 30))
