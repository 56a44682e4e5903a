"""Pages sized in millimetres and byte-stable output.

A page is a matplotlib Figure of the paper's size in inches whose axes map data units to
millimetres, x from the left edge and y from the top edge (as `mapkit.geometry` does). PDFs are
written with embedded TrueType fonts (`pdf.fonttype` 42) and fixed metadata, so the same input gives
the same bytes.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import matplotlib
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from mapkit.outputs import atomic_output

MM_PER_INCH = 25.4
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
PRINT_MARGIN_MM = 6.0  # what a home printer can print up to
METADATA = {"CreationDate": None, "Producer": "mapkit", "Creator": "mapkit"}
FONT_FAMILY = "DejaVu Sans"  # ships with matplotlib, so every machine draws the same glyphs

STYLE = {
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "font.family": "sans-serif",
    "font.sans-serif": [FONT_FAMILY],
    "axes.unicode_minus": False,
    "text.usetex": False,
    "svg.hashsalt": "mapkit",
    "hatch.linewidth": 0.5,
    "path.simplify": False,
}


def style():
    """The rcParams every render runs with (a context manager: global settings stay untouched)."""
    return matplotlib.rc_context(STYLE)


def page(width_mm: float, height_mm: float) -> tuple[Figure, "matplotlib.axes.Axes"]:
    """A figure of this size and an axes covering it, in mm with y pointing down."""
    fig = Figure(figsize=(width_mm / MM_PER_INCH, height_mm / MM_PER_INCH))
    ax = mm_axes(fig, (0, 0, width_mm, height_mm), (0, 0, width_mm, height_mm), (width_mm, height_mm))
    return fig, ax


def mm_axes(fig: Figure, rect_mm, window, page_mm, zorder: float = 0):
    """An axes occupying rect_mm (x, y, w, h on the page, mm from the top left) that shows
    window (x0, y0, x1, y1 in the drawing's mm) at the same scale."""
    pw, ph = page_mm
    x, y, w, h = rect_mm
    ax = fig.add_axes((x / pw, 1 - (y + h) / ph, w / pw, h / ph), zorder=zorder)
    x0, y0, x1, y1 = window
    ax.set_xlim(x0, x1)
    ax.set_ylim(y1, y0)
    ax.set_axis_off()
    ax.patch.set_visible(False)
    return ax


class Document:
    """A PDF being written, one figure per page."""

    def __init__(self, pdf: PdfPages):
        self._pdf = pdf
        self.pages = 0

    def add(self, fig: Figure) -> None:
        self._pdf.savefig(fig)
        self.pages += 1


@contextmanager
def pdf_document(path: Path):
    # written to a temporary file and renamed when complete: a full disk or an error mid-way
    # leaves the previous PDF, not a truncated one
    with atomic_output(path) as tmp, style(), PdfPages(tmp, metadata=METADATA) as pdf:
        yield Document(pdf)


def save_png(fig: Figure, path: Path, dpi: float) -> None:
    with atomic_output(path) as tmp, style():
        fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": "mapkit"})
