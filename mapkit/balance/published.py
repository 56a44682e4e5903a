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


def ticket_band(bands: dict, points: int, trains: int | None = None) -> tuple[float, float]:
    """(too hard below, too easy above) for a ticket of `points` on a board of `trains` trains a
    player: the published tickets' completion trend at the same share of a player's trains (a
    ticket of p points on 18 trains is judged as one of p × 45 / 18 published points; `trains`
    None, or a reference without its trains: as published points) plus the lowest and highest of
    their residuals. A ticket longer or shorter than every published one is judged as the
    published extreme; the band is held inside [0.01, 0.99]."""
    a, b = bands["ticket_trend"]
    lo_pts, hi_pts = bands["ticket_points"]
    x = points * bands["trains"] / trains if trains and bands.get("trains") else points
    x = min(max(x, lo_pts), hi_pts)
    trend = a + b * x
    rmin, rmax = bands["ticket_spread"]
    return min(max(trend + rmin, 0.01), 0.99), min(max(trend + rmax, 0.01), 0.99)
