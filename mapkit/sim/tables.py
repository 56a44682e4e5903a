"""A board as the engine sees it: small ints and tuples, computed once per board and ruleset.

Stations, routes and colors become indices; route points include bonuses; every ticket deck is a
tuple of (a, b, points). Nothing here changes during a game, so it is shared by every game of a run
(and pickled once per worker process).
"""

from __future__ import annotations

from dataclasses import dataclass

from mapkit.errors import MapkitError
from mapkit.model import Board

GRAY = -1


@dataclass(frozen=True)
class Tables:
    board_id: str
    station_ids: tuple[str, ...]
    color_ids: tuple[str, ...]          # palette order; the wild card is index len(color_ids)
    wild: int
    route_ids: tuple[str, ...]
    route_a: tuple[int, ...]
    route_b: tuple[int, ...]
    route_color: tuple[int, ...]        # GRAY (-1) for gray routes
    route_len: tuple[int, ...]
    route_points: tuple[int, ...]       # scoring table value plus any bonus
    route_bonus: tuple[int, ...]
    route_partner: tuple[int, ...]      # the other track of a double route, or -1
    routes_at: tuple[tuple[int, ...], ...]  # routes touching each station
    deck: tuple[int, ...]               # the train cards, as color indices
    ticket_decks: dict                  # name -> tuple of (a, b, points, transit points or 0)
    ticket_names: dict                  # name -> tuple of "a-b" labels
    station_hub: tuple[bool, ...]
    # routes of each color (index wild = gray routes), shortest first: claim enumeration stops at
    # the first route longer than the cards a seat could pay with
    routes_by_color: tuple[tuple[int, ...], ...] = ()
    double_group: tuple[str, ...] = ()  # each route's double group name, or ""
    points_table: tuple[int, ...] = ()  # the board's route scoring table, by length
    # transit stations: (color, cards) for each station's colored routes, and its gray routes
    station_colors: tuple[tuple[tuple[int, int], ...], ...] = ()
    station_gray: tuple[int, ...] = ()
    double_routes: tuple[int, ...] = ()  # routes that have a partner track, ascending
    # routes_by_color as (length, route, partner track or -1) triples: what the claim listing reads
    # of each route, in one tuple (the listing is the simulator's hottest loop)
    claim_order: tuple[tuple[tuple[int, int, int], ...], ...] = ()
    # each route's place in the claim listing (claim_order's rows one after another): a listing of
    # a few routes sorts them by it
    claim_rank: tuple[int, ...] = ()

    def __getstate__(self):
        # the planners' caches kept on the tables (adjacency, searches of the untouched board) stay
        # in the process that made them: a worker gets the fields only, and builds its own
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    @property
    def n_stations(self) -> int:
        return len(self.station_ids)

    @property
    def n_routes(self) -> int:
        return len(self.route_ids)


def build_tables(board: Board) -> Tables:
    sidx = {s.id: i for i, s in enumerate(board.stations)}
    cidx = {c.id: i for i, c in enumerate(board.palette)}
    wild = len(board.palette)
    routes = board.routes
    partner = [-1] * len(routes)
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(routes):
        if r.double:
            groups.setdefault(r.double, []).append(i)
    for members in groups.values():
        if len(members) == 2:
            partner[members[0]], partner[members[1]] = members[1], members[0]
    at = [[] for _ in board.stations]
    for i, r in enumerate(routes):
        at[sidx[r.a]].append(i)
        at[sidx[r.b]].append(i)
    if board.deck is not None:
        counts, n_wild = board.deck.counts, board.deck.wild
    else:
        from mapkit.cards import derive_deck

        derived = derive_deck(board)
        counts, n_wild = derived.counts, derived.wild
    deck = []
    for c in board.palette:
        deck.extend([cidx[c.id]] * counts.get(c.id, 0))
    deck.extend([wild] * n_wild)
    decks = {name: tuple((sidx[t.a], sidx[t.b], t.points, t.transit_points or 0) for t in ts)
             for name, ts in board.ticket_decks.items()}
    names = {name: tuple(f"{t.a}-{t.b}" for t in ts) for name, ts in board.ticket_decks.items()}
    for r in routes:
        if r.length > len(board.route_points):
            raise MapkitError(f"route {r.id} is longer than the scoring table")
    route_color = [GRAY if r.is_gray else cidx[r.color] for r in routes]
    station_colors, station_gray = [], []
    for rs in at:
        need: dict[int, int] = {}
        for i in rs:
            if route_color[i] != GRAY:
                need[route_color[i]] = need.get(route_color[i], 0) + 1
        station_colors.append(tuple(sorted(need.items())))
        station_gray.append(sum(1 for i in rs if route_color[i] == GRAY))
    by_color = tuple(
        tuple(sorted((i for i, r in enumerate(routes) if (r.is_gray if c == wild else r.color == board.palette[c].id)),
                     key=lambda i: (routes[i].length, i)))
        for c in range(wild + 1)
    )
    return Tables(
        board_id=board.id,
        station_ids=tuple(s.id for s in board.stations),
        color_ids=tuple(c.id for c in board.palette), wild=wild,
        route_ids=tuple(r.id for r in routes),
        route_a=tuple(sidx[r.a] for r in routes), route_b=tuple(sidx[r.b] for r in routes),
        route_color=tuple(route_color),
        route_len=tuple(r.length for r in routes),
        route_points=tuple(board.route_points_for(r.length) + (r.bonus.points if r.bonus else 0) for r in routes),
        route_bonus=tuple(r.bonus.points if r.bonus else 0 for r in routes),
        route_partner=tuple(partner),
        routes_at=tuple(tuple(x) for x in at),
        deck=tuple(deck), ticket_decks=decks, ticket_names=names,
        station_hub=tuple(s.hub for s in board.stations),
        double_group=tuple(r.double or "" for r in routes),
        points_table=tuple(board.route_points),
        station_colors=tuple(station_colors), station_gray=tuple(station_gray),
        double_routes=tuple(i for i in range(len(routes)) if partner[i] >= 0),
        routes_by_color=by_color,
        claim_order=tuple(tuple((routes[i].length, i, partner[i]) for i in rs) for rs in by_color),
        claim_rank=_ranks(by_color, len(routes)),
    )


def _ranks(by_color, n: int) -> tuple[int, ...]:
    rank = [0] * n
    for i, r in enumerate(r for rows in by_color for r in rows):
        rank[r] = i
    return tuple(rank)
