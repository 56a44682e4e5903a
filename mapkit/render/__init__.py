"""Print-and-play rendering: the board (one page and tiled), ticket, train and summary cards.

Everything here draws with matplotlib's Agg and PDF backends only, selected when this package is
imported (importing `mapkit` alone never touches matplotlib). Geometry comes from
`mapkit.geometry.Layout` and from the small pure modules `shapes`, `labels`, `tiling` and
`imposition`; the drawing modules only turn what those return into artists.

Modules, one job each:

- `pdf`         pages sized in mm, byte-stable PDF and PNG output
- `fonts`       measuring and wrapping text (label boxes, card text)
- `style`       colors, contrast, kind names
- `symbols`     the color-blind symbols and which color gets which
- `shapes`      drawing geometry: rounded spaces, wavy lines, the scoring track
- `labels`      station-label placement with shapely boxes
- `flights`     where a flight is drawn: clear of other routes' spaces and stations
- `sides`       shared-track lines keep their side along a run of doubles
- `scene`       the board as a display list of primitives in board mm (lines across wide route-end gaps)
- `draw`        primitives → matplotlib artists
- `board`       board.pdf (real size) and board.png
- `tiling`      how the board is cut into A4/Letter sheets (pure)
- `tiles`       board-tiles.pdf
- `imposition`  where cards go on a sheet, fronts and mirrored backs (pure)
- `marks`       crop marks, calibration bars, the "print at 100 %" notice, the stamp on every sheet
- `card_faces`  ticket, train-card and summary faces and backs
- `cards`       tickets.pdf, trains.pdf, summary.pdf (with the bonus cards)
- `rules`       rules.pdf, the rules booklet from the RuleSet and the board
- `kit`         the whole print-and-play kit, as `mapkit render` writes it
"""

import matplotlib

matplotlib.use("Agg")

from mapkit.render.kit import RenderOptions, RenderResult, content_hash, render_kit  # noqa: E402

__all__ = ["RenderOptions", "RenderResult", "content_hash", "render_kit"]
