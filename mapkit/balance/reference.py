"""The published map as the balance report's reference.

A fan map is judged against what the published North America map does when the same agent panel
plays it with its published ticket deck (the original 30 tickets, boards/north-america.json's
deck `published`) under the standard rules: its tickets' completion-by-points trend and the
spread around it, its least claimed route, its least claimed color, its first seat's edge and the
lowest win share of a ticket's holders (`report.py`'s `bands_at`), and the restricted-play and
skill figures (strategies.py) the report prints beside the board's. A verdict is raised only where
the fan map falls outside that range, so the published map judged against itself raises (almost)
none.

`reference_for(...)` returns the reference for a panel, variants and player counts: the shipped
one (`published-reference.json` beside this module, made by `python bench/published_reference.py`
with the default panel, 2000 games per player count, seed 0) when it was played that way, else it
plays the published map now with the report's own game budget (the report then takes about twice
as long) and says so in `source`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Optional

from mapkit.errors import MapkitError

SHIPPED = Path(__file__).with_name("published-reference.json")

BOARD, DECK, RULES = "north-america", "published", "standard"


def published_board():
    """The bundled North America board, played with its published ticket deck."""
    from mapkit.boardfile import load_board
    from mapkit.resources import resolve_board

    board = load_board(resolve_board(BOARD))
    return replace(board, rules=replace(board.rules, preset=RULES, overrides={"ticket_decks": [DECK]}, for_presets={}))


def play_reference(panel: list[str], players: list[int], games: int, seed: int = 0, jobs: int = 1,
                   variants: tuple = (), scheduler=None, progress=None) -> dict:
    """Play the published map with `panel` and return the reference (its bands by player count)."""
    from mapkit.balance.report import balance_report

    r = balance_report(published_board(), players, games, panel, seed, jobs, None, tuple(variants), scheduler,
                       progress=progress, tested=0, strategies=True)
    thin = [n for n, b in r["bands"].items() if "ticket_trend" not in b]
    if thin:
        raise MapkitError(f"the published map played too few games at {', '.join(thin)} players to serve as the "
                          f"reference: play more games (--games) or use --reference none")
    return {"board": BOARD, "deck": DECK, "name": "published North America map", "rules": r["rules"],
            "panel": list(panel), "variants": list(variants), "games": games, "seed": seed,
            "source": "played with this report", "bands": r["bands"], "strategies": r["strategies"]}


def shipped() -> Optional[dict]:
    try:
        return json.loads(SHIPPED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def reference_for(panel: list[str], players: list[int], games: int, seed: int = 0, jobs: int = 1,
                  variants: tuple = (), scheduler=None, progress=None) -> dict:
    """The shipped reference when it covers this panel, variants and player counts, else one played now."""
    ref = shipped()
    if ref and ref["panel"] == list(panel) and ref["variants"] == list(variants) and \
            all(str(n) in ref["bands"] for n in players):
        return ref | {"source": f"shipped with mapkit (seed {ref['seed']})"}
    counts = [n for n in players if n > 1]
    return play_reference(panel, counts, games, seed, jobs, variants, scheduler, progress)
