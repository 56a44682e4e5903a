"""`mapkit import gtfs`: a GTFS feed → a draft board (stations, routes, palette, credits).

read (files, rows, file:line errors) → select (modes, routes, agency, junk) → stations (merge,
keep, thin) → lines (patterns → routes, doubles, lengths) → palette (card colors) → board (the
board dict). The CLI (mapkit/cli/importing.py) adds the layout and the decks and writes the file.
"""

from mapkit.importers.gtfs.board import ImportResult, import_feed

__all__ = ["ImportResult", "import_feed"]
