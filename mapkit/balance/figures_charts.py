"""The balance report's charts:

- `completion-vs-points.png`: each ticket's completion rate (with its 95 % interval) against its
  points, one panel per player count; the hardest tickets are named.
- `seat-shares.png`: win share by seat with intervals beside the fair share 1/n, and the mean score
  by seat, one column per player count; the first seat's edge is written in each panel.
- `margins.png`: how far the winner finished ahead of the runner-up, one histogram per player count.

A missing optional key leaves a panel empty with a note; it never raises.
"""

from __future__ import annotations

import math

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator, PercentFormatter

from mapkit.balance.report_reading import num as _num
from mapkit.balance.report_reading import players_text, runs_of, ticket_deck, ticket_title
from mapkit.model import Board

DECK_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2")
NAMED_TICKETS = 3   # the hardest tickets named in each completion panel


def _err(value: float, low, high) -> tuple[float, float]:
    """Error bar lengths below and above value (zero where an interval end is missing)."""
    lo, hi = _num(low), _num(high)
    return (max(0.0, value - lo) if lo is not None else 0.0, max(0.0, hi - value) if hi is not None else 0.0)


def _note(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#666666", fontsize=9,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 2})


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
