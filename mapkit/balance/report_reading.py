"""Reading a balance report (report.json) as the figures and report.html show it: its runs, fewest
players first; numbers that may be missing; ticket labels as the board names them. Pure: no drawing."""

from __future__ import annotations

import math

from mapkit.model import Board


def runs_of(report: dict) -> list[dict]:
    """The report's runs that name a player count, fewest players first."""
    runs = [r for r in report.get("runs") or [] if isinstance(r, dict) and isinstance(r.get("players"), int)]
    return sorted(runs, key=lambda r: r["players"])


def players_text(n) -> str:
    return f"{n} player" + ("" if n == 1 else "s")


def ticket_ref(board: Board, label: str):
    """(deck name, model Ticket) for a report's ticket label ("a-b" or "<deck>:a-b"), or (None, None)
    when the board has no such ticket. Station ids may contain hyphens, so the label is matched
    against the board's own "a-b" strings rather than split."""
    prefix, _, rest = label.rpartition(":")
    decks = board.ticket_decks or {}
    order = ([prefix] if prefix in decks else []) + [d for d in decks if d != prefix]
    for deck in order:
        for t in decks[deck]:
            if f"{t.a}-{t.b}" == rest or f"{t.b}-{t.a}" == rest:
                return deck, t
    return None, None


def ticket_title(board: Board, label: str) -> str:
    """A ticket as a designer reads it: its stations' names ("Hillsboro – Gresham")."""
    _, t = ticket_ref(board, label)
    if t is None:
        return label
    ids = {s.id: s.name for s in board.stations}
    return f"{ids.get(t.a, t.a)} – {ids.get(t.b, t.b)}"


def ticket_deck(board: Board, label: str) -> str:
    deck, _ = ticket_ref(board, label)
    if deck is not None:
        return deck
    prefix, _, _ = label.rpartition(":")
    return prefix or "tickets"


def num(x) -> float | None:
    """x as a float, or None when it is missing, not a number or not finite (the figure or table
    then leaves it out rather than raising)."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None
