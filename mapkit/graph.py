"""networkx views of a board: the one place that builds graphs."""

from __future__ import annotations

import networkx as nx

from mapkit.model import Board


def route_multigraph(board: Board) -> nx.MultiGraph:
    """Every station a node, every route (each track of a double) an edge keyed by its id."""
    g = nx.MultiGraph()
    g.add_nodes_from(s.id for s in board.stations)
    for r in board.routes:
        g.add_edge(r.a, r.b, key=r.id, length=r.length, color=r.color, kind=r.kind)
    return g


def station_graph(board: Board) -> nx.Graph:
    """Stations joined when some route joins them; `length` is the shortest such route's length."""
    g = nx.Graph()
    g.add_nodes_from(s.id for s in board.stations)
    for r in board.routes:
        if r.a == r.b:
            continue
        if g.has_edge(r.a, r.b):
            if r.length < g[r.a][r.b]["length"]:
                g[r.a][r.b].update(length=r.length, route=r.id)
        else:
            g.add_edge(r.a, r.b, length=r.length, route=r.id)
    return g


def components(board: Board) -> list[set[str]]:
    """Connected groups of stations, largest first (ties broken by their smallest station id)."""
    comps = list(nx.connected_components(station_graph(board)))
    return sorted(comps, key=lambda c: (-len(c), min(c)))
