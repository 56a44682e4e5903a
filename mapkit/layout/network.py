"""The network a layout is computed for: stations, bundles (a route, or the two tracks of a double
drawn as one wider band) and the millimetre figures each must meet, read from a board dict.

Everything the optimizer needs is here as plain numbers and index arrays, so that the
optimizer's residuals are vectorized numpy and know nothing of the board format.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mapkit.boardfile import build_board, default_route_ids
from mapkit.geometry import continuous_lon
from mapkit.layout.crowding import station_gaps
from mapkit.model import Board

# gaps between spaces a route reads best with: at least the board's smallest gap plus a safety
# margin for the rounding of the drawn line, at most about 6 mm (a route reads as one line)
PREFERRED_GAP_MM = 3.0
MAX_GAP_MM = 6.0
SAFETY_MM = 0.8
GAP_MARGIN_MM = 0.3   # the optimizer aims this far inside a route's widest gap (its hinges end a little past)


@dataclass
class Bundle:
    """What is drawn between two stations as one band: one route or the two tracks of a double."""

    routes: list[int]          # indices into data["routes"]
    a: int                     # station indices (a < b in the file's station order is not assumed)
    b: int
    length: int                # spaces on each track
    half_width: float          # from the centreline to the outer edge of its spaces
    flight: bool
    overpass: bool
    lmin: float                # shortest centreline between station centres that holds the spaces
    lmax: float                # longest before the check calls it stretched (inf for flights)
    lsoft: float               # longest with gaps of at most gap_max (a rule of the layout's own)
    lpref: float               # the length it is aimed at
    gap_max: float = MAX_GAP_MM  # its widest gap: MAX_GAP_MM, or what a crowded end station needs (crowding.py)
    fixed_waypoints: list = field(default_factory=list)  # kept as they are (both ends kept)


@dataclass
class Network:
    board: Board
    data: dict
    ids: list[str]
    names: list[str]
    geo: np.ndarray            # (n, 2) equirectangular (x east, y south) in degrees-scaled units
    given: np.ndarray          # (n, 2) the file's board positions (nan where none)
    fixed: np.ndarray          # (n,) bool: pinned or kept
    bundles: list[Bundle]
    radius: float
    space_len: float
    space_gap: float
    space_width: float
    margin: float
    min_station_dist: float
    route_ids: list[str]
    order_rows: np.ndarray | None = None   # mapkit.layout.order.order_pairs, computed once
    _at: dict | None = None                # at_station, computed once
    gap_rule: bool = False                 # gaps held to gap_max as a rule (layout_board(gap_rule=True))

    @property
    def n(self) -> int:
        return len(self.ids)

    def at_station(self, s: int) -> list[int]:
        """The bundles (flights left out) with an end at station s."""
        if self._at is None:
            self._at = {}
            for k, b in enumerate(self.bundles):
                if not b.flight:
                    self._at.setdefault(b.a, []).append(k)
                    self._at.setdefault(b.b, []).append(k)
        return self._at.get(s, [])


def needed_mm(n: int, ph) -> float:
    return n * ph.space_length_mm + (n + 1) * ph.space_gap_mm


def drawn_mm_at_gap(n: int, ph, gap: float) -> float:
    """The length, station centre to centre, of a route of n spaces drawn with gaps of `gap` mm
    between them (and between the end spaces and the stations' rims)."""
    return n * ph.space_length_mm + (n + 1) * gap + 2 * ph.station_radius_mm


def preferred_mm(n: int, ph) -> float:
    """The length, station centre to centre, a route of n spaces is aimed at (before the soft
    and hard limits): its spaces at the preferred gap, plus the two stations' radii."""
    return n * ph.space_length_mm + (n + 1) * PREFERRED_GAP_MM + 2 * ph.station_radius_mm


def build_network(data: dict, keep: frozenset = frozenset(), gap_rule: bool = False) -> Network:
    """The network of a board dict; gap_rule: each route's longest drawing (lsoft) at gap_max, 6 mm or
    what a crowded end station needs, less GAP_MARGIN_MM, held as a rule; without it lsoft is the
    6 mm preference of the soft gap term and gap_max is unbounded (the layout as it was)."""
    board = build_board(data)
    ph = board.physical
    ids = [s["id"] for s in data["stations"]]
    index = {sid: i for i, sid in enumerate(ids)}
    lat0 = math.radians(sum(s["lat"] for s in data["stations"]) / len(ids))
    east = continuous_lon(s["lon"] for s in data["stations"])
    geo = np.array([[east(s["lon"]) * math.cos(lat0), -s["lat"]] for s in data["stations"]], dtype=float)
    given = np.array([[s["board"]["x"], s["board"]["y"]] if "board" in s else [np.nan, np.nan]
                      for s in data["stations"]], dtype=float)
    fixed = np.array([bool(s.get("pinned")) or s["id"] in keep for s in data["stations"]])
    routes = board.routes
    route_ids = default_route_ids(data["routes"])
    r = ph.station_radius_mm
    groups: dict[str, list[int]] = {}
    order: list[list[int]] = []
    for i, route in enumerate(routes):
        if route.double:
            if route.double not in groups:
                groups[route.double] = []
                order.append(groups[route.double])
            groups[route.double].append(i)
        else:
            order.append([i])
    ends = []
    for members in order:
        first = routes[members[0]]
        if all(routes[m].kind == "flight" for m in members):
            continue   # a flight leaves on its own path (flights.py), not among the station's bands
        half = (ph.space_width_mm / 2 + 1 if len(members) == 2 else 0.0) + ph.space_width_mm / 2
        ends.append((index[first.a], index[first.b], half))
    crowd = station_gaps(len(ids), ends, geo, r, MAX_GAP_MM) if gap_rule else None
    bundles = []
    for members in order:
        first = routes[members[0]]
        n = max(routes[m].length for m in members)
        double = len(members) == 2
        offset = ph.space_width_mm / 2 + 1 if double else 0.0
        need = needed_mm(n, ph)
        flight = all(routes[m].kind == "flight" for m in members)
        lmin = need + 2 * r + SAFETY_MM + (0.6 if double else 0.0)
        lmax = math.inf if flight else max(lmin + 1.0, need * ph.max_stretch + 2 * r - 2.5)
        a, b = index[first.a], index[first.b]
        if gap_rule:
            gap_max = MAX_GAP_MM if flight else max(crowd[a], crowd[b])
            lsoft = min(lmax, max(lmin + 1.0, drawn_mm_at_gap(n, ph, gap_max - GAP_MARGIN_MM)))
        else:
            gap_max = math.inf
            drawn = drawn_mm_at_gap(n, ph, MAX_GAP_MM)
            lsoft = min(lmax, max(lmin + 1.0, drawn))
        lpref = min(lsoft, preferred_mm(n, ph))
        fixed_wp = []
        if fixed[a] and fixed[b] and first.waypoints:
            fixed_wp = list(data["routes"][members[0]].get("waypoints", []))
        bundles.append(Bundle(members, a, b, n, offset + ph.space_width_mm / 2, flight,
                              any(routes[m].overpass for m in members), lmin, lmax, lsoft, max(lpref, lmin), gap_max,
                              fixed_wp))
    return Network(board, data, ids, [s["name"] for s in data["stations"]], geo, given, fixed, bundles, r,
                   ph.space_length_mm, ph.space_gap_mm, ph.space_width_mm, ph.margin_mm, 2 * r + 3 + 1.0,
                   route_ids, gap_rule=gap_rule)


def gaps_kept(net: Network, dr, s: int, old) -> bool:
    """After station s moved from `old` to where it is now: no route at it wider gapped than its
    gap_max unless no wider than before (the polish and the label moves keep the layout's gap rule;
    a bent route's gaps from its whole line, its stations' positions moved through its waypoints)."""
    ks = net.at_station(s)
    if not ks or not net.gap_rule:
        return True
    def gaps(pos):
        out = []
        for k in ks:
            pts = pos[dr.lines[k]]
            L = float(np.hypot(*np.diff(pts, axis=0).T).sum())
            b = net.bundles[k]
            out.append((L - 2 * net.radius - b.length * net.space_len) / (b.length + 1))
        return np.array(out)
    now = gaps(dr.pos)
    before_pos = dr.pos.copy()
    before_pos[s] = old
    before = gaps(before_pos)
    limit = np.array([net.bundles[k].gap_max for k in ks])
    return bool(np.all((now <= limit) | (now <= before + 1e-9)))
