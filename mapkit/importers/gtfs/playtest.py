"""The draft played before the designer sees it: a short simulation at each supported player count,
and the fixes a draft must never ship without.

`deck_with_room(board)`: the train-card deck (mapkit.cards.derive_deck) with every color holding at
least its longest route + SPARE_CARDS cards (the palette's `cards.min`), so no color is starved.

`one_place_tickets(data)`: tickets between two stations of one place (their real positions closer
than ONE_PLACE_M): a rider walks that.

`playtest(data, games, seed)` plays `games` route-focus games (mapkit.sim.batch.run_games) at each
player count the rules allow, then fixes what it can, in this order, and plays that player count
again: the deck running out (cards_exhausted in more than EXHAUSTED_SHARE of the games) gets
MORE_CARDS more colored cards, up to MAX_DECK, then the most players is lowered; tickets nobody
completed in UNCOMPLETED_HELD holdings or more are taken out of the deck. What it cannot fix (endless
face-up wipes, stalled games) is returned with the change to make. Pure apart from the games: the
board dict is returned changed, never written.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from mapkit.importers.gtfs.stations import haversine_m

AGENT = "route-focus"
SPARE_CARDS = 2           # a color holds its longest route and two more (the standard map: 12 cards, 6 spaces)
ONE_PLACE_M = 400.0       # two stations closer than this are one place for a ticket
EXHAUSTED_SHARE = 0.05    # the deck may run out in at most this share of the games
MORE_CARDS = 12
MAX_DECK = 150
UNCOMPLETED_HELD = 5
MIN_TICKETS_PER_PLAYER = 4   # tickets are taken out only while the deck keeps this many a player (3 dealt, 1 to draw)
GAPS = ("cards_exhausted", "endless_wipes", "no_legal_action", "stalled", "turn_limit", "agent_error")


@dataclass
class PlaytestResult:
    data: dict
    by_players: dict = field(default_factory=dict)   # players → {"games", "gaps": {gap: games}, "completion"}
    fixes: list = field(default_factory=list)        # what was changed, in words
    left: list = field(default_factory=list)         # what is left, with the change to make
    seconds: float = 0.0


def deck_with_room(board, total: int = 110, wild: int = 14):
    """(derived deck, palette colors given a minimum): mapkit.cards.derive_deck with every color's
    `cards.min` raised to its longest route + SPARE_CARDS where the deck gives it fewer."""
    import dataclasses

    from mapkit.cards import InfeasibleDeck, derive_deck

    deck = derive_deck(board, total=total, wild=wild)
    raised = {}
    for f in deck.colors:
        if f.longest and f.cards < f.longest + SPARE_CARDS:
            raised[f.color] = f.longest + SPARE_CARDS
    if not raised:
        return deck, {}
    palette = tuple(dataclasses.replace(c, cards=dataclasses.replace(c.cards, min=raised[c.id])) if c.id in raised else c
                    for c in board.palette)
    try:
        return derive_deck(dataclasses.replace(board, palette=palette), total=total, wild=wild), raised
    except InfeasibleDeck:
        return deck, {}


def one_place_tickets(data: dict) -> list[tuple[str, str]]:
    pos = {s["id"]: (s["lat"], s["lon"]) for s in data["stations"] if "lat" in s and "lon" in s}
    out = []
    for deck in data.get("ticket_decks", {}).values():
        for t in deck:
            a, b = t["from"], t["to"]
            if a in pos and b in pos and haversine_m(pos[a], pos[b]) < ONE_PLACE_M:
                out.append((a, b))
    return out


def _play(data: dict, players: int, games: int, seed: int) -> dict:
    from mapkit.boardfile import build_board, whole_numbers
    from mapkit.sim.batch import pool_labels, run_games
    from mapkit.sim.rules import rules_for_board
    from mapkit.sim.tables import build_tables

    board = build_board(whole_numbers(copy.deepcopy(data)), "draft")
    rules = rules_for_board(board)
    t = build_tables(board)
    tot, _ = run_games(t, rules, [AGENT] * players, games, [seed, players])
    labels = pool_labels(t, rules)
    tickets = {labels[i]: (h, c) for i, (h, c) in tot.tickets.items()}
    return {"games": tot.games, "gaps": {k: tot.gap_games[k] for k in GAPS if tot.gap_games[k]},
            "completion": round(tot.completed / tot.held, 3) if tot.held else None,
            "never_completed": sorted(k for k, (h, c) in tickets.items() if c == 0 and h >= UNCOMPLETED_HELD)}


def _rules(data: dict) -> tuple[int, int]:
    over = data.get("rules", {}).get("overrides", {})
    return over.get("min_players", 2), over.get("max_players", 5)


def _set_deck_total(data: dict, total: int) -> None:
    from mapkit.boardfile import build_board, whole_numbers

    data.pop("deck", None)
    board = build_board(whole_numbers(copy.deepcopy(data)), "draft")
    deck, _ = deck_with_room(board, total=total, wild=round(14 * total / 110))
    data["deck"] = deck.deck_json()


def playtest(data: dict, games: int = 200, seed: int = 0) -> PlaytestResult:
    import time

    started = time.perf_counter()
    data = copy.deepcopy(data)
    res = PlaytestResult(data)
    lo, hi = _rules(data)
    players = hi
    while players >= lo:
        r = _play(data, players, games, seed)
        exhausted = r["gaps"].get("cards_exhausted", 0)
        if exhausted > EXHAUSTED_SHARE * r["games"]:
            total = data.get("deck", {}).get("total", 110)
            if total + MORE_CARDS <= MAX_DECK:
                res.fixes.append(f"{players} players: the deck ran out in {exhausted} of {r['games']} games; "
                                 f"{MORE_CARDS} more train cards ({total} -> {total + MORE_CARDS})")
                _set_deck_total(data, total + MORE_CARDS)
                continue
            if players == hi and players > lo:
                res.fixes.append(f"{players} players: the deck ran out in {exhausted} of {r['games']} games even with "
                                 f"{total} cards; the board is for {lo}-{players - 1} players")
                hi = players - 1
                data.setdefault("rules", {}).setdefault("overrides", {})["max_players"] = hi
                res.by_players[players] = r
                players -= 1
                continue
        gone = r["never_completed"]
        deck = data.get("ticket_decks", {}).get("standard", [])
        if gone and len(deck) - len(gone) >= MIN_TICKETS_PER_PLAYER * hi:
            names = {f"{t['from']}-{t['to']}" for t in deck}
            drop = [g for g in gone if g in names]
            if drop:
                data["ticket_decks"]["standard"] = [t for t in deck if f"{t['from']}-{t['to']}" not in drop]
                res.fixes.append(f"{players} players: ticket(s) never completed in {r['games']} games taken out: "
                                 + ", ".join(drop))
                continue
        res.by_players[players] = r
        players -= 1
    for p, r in sorted(res.by_players.items()):
        for gap, n in r["gaps"].items():
            if gap == "cards_exhausted" and p > hi:
                continue
            change = {"cards_exhausted": "add train cards (`mapkit cards BOARD --total N --write`) or lower max_players",
                      "endless_wipes": "fewer wild cards (deck.wild) or more colored cards",
                      "stalled": "shorten the longest routes or add trains",
                      "turn_limit": "more trains per player or shorter routes",
                      "no_legal_action": "more train cards or tickets"}.get(gap, "look at the games with mapkit simulate --log")
            res.left.append(f"{p} players: {gap} in {n} of {r['games']} games: {change}")
    res.seconds = round(time.perf_counter() - started, 1)
    res.data = data
    return res
