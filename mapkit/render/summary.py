"""What the summary card says (seeds 000/001 style), from the board and its ruleset.

Front: setup, the turn's three actions, the end of the game. Back: route scoring, special routes,
final scoring, and the fan-made disclaimer. Each side is a list of (heading, lines) sections;
`card_faces` lays them out.
"""

from __future__ import annotations

from dataclasses import dataclass

from mapkit.model import Board
from mapkit.render.scene import disclaimer_text


@dataclass(frozen=True)
class Section:
    heading: str
    lines: tuple[str, ...] = ()
    table: tuple[tuple[str, str], ...] = ()   # (length, points) columns of the scoring table
    small: bool = False                        # the disclaimer: smaller print


def ruleset(board: Board):
    from mapkit.sim.rules import board_rules
    return board_rules(board.rules.preset, board.rules.overrides)


def _trains(rules) -> str:
    counts = {n: rules.trains_for(n) for n in range(rules.min_players, rules.max_players + 1)}
    if len(set(counts.values())) == 1:
        return f"{next(iter(counts.values()))} trains each"
    groups: dict[int, list[int]] = {}
    for n, t in counts.items():
        groups.setdefault(t, []).append(n)
    parts = [f"{t} trains for {min(ns)}–{max(ns)} players" if len(ns) > 1 else f"{t} trains for {ns[0]} players"
             for t, ns in groups.items()]
    return "; ".join(parts)


def front(board: Board) -> list[Section]:
    r = ruleset(board)
    wild = board.wild.name
    setup = [
        f"• {_trains(r)}; scoring marker on 0.",
        f"• Deal {r.starting_hand} train cards to each player; turn {r.face_up} face up.",
        f"• Deal {r.deal_tickets} tickets to each player; keep at least {r.keep_at_start}.",
    ]
    turn = [
        f"1. Draw {r.draws_per_turn} train cards, face up or blind. A face-up {wild} is your only card "
        f"that turn; never take one as your second card." if r.face_up_wild_takes_turn else
        f"1. Draw {r.draws_per_turn} train cards, face up or blind ({wild} counts as one card).",
        "2. Claim a route: play as many cards of its color as it has spaces (gray: any one color; "
        f"{wild} counts as any color), and place a train on each space.",
        f"3. Draw {r.draw_tickets} tickets and keep at least {r.keep_on_draw}; return the rest to the bottom.",
    ]
    extras = []
    if r.wild_reset:
        extras.append(f"• {r.wild_reset} face-up {wild} cards: discard all {r.face_up} and turn new ones.")
    extras.append(f"• Double routes: with fewer than {r.double_routes_min_players} players only one track is used; "
                  "nobody claims both.")
    end = [f"When a player ends a turn with {r.end_trigger} or fewer trains, everyone, that player "
           "included, has one last turn."]
    return [Section("Setup", tuple(setup)), Section("On your turn, do one", tuple(turn)),
            Section("Good to know", tuple(extras)), Section("Game end", tuple(end))]


def back(board: Board) -> list[Section]:
    r = ruleset(board)
    table = tuple((str(n), str(p)) for n, p in enumerate(board.route_points, start=1))
    specials = []
    seen = set()
    for route in board.routes:
        if route.bonus:
            key = (route.bonus.name, route.a, route.b)
            if key in seen:
                continue
            seen.add(key)
            a, b = board.station(route.a).name, board.station(route.b).name
            pts = board.route_points_for(route.length) if route.length <= len(board.route_points) else 0
            specials.append(f"• {route.bonus.name}, {a}–{b}: {pts} + {route.bonus.points} bonus "
                            f"= {pts + route.bonus.points} points")
    final = ["• Completed tickets: + their value; unfinished ones: "
             + ("− their value." if r.failed_ticket_factor else "no points.")]
    if r.longest_path_bonus:
        final.append(f"• Longest continuous path: +{r.longest_path_bonus} (ties: everyone tied scores).")
    if r.globetrotter_bonus:
        final.append(f"• Most completed tickets (Globetrotter): +{r.globetrotter_bonus}.")
    final.append("• Ties: most completed tickets, then the longest path, win.")
    out = [Section("Route scoring", table=table)]
    if specials:
        out.append(Section("Special routes", tuple(specials)))
    out.append(Section("Final scoring", tuple(final)))
    out.append(Section("", (disclaimer_text(board),), small=True))
    return out


def copies(board: Board) -> int:
    """One summary card per seat."""
    return ruleset(board).max_players


def bonus_cards(board: Board) -> list[tuple[str, int, str]]:
    """(name, points, rule) of each bonus card the ruleset awards at the end (seeds 000/001: the
    Longest Continuous Path card; 1910/Mega: Globetrotter)."""
    r = ruleset(board)
    out = []
    if r.longest_path_bonus:
        out.append(("Longest Continuous Path", r.longest_path_bonus,
                    "At the end, the player with the longest continuous path of their own trains takes this card "
                    f"and scores {r.longest_path_bonus} points. A path may loop and pass a station more than once, "
                    "but uses each train once. Ties: every tied player scores the bonus."))
    if r.globetrotter_bonus:
        out.append(("Globetrotter", r.globetrotter_bonus,
                    f"At the end, the player who completed the most tickets takes this card and scores "
                    f"{r.globetrotter_bonus} points. Ties: every tied player scores the bonus."))
    return out
