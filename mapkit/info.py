"""`mapkit info`: a board's figures at a glance."""

from __future__ import annotations

import statistics
from collections import Counter

from mapkit.checks import capacity
from mapkit.graph import station_graph
from mapkit.model import GRAY, Board
from mapkit.texttable import text_table


def summarize(board: Board) -> dict:
    g = station_graph(board)
    degrees = [d for _, d in g.degree()]
    spaces = Counter()
    routes = Counter()
    for r in board.routes:
        spaces[r.color] += r.length
        routes[r.color] += 1
    colors = [c.id for c in board.palette] + ([GRAY] if GRAY in spaces else [])
    names = {c.id: c.name for c in board.palette} | {GRAY: board.gray_name}
    doubles = len({r.double for r in board.routes if r.double})
    return {
        "board": board.id,
        "name": board.name,
        "rules": board.rules.preset,
        "stations": len(board.stations),
        "routes": len(board.routes),
        "doubles": doubles,
        "spaces": board.total_spaces,
        "colors": [
            {"color": c, "name": names[c], "routes": routes[c], "spaces": spaces[c],
             "longest": max((r.length for r in board.routes if r.color == c), default=0)}
            for c in colors
        ],
        "lengths": dict(sorted(Counter(r.length for r in board.routes).items())),
        "special_routes": [
            {"route": r.id, "bonus": r.bonus.points, "name": r.bonus.name} for r in board.routes if r.bonus
        ],
        "degree": {
            "min": min(degrees), "max": max(degrees),
            "mean": round(statistics.fmean(degrees), 2), "median": statistics.median(degrees),
        },
        "capacity": capacity(board),
        "deck": None if board.deck is None else {"total": board.deck.total, "wild": board.deck.wild},
        "ticket_decks": {name: len(t) for name, t in board.ticket_decks.items()},
    }


def format_summary(s: dict) -> str:
    lines = [
        f"{s['name']} ({s['board']}), rules: {s['rules']}",
        f"  {s['stations']} stations, {s['routes']} routes ({s['doubles']} double), {s['spaces']} spaces",
        f"  degree: min {s['degree']['min']}, median {s['degree']['median']}, mean {s['degree']['mean']}, max {s['degree']['max']}",
        "  lengths: " + ", ".join(f"{k}: {v}" for k, v in s["lengths"].items()),
        "",
    ]
    lines += text_table(["color", "name", "routes", "spaces", "longest"],
                        [[c["color"], c["name"], c["routes"], c["spaces"], c["longest"]] for c in s["colors"]], "llrrr")
    if s["special_routes"]:
        lines.append("")
        for r in s["special_routes"]:
            lines.append(f"  special route {r['route']}: +{r['bonus']} ({r['name']})")
    lines.append("")
    lines.append("  capacity: " + "; ".join(
        f"{c['players']}p {c['spaces']} spaces / {c['trains']} trains = {c['ratio']:.2f}" for c in s["capacity"]))
    deck = s["deck"]
    if deck is None:
        lines.append("  deck: none yet (mapkit cards --write)")
    else:
        lines.append(f"  deck: {deck['total']} cards, {deck['wild']} wild")
    decks = s["ticket_decks"]
    lines.append("  tickets: " + (", ".join(f"{k} {v}" for k, v in decks.items()) if decks else "none yet (mapkit tickets generate --write)"))
    return "\n".join(lines)
