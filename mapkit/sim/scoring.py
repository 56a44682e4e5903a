"""Final scoring: routes, tickets, longest path and Globetrotter bonuses, winners and tie-breaks.

Each row also carries `results`: (ticket index in the pool, completed) for every ticket held.

- Tickets: connected by the seat's own routes (with `shared_team_tickets`, by its team's routes)
  add their points; the others add `failed_ticket_factor` × points (−1 standard, 0 family). In the
  transit expansion a ticket that scores neither value costs the lower of its two (003), times the
  same factor: under `family` an unfinished two-valued ticket scores zero too.
- Longest continuous path: the longest trail of the seat's own routes; every tied seat scores.
- Globetrotter: most completed tickets; every tied seat scores.
- Winner: most points; then most completed tickets; then the longer continuous path (the reading
  is in `RuleSet`'s docstring: it agrees with 002's "earned the longest continuous path bonus"
  whenever a tied seat holds the bonus, and also decides 1910 and Cities games, which have no
  bonus); seats still tied share the win. With teams, team totals decide, then the team's completed
  tickets, then the longest path of any member.
"""

from __future__ import annotations

from mapkit.sim.engine import BUS, EMPTY, TRAIN, State, _find
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


def ticket_outcomes(s: State, p: int, transit=None) -> list[tuple[int, bool, bool, bool]]:
    """(ticket index in the pool, by own routes, by bus chain, by train chain) for each ticket
    seat p holds. Own routes are the team's with shared team tickets; `transit` is
    `_transit_components(s)` in the transit expansion, else None."""
    parent = _team_parent(s, p) if s.rules.shared_team_tickets and s.rules.teams else s.parent[p]
    out = []
    for i in s.tickets[p]:
        a, b = s.ticket_pool[i][0], s.ticket_pool[i][1]
        auto = _find(parent, a) == _find(parent, b)
        bus = train = False
        if transit is not None:
            bus = transit[BUS].get(a) is not None and transit[BUS].get(a) == transit[BUS].get(b)
            train = transit[TRAIN].get(a) is not None and transit[TRAIN].get(a) == transit[TRAIN].get(b)
        out.append((i, auto, bus, train))
    return out


def _transit_components(s: State) -> tuple[dict, dict]:
    """For bus and for train stations: station → component id over adjacent stations that both
    have a station of that type (anyone's)."""
    t = s.t
    out = []
    for kind in (BUS, TRAIN):
        comp: dict[int, int] = {}
        for start in range(t.n_stations):
            if s.markers[start][kind] == EMPTY or start in comp:
                continue
            comp[start] = start
            stack = [start]
            while stack:
                n = stack.pop()
                for r in t.routes_at[n]:
                    m = t.route_b[r] if t.route_a[r] == n else t.route_a[r]
                    if m not in comp and s.markers[m][kind] != EMPTY:
                        comp[m] = start
                        stack.append(m)
        out.append(comp)
    return tuple(out)


def longest_path(s: State, p: int) -> int:
    t = s.t
    return longest_trail([(t.route_a[r], t.route_b[r], t.route_len[r]) for r in s.claims[p]]).length


def final_scores(s: State) -> list[dict]:
    rules = s.rules
    transit = _transit_components(s) if rules.transit else None
    rows = []
    for p in range(s.players):
        won = lost = completed = bus = train = 0
        held = len(s.tickets[p])
        results = []
        for i, auto, by_bus, by_train in ticket_outcomes(s, p, transit):
            points, transit_points = s.ticket_pool[i][2], s.ticket_pool[i][3]
            results.append((i, auto or by_bus or by_train))
            bus += by_bus
            train += by_train
            if auto:
                won += points
            if by_bus or by_train:
                won += transit_points
            if auto or by_bus or by_train:
                completed += 1
            else:
                if transit is not None and transit_points:
                    points = min(points, transit_points)  # 003: the lower of the two values
                lost += points * rules.failed_ticket_factor
        rows.append({
            "seat": p, "routes": s.route_score[p], "stations": s.station_score[p], "tickets_won": won,
            "tickets_lost": lost, "completed": completed, "held": held, "bus_tickets": bus, "train_tickets": train,
            "longest_path": longest_path(s, p), "longest_bonus": 0, "globetrotter_bonus": 0, "transit_bonus": 0,
            "trains_left": s.trains[p], "results": results,
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
    if rules.transit:
        for key in ("bus_tickets", "train_tickets"):
            best = max(r[key] for r in rows)
            for r in rows:
                if r[key] == best and best > 0:
                    r["transit_bonus"] += rules.transit_ticket_bonus
    for r in rows:
        r["bonuses"] = r["longest_bonus"] + r["globetrotter_bonus"] + r["transit_bonus"]
        r["total"] = r["routes"] + r["stations"] + r["tickets_won"] + r["tickets_lost"] + r["bonuses"]
    return rows


def winners(s: State, rows: list[dict]) -> list[int]:
    """Seats that win (several when the tie-breaks leave a tie; a whole team when teams play)."""
    if s.rules.teams:
        teams = sorted({s.team_of[p] for p in range(s.players)})
        key = {}
        for team in teams:
            members = [r for r in rows if s.team_of[r["seat"]] == team]
            key[team] = (sum(r["total"] for r in members), sum(r["completed"] for r in members),
                         max(r["longest_path"] for r in members))
        top = max(key.values())
        return [r["seat"] for r in rows if key[s.team_of[r["seat"]]] == top]
    key = {r["seat"]: (r["total"], r["completed"], r["longest_path"]) for r in rows}
    top = max(key.values())
    return [p for p, k in key.items() if k == top]
