"""The board as frozen dataclasses: what a board file says, with defaults filled in. No I/O.

Every object keeps the JSON path it came from (`json_path`), so a check can point at the place
in the file that a designer has to change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Optional

GRAY = "gray"
STANDARD_ROUTE_POINTS = (1, 2, 4, 7, 10, 15)
ROUTE_KINDS = (
    "rail", "light-rail", "streetcar", "commuter-rail", "aerial-tram", "monorail",
    "bus", "ferry", "water-taxi", "flight",
)


@dataclass(frozen=True)
class Physical:
    """Printed size of the board and its spaces, in millimetres (see docs/board-format.md)."""

    width_mm: float = 800.0
    height_mm: float = 530.0
    margin_mm: float = 25.0
    space_length_mm: float = 22.0
    space_width_mm: float = 10.0
    space_gap_mm: float = 1.5
    station_radius_mm: float = 7.0
    max_stretch: float = 1.8


@dataclass(frozen=True)
class CardConstraint:
    """Constraints on a color's count in the derived train-card deck."""

    fixed: Optional[int] = None
    min: Optional[int] = None
    max: Optional[int] = None
    below_longest_route: bool = False


@dataclass(frozen=True)
class Color:
    """A train-card color (never gray, never the wild card)."""

    id: str
    name: str
    hex: str
    kind: str
    symbol: Optional[str] = None
    cards: CardConstraint = field(default_factory=CardConstraint)
    json_path: str = ""


@dataclass(frozen=True)
class Wild:
    name: str
    hex: str = "#c0c0c0"


@dataclass(frozen=True)
class Point:
    """A drawing point: geographic (lat, lon) or a board position (x, y) in mm from the top left."""

    lat: Optional[float] = None
    lon: Optional[float] = None
    x: Optional[float] = None
    y: Optional[float] = None

    @property
    def is_board(self) -> bool:
        return self.x is not None


@dataclass(frozen=True)
class Station:
    id: str
    name: str
    lat: float
    lon: float
    board: Optional[Point] = None
    label: Optional[str] = None
    hub: bool = False
    pinned: bool = False  # `mapkit layout` keeps its board position
    json_path: str = ""


@dataclass(frozen=True)
class Bonus:
    points: int
    name: str


@dataclass(frozen=True)
class Route:
    """One track of spaces between two adjacent stations."""

    id: str
    a: str
    b: str
    color: str
    length: int
    kind: str
    double: Optional[str] = None
    line: Optional[str] = None
    bonus: Optional[Bonus] = None
    waypoints: tuple[Point, ...] = ()
    overpass: bool = False
    json_path: str = ""

    @property
    def is_gray(self) -> bool:
        return self.color == GRAY

    @property
    def ends(self) -> frozenset:
        return frozenset((self.a, self.b))


@dataclass(frozen=True)
class Deck:
    """The train-card deck: `counts` per palette color plus `wild` wild cards."""

    total: int
    wild: int
    counts: dict
    json_path: str = "$.deck"


@dataclass(frozen=True)
class Ticket:
    a: str
    b: str
    points: int
    transit_points: Optional[int] = None
    json_path: str = ""

    def as_json(self) -> dict:
        """The ticket as a board file writes it."""
        out = {"from": self.a, "to": self.b, "points": self.points}
        if self.transit_points:
            out["transit_points"] = self.transit_points
        return out


@dataclass(frozen=True)
class RulesRef:
    preset: str = "standard"
    overrides: dict = field(default_factory=dict)
    for_presets: dict = field(default_factory=dict)  # preset name -> overrides when played with it


@dataclass(frozen=True)
class Board:
    id: str
    name: str
    palette: tuple[Color, ...]
    wild: Wild
    stations: tuple[Station, ...]
    routes: tuple[Route, ...]
    route_points: tuple[int, ...] = STANDARD_ROUTE_POINTS
    physical: Physical = field(default_factory=Physical)
    rules: RulesRef = field(default_factory=RulesRef)
    gray_name: str = "Gray (any one color)"
    gray_kind: str = "rail"
    version: str = ""
    credits: str = ""
    disclaimer: str = ""
    deck: Optional[Deck] = None
    ticket_decks: dict = field(default_factory=dict)
    source: str = ""

    def station(self, station_id: str) -> Station:
        return self._stations_by_id[station_id]

    def color(self, color_id: str) -> Color:
        return self._colors_by_id[color_id]

    # cached_property writes to the instance __dict__, which a frozen dataclass allows
    @cached_property
    def _stations_by_id(self) -> dict:
        return {s.id: s for s in self.stations}

    @cached_property
    def _colors_by_id(self) -> dict:
        return {c.id: c for c in self.palette}

    def route_points_for(self, length: int) -> int:
        """Points for claiming a route of this length (the board's scoring table)."""
        return self.route_points[length - 1]

    @property
    def total_spaces(self) -> int:
        return sum(r.length for r in self.routes)
