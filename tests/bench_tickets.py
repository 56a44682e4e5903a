"""CPU time and peak memory of ticket generation and scoring on large grid boards.

    python tests/bench_tickets.py generate 500      # or: score 3000
    PYTHONPATH=/path/to/other/checkout python tests/bench_tickets.py generate 100   # before/after

Prints one JSON line: stations, routes, CPU seconds (process time) of the step alone, peak RSS of
the process (ru_maxrss) and its growth over the RSS after loading the board. `score` scores 30
seeded random pairs of stations (what `tickets score` does for a 30-ticket deck). Boards past the
schema's 500 stations are built without the schema (library level), see tests/boardgen.py.
"""

import json
import os
import random
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from boardgen import grid_board  # noqa: E402


def main(command: str, n: int) -> None:
    board = grid_board(n)
    import networkx  # noqa: F401  (imported before the baseline is taken)
    from mapkit import ticket_deck, tickets  # noqa: F401

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.process_time()
    if command == "generate":
        g = ticket_deck.generate(board, seed=1)
        extra = {"tickets": len(g.tickets), "longest": g.figures["longest"]}
    else:
        ids = sorted(s.id for s in board.stations)
        rng = random.Random(1)
        pairs = [tuple(rng.sample(ids, 2)) for _ in range(30)]
        scorer = tickets.TicketScorer(board)
        scores = [scorer.score(a, b) for a, b in pairs]
        extra = {"pairs": len(scores)}
    cpu = time.process_time() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"command": command, "stations": n, "routes": len(board.routes), "cpu_s": round(cpu, 2),
                      "peak_rss_mb": round(rss / 1024), "rss_growth_mb": round((rss - rss0) / 1024), **extra}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
