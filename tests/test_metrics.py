"""The play figures of sim/metrics.py: counted from the games, and the same however chunks merge."""

from mapkit.sim.batch import run_games, summarize, pool_labels
from mapkit.sim.runner import game_seeds, play_game
from simhelp import rules, tiny_tables


def test_final_turns_are_one_per_seat_in_a_final_round():
    t = tiny_tables()
    r = rules()
    for seed in game_seeds(3, 20):
        g = play_game(t, r, ["route-focus", "random"], seed)
        f = g["final_turns"]
        if g["end"] == "final_round":
            assert f["turns"] == 2
        assert f["draws_while_scoring_legal"] <= f["scoring_legal"] <= f["turns"]
        assert sum(g["turns_by_seat"]) == g["turns"]
        assert len(g["hand_at_end"]) == 2 and all(h >= 0 for h in g["hand_at_end"])


def test_summary_figures_do_not_depend_on_chunking():
    t = tiny_tables()
    r = rules()
    a, _ = run_games(t, r, ["route-focus"] * 3, 40, seed=5, chunk=7)
    b, _ = run_games(t, r, ["route-focus"] * 3, 40, seed=5, chunk=40)
    sa = summarize(t, r, ["route-focus"] * 3, 5, a, pool_labels(t, r))
    sb = summarize(t, r, ["route-focus"] * 3, 5, b, pool_labels(t, r))
    keys = ("winner_score_mean", "winner_tickets_held_mean", "turns_per_seat_mean",
            "cards_in_hand_at_end_mean", "final_turn_draw_rate")
    assert {k: sa[k] for k in keys} == {k: sb[k] for k in keys}
    # the winner's mean score is at least the mean score of a seat
    assert sa["winner_score_mean"] >= sa["mean_score"]["total"]
    assert sa["turns_per_seat_mean"] * 3 == sa["turns"]["mean"] or abs(sa["turns_per_seat_mean"] * 3 - sa["turns"]["mean"]) < 0.05
