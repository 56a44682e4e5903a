"""board.pdf — the whole board on one page at real size — and the board.png preview."""

from __future__ import annotations

from pathlib import Path

from mapkit.render import draw, pdf
from mapkit.render.scene import BoardScene

PREVIEW_DPI = 150
PREVIEW_MAX_PX = 2990


def board_figure(scene: BoardScene):
    fig, ax = pdf.page(scene.width, scene.height)
    draw.draw(ax, scene.items)
    return fig


def write_board_pdf(scene: BoardScene, path: Path) -> int:
    with pdf.pdf_document(path) as doc:
        doc.add(board_figure(scene))
        return doc.pages


def preview_dpi(width_mm: float) -> float:
    """150 dpi, or less so that the preview stays under ~3000 px wide."""
    return min(PREVIEW_DPI, PREVIEW_MAX_PX / (width_mm / pdf.MM_PER_INCH))


def write_board_png(scene: BoardScene, path: Path) -> None:
    with pdf.style():
        fig = board_figure(scene)
    pdf.save_png(fig, path, preview_dpi(scene.width))
