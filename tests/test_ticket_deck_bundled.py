"""The bundled boards' stored ticket decks are what `generate` gives with their seeds (a file of its
own: each deck takes seconds, and this file runs beside tests/test_ticket_deck.py)."""

import pytest

from mapkit.boardfile import load_board
from mapkit.resources import boards_dir
from mapkit.ticket_deck import generate
from test_ticket_deck import BUNDLED_DECKS


@pytest.mark.parametrize("name", BUNDLED_DECKS)
def test_bundled_seeds_still_give_the_bundled_decks(name):
    b = load_board(boards_dir() / f"{name}.json")
    seed, required, count = BUNDLED_DECKS[name]
    stored = sorted((t.a, t.b, t.points) for t in b.ticket_decks["standard"])
    # the stored decks were made with both point adjustments on
    g = generate(b, seed=seed, required=required, count=count, adjust=True)
    assert sorted((t.a, t.b, t.points) for t in g.tickets) == stored
