"""What one layout is asked for: `LayoutOptions`, built once by `mapkit.layout.layout_board` (the
`mapkit layout` options) and passed down to every stage that reads one of them.

    style       "geographic" (close to the real map) or "schematic" (0/45/90° directions)
    size        "auto" (the smallest standard size that holds the network) or (width, height) in mm
    seed        the seed of the first drawing's jitter
    keep        ids of stations that stay where the file has them (as "pinned": true does)
    geo_anchor  the first drawing's pull towards the real map, a share of a station's stress weight
                (None: GEO_ANCHOR)
    gap_rule    gaps between spaces held to 6 mm as a rule (True) or only preferred (False)
    refine      False: laid out anew from the real map; True: from the file's drawing (every station's
                board position, its routes' waypoints in mm) on the board's own size
"""

from __future__ import annotations

from dataclasses import dataclass

STYLES = ("geographic", "schematic")
GEO_ANCHOR = 0.0   # the stress drawing's pull towards the real map when geo_anchor is None


@dataclass(frozen=True)
class LayoutOptions:
    style: str = "geographic"
    size: str | tuple = "auto"
    seed: int = 0
    keep: frozenset = frozenset()
    geo_anchor: float | None = None
    gap_rule: bool = True
    refine: bool = False

    @property
    def anchor_share(self) -> float:
        """The first drawing's pull towards the real map (geo_anchor, or GEO_ANCHOR when None)."""
        return GEO_ANCHOR if self.geo_anchor is None else self.geo_anchor
