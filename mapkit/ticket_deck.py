"""Generating a balanced destination-ticket deck by simulated annealing.

Targets (all reported next to what the deck achieves):

- lengths spread like the official decks: with L = the longest ticket wanted (about half of a
  player's trains, at most the board's diameter), a third short (≤ 0.4 L), nearly half medium,
  about a fifth long (> 0.7 L), and one ticket of at least 0.9 L;
- every station in at least one ticket where the candidates allow it, none in too many;
- no near-duplicates (two tickets whose shortest paths share 60 % or more of their connections);
- no adjacent pairs (a ticket is never one route);
- route load spread out: no connection on the shortest paths of too many tickets.

`long` makes the separate long-ticket deck (all tickets above 0.75 L); `cities` makes every ticket
touch a hub station (`"hub": true`, seed 004); `transit` makes a standard-shaped deck whose tickets
carry the transit expansion's second value (seed 003): the number of stations on the shortest
connection, since a bus or train ticket needs a transit station at each of them. Pinned pairs
(`required`) are always in the deck.
The search is seeded: the same board, options and seed give the same deck.

Scale: the search only needs each candidate's length, ends and shortest path (for near-duplicates
and route load), so candidates are found with one Dijkstra per station cut off at the longest
wanted length and kept as three integer arrays; a candidate's path is computed when the search
first looks at it. The full figures (path counts, bottlenecks, detour, cut) are computed for the
chosen tickets only. The deck is the same as scoring every pair fully would give: the same pool in
the same order, the same path (networkx's Dijkstra path from a to b), the same random draws.
"""

from __future__ import annotations

import math
import random
from array import array
from heapq import heappop, heappush
from itertools import count as counter
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

import networkx as nx

from mapkit.errors import MapkitError
from mapkit.graph import station_graph
from mapkit.model import Board
from mapkit.tickets import TicketScore, TicketScorer

STYLES = ("standard", "long", "cities", "transit")
NEAR_DUPLICATE = 0.6


@dataclass(frozen=True)
class Targets:
    count: int
    min_length: int
    max_length: int          # L
    buckets: tuple[tuple[int, int, int], ...]  # (low, high, wanted count) by length, inclusive
    longest_at_least: int
    max_station_uses: int
    max_route_load: int


def default_count(style: str) -> int:
    return 6 if style == "long" else 30


def make_targets(scorer: TicketScorer, style: str, count: int, trains: int) -> Targets:
    want = max(6, round(trains / 2))
    # the long style reaches to the diameter itself; the others only need to know whether it
    # reaches `want`, which on a large board the first Dijkstra run answers
    big = min(scorer.diameter, want) if style == "long" else scorer.capped_diameter(want)
    n_stations = len(scorer.board.stations)
    if style == "long":
        low = max(4, math.ceil(0.75 * big))
        buckets = ((low, scorer.diameter, count),)
        min_len = low
    else:
        min_len = max(3, round(0.18 * big))
        s_hi, m_hi = round(0.4 * big), round(0.7 * big)
        short = round(count / 3)
        long_ = max(1, round(count * 0.2))
        buckets = _nonempty(((min_len, s_hi, short), (s_hi + 1, m_hi, count - short - long_), (m_hi + 1, big, long_)))
    uses = max(2, math.ceil(2 * count / n_stations * 1.75))
    # connections on the shortest paths: about count * mean steps, shared over the graph's edges
    edges = max(1, scorer.graph.number_of_edges())
    load = max(3, math.ceil(count * 4 / edges * 2.5))
    return Targets(count, min_len, big, buckets, math.ceil(0.9 * big) if style != "long" else buckets[0][0], uses, load)


def _nonempty(buckets: tuple) -> tuple:
    """The length ranges with no length in them (low above high: a board whose longest ticket is
    only a few spaces) left out, their tickets wanted of the nearest range that has lengths."""
    kept = [list(b) for b in buckets if b[0] <= b[1]]
    if not kept:
        return ((buckets[0][0], buckets[-1][1], sum(b[2] for b in buckets)),)
    for b in buckets:
        if b[0] > b[1]:
            nearest = min(kept, key=lambda k: (abs(k[0] - b[0]), k[0]))
            nearest[2] += b[2]
    return tuple(tuple(k) for k in kept)


@dataclass
class GeneratedDeck:
    style: str
    seed: int
    tickets: list[TicketScore]
    targets: Targets
    figures: dict

    def deck_json(self) -> list[dict]:
        if self.style == "transit":
            return [{"from": t.a, "to": t.b, "points": t.points, "transit_points": len(t.path)} for t in self.tickets]
        return [{"from": t.a, "to": t.b, "points": t.points} for t in self.tickets]

    def as_dict(self) -> dict:
        return {"style": self.style, "seed": self.seed, "tickets": [t.as_dict() for t in self.tickets],
                "targets": self.targets.__dict__ | {"buckets": [list(b) for b in self.targets.buckets]},
                "figures": self.figures}


@dataclass(frozen=True)
class Candidate:
    """What the search knows of a pair: its ends, shortest length and one shortest path."""

    a: str
    b: str
    length: int
    path: tuple = field(compare=False)
    edge_ids: frozenset = field(compare=False)


class CandidatePool:
    """Every pair that fits the style, in (a, b) order of sorted station ids, as compact arrays
    (ends, length, and the path's stations flattened); `pool[i]` builds the Candidate.

    Which of several equal-length paths a pair gets is kept as it always was. The original
    implementation scored every candidate fully, and its detour step removed and re-added each
    connection of the pair's path; networkx then lists that neighbour last, so among equal-length
    paths the one chosen depended on the pairs scored before. Decks depend on the paths (through
    near-duplicates and route load), so that tie-breaking is replayed here on a private copy of
    the graph: one early-stopping Dijkstra per candidate, in the same order, and the same
    re-insertions. It keeps every seed's deck as it was; scoring itself no longer mutates the
    graph, so `tickets score` is independent of the order of the pairs.
    """

    def __init__(self, scorer: TicketScorer, style: str, targets: Targets,
                 exclude: set = frozenset(), progress: Callable | None = None):
        board, g = scorer.board, scorer.graph
        self.scorer = scorer
        self.ids = sorted(s.id for s in board.stations)
        hubs = {s.id for s in board.stations if s.hub}
        if style == "cities" and not hubs:
            raise MapkitError("--style cities needs hub stations: mark them with \"hub\": true in the board file")
        self.index = index = {sid: i for i, sid in enumerate(self.ids)}
        # built the same way as the scorer's graph, so its adjacency order is the original's
        self._replay = {u: {v: d["length"] for v, d in nbrs.items()} for u, nbrs in station_graph(board).adjacency()}
        upper = scorer.diameter if style == "long" else targets.max_length
        self.a, self.b, self.length = array("i"), array("i"), array("i")
        self.nodes, self.start = array("i"), array("i")
        for i, a in enumerate(self.ids):
            if progress:
                progress("candidates", i, len(self.ids))
            near = nx.single_source_dijkstra_path_length(g, a, cutoff=upper, weight="length")
            for b in sorted(x for x in near if x > a):
                if g.has_edge(a, b):
                    continue
                if style == "cities" and a not in hubs and b not in hubs:
                    continue
                d = near[b]
                if targets.min_length <= d <= upper:
                    path = self.replay_path(a, b)
                    if (a, b) in exclude:
                        continue  # scored (so replayed) before pinned pairs were taken out
                    self.a.append(i)
                    self.b.append(index[b])
                    self.length.append(int(d))
                    self.start.append(len(self.nodes))
                    self.nodes.extend(index[x] for x in path)
        self.start.append(len(self.nodes))
        if progress:
            progress("candidates", len(self.ids), len(self.ids))
        self._built: dict[int, Candidate] = {}

    def replay_path(self, a: str, b: str) -> list:
        """The path the original scoring reported, and its re-insertions of the path's connections
        (networkx's remove_edge + add_edge: each end moves to the end of the other's neighbours)."""
        adj = self._replay
        path = _dijkstra_path(adj, a, b)
        for u, v in zip(path, path[1:]):
            w = adj[u].pop(v)
            del adj[v][u]
            adj[u][v] = w
            adj[v][u] = w
        return path

    def __len__(self) -> int:
        return len(self.a)

    def __getitem__(self, i: int) -> Candidate:
        c = self._built.get(i)
        if c is None:
            path = [self.ids[k] for k in self.nodes[self.start[i]:self.start[i + 1]]]
            c = candidate(self.scorer, path, self.length[i])
            self._built[i] = c
        return c

    def stations(self) -> set[str]:
        return {self.ids[i] for i in set(self.a) | set(self.b)}


def _dijkstra_path(adj: dict, a: str, b: str) -> list:
    """networkx's dijkstra_path(G, a, b) on a plain {station: {neighbour: length}} dict: the same
    heap order (distance, then push count), the same strict-improvement rule, so the same path
    among equal-length ones; about twice as fast, which matters with one run per candidate."""
    done: dict = {}
    seen = {a: 0}
    pred = {a: None}
    push_count = counter()
    fringe = [(0, next(push_count), a)]
    while fringe:
        d, _, v = heappop(fringe)
        if v in done:
            continue
        done[v] = d
        if v == b:
            break
        for u, w in adj[v].items():
            vu = d + w
            if u in done:
                continue
            if u not in seen or vu < seen[u]:
                seen[u] = vu
                pred[u] = v
                heappush(fringe, (vu, next(push_count), u))
    if b not in done:
        raise MapkitError(f"no routes connect '{a}' and '{b}'")
    path = [b]
    while path[-1] != a:
        path.append(pred[path[-1]])
    return path[::-1]


def candidate(scorer: TicketScorer, path: list, length: int) -> Candidate:
    return Candidate(path[0], path[-1], length, tuple(path),
                     frozenset(scorer.edge_index[frozenset(s)] for s in zip(path, path[1:])))


def _jaccard(x: frozenset, y: frozenset) -> float:
    return len(x & y) / len(x | y) if x or y else 0.0


def evaluate(deck: list[TicketScore], targets: Targets, coverable: set[str]) -> tuple[float, dict]:
    """Penalty (lower is better) and the figures it is made of."""
    lengths = [t.length for t in deck]
    bucket_counts = [sum(lo <= n <= hi for n in lengths) for lo, hi, _ in targets.buckets]
    bucket_miss = sum(abs(c - want) for c, (_, _, want) in zip(bucket_counts, targets.buckets))
    uses = Counter()
    for t in deck:
        uses[t.a] += 1
        uses[t.b] += 1
    uncovered = sorted(coverable - set(uses))
    overuse = sum(max(0, n - targets.max_station_uses) for n in uses.values())
    dups = []
    for i in range(len(deck)):
        for j in range(i + 1, len(deck)):
            jac = _jaccard(deck[i].edge_ids, deck[j].edge_ids)
            if jac >= NEAR_DUPLICATE:
                dups.append((i, j, jac))
    load = Counter()
    for t in deck:
        load.update(t.edge_ids)
    overload = sum(max(0, n - targets.max_route_load) for n in load.values())
    long_short = max(0, targets.longest_at_least - max(lengths, default=0))
    penalty = (10 * bucket_miss + 3 * len(uncovered) + 4 * overuse + 8 * len(dups) + 2 * overload + 6 * long_short)
    figures = {
        "bucket_counts": bucket_counts, "uncovered": uncovered, "max_station_uses": max(uses.values(), default=0),
        "near_duplicates": len(dups), "max_route_load": max(load.values(), default=0), "longest": max(lengths, default=0),
    }
    return penalty, figures


END_ROUNDS = 3   # decks made again at most so that every line's end station is on a ticket


def generate(board: Board, style: str = "standard", count: int | None = None, seed: int = 0,
             required: list[tuple[str, str]] = (), adjust=False, trains: int | None = None,
             iterations: int = 6000, progress: Callable | None = None) -> GeneratedDeck:
    """A deck for the board; `adjust` as TicketScorer's (default: points = shortest length).
    `progress(phase, done, total)` is called as the work advances (phases: candidates, search,
    scoring), for a progress bar.

    A line's end station (a station of one neighbour) is a destination riders know: where the deck
    leaves one on no ticket, it gets one (`line_ends_uncovered`) and the deck is made again round
    it, at most END_ROUNDS times, keeping the deck that leaves the fewest out (not in the cities
    style, whose tickets each touch a hub). figures["ends_added"] names those tickets."""
    args = (board, style, count, seed, adjust, trains, iterations, progress)
    g = _generate(*args, required=list(required))
    added: list[tuple[str, str]] = []
    left = line_ends_uncovered(board, g) if style != "cities" else []
    for _ in range(END_ROUNDS):
        if not left:
            break
        try:
            again = _generate(*args, required=list(required) + added + left)
        except MapkitError:
            break
        now = line_ends_uncovered(board, again)
        if len(now) > len(left):
            break
        added += left
        g, left = again, now
    g.figures["ends_added"] = [f"{a}-{b}" for a, b in added if any({t.a, t.b} == {a, b} for t in g.tickets)]
    return g


def line_ends_uncovered(board: Board, deck: GeneratedDeck) -> list[tuple[str, str]]:
    """A ticket for each end station of a line (a station of one neighbour) that `deck` leaves on
    no ticket: (end, partner), the partner at a shortest distance within the deck's length ranges,
    nearest the middle of its middle range (another uncovered end first, then the nearest, then by
    id); none where no station is at such a distance."""
    g = station_graph(board)
    uncovered = set(deck.figures["uncovered"])
    ends = sorted(v for v in uncovered if g.degree(v) == 1)
    m_lo, m_hi, _ = deck.targets.buckets[len(deck.targets.buckets) // 2]
    mid = (m_lo + m_hi) / 2
    lo, hi = deck.targets.buckets[0][0], deck.targets.buckets[-1][1]
    out, taken = [], set()
    for end in ends:
        if end in taken:
            continue
        dist = nx.single_source_dijkstra_path_length(g, end, cutoff=hi, weight="length")
        fits = [(v, d) for v, d in dist.items() if lo <= d <= hi and v not in taken and not g.has_edge(end, v)]
        if not fits:
            continue
        partner, _ = min(fits, key=lambda vd: (vd[0] not in uncovered or g.degree(vd[0]) != 1, abs(vd[1] - mid), vd[0]))
        out.append((end, partner))
        taken |= {end, partner}
    return out


def _generate(board: Board, style: str, count: int | None, seed: int, adjust, trains: int | None,
              iterations: int, progress: Callable | None, required: list[tuple[str, str]]) -> GeneratedDeck:
    """One search for a deck (generate's, without the line ends' rounds)."""
    if style not in STYLES:
        raise MapkitError(f"unknown style '{style}'; styles: {', '.join(STYLES)}")
    from mapkit.sim.rules import board_rules

    rules = board_rules(board.rules.preset, board.rules.overrides)
    trains = trains or rules.trains_for(rules.max_players)
    count = count or default_count(style)
    scorer = TicketScorer(board, adjust=adjust)
    pinned_pairs: list[tuple[str, str]] = []
    for a, b in required:
        a, b = sorted((a, b))
        if a == b:
            raise MapkitError(f"required ticket {a}:{b} joins '{a}' to itself; name two different stations")
        if scorer.graph.has_edge(a, b):
            raise MapkitError(f"required ticket {a}-{b} joins adjacent stations; a ticket is never one route")
        if b not in scorer.distances(a):
            raise MapkitError(f"required ticket {a}-{b}: no routes connect '{a}' and '{b}'")
        if (a, b) in pinned_pairs:
            raise MapkitError(f"required ticket {a}-{b} is given twice")
        pinned_pairs.append((a, b))
    free = count - len(pinned_pairs)
    if free < 0:
        raise MapkitError(f"{len(pinned_pairs)} required tickets do not fit a deck of {count}; "
                          f"ask for at least {len(pinned_pairs)} with --count")
    targets = make_targets(scorer, style, count, trains)
    pool = CandidatePool(scorer, style, targets, set(pinned_pairs), progress)
    # pinned pairs were scored after the candidates in the original, so their paths come after too
    pinned = [candidate(scorer, pool.replay_path(a, b), scorer.distances(a)[b]) for a, b in pinned_pairs]
    if len(pool) < free:
        raise MapkitError(_too_few(style, targets, trains, len(pool), len(pinned)))
    coverable = pool.stations() | {t.a for t in pinned} | {t.b for t in pinned}
    rng = random.Random(seed)
    chosen = rng.sample(range(len(pool)), free)
    in_deck = set(chosen)
    current, _ = evaluate(pinned + [pool[i] for i in chosen], targets, coverable)
    best, best_chosen = current, list(chosen)
    t0, t1 = 8.0, 0.05
    every = max(1, iterations // 100)
    for step in range(iterations if free else 0):
        if progress and step % every == 0:
            progress("search", step, iterations)
        temp = t0 * (t1 / t0) ** (step / iterations)
        slot = rng.randrange(free)
        new = rng.randrange(len(pool))
        if new in in_deck:
            continue
        old = chosen[slot]
        chosen[slot] = new
        cost, _ = evaluate(pinned + [pool[i] for i in chosen], targets, coverable)
        if cost <= current or rng.random() < math.exp((current - cost) / temp):
            in_deck.discard(old)
            in_deck.add(new)
            current = cost
            if cost < best:
                best, best_chosen = cost, list(chosen)
        else:
            chosen[slot] = old
    if progress:
        progress("search", iterations, iterations)
    # the full figures, for the chosen tickets only
    picked = pinned + [pool[i] for i in best_chosen]
    deck = []
    for k, c in enumerate(picked):
        if progress:
            progress("scoring", k, len(picked))
        deck.append(scorer.score(c.a, c.b, path=list(c.path)))
    if progress:
        progress("scoring", len(picked), len(picked))
    deck.sort(key=lambda t: (t.points, t.a, t.b))
    _, figures = evaluate(deck, targets, coverable)
    figures["penalty"] = best
    figures["values"] = dict(sorted(Counter(t.points for t in deck).items()))
    figures["mean_points"] = round(sum(t.points for t in deck) / len(deck), 2)
    figures["stations_covered"] = len(coverable) - len(figures["uncovered"])
    figures["stations"] = len(board.stations)
    figures["shared_paths"] = _most_shared(deck)
    figures["route_load"] = _route_load(scorer, deck)
    figures["length_misses"] = _length_misses(targets, figures, list(pool.length) + [c.length for c in pinned])
    return GeneratedDeck(style=style, seed=seed, tickets=deck, targets=targets, figures=figures)


def _too_few(style: str, targets: Targets, trains: int, found: int, pinned: int) -> str:
    """Why the deck cannot be made, and what to change."""
    lo, hi = targets.min_length, targets.buckets[-1][1]
    fit = (f"the {style} style takes pairs of stations that are not adjacent and {lo}-{hi} spaces apart"
           + (", one of them a hub" if style == "cities" else ""))
    if found + pinned == 0:
        return (f"no station pair fits: {fit} (the longest ticket is about half a player's {trains} trains, at "
                f"most the board's longest shortest connection); this board is too small for such a deck: add "
                f"stations or longer routes" + (", or choose another --style" if style != "standard" else ""))
    return (f"only {found} station pairs fit ({fit}), too few for a deck of {targets.count}"
            + (f" with {pinned} required" if pinned else "")
            + f"; ask for at most {found + pinned} tickets with --count")


def _length_misses(targets: Targets, figures: dict, lengths: list[int]) -> list[dict]:
    """Each length target the deck misses, with by how much and how many station pairs of those
    lengths the board has at all (a target the board cannot meet says so): one entry a bucket
    whose count differs from the one wanted, and one when the longest ticket is shorter than
    wanted."""
    out = []
    for (lo, hi, want), got in zip(targets.buckets, figures["bucket_counts"]):
        if got != want:
            out.append({"what": f"length {lo}-{hi}", "tickets": got, "wanted": want,
                        "pairs": sum(lo <= n <= hi for n in lengths)})
    outside = targets.count - sum(figures["bucket_counts"])
    if outside and targets.buckets[-1][2] != targets.count:   # (the long style's one range takes the diameter)
        out.append({"what": "outside every length range", "tickets": outside, "wanted": 0, "pairs": 0})
    if figures["longest"] < targets.longest_at_least:
        out.append({"what": "longest ticket", "tickets": figures["longest"], "wanted": targets.longest_at_least,
                    "pairs": sum(n >= targets.longest_at_least for n in lengths)})
    return out


def _miss_text(m: dict) -> str:
    if m["what"] == "longest ticket":
        return (f"the longest ticket is {m['tickets']}, {m['wanted'] - m['tickets']} short of the {m['wanted']} wanted"
                + (" (no station pair is that far apart)" if not m["pairs"] else ""))
    if m["what"] == "outside every length range":
        return (f"{m['tickets']} ticket{'s are' if m['tickets'] != 1 else ' is'} outside every length range"
                " (a required pair longer or shorter than the targets takes a place of theirs)")
    gap = m["tickets"] - m["wanted"]
    text = f"{m['what']}: {m['tickets']} ticket{'s' if m['tickets'] != 1 else ''}, {abs(gap)} {'more' if gap > 0 else 'fewer'} than the {m['wanted']} wanted"
    if gap < 0 and m["pairs"] < m["wanted"]:
        text += f" (the board has {m['pairs']} such pair{'s' if m['pairs'] != 1 else ''})"
    return text


def _most_shared(deck: list[TicketScore], top: int = 5) -> list[dict]:
    pairs = []
    for i in range(len(deck)):
        for j in range(i + 1, len(deck)):
            jac = _jaccard(deck[i].edge_ids, deck[j].edge_ids)
            if jac > 0:
                pairs.append((jac, f"{deck[i].a}-{deck[i].b}", f"{deck[j].a}-{deck[j].b}"))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    return [{"tickets": [a, b], "shared": round(j, 2)} for j, a, b in pairs[:top]]


def _route_load(scorer: TicketScorer, deck: list[TicketScore], top: int = 5) -> list[dict]:
    names = {i: "-".join(sorted(e)) for e, i in scorer.edge_index.items()}
    load = Counter()
    for t in deck:
        load.update(t.edge_ids)
    return [{"connection": names[i], "tickets": n} for i, n in sorted(load.items(), key=lambda kv: (-kv[1], names[kv[0]]))[:top]]


def format_generated(g: GeneratedDeck) -> str:
    from mapkit.tickets import format_scores

    t, f = g.targets, g.figures
    lines = [f"{g.style} deck of {len(g.tickets)} tickets (seed {g.seed})", format_scores(g.tickets), "", "figures (target):"]
    for (lo, hi, want), got in zip(t.buckets, f["bucket_counts"]):
        lines.append(f"  length {lo}-{hi}: {got} ({want})")
    lines += [
        f"  longest ticket: {f['longest']} (at least {t.longest_at_least}; trains per player / 2 = {t.max_length})",
        f"  stations covered: {f['stations_covered']} of {f['stations']}"
        + (f" (not: {', '.join(f['uncovered'])})" if f["uncovered"] else ""),
        f"  most tickets at one station: {f['max_station_uses']} (at most {t.max_station_uses})",
        f"  near-duplicate pairs: {f['near_duplicates']} (0)",
        f"  most tickets through one connection: {f['max_route_load']} (at most {t.max_route_load})",
        "  values: " + ", ".join(f"{k}: {v}" for k, v in f["values"].items()) + f"; mean {f['mean_points']}",
        "  busiest connections: " + ", ".join(f"{r['connection']} {r['tickets']}" for r in f["route_load"]),
        "  most shared paths: " + ", ".join(f"{s['tickets'][0]} / {s['tickets'][1]} {s['shared']:.0%}" for s in f["shared_paths"]),
    ]
    if f.get("ends_added"):
        lines.append("  line ends given a ticket: " + ", ".join(f["ends_added"]))
    if f["length_misses"]:
        lines.append("warning: the deck misses its length targets: " + "; ".join(_miss_text(m) for m in f["length_misses"])
                     + "; try another --seed, --require the pairs you want, or a --count the board's pairs allow")
    return "\n".join(lines)
