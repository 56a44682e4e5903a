"""`mapkit layout`: station board positions (and route waypoints) computed from geography and route
lengths, so that a board passes every geometry check (see docs/board-format.md, "Laying out a board").

    from mapkit.layout import layout_board
    res = layout_board(data, style="geographic", size="auto", seed=0, keep=frozenset())
    res.data, res.changes, res.figures, res.problems
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mapkit.layout.pipeline import LayoutError, layout_board_impl

STYLES = ("geographic", "schematic")


@dataclass
class LayoutResult:
    data: dict                      # the new board dict
    changes: dict                   # {json path tuple: value or writer.DELETE}
    figures: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)   # what could not fit, and by how much


def layout_board(data: dict, *, style: str = "geographic", size="auto", seed: int = 0,
                 keep: frozenset = frozenset()) -> LayoutResult:
    """Lay out a schema-valid board dict (stations with lat/lon). See the module docstring."""
    if style not in STYLES:
        raise LayoutError(f"unknown style '{style}': use geographic or schematic")
    new, changes, figures, problems = layout_board_impl(data, style=style, size=size, seed=seed, keep=frozenset(keep))
    return LayoutResult(new, changes, figures, problems)


__all__ = ["layout_board", "LayoutResult", "LayoutError", "STYLES"]
