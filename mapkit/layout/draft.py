"""`Draft`: one layout in progress, the state the stages of mapkit.layout.pipeline.layout_once pass
along: the network, its drawing, the options, the board size and what the stages found and did.
Each stage reads and changes one Draft; the last one (report.layout_result) turns it into the
board dict, its changes, its figures and the problems left."""

from __future__ import annotations

from dataclasses import dataclass, field

from mapkit.layout.network import Network
from mapkit.layout.optimize import Drawing, Weights
from mapkit.layout.options import LayoutOptions


@dataclass
class Draft:
    data: dict                  # the board dict laid out (schema-valid; never changed)
    opts: LayoutOptions
    refine: str | None          # None: from the real map; "local" or "rounds": from the file's drawing
    net: Network
    dr: Drawing                 # stations' and bends' positions (mm), the routes' lines through them
    w: Weights                  # the optimization's weights for the style
    any_fixed: bool = False     # pinned or kept stations, or the file's drawing: its scale is kept
    size_out: tuple | None = None   # the board size to write (width, height mm); None: the file's own
    board_mm: tuple = (0.0, 0.0)    # the board's size (width, height mm), written or not
    picked: tuple | None = None     # the size --size auto starts from for this drawing
    notes: list = field(default_factory=list)          # lines said before the problems (a shrink)
    crowded_out: list = field(default_factory=list)    # errors each time the knot steps were left out
    found: list = field(default_factory=list)          # the problems the checks find now
    rp: object = None           # the clean board's Repair (finishing.finish_board), its judge since
    # figures of the finishing steps (None: the step did not run)
    lacking: int | None = None          # labels without room at 10 pt after the label step
    polished: int | None = None
    tightened: dict | None = None
    reseated: dict | None = None
    octilinear: dict | None = None
    resized: str | None = None          # "WxH -> WxH" where the finished drawing moved to a smaller board

    @property
    def n(self) -> int:
        return self.net.n

    @property
    def style(self) -> str:
        return self.opts.style
