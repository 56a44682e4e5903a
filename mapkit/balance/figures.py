"""The balance report's figures as PNG files: what a designer would rather look at than read.

The heatmaps of the board are drawn by `figures_board`, the charts (ticket completion, seats,
margins) by `figures_charts`; this module turns them into PNG bytes and files. The input is the
report dict (report.json). A missing optional key leaves a panel empty with a note or a figure out;
it never raises. The same input gives the same bytes (no dates in PNG metadata).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

from matplotlib.figure import Figure
from PIL import Image, PngImagePlugin

from mapkit.balance.figures_board import CMAP, BoardDrawing, heatmap_dpi, heatmap_figure, heatmap_name, heatmap_pixel
from mapkit.balance.figures_charts import completion_figure, margins_figure, seat_figure
# what report.html reads from the report (mapkit.balance.html finds them here)
from mapkit.balance.report_reading import num as _num
from mapkit.balance.report_reading import players_text, runs_of, ticket_deck, ticket_ref, ticket_title
from mapkit.model import Board
from mapkit.outputs import atomic_write_bytes
from mapkit.render import pdf

CHART_DPI = 150
PNG_METADATA = {"Software": "mapkit"}   # matplotlib would write its version; no date is written

__all__ = ["_num", "CMAP", "CHART_DPI", "atomic_write", "figure_files", "heatmap_pixel", "players_text", "render_figures",
           "runs_of", "ticket_deck", "ticket_ref", "ticket_title", "write_figures"]


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
