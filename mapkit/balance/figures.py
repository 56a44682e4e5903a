"""The balance report's figures as PNGs: what a designer would rather look at than read.

- `heatmap-<n>p.png`, one per player count: the board itself, drawn from the printed board's
  geometry (`mapkit.geometry.Layout`: station positions, route spaces, the two tracks of a double
  side by side; station labels placed as `mapkit.render.labels` places them on the board), each
  route's spaces filled by the share of games in which it was claimed (viridis, a perceptually
  uniform colormap that also prints readably in gray), the percentage written in its middle space,
  and a colorbar. Routes the report says nothing about are light gray with a dashed edge.
- `completion-vs-points.png`: each ticket's completion rate (with its 95 % interval) against its
  points, one panel per player count; the hardest tickets are named.
- `seat-shares.png`: win share by seat with intervals beside the fair share 1/n, and the mean score
  by seat, one column per player count; the first seat's edge is written in each panel.
- `margins.png`: how far the winner finished ahead of the runner-up, one histogram per player count.

The input is the report dict (report.json). A missing optional key leaves a panel empty with a note
or a figure out; it never raises. The same input gives the same bytes (no dates in PNG metadata).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
from pathlib import Path

import matplotlib
from matplotlib.cm import ScalarMappable
from matplotlib.collections import PolyCollection
from matplotlib.colors import Normalize, to_hex
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter
from PIL import Image, PngImagePlugin
from shapely.geometry import Point, Polygon, box

from mapkit.geometry import Layout
from mapkit.model import Board
from mapkit.render import draw, labels, pdf, shapes, style
from mapkit.render.board import preview_dpi
from mapkit.render.draw import Area, Line, Text
from mapkit.render.scene import SPACE_CORNER_MM, station_items
from mapkit.outputs import atomic_write_bytes

CMAP = matplotlib.colormaps["viridis"]
NO_DATA = "#d9d9d9"
CHART_DPI = 150
PNG_METADATA = {"Software": "mapkit"}   # matplotlib would write its version; no date is written
DECK_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2")
NAMED_TICKETS = 3   # the hardest tickets named in each completion panel


# ------------------------------------------------------------------ files


def atomic_write(path: Path, data: bytes) -> None:
    """Write data to path through a temporary file beside it (mapkit.outputs: keeps the old file's
    mode and links, leaves it whole when the write fails)."""
    atomic_write_bytes(Path(path), data)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _png(fig: Figure, dpi: float, palette: bool = False) -> bytes:
    """The figure as PNG bytes; with palette, reduced to 256 colors (a board heatmap is flat
    colors and antialiased edges: a third of the size, which matters once embedded in the HTML)."""
    buf = io.BytesIO()
    with pdf.style():
        fig.savefig(buf, format="png", dpi=dpi, metadata=PNG_METADATA)
    if not palette:
        return buf.getvalue()
    buf.seek(0)
    with Image.open(buf) as im:
        small = im.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, format="png", pnginfo=_pnginfo())
    return out.getvalue()


def _pnginfo():
    info = PngImagePlugin.PngInfo()
    for k, v in PNG_METADATA.items():
        info.add_text(k, v)
    return info


# ------------------------------------------------------------------ report helpers


def runs_of(report: dict) -> list[dict]:
    """The report's runs that name a player count, fewest players first."""
    runs = [r for r in report.get("runs") or [] if isinstance(r, dict) and isinstance(r.get("players"), int)]
    return sorted(runs, key=lambda r: r["players"])


def players_text(n) -> str:
    return f"{n} player" + ("" if n == 1 else "s")


def heatmap_name(players: int) -> str:
    return f"heatmap-{players}p.png"


def ticket_ref(board: Board, label: str):
    """(deck name, model Ticket) for a report's ticket label ("a-b" or "<deck>:a-b"), or (None, None)
    when the board has no such ticket. Station ids may contain hyphens, so the label is matched
    against the board's own "a-b" strings rather than split."""
    prefix, _, rest = label.rpartition(":")
    decks = board.ticket_decks or {}
    order = ([prefix] if prefix in decks else []) + [d for d in decks if d != prefix]
    for deck in order:
        for t in decks[deck]:
            if f"{t.a}-{t.b}" == rest or f"{t.b}-{t.a}" == rest:
                return deck, t
    return None, None


def ticket_title(board: Board, label: str) -> str:
    """A ticket as a designer reads it: its stations' names ("Hillsboro – Gresham")."""
    _, t = ticket_ref(board, label)
    if t is None:
        return label
    ids = {s.id: s.name for s in board.stations}
    return f"{ids.get(t.a, t.a)} – {ids.get(t.b, t.b)}"


def ticket_deck(board: Board, label: str) -> str:
    deck, _ = ticket_ref(board, label)
    if deck is not None:
        return deck
    prefix, _, _ = label.rpartition(":")
    return prefix or "tickets"


def _num(x) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def _err(value: float, low, high) -> tuple[float, float]:
    """Error bar lengths below and above value (zero where an interval end is missing)."""
    lo, hi = _num(low), _num(high)
    return (max(0.0, value - lo) if lo is not None else 0.0, max(0.0, hi - value) if hi is not None else 0.0)


def _note(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#666666", fontsize=9,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 2})


# ------------------------------------------------------------------ the heatmap


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


# ------------------------------------------------------------------ charts


def _panels(k: int, rows: int = 1, height: float = 3.4, width: float = 3.3, sharex: bool = False):
    fig = Figure(figsize=(max(5.0, width * k), height * rows), layout="constrained")
    fig.patch.set_facecolor("white")
    axes = fig.subplots(rows, k, squeeze=False, sharex=sharex)
    return fig, axes


def _frame(ax, run: dict | None = None, grid: str = "y") -> None:
    """A panel's light grid behind the data, and its title: the player count and the games."""
    ax.grid(True, axis=grid, color="#e6e6e6", lw=0.6)
    ax.set_axisbelow(True)
    if run is not None:
        games = f" · {run['games']:,} games" if isinstance(run.get("games"), int) else ""
        ax.set_title(players_text(run["players"]) + games, fontsize=10)


def _percent_axis(axis) -> None:
    """Percent ticks at round steps (10 %, 5 %, 2 %), never 2.5 % printed as "2 %"."""
    axis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 5, 10]))


def completion_figure(report: dict, board: Board) -> Figure:
    runs = runs_of(report)
    fig, axes = _panels(len(runs) or 1, height=3.8)
    decks_seen: list[str] = []
    for ax, run in zip(axes[0], runs):
        rows = [t for t in run.get("tickets") or [] if _num(t.get("completion")) is not None and _num(t.get("points")) is not None]
        _frame(ax, run, "both")
        ax.set_ylim(-0.03, 1.05)
        _percent_axis(ax.yaxis)
        ax.set_xlabel("ticket points")
        if not rows:
            _note(ax, "no tickets held")
            continue
        # tickets worth the same points are spread a little so their intervals stay apart
        by_points: dict[float, list[dict]] = {}
        for t in sorted(rows, key=lambda t: (t["points"], t["completion"], str(t.get("ticket")))):
            by_points.setdefault(float(t["points"]), []).append(t)
        spread = 0.5 / max(len(v) for v in by_points.values())
        held_max = max((_num(t.get("held")) or 0.0) for t in rows) or 1.0
        placed = []
        for p, group in by_points.items():
            for i, t in enumerate(group):
                x = p + (i - (len(group) - 1) / 2) * spread
                placed.append((x, t))
        for deck in sorted({ticket_deck(board, str(t.get("ticket", ""))) for _, t in placed}):
            if deck not in decks_seen:
                decks_seen.append(deck)
        for i, deck in enumerate(decks_seen):  # one errorbar and one scatter per deck: fewer artists, faster
            pts = [(x, t) for x, t in placed if ticket_deck(board, str(t.get("ticket", ""))) == deck]
            if not pts:
                continue
            color = DECK_COLORS[i % len(DECK_COLORS)]
            xs = [x for x, _ in pts]
            ys = [float(t["completion"]) for _, t in pts]
            errs = [_err(y, t.get("low"), t.get("high")) for y, (_, t) in zip(ys, pts)]
            ax.errorbar(xs, ys, yerr=list(zip(*errs)), fmt="none", ecolor=color, alpha=0.55, lw=1, capsize=0)
            sizes = [10 + 50 * math.sqrt((_num(t.get("held")) or 0.0) / held_max) for _, t in pts]
            ax.scatter(xs, ys, s=sizes, color=color, edgecolor="white", linewidth=0.5, zorder=3)
        held = sum(_num(t.get("held")) or 0.0 for t in rows)
        if held:
            mean = sum((_num(t.get("held")) or 0.0) * t["completion"] for t in rows) / held
            ax.axhline(mean, color="#888888", lw=0.8, ls="--", zorder=1)
            ax.text(ax.get_xlim()[1], mean, f"all held: {mean:.0%} ", ha="right", va="bottom", fontsize=7, color="#666666")
        # the hardest tickets get a number by their dot and their names in a key under the panel:
        # names beside the dots would print over each other where tickets crowd
        hardest = sorted(placed, key=lambda xt: (xt[1]["completion"], str(xt[1].get("ticket"))))[:NAMED_TICKETS]
        key = []
        for rank, (x, t) in enumerate(hardest, start=1):
            ax.annotate(str(rank), (x, t["completion"]), xytext=(4, 3), textcoords="offset points", fontsize=7,
                        fontweight="bold", color="#222222")
            name = ticket_title(board, str(t.get("ticket", "")))
            name = name if len(name) <= 44 else name[:43] + "…"
            key.append(f"{rank}  {name}  ({t['points']:g} points, {t['completion']:.0%})")
        ax.annotate("\n".join(key), (0.5, 0), xycoords=ax.xaxis.label, xytext=(0, -4), textcoords="offset points",
                    ha="center", va="top", multialignment="left", fontsize=6.5, color="#333333")
    axes[0][0].set_ylabel("completed by its holder")
    if not runs:
        _note(axes[0][0], "the report has no runs")
    if len(decks_seen) > 1:
        handles = [Line2D([], [], marker="o", ls="", color=DECK_COLORS[i % len(DECK_COLORS)], label=d)
                   for i, d in enumerate(decks_seen)]
        fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)
    fig.suptitle("Ticket completion against points (dot size: how often it was held)", fontsize=11)
    return fig


def seat_figure(report: dict) -> Figure:
    runs = runs_of(report)
    with_scores = any(r.get("score_by_seat") for r in runs)
    fig, axes = _panels(len(runs) or 1, rows=2 if with_scores else 1, height=2.9, width=2.9)
    for col, run in enumerate(runs):
        n = run["players"]
        ax = axes[0][col]
        _frame(ax, run)
        shares = [s for s in run.get("seat_win_share") or [] if isinstance(s, dict)] if n > 1 else []
        seats = list(range(1, n + 1))
        ax.set_xticks(seats)
        ax.set_xlim(0.4, n + 0.6)
        ax.axhline(1 / n, color="#888888", ls="--", lw=0.8)
        _percent_axis(ax.yaxis)
        top = _by_seat(ax, shares[:n], "share", fmt="o", color="#1f4e79", ms=6)
        if top is not None:
            ax.set_ylim(0, max(top, 1 / n) * 1.3)
        else:
            ax.set_ylim(0, min(1.0, 2 / n))
            _note(ax, "solo: no seats to compare" if n == 1 else "no seat shares")
        # the first seat's edge goes under the panel's title rather than into the axes, where it
        # would cover points
        edge = run.get("first_seat_edge") or {}
        if _num(edge.get("win_share")) is not None:
            ax.set_title(ax.get_title() + f"\nseat 1: {100 * edge['win_share']:+.1f} pp"
                         + _interval_pp(edge.get("low"), edge.get("high")), fontsize=9)
        if not with_scores:
            ax.set_xlabel("seat")
            continue
        ax2 = axes[1][col]
        ax2.set_xticks(seats)
        ax2.set_xlim(0.4, n + 0.6)
        ax2.set_xlabel("seat")
        if _num(edge.get("score")) is not None:
            ax2.set_title(f"seat 1: {edge['score']:+.1f} points"
                          + _interval(edge.get("score_low"), edge.get("score_high")), fontsize=9)
        _frame(ax2)
        scores = [s for s in (run.get("score_by_seat") or [])[:n] if isinstance(s, dict)]
        if _by_seat(ax2, scores, "mean", fmt="s", color="#7a4e2d", ms=5) is None:
            _note(ax2, "no scores by seat")
        ax2.yaxis.set_major_locator(MaxNLocator(5, integer=True))
    axes[0][0].set_ylabel("win share (dashed: fair 1/n)")
    if with_scores:
        axes[1][0].set_ylabel("mean score")
    if not runs:
        _note(axes[0][0], "the report has no runs")
    fig.suptitle("Win share and mean score by seat (95 % intervals)", fontsize=11)
    return fig


def _by_seat(ax, rows: list, key: str, **style) -> float | None:
    """Each seat's value with its interval (seat 1 at x = 1); the top of the highest bar, or None
    when there is nothing to draw."""
    pts = [(i + 1, _num(r.get(key)), r) for i, r in enumerate(rows) if isinstance(r, dict)]
    pts = [(x, v, r) for x, v, r in pts if v is not None]
    if not pts:
        return None
    errs = [_err(v, r.get("low"), r.get("high")) for _, v, r in pts]
    ax.errorbar([x for x, _, _ in pts], [v for _, v, _ in pts], yerr=list(zip(*errs)), capsize=4, lw=1.2, **style)
    return max(v + e[1] for (_, v, _), e in zip(pts, errs))


def _interval(low, high, fmt: str = "{:.1f}", sep: str = ", ") -> str:
    lo, hi = _num(low), _num(high)
    return f" [{fmt.format(lo)}{sep}{fmt.format(hi)}]" if lo is not None and hi is not None else ""


def _interval_pp(low, high) -> str:
    lo, hi = _num(low), _num(high)
    return f" [{100 * lo:+.1f}, {100 * hi:+.1f}]" if lo is not None and hi is not None else ""


def margins_figure(report: dict) -> Figure:
    runs = runs_of(report)
    fig, axes = _panels(len(runs) or 1, height=3.2, width=3.1, sharex=True)
    for ax, run in zip(axes[0], runs):
        _frame(ax, run)
        m = run.get("margins") or {}
        edges, counts = list(m.get("edges") or []), list(m.get("counts") or [])
        _percent_axis(ax.yaxis)
        if len(edges) != len(counts) + 1 or not sum(counts):
            _note(ax, "solo: no runner-up" if run["players"] == 1 else "no margins in this report")
            continue
        total = sum(counts)
        widths = [b - a for a, b in zip(edges, edges[1:])]
        # unequal bins are drawn as density per usual bin width, so a wide bin does not look tall
        unit = max(set(widths), key=lambda w: (widths.count(w), -w))
        heights = [c / total * unit / w for c, w in zip(counts, widths)]
        ax.bar(edges[:-1], heights, width=widths, align="edge", color="#4c72b0", edgecolor="white", linewidth=0.6)
        median = _median_from_bins(edges, counts)
        ax.axvline(median, color="#c0392b", lw=1, ls="--")
        mean = _num(m.get("mean"))
        lines = [f"median ≈ {median:.0f}" + (f", mean {mean:.1f}" if mean is not None else "")]
        ld = run.get("longest_decides") or {}
        if _num(ld.get("share")) is not None:
            lines.append(f"longest path decides {ld['share']:.0%}" + _interval(ld.get("low"), ld.get("high"), "{:.0%}", "–"))
        ax.set_title(ax.get_title() + "\n" + "\n".join(lines), fontsize=9)
        if len(set(widths)) > 1:
            ax.set_ylabel(f"share of games per {unit:g} points", fontsize=8)
    if not axes[0][0].get_ylabel():
        axes[0][0].set_ylabel("share of games")
    if not runs:
        _note(axes[0][0], "the report has no runs")
    fig.supxlabel("the winner's lead over the runner-up (points)", fontsize=9)
    fig.suptitle("Winning margins (dashed: the median)", fontsize=11)
    return fig


def _median_from_bins(edges: list, counts: list) -> float:
    """The median by linear interpolation inside the bin where the cumulative count passes half."""
    half, acc = sum(counts) / 2, 0.0
    for a, b, c in zip(edges, edges[1:], counts):
        if c and acc + c >= half:
            return a + (b - a) * (half - acc) / c
        acc += c
    return float(edges[-1])


# ------------------------------------------------------------------ writing


def figure_files(report: dict, board: Board) -> dict[str, Figure]:
    """File name → figure, in the order the HTML shows them."""
    out: dict[str, Figure] = {}
    runs = runs_of(report)
    if runs and board.routes:
        drawing = BoardDrawing(board)
        for run in runs:
            out[heatmap_name(run["players"])] = heatmap_figure(drawing, run, report)
    out["completion-vs-points.png"] = completion_figure(report, board)
    out["seat-shares.png"] = seat_figure(report)
    out["margins.png"] = margins_figure(report)
    return out


_last: dict = {}   # the last render, so write_html after write_figures does not draw it all again


def render_figures(report: dict, board: Board) -> dict[str, bytes]:
    """File name → PNG bytes, for every figure of the report (the same input, the same bytes)."""
    key = hashlib.sha256((json.dumps(report, sort_keys=True, default=str) + repr(board)).encode()).hexdigest()
    if _last.get("key") == key:
        return dict(_last["pngs"])
    with pdf.style():
        figs = figure_files(report, board)
    dpi = heatmap_dpi(board)
    pngs = {name: _png(fig, dpi, palette=True) if name.startswith("heatmap-") else _png(fig, CHART_DPI)
            for name, fig in figs.items()}
    _last.clear()
    _last.update(key=key, pngs=pngs)
    return dict(pngs)


def write_figures(report: dict, board: Board, out_dir: Path) -> list[Path]:
    """Write the report's PNGs into out_dir (created if needed); returns their paths in display order."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in render_figures(report, board).items():
        path = out_dir / name
        atomic_write(path, data)
        paths.append(path)
    return paths
