"""Final scoring: routes, tickets, longest path and Globetrotter bonuses, winners and tie-breaks.

- Tickets: connected by the seat's own routes (with `shared_team_tickets`, by its team's routes)
  add their points; the others add `failed_ticket_factor` × points (−1 standard, 0 family).
- Longest continuous path: the longest trail of the seat's own routes; every tied seat scores.
- Globetrotter: most completed tickets; every tied seat scores.
- Winner: most points; then most completed tickets; then holding the longest-path bonus; seats
  still tied share the win. With teams, team totals decide and the same tie-breaks apply to teams.
"""

from __future__ import annotations

from mapkit.sim.engine import State, _find
from mapkit.sim.longest import longest_trail


def _team_parent(s: State, p: int) -> list[int]:
    """Union-find of the routes of p's whole team."""
    t = s.t
    parent = list(range(t.n_stations))
    for q in range(s.players):
        if s.team_of[q] == s.team_of[p]:
            for r in s.claims[q]:
                a, b = _find(parent, t.route_a[r]), _find(parent, t.route_b[r])
                if a != b:
                    parent[a] = b
    return parent


def ticket_results(s: State, p: int) -> list[tuple[int, bool]]:
    """(ticket index in the pool, completed) for each ticket seat p holds."""
    parent = _team_parent(s, p) if s.rules.shared_team_tickets and s.rules.teams else s.parent[p]
    out = []
    for i in s.tickets[p]:
        a, b, _ = s.ticket_pool[i]
        out.append((i, _find(parent, a) == _find(parent, b)))
    return out


def longest_path(s: State, p: int) -> int:
    t = s.t
    return longest_trail([(t.route_a[r], t.route_b[r], t.route_len[r]) for r in s.claims[p]]).length


def final_scores(s: State) -> list[dict]:
    rules = s.rules
    rows = []
    for p in range(s.players):
        results = ticket_results(s, p)
        won = sum(s.ticket_pool[i][2] for i, ok in results if ok)
        lost = sum(s.ticket_pool[i][2] for i, ok in results if not ok)
        rows.append({
            "seat": p, "routes": s.route_score[p], "tickets_won": won,
            "tickets_lost": lost * rules.failed_ticket_factor,
            "completed": sum(ok for _, ok in results), "held": len(results),
            "longest_path": longest_path(s, p), "longest_bonus": 0, "globetrotter_bonus": 0,
            "trains_left": s.trains[p],
        })
    if rules.longest_path_bonus:
        best = max(r["longest_path"] for r in rows)
        for r in rows:
            if r["longest_path"] == best and best > 0:
                r["longest_bonus"] = rules.longest_path_bonus
    if rules.globetrotter_bonus:
        best = max(r["completed"] for r in rows)
        for r in rows:
            if r["completed"] == best and best > 0:
                r["globetrotter_bonus"] = rules.globetrotter_bonus
    for r in rows:
        r["bonuses"] = r["longest_bonus"] + r["globetrotter_bonus"]
        r["total"] = r["routes"] + r["tickets_won"] + r["tickets_lost"] + r["bonuses"]
    return rows


def winners(s: State, rows: list[dict]) -> list[int]:
    """Seats that win (several when the tie-breaks leave a tie; a whole team when teams play)."""
    if s.rules.teams:
        teams = sorted({s.team_of[p] for p in range(s.players)})
        key = {}
        for team in teams:
            members = [r for r in rows if s.team_of[r["seat"]] == team]
            key[team] = (sum(r["total"] for r in members), sum(r["completed"] for r in members),
                         any(r["longest_bonus"] for r in members))
        top = max(key.values())
        return [r["seat"] for r in rows if key[s.team_of[r["seat"]]] == top]
    key = {r["seat"]: (r["total"], r["completed"], r["longest_bonus"] > 0) for r in rows}
    top = max(key.values())
    return [p for p, k in key.items() if k == top]
