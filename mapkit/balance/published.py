"""What the published North America map does, as the balance report reads it: the band a ticket's
completion is judged against (`ticket_band`, from the bands `report.bands_at` measures on the
published map) and how the AI compares with expert people there (`TRUST`). No game is played here:
reference.py plays the published map, report.py judges a board against it."""

from __future__ import annotations

# How the AI compares with expert people, on the published map under the Mega rules (4 players).
# People: the 2025 World Boardgaming Championships' online semifinals and final, 27 four-player
# games on Board Game Arena (USA map, Mega rules): the winners' means. The expert: its winners'
# means over 300 self-play games, measured with
#   mapkit simulate north-america --rules mega --agents expert --players 4 --games 300 --seed 0 --format json
# (winner_score_mean, winner_tickets_held_mean, turns_per_seat_mean).
TRUST = {
    "people": {"who": "winners at the 2025 World Boardgaming Championships (online semifinals and final, 27 games)",
               "score": 157.1, "tickets": 6.4, "turns": 35.4},
    "expert": {"who": "the expert's winners in 300 four-player self-play games", "score": 148.9, "tickets": 7.0,
               "turns": 36.6,
               "command": "mapkit simulate north-america --rules mega --agents expert --players 4 --games 300 "
                          "--seed 0 --format json"},
}


def ticket_band(bands: dict, points: int) -> tuple[float, float]:
    """(too hard below, too easy above) for a ticket of `points`: the published tickets' completion
    trend at that length plus the lowest and highest of their residuals. A ticket longer or
    shorter than every published one is judged as the published extreme; the band is held inside
    [0.01, 0.99]."""
    a, b = bands["ticket_trend"]
    lo_pts, hi_pts = bands["ticket_points"]
    x = min(max(points, lo_pts), hi_pts)
    trend = a + b * x
    rmin, rmax = bands["ticket_spread"]
    return min(max(trend + rmin, 0.01), 0.99), min(max(trend + rmax, 0.01), 0.99)
