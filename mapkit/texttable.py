"""Text tables for people: every column as wide as its widest cell, so that long ids (a color
called `central-campus-shuttle`, a station called `university-hospital-east`) keep the columns
lined up. One function, `text_table`, used by every command that prints a table."""

from __future__ import annotations


def text_table(header: list[str], rows: list[list], align: str, indent: str = "  ") -> list[str]:
    """The table's lines: the header, then one line a row. align: one letter a column, `l` (left)
    or `r` (right); cells are printed with str(); columns are one space apart and no line ends in
    spaces (a last column of notes may be empty)."""
    if len(align) != len(header) or any(len(row) != len(header) for row in rows):
        raise ValueError("text_table: every row and align need one entry a column")
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(line[k]) for line in cells) for k in range(len(header))]
    out = []
    for line in cells:
        parts = [c.rjust(w) if a == "r" else c.ljust(w) for c, w, a in zip(line, widths, align)]
        out.append((indent + " ".join(parts)).rstrip())
    return out
