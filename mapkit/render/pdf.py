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
from matplotlib.backends.backend_pdf import Name, PdfPages
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
    """A PDF being written, one figure per page.

    Every page gets a TrimBox (where the printed piece is cut: the whole page unless told) and a
    BleedBox, and the catalog asks viewers to print at actual size (/PrintScaling /None), so a
    print dialog does not offer "fit to page" by default. matplotlib's PdfPages writes neither, so
    the page dictionaries are amended as they are written and the catalog is rewritten at close
    (the trailer names the new one; the old one stays, unused). Both are deterministic.
    """

    def __init__(self, pdf: PdfPages):
        self._pdf = pdf
        self.pages = 0
        self._boxes: tuple | None = None
        self._file = None

    def _hook(self) -> None:
        if self._file is not None:
            return
        f = self._pdf._ensure_file()
        write = f.writeObject

        def write_object(obj, contents):
            if isinstance(contents, dict) and contents.get("Type") == Name("Page") and self._boxes is not None:
                contents = {**contents, **self._boxes}
            write(obj, contents)

        f.writeObject = write_object
        self._file = f

    def add(self, fig: Figure, trim_mm=None, bleed_mm: float = 0.0) -> None:
        """Add fig as a page; trim_mm (x0, y0, x1, y1 from the top left, mm) is the TrimBox, the
        BleedBox is that grown by bleed_mm (both clipped to the page)."""
        self._hook()
        w, h = fig.get_size_inches() * MM_PER_INCH
        trim = trim_mm if trim_mm is not None else (0.0, 0.0, w, h)
        bleed = (trim[0] - bleed_mm, trim[1] - bleed_mm, trim[2] + bleed_mm, trim[3] + bleed_mm)
        self._boxes = {"TrimBox": _pdf_box(trim, w, h), "BleedBox": _pdf_box(bleed, w, h)}
        self._pdf.savefig(fig)
        self.pages += 1

    def close(self) -> None:
        if self._file is None:
            return
        f = self._file
        root = f.reserveObject("root with viewer preferences")
        f.writeObject(root, {"Type": Name("Catalog"), "Pages": f.pagesObject,
                             "ViewerPreferences": {"PrintScaling": Name("None")}})
        f.rootObject = root


def _pdf_box(b, w: float, h: float) -> list[float]:
    """A box in mm from the top left as a PDF rectangle in points from the bottom left."""
    k = 72 / MM_PER_INCH
    x0, y0, x1, y1 = max(0.0, b[0]), max(0.0, b[1]), min(w, b[2]), min(h, b[3])
    return [round(x0 * k, 3), round((h - y1) * k, 3), round(x1 * k, 3), round((h - y0) * k, 3)]


@contextmanager
def pdf_document(path: Path):
    # written to a temporary file and renamed when complete: a full disk or an error mid-way
    # leaves the previous PDF, not a truncated one
    with atomic_output(path) as tmp, style(), PdfPages(tmp, metadata=METADATA) as pdf:
        doc = Document(pdf)
        yield doc
        doc.close()


def save_png(fig: Figure, path: Path, dpi: float) -> None:
    with atomic_output(path) as tmp, style():
        fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": "mapkit"})
