"""Measuring text in millimetres, for label boxes and for fitting text on cards.

Widths come from the font's advance widths (matplotlib's TextToPath, no renderer needed); heights
from the line metrics matplotlib uses to lay out text. Both are a little generous, so a box that
fits here fits on paper.
"""

from __future__ import annotations

from functools import lru_cache

from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

from mapkit.render.pdf import FONT_FAMILY

MM_PER_PT = 25.4 / 72
LINE_SPACING = 1.2   # matplotlib's default between lines
_FIRST_LINE = 1.15   # height of one line, in font sizes
_NEXT_LINE = 1.35    # each further line

_ttp = TextToPath()


@lru_cache(maxsize=None)
def _props(size: float, bold: bool) -> FontProperties:
    return FontProperties(family=FONT_FAMILY, size=size, weight="bold" if bold else "normal")


@lru_cache(maxsize=65536)
def line_width(text: str, size: float, bold: bool = False) -> float:
    """Width in mm of one line of text at size points."""
    if not text:
        return 0.0
    w, _, _ = _ttp.get_text_width_height_descent(text, _props(size, bold), ismath=False)
    return w * MM_PER_PT


def block_size(lines, size: float, bold: bool = False) -> tuple[float, float]:
    """(width, height) in mm of lines of text drawn as one block."""
    lines = list(lines) or [""]
    width = max(line_width(s, size, bold) for s in lines)
    return width, block_height(len(lines), size)


def block_height(n_lines: int, size: float) -> float:
    return size * (_FIRST_LINE + _NEXT_LINE * max(0, n_lines - 1)) * MM_PER_PT


def wrap(text: str, size: float, width_mm: float, bold: bool = False) -> list[str]:
    """Greedy word wrap to width_mm; a single word longer than the width gets a line of its own."""
    out: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            trial = f"{line} {word}" if line else word
            if line and line_width(trial, size, bold) > width_mm:
                out.append(line)
                line = word
            else:
                line = trial
        out.append(line)
    return out


def split_balanced(text: str, parts: int) -> tuple[str, ...] | None:
    """The name broken at spaces (or after a slash or hyphen) into `parts` lines of similar
    length, or None when it has too few break points."""
    words, seps = _break_points(text)
    if len(words) < parts:
        return None
    best, best_key = None, None
    n = len(words)

    def join(i, j):
        return "".join(words[k] + (seps[k] if k < j - 1 else seps[k].rstrip()) for k in range(i, j)).strip()

    if parts == 2:
        for cut in range(1, n):
            lines = (join(0, cut), join(cut, n))
            key = max(len(s) for s in lines)
            if best_key is None or key < best_key:
                best, best_key = lines, key
    elif parts == 3:
        for a in range(1, n - 1):
            for b in range(a + 1, n):
                lines = (join(0, a), join(a, b), join(b, n))
                key = max(len(s) for s in lines)
                if best_key is None or key < best_key:
                    best, best_key = lines, key
    return best


def _break_points(text: str) -> tuple[list[str], list[str]]:
    """Words and what follows each (a space, or '/' and '-' which stay on the first line)."""
    words, seps, cur = [], [], ""
    for ch in text:
        if ch == " ":
            if cur:
                words.append(cur)
                seps.append(" ")
                cur = ""
        elif ch in "/-" and cur:
            words.append(cur + ch)
            seps.append("")
            cur = ""
        else:
            cur += ch
    if cur:
        words.append(cur)
        seps.append("")
    return words, seps


def fit_lines(text: str, width_mm: float, height_mm: float, sizes, bold: bool = False) -> tuple[list[str], float]:
    """The largest of sizes at which text, wrapped to width_mm, fits height_mm: (lines, size)."""
    sizes = list(sizes)
    for size in sizes:
        lines = wrap(text, size, width_mm, bold)
        if block_height(len(lines), size) <= height_mm and all(line_width(s, size, bold) <= width_mm for s in lines):
            return lines, size
    size = sizes[-1]
    return wrap(text, size, width_mm, bold), size
