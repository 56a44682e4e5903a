"""Helpers for simulator tests: the tiny board's tables and hand-built states."""

from dataclasses import replace
from pathlib import Path

from mapkit.boardfile import load_board
from mapkit.sim import engine
from mapkit.sim.rules import RuleSet, resolve_rules
from mapkit.sim.tables import build_tables

TINY = Path(__file__).parent / "fixtures" / "tiny.json"


def tiny_tables():
    return build_tables(load_board(TINY))


def rules(**changes) -> RuleSet:
    base = resolve_rules("standard", {"trains": 20, "max_players": 5})
    return replace(base, **changes)


def started(players=2, seed=1, **rule_changes):
    """A game past the ticket choices (each seat keeps all it was dealt), at seat 0's first turn."""
    t = tiny_tables()
    s = engine.new_game(t, rules(**rule_changes), players, seed)
    while s.phase == engine.SETUP:
        engine.apply(s, (engine.KEEP, (1 << len(s.offer)) - 1))
    return t, s


def card_total(s) -> int:
    return len(s.deck) + len(s.discard) + sum(1 for c in s.face_up if c != engine.EMPTY) + sum(sum(h) for h in s.hands)
