"""How the agents play, summed over games: the figures that say whether they play like people.

Per game, the runner records for each seat the turns it took, the train cards left in its hand at
the end, and what it did on its final turn (every turn a seat starts during the final round is its
final turn). Summed here into the figures `mapkit simulate --format json` prints:

- `winner_score_mean`: the winning total, averaged over games (tied winners share one score);
- `winner_tickets_held_mean`: tickets held by the winner (tied winners averaged);
- `turns_per_seat_mean`: turns each seat took, averaged over seats and games;
- `cards_in_hand_at_end_mean`: train cards left in a hand at the end, averaged over seats and games;
- `final_turn_draw_rate`: share of final turns spent drawing cards while a scoring move (a claim,
  or a transit station) was legal; the denominator is every final turn played;
- `final_turn_scoring_legal_rate`: share of final turns on which a scoring move was legal.

Every figure is a sum or a count, so merging chunks in any grouping gives the same result.
"""

from __future__ import annotations


class PlayMetrics:
    def __init__(self):
        self.games = 0
        self.winner_score = 0.0
        self.winner_tickets = 0.0
        self.seat_turns = 0
        self.seats = 0
        self.cards_at_end = 0
        self.final_turns = 0
        self.final_draws = 0
        self.final_scoring_legal = 0

    def add(self, r: dict) -> None:
        self.games += 1
        rows = {row["seat"]: row for row in r["scores"]}
        won = r["winners"]
        if won:
            self.winner_score += max(rows[p]["total"] for p in won)
            self.winner_tickets += sum(rows[p]["held"] for p in won) / len(won)
        self.seat_turns += sum(r["turns_by_seat"])
        self.seats += len(r["turns_by_seat"])
        self.cards_at_end += sum(r["hand_at_end"])
        f = r["final_turns"]
        self.final_turns += f["turns"]
        self.final_draws += f["draws_while_scoring_legal"]
        self.final_scoring_legal += f["scoring_legal"]

    def __eq__(self, o) -> bool:
        # sums compare by value: a Totals from a Dask cluster must equal the local one
        return isinstance(o, PlayMetrics) and vars(self) == vars(o)

    def merge(self, o: "PlayMetrics") -> None:
        for k in vars(self):
            setattr(self, k, getattr(self, k) + getattr(o, k))

    def as_dict(self) -> dict:
        g, n, f = max(1, self.games), max(1, self.seats), self.final_turns
        return {
            "winner_score_mean": round(self.winner_score / g, 2),
            "winner_tickets_held_mean": round(self.winner_tickets / g, 3),
            "turns_per_seat_mean": round(self.seat_turns / n, 2),
            "cards_in_hand_at_end_mean": round(self.cards_at_end / n, 2),
            "final_turn_draw_rate": round(self.final_draws / f, 4) if f else None,
            "final_turn_scoring_legal_rate": round(self.final_scoring_legal / f, 4) if f else None,
            "final_turns": f,
        }
