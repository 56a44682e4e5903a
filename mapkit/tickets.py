"""Destination-ticket difficulty: shortest connections and what makes them hard.

A ticket is worth the length of its shortest connection, as on the published decks
(`points = length`, the default). Adjustments are opt-in (`adjust=("bottleneck", "rare-color")`,
`--adjust` on the command line) and reported as their own column; turn one on when the balance
report's completion rates show such tickets are completed less often than their length says:

- bottleneck, +1: if the one connection on the shortest path whose loss hurts most is taken,
  the detour costs at least a third of the length (at least 3 spaces), or no way remains;
- rare-color, +1: the shortest path needs a rare color with no alternative track: a color with
  fewer cards than the route's spaces (it needs wild cards), or fewer than half the median color's.

Distances are computed per source when a pair needs them (a few single-source Dijkstra runs
kept in a small cache), never all pairs at once: memory stays O(stations) per source.
"""

from __future__ import annotations

import csv
import io
import math
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import networkx as nx

from mapkit.boardfile import MAX_FILE_BYTES
from mapkit.errors import MapkitError, did_you_mean
from mapkit.graph import station_graph
from mapkit.inputs import read_input
from mapkit.model import Board

SPECIAL_KINDS = ("ferry", "water-taxi", "flight", "aerial-tram", "monorail")
ADJUSTMENTS = ("bottleneck", "rare-color")
DISTANCE_CACHE = 32  # single-source distance maps kept (each O(stations))


def parse_adjust(value) -> frozenset:
    """The adjustments asked for: True (all), False/None/"" (none), "a,b" or an iterable of names."""
    if value is True:
        return frozenset(ADJUSTMENTS)
    if not value:
        return frozenset()
    names = [v.strip() for v in value.split(",")] if isinstance(value, str) else list(value)
    names = [n for n in names if n]
    for n in names:
        if n not in ADJUSTMENTS:
            from mapkit.errors import UsageError
            raise UsageError(f"unknown adjustment '{n}'{did_you_mean(n, ADJUSTMENTS)}; "
                             f"adjustments: {', '.join(ADJUSTMENTS)}")
    return frozenset(names)


@dataclass(frozen=True)
class TicketScore:
    a: str
    b: str
    length: int                   # spaces of the shortest connection
    path: tuple[str, ...]         # one shortest path, station ids
    routes: int                   # routes (station-to-station steps) on that path
    shortest_paths: int           # how many distinct shortest paths exist (station sequences)
    bottlenecks: tuple[str, ...]  # connections on every shortest path ("a-b" station pairs)
    detour: float                 # extra spaces if the worst connection on the path is lost (inf: cut off)
    cut: int                      # connections to remove to cut a from b (local edge connectivity)
    rare_colors: tuple[str, ...]
    special: tuple[str, ...]      # ferries, flights, ... on the path
    adjustment: int
    points: int                   # printed points (a board's ticket) or suggested points
    suggested: int
    edge_ids: frozenset = field(default=frozenset(), compare=False, repr=False)

    def as_dict(self) -> dict:
        return {
            "from": self.a, "to": self.b, "points": self.points, "suggested": self.suggested,
            "length": self.length, "path": list(self.path), "routes": self.routes,
            "shortest_paths": self.shortest_paths, "bottlenecks": list(self.bottlenecks),
            "detour": None if math.isinf(self.detour) else self.detour, "cut": self.cut,
            "rare_colors": list(self.rare_colors), "special": list(self.special), "adjustment": self.adjustment,
        }


class _Distances:
    """`scorer.dist[a][b]`, computed one source at a time and cached (least recently used)."""

    def __init__(self, scorer: "TicketScorer"):
        self._scorer = scorer

    def __getitem__(self, a: str) -> dict:
        return self._scorer.distances(a)


class TicketScorer:
    """Scores station pairs on one board; the graph is built once, distances per source."""

    def __init__(self, board: Board, adjust=False, deck_counts: dict | None = None):
        self.board = board
        self.adjust = parse_adjust(adjust)
        self.graph = station_graph(board)
        self._cache: OrderedDict = OrderedDict()
        self.dist = _Distances(self)
        self.tracks: dict[frozenset, list] = {}
        for r in board.routes:
            self.tracks.setdefault(r.ends, []).append(r)
        if deck_counts is None:
            if board.deck is not None:
                deck_counts = board.deck.counts
            else:
                from mapkit.cards import derive_deck
                deck_counts = derive_deck(board).counts
        counts = sorted(deck_counts.values())
        self.median_cards = counts[len(counts) // 2] if counts else 0
        self.deck_counts = deck_counts
        self.edge_index = {frozenset(e): i for i, e in enumerate(sorted(tuple(sorted(e)) for e in self.graph.edges))}

    def distances(self, a: str) -> dict:
        """Shortest lengths from a to every station it reaches."""
        d = self._cache.get(a)
        if d is None:
            d = nx.single_source_dijkstra_path_length(self.graph, a, weight="length")
            self._cache[a] = d
            if len(self._cache) > DISTANCE_CACHE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(a)
        return d

    @cached_property
    def diameter(self) -> int:
        """The longest shortest connection (one Dijkstra per station, not kept)."""
        return self.capped_diameter(math.inf)

    def capped_diameter(self, cap: float) -> int:
        """min(diameter, cap), stopping at the first station that reaches cap: on a large board
        one Dijkstra run instead of one per station."""
        best = 0
        for a in sorted(self.graph):
            far = max(nx.single_source_dijkstra_path_length(self.graph, a, weight="length").values())
            best = max(best, far)
            if best >= cap:
                return int(cap)
        return int(best)

    def _rare(self, route) -> bool:
        if route.is_gray:
            return False
        n = self.deck_counts.get(route.color, 0)
        return n < route.length or n < self.median_cards / 2

    def score(self, a: str, b: str, printed: int | None = None, path: list | None = None) -> TicketScore:
        """The pair's figures; `path` (one shortest path from a to b) is reported instead of the
        one Dijkstra finds, for a caller that already chose among equal-length paths."""
        if a == b:
            raise MapkitError(f"a ticket joins two different stations, not '{a}' to itself")
        g = self.graph
        dist = {a: self.distances(a), b: self.distances(b)}
        if b not in dist[a]:
            raise MapkitError(f"no routes connect '{a}' and '{b}'")
        length = dist[a][b]
        # σ: number of shortest paths from a to each node, in order of distance
        order = sorted(dist[a], key=lambda n: dist[a][n])
        sigma = {a: 1}
        for n in order[1:]:
            sigma[n] = sum(sigma.get(m, 0) for m in g[n] if dist[a].get(m, math.inf) + g[m][n]["length"] == dist[a][n])
        total = sigma[b]
        sigma_b = {b: 1}
        for n in sorted(dist[b], key=lambda n: dist[b][n])[1:]:
            sigma_b[n] = sum(sigma_b.get(m, 0) for m in g[n] if dist[b].get(m, math.inf) + g[m][n]["length"] == dist[b][n])
        bottlenecks = []
        for u, v, data in g.edges(data=True):
            for x, y in ((u, v), (v, u)):
                if dist[a].get(x, math.inf) + data["length"] + dist[b].get(y, math.inf) == length:
                    if sigma[x] * sigma_b[y] == total:
                        bottlenecks.append("-".join(sorted((x, y))))
        if path is None:
            path = nx.dijkstra_path(g, a, b, weight="length")
        steps = list(zip(path, path[1:]))
        # detour: the worst single connection lost along the chosen path
        detour = 0.0
        # the connection is hidden by the weight function (None = no edge) rather than removed and
        # re-added: that reordered the graph's adjacency, so a pair's path used to depend on which
        # pairs had been scored before
        for u, v in steps:
            def without(x, y, data, u=u, v=v):
                return None if (x == u and y == v) or (x == v and y == u) else data["length"]
            try:
                alt = nx.dijkstra_path_length(g, a, b, weight=without)
            except nx.NetworkXNoPath:
                alt = math.inf
            detour = max(detour, alt - length)
        cut = nx.edge_connectivity(g, a, b) if g.degree(a) and g.degree(b) else 0
        rare, special = [], []
        for u, v in steps:
            options = self.tracks[frozenset((u, v))]
            shortest = [r for r in options if r.length == g[u][v]["length"]]
            if all(self._rare(r) for r in shortest):
                rare.extend(sorted({r.color for r in shortest}))
            special.extend(sorted({r.kind for r in shortest if r.kind in SPECIAL_KINDS}))
        adjustment = 0
        if "bottleneck" in self.adjust:
            adjustment += 1 if detour >= max(3, length / 3) else 0
        if "rare-color" in self.adjust:
            adjustment += 1 if rare else 0
        suggested = int(length) + adjustment
        return TicketScore(
            a=a, b=b, length=int(length), path=tuple(path), routes=len(steps), shortest_paths=total,
            bottlenecks=tuple(sorted(bottlenecks)), detour=detour, cut=cut, rare_colors=tuple(dict.fromkeys(rare)),
            special=tuple(dict.fromkeys(special)), adjustment=adjustment,
            points=printed if printed is not None else suggested, suggested=suggested,
            edge_ids=frozenset(self.edge_index[frozenset(s)] for s in steps),
        )


def resolve_station(board: Board, value: str) -> str:
    """A station id from an id or a name (case-insensitive); MapkitError with a hint otherwise."""
    ids = {s.id for s in board.stations}
    if value in ids:
        return value
    by_name = {s.name.lower(): s.id for s in board.stations}
    if value.strip().lower() in by_name:
        return by_name[value.strip().lower()]
    raise MapkitError(f"unknown station '{value}'{did_you_mean(value, ids | set(s.name for s in board.stations))}")


MAX_PAIRS_BYTES = MAX_FILE_BYTES  # a board file's bound: every pair of a 500-station board is about 5 MB


def read_pairs(board: Board, path: Path) -> list[tuple[str, str]]:
    """Pairs from a CSV file with a `from,to` header; every bad line is reported at once. The
    file is read like a board file: a regular file of at most MAX_PAIRS_BYTES."""
    raw = read_input(path, MAX_PAIRS_BYTES, "pairs file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MapkitError(f"{path}: not UTF-8 text (byte {exc.start}); save the pairs file as UTF-8")
    reader = csv.reader(io.StringIO(text))
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise MapkitError(f"{path}:{reader.line_num}: broken CSV ({exc}); a pairs file has one from,to pair a line")
    if not rows or [c.strip().lower() for c in rows[0][:2]] != ["from", "to"]:
        raise MapkitError(f"{path}:1: the pairs file needs a header row 'from,to'")
    pairs, problems = [], []
    for line, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) < 2:
            problems.append(f"{path}:{line}: expected two stations, got {row!r}")
            continue
        try:
            a, b = resolve_station(board, row[0].strip()), resolve_station(board, row[1].strip())
        except MapkitError as exc:
            problems.append(f"{path}:{line}: {exc}")
            continue
        if a == b:
            problems.append(f"{path}:{line}: both ends are '{a}'")
            continue
        pairs.append((a, b))
    if problems:
        raise MapkitError("\n".join(problems))
    return pairs


def format_scores(scores: list[TicketScore]) -> str:
    from mapkit.texttable import text_table

    rows = []
    for s in scores:
        detour = "cut" if math.isinf(s.detour) else f"+{s.detour:.0f}"
        notes = []
        if s.bottlenecks:
            notes.append("bottleneck " + ", ".join(s.bottlenecks[:3]) + ("…" if len(s.bottlenecks) > 3 else ""))
        if s.rare_colors:
            notes.append("rare " + ", ".join(s.rare_colors))
        if s.special:
            notes.append(", ".join(s.special))
        rows.append([s.a, s.b, s.points, s.suggested, s.length, f"{s.adjustment:+d}", s.shortest_paths, detour, s.cut,
                     " " + "; ".join(notes)])
    return "\n".join(text_table(["from", "to", "points", "sugg", "len", "adj", "paths", "detour", "cut", " notes"], rows,
                                "llrrrrrrrl"))
