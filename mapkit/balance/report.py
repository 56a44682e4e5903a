"""Balance reports: an agent panel plays seeded games per player count until its verdicts are
decided, and the report says what they mean for the board, each number with its interval.

How it plays (mapkit/balance/panel.py): per player count, a self-play table per panel agent and a
mixed table with seat rotation. By default it plays in rounds of `batch` games per player count
(split evenly over the tables) until every verdict it prints is decided or `max_games` per player
count is spent; with `games` it plays that many (rounded up to whole seat rotations) and stops.

Statistics (mapkit/balance/stats.py): ties split; Wilson intervals on rates, Student-t on means
(scores, the first seat's paired score edge, color use per game). Decisions are one-sided tests
against a cut-off: Holm across player counts for the seat verdicts, Benjamini–Hochberg across
subjects for the ticket, route and color lists, and the level divided by the most rounds the
report may play (Bonferroni over looks, so stopping early does not inflate false verdicts).
Printed intervals are 95 %.

report.json (one shape; the figures and the HTML page read it):

    {"board", "name", "rules", "seed", "panel": [agent names], "max_games" (per player count; null
     with a fixed game count), "games" (the fixed count or null), "batch",
     "cutoffs": {name: value},
     "runs": [one per player count, pooled over the panel's tables:
        {"players", "games", "agents" (the panel),
         "seat_win_share": [{"share", "low", "high"}] (one per seat, ties split),
         "first_seat_edge": {"win_share", "low", "high",        (seat 1's share minus 1/players)
                             "score", "score_low", "score_high"},  (seat 1 minus the others' mean, per game)
         "score_by_seat": [{"mean", "low", "high"}],
         "margins": {"edges": [...], "counts": [...], "mean"}   (winner minus runner-up; bins [e_i, e_i+1))
         "longest_decides": {"share", "low", "high"}   (games whose winners change without the longest-path bonus)
         "tickets": [{"ticket", "points", "offered", "kept", "keep_rate", "keep_low", "keep_high",
                      "held", "completed", "completion", "low", "high", "net_points_per_holding",
                      "holder_win_share", "holder_low", "holder_high"}]   (baseline win share: 1/players)
         "rarely_kept": [ticket labels whose keep rate is decided below the cut-off],
         "route_claim_share": {route_id: share of games in which it was claimed},
         "color_use": {color: {"claimed_share", "low", "high", "wilds_per_claim", "claims"}},
         "tables": [{"table" (label), "agents", "games", "seat_win_share", "first_seat_edge",
                     "agent_win_share": {agent: {"share", "low", "high"}} (per seat-game),
                     "completion": {ticket: [held, completed]}, "route_claims": {route: games},
                     "color_claimed_share": {color: share}}],
         and the older figures: "win_rate" (= seat win shares), "shared_wins", "seat_advantage"
         (true / false / null when undecided), "ticket_completion", "mean_score", "turns",
         "trains_left", "rules_gaps", "ends"}],
     "verdicts": [{"kind" (seat-advantage, ticket-too-hard, ticket-too-easy, route-rarely-claimed,
                   color-starved), "subject", "players",
                   "verdict" (robust / agent-dependent / undecided), "agents" (see verdicts.py),
                   "finding", "estimate", "low", "high", "cutoff", "games", "games_needed", "text"}],
     "deck_warnings": [...]}
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from mapkit.balance import stats as st
from mapkit.balance.panel import default_panel, panel_tables, rotation
from mapkit.balance.markdown import format_markdown, verdict_text
from mapkit.balance.verdicts import AGENT_DEPENDENT, KIND_ORDER, decided, judge
from mapkit.cards import derive_deck
from mapkit.model import Board
from mapkit.sim.batch import GameRunner, Totals, chunks, pool_labels, summarize
from mapkit.sim.rules import rules_for_board
from mapkit.sim.tables import GRAY, build_tables

# Cut-offs a verdict is judged against (what a designer would call a problem):
SEAT_CUT = 0.03        # the first seat wins 3 points of share more than its fair 1/players
TICKET_HARD = 0.15     # a ticket completed by fewer than 15 % of the seats holding it
TICKET_EASY = 0.90     # ... or by more than 90 %
ROUTE_RARE = 0.05      # a route claimed in fewer than 5 % of games
COLOR_STARVED = 0.15   # a color whose track is claimed 15 points of share less than all colored track
RARELY_KEPT = 0.20     # a ticket kept in fewer than 20 % of the offers that include it

DEFAULT_MAX_GAMES = 2000
DEFAULT_BATCH = 200


def balance_report(board: Board, players: list[int], games: Optional[int] = None, agents=None, seed: int = 0,
                   jobs: int = 1, preset: Optional[str] = None, variants: tuple = (), scheduler=None,
                   max_games: int = DEFAULT_MAX_GAMES, batch: int = DEFAULT_BATCH,
                   progress: Optional[Callable[[int, int, int], None]] = None) -> dict:
    """Play the panel (`agents`: a list or comma-separated names; default the panel) at each
    player count and judge the board. `progress(players, games done, games at most)`."""
    rules = rules_for_board(board, preset, variants)
    t = build_tables(board)
    labels = pool_labels(t, rules)
    points = [x[2] for name in rules.ticket_decks for x in t.ticket_decks.get(name, ())]
    if isinstance(agents, str):
        agents = [a.strip() for a in agents.split(",") if a.strip()]
    panel = list(dict.fromkeys(agents)) if agents else default_panel()
    tables = panel_tables(panel)
    rot = rotation(panel)
    if games:
        per_table_max = _round_up(math.ceil(games / len(tables)), rot)
        step_size = per_table_max
    else:
        per_table_max = max(rot, max_games // len(tables) // rot * rot)
        step_size = min(per_table_max, _round_up(math.ceil(batch / len(tables)), rot))
    looks = math.ceil(per_table_max / step_size)
    ctx = _Context(board, t, rules, labels, points, panel, tables, alpha=st.ALPHA / looks, counts=len(players))
    runs, evidence = [], {}
    with GameRunner(jobs, scheduler) as runner:
        for n in players:
            tot = [Totals(n) for _ in tables]
            played = 0
            while played < per_table_max:
                step = min(step_size, per_table_max - played)
                work, owner = [], []
                for k, tb in enumerate(tables):
                    items = chunks(t, rules, n, tb.games(seed, n, played, step))
                    work += items
                    owner += [k] * len(items)
                for k, (part, _) in zip(owner, runner.map(work)):
                    tot[k].merge(part)
                    if progress:
                        progress(n, sum(x.games for x in tot), per_table_max * len(tables))
                played += step
                ev = ctx.evidence(n, tot)
                # Holm across player counts is not known until every count has played: stop on
                # its strictest step (Bonferroni), which Holm's final verdict can only relax
                if all(decided(v) for v in ctx.verdicts({n: ev}, stopping=True)):
                    break
            evidence[n] = ev
            runs.append(ctx.run(n, tot))
    verdicts = ctx.verdicts(evidence)
    for run in runs:
        seat = [v for v in verdicts if v["kind"] == "seat-advantage" and v["players"] == run["players"]]
        run["seat_advantage"] = seat[0]["finding"] if seat else None
    deck = derive_deck(board) if board.deck is None else None
    return {
        "board": board.id, "name": board.name, "rules": rules.name, "seed": seed, "panel": panel,
        "source": board.source, "players": list(players), "preset": preset, "variants": list(variants),
        "max_games": None if games else per_table_max * len(tables), "games": games or None, "batch": batch,
        "cutoffs": {"seat": SEAT_CUT, "ticket_hard": TICKET_HARD, "ticket_easy": TICKET_EASY,
                    "route_rare": ROUTE_RARE, "color_starved": COLOR_STARVED, "rarely_kept": RARELY_KEPT},
        "runs": runs, "verdicts": verdicts,
        "deck_warnings": list(deck.warnings) if deck else [],
    }


def _round_up(x: int, m: int) -> int:
    return max(m, -(-x // m) * m)


def _r(x, nd=4):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else round(float(x), nd)


class _Context:
    """What every analysis of one report shares: the board's tables, the panel, the levels."""

    def __init__(self, board, t, rules, labels, points, panel, tables, alpha, counts):
        self.board, self.t, self.rules, self.labels, self.points = board, t, rules, labels, points
        self.panel, self.tables, self.alpha, self.counts = panel, tables, alpha, counts
        self.colors = {c: name for c, name in enumerate(t.color_ids)} | {GRAY: "gray"}

    # ------------------------------------------------------------------ per player count

    def _locked(self, n: int, r: int) -> bool:
        return locked_double(self.t, self.rules, n, r)

    def available(self, n: int) -> dict[int, int]:
        return available_track(self.t, self.rules, n)

    def route_subjects(self, n: int, tot: Totals) -> dict[str, int]:
        """Games in which each route (or locked double, as one subject) was claimed."""
        t = self.t
        out = {}
        for r in range(t.n_routes):
            if self._locked(n, r):
                name = f"{t.double_group[r]} (either track)"
                out[name] = out.get(name, 0) + tot.claims.get(r, 0)  # one track per game at most
            else:
                out[t.route_ids[r]] = tot.claims.get(r, 0)
        return out

    def color_diffs(self, n: int, tot: Totals) -> dict[str, tuple[float, float, float, float]]:
        """Per color: (mean claimed share, sum, sum of squares of the per-game difference from the
        claimed share of all colored track). Gray is no card color: it is left out of both, since
        gray routes, payable with any color, are claimed more and would make every color look short."""
        avail = self.available(n)
        a_all = sum(a for c, a in avail.items() if c != GRAY)
        s_all, q_all = tot.total_units
        out = {}
        for c, a in avail.items():
            if c == GRAY or a == 0:
                continue
            s, q, x = tot.color_units.get(c, [0, 0, 0])
            total = s / a - s_all / a_all
            squares = q / a ** 2 - 2 * x / (a * a_all) + q_all / a_all ** 2
            out[self.colors[c]] = (s / a / max(1, tot.games), total, squares)
        return out

    def evidence(self, n: int, tot: list[Totals]) -> dict:
        """Every comparison at n players: pooled, and per panel agent's self-play table."""
        pooled = _pool(n, tot)
        by_agent = {tb.agents[0]: x for tb, x in zip(self.tables, tot) if not tb.mixed}
        return {"pooled": self._tests(n, pooled), "agents": {a: self._tests(n, x) for a, x in by_agent.items()},
                "games": pooled.games, "tables": len(self.tables)}

    def _tests(self, n: int, tot: Totals) -> dict:
        """kind -> subject -> (estimate, low, high, p_above, p_below, sd, per_game, cut, flag_above)."""
        g = max(1, tot.games)
        out = {}
        share0 = tot.win_shares[0] / g if tot.players else 0
        fair = 1 / n
        lo, hi = st.wilson(share0 * g, g)
        pa, pb = st.p_rate_beyond(share0 * g, g, fair + SEAT_CUT)
        if n > 1:  # a solo game has no seats to compare
            out["seat-advantage"] = {"first seat": (share0 - fair, lo - fair, hi - fair, pa, pb,
                                                    _null_sd(fair + SEAT_CUT), 1.0, SEAT_CUT, True, share0,
                                                    fair + SEAT_CUT)}
        held = {i: v for i, v in tot.tickets.items() if v[0] > 0}
        idx = sorted(held)
        k = [held[i][1] for i in idx]
        m = [held[i][0] for i in idx]
        for kind, cut, above in (("ticket-too-hard", TICKET_HARD, False), ("ticket-too-easy", TICKET_EASY, True)):
            pa, pb = st.p_counts_beyond(k, m, cut)
            sub = {}
            for j, i in enumerate(idx):
                p = k[j] / m[j]
                lo, hi = st.wilson(k[j], m[j])
                sub[self.labels[i]] = (p, lo, hi, pa[j], pb[j], _null_sd(cut), m[j] / g, cut, above, p, cut)
            out[kind] = sub
        routes = self.route_subjects(n, tot)
        names = sorted(routes)
        pa, pb = st.p_counts_beyond([routes[x] for x in names], [g] * len(names), ROUTE_RARE)
        sub = {}
        for j, name in enumerate(names):
            p = routes[name] / g
            lo, hi = st.wilson(routes[name], g)
            sub[name] = (p, lo, hi, pa[j], pb[j], _null_sd(ROUTE_RARE), 1.0, ROUTE_RARE, False, p, ROUTE_RARE)
        out["route-rarely-claimed"] = sub
        sub = {}
        for name, (share, total, squares) in self.color_diffs(n, tot).items():
            mean, lo, hi = st.mean_interval(total, squares, tot.games)
            pa, pb = st.p_mean_beyond(total, squares, tot.games, -COLOR_STARVED)
            sub[name] = (mean, lo, hi, pa, pb, st.mean_sd(total, squares, tot.games), 1.0, -COLOR_STARVED, False,
                         mean, -COLOR_STARVED)
        out["color-starved"] = sub
        return out

    # ------------------------------------------------------------------ verdicts

    def verdicts(self, evidence: dict, stopping: bool = False) -> list[dict]:
        """Verdicts for the player counts in `evidence` (n -> `evidence(...)`). With `stopping`,
        the seat tests use Bonferroni over every player count the report plays."""
        out = []
        seat_levels = self._seat_adjusted(evidence, stopping)
        for n, ev in sorted(evidence.items()):
            for kind in KIND_ORDER:
                pooled = ev["pooled"].get(kind, {})
                if not pooled:
                    continue
                if kind == "seat-advantage":
                    adj = {"pooled": seat_levels[n]["pooled"]}
                    adj.update({a: seat_levels[n][a] for a in ev["agents"]})
                else:
                    adj = {"pooled": _bh_pair(pooled)}
                    adj.update({a: _bh_pair(e.get(kind, {})) for a, e in ev["agents"].items()})
                for subject, x in pooled.items():
                    est, above = x[0], x[8]
                    d_pool = st.decide(*adj["pooled"][subject], above, self.alpha)
                    agents = {}
                    for a, e in ev["agents"].items():
                        y = e.get(kind, {}).get(subject)
                        if y is None:  # never held at that table: says nothing either way
                            continue
                        agents[a] = (st.decide(*adj[a][subject], above, self.alpha), (y[0] > y[7]) == above)
                    j = judge(d_pool, agents)
                    beyond = (est > x[7]) == above
                    if kind != "seat-advantage" and j["finding"] is not True and not beyond and not (
                            j["verdict"] == AGENT_DEPENDENT):
                        continue  # a list shows the subjects that are, or may be, problems
                    v = {"kind": kind, "subject": subject, "players": n, **j,
                         "estimate": _r(est), "low": _r(x[1]), "high": _r(x[2]), "cutoff": x[7], "games": ev["games"],
                         "games_needed": None}
                    if not decided(v):
                        v["games_needed"] = self._needed(x, ev, kind, subject)
                    v["text"] = verdict_text(v)
                    out.append(v)
        return out

    def _needed(self, x, ev, kind, subject) -> Optional[int]:
        """Games per player count an undecided verdict would need if the effect is what it looks."""
        tests = self.counts if kind == "seat-advantage" else max(1, len(ev["pooled"].get(kind, {})))
        needs = [st.games_needed(x[9], x[5], x[10], x[6], ev["games"], alpha=self.alpha, tests=tests)]
        for e in ev["agents"].values():
            y = e.get(kind, {}).get(subject)
            if y is not None and ((y[0] > y[7]) != (x[0] > x[7])):
                # the contradicting agent's table gets 1/tables of every round
                per = st.games_needed(y[9], y[5], y[10], y[6], ev["games"] // ev["tables"], alpha=self.alpha, tests=tests)
                needs.append(None if per is None else per * ev["tables"])
        if any(v is None for v in needs):
            return None
        return max(needs)

    def _seat_adjusted(self, evidence, stopping):
        """n -> scope -> subject -> (adjusted p_above, adjusted p_below), Holm across player counts."""
        scopes = ["pooled"] + sorted({a for ev in evidence.values() for a in ev["agents"]})
        out = {n: {} for n in evidence}
        ns = sorted(evidence)
        for scope in scopes:
            vals = []
            for n in ns:
                e = evidence[n]["pooled"] if scope == "pooled" else evidence[n]["agents"].get(scope, {})
                vals.append(e.get("seat-advantage", {}).get("first seat"))
            have = [i for i, v in enumerate(vals) if v is not None]
            if stopping:
                adj_a = [min(1.0, vals[i][3] * self.counts) for i in have]
                adj_b = [min(1.0, vals[i][4] * self.counts) for i in have]
            else:
                # Holm over the player counts played; the family is every count in the report
                pa = [vals[i][3] for i in have] + [1.0] * (self.counts - len(have))
                pb = [vals[i][4] for i in have] + [1.0] * (self.counts - len(have))
                adj_a, adj_b = st.holm(pa)[:len(have)], st.holm(pb)[:len(have)]
            for j, i in enumerate(have):
                out[ns[i]][scope] = {"first seat": (adj_a[j], adj_b[j])}
        return out

    # ------------------------------------------------------------------ the run's figures

    def run(self, n: int, tot: list[Totals]) -> dict:
        pooled = _pool(n, tot)
        labels = self.labels
        summary = summarize(self.t, self.rules, [], 0, pooled, labels)
        g = max(1, pooled.games)
        fig = _seat_figures(pooled)
        score = []
        for p in range(n):
            mean, lo, hi = st.mean_interval(pooled.score_sum[p], pooled.score_sq[p], pooled.games)
            score.append({"mean": _r(mean, 2), "low": _r(lo, 2), "high": _r(hi, 2)})
        margins = [(m, c) for m, c in pooled.margins.items()]
        top = max((m for m, _ in margins), default=0)
        width = 5 if top > 30 else 1  # bins then start at multiples of 5 either way (the Markdown reads them)
        edges = list(range(0, top + width + 1, width))
        counts = np.histogram([m for m, _ in margins], bins=edges, weights=[c for _, c in margins])[0] if margins else []
        mmean = sum(m * c for m, c in margins) / g
        lo, hi = st.wilson(pooled.longest_decides, pooled.games)
        tickets = self._ticket_table(n, pooled)
        pa, pb = st.p_counts_beyond([x["kept"] for x in tickets], [x["offered"] for x in tickets], RARELY_KEPT)
        adj = st.bh(pb)
        rarely = [x["ticket"] for x, p in zip(tickets, adj) if p < self.alpha]
        avail = self.available(n)
        colors = {}
        for c, a in sorted(avail.items(), key=lambda kv: self.colors[kv[0]]):
            if a == 0:
                continue
            s, q, _ = pooled.color_units.get(c, [0, 0, 0])
            mean, lo_c, hi_c = st.mean_interval(s / a, q / a ** 2, pooled.games)
            k, w = pooled.claim_wilds.get(c, [0, 0])
            colors[self.colors[c]] = {"claimed_share": _r(mean), "low": _r(lo_c), "high": _r(hi_c),
                                      "wilds_per_claim": _r(w / k, 3) if k else None, "claims": k}
        return {
            "players": n, "games": pooled.games, "agents": self.panel,
            **fig,
            "score_by_seat": score,
            "margins": {"edges": edges, "counts": [int(c) for c in counts], "mean": _r(mmean, 2)},
            "longest_decides": {"share": _r(pooled.longest_decides / g), "low": _r(lo), "high": _r(hi)},
            "tickets": tickets, "rarely_kept": rarely,
            "route_claim_share": {self.t.route_ids[r]: _r(pooled.claims.get(r, 0) / g) for r in range(self.t.n_routes)},
            "color_use": colors,
            "tables": [self._table(n, tb, x) for tb, x in zip(self.tables, tot)],
            "win_rate": [x["share"] for x in fig["seat_win_share"]], "shared_wins": pooled.shared_wins,
            "ticket_completion": summary["ticket_completion"], "mean_score": summary["mean_score"],
            "turns": summary["turns"], "trains_left": summary["trains_left"],
            "rules_gaps": summary["rules_gaps"], "ends": summary["ends"],
        }

    def _ticket_table(self, n: int, tot: Totals) -> list[dict]:
        factor = self.rules.failed_ticket_factor
        out = []
        for i, label in enumerate(self.labels):
            h, c = tot.tickets.get(i, [0, 0])
            o, k = tot.offers.get(i, [0, 0])
            if not (h or o):
                continue
            pts = self.points[i]
            lo, hi = st.wilson(c, h)
            klo, khi = st.wilson(k, o)
            w = tot.ticket_win_units.get(i, 0) / tot.unit
            wlo, whi = st.wilson(w, h)
            out.append({
                "ticket": label, "points": pts, "offered": o, "kept": k,
                "keep_rate": _r(k / o) if o else None, "keep_low": _r(klo) if o else None, "keep_high": _r(khi) if o else None,
                "held": h, "completed": c, "completion": _r(c / h) if h else None,
                "low": _r(lo) if h else None, "high": _r(hi) if h else None,
                # what holding it was worth on average: its points when completed, the failed-ticket
                # rule's (standard: minus its points) when not; transit's two-valued tickets use the first value
                "net_points_per_holding": _r((c * pts + (h - c) * factor * pts) / h, 2) if h else None,
                "holder_win_share": _r(w / h) if h else None, "holder_low": _r(wlo) if h else None,
                "holder_high": _r(whi) if h else None,
            })
        return out

    def _table(self, n: int, tb, tot: Totals) -> dict:
        agent_share = {}
        for a in tb.agents:
            seats = tot.agent_seats.get(a, 0)
            w = tot.agent_win_units.get(a, 0) / tot.unit
            lo, hi = st.wilson(w, seats)
            agent_share[a] = {"share": _r(w / seats) if seats else None, "low": _r(lo), "high": _r(hi)}
        return {
            "table": tb.label, "agents": list(tb.agents), "mixed": tb.mixed, "games": tot.games,
            **_seat_figures(tot), "agent_win_share": agent_share,
            "completion": {self.labels[i]: v for i, v in sorted(tot.tickets.items())},
            "route_claims": self.route_subjects(n, tot),
            "color_claimed_share": {c: _r(v[0]) for c, v in self.color_diffs(n, tot).items()},
        }


def locked_double(t, rules, n: int, r: int) -> bool:
    """Only one track of route r's double may be claimed at n players."""
    return t.route_partner[r] >= 0 and not (n >= rules.double_routes_min_players
                                             or t.double_group[r] in rules.double_exceptions)


def available_track(t, rules, n: int) -> dict[int, int]:
    """Track of each color (GRAY included) in half-spaces, each double counted once where only one
    of its tracks may be claimed: half its length to each track's color (the units runner.py
    credits claims in, so a color's claimed share never passes 1)."""
    out: dict[int, int] = {}
    for r in range(t.n_routes):
        c = t.route_color[r]
        out[c] = out.get(c, 0) + (t.route_len[r] if locked_double(t, rules, n, r) else 2 * t.route_len[r])
    return out


def _null_sd(cut: float) -> float:
    """Per-observation sd of a rate at the cut-off: the one the score test (and Wilson) uses, and
    the right one for sizing a test against that cut-off (never 0 when no success was seen yet)."""
    return math.sqrt(cut * (1 - cut))


def _pool(n: int, tot: list[Totals]) -> Totals:
    pooled = Totals(n)
    for x in tot:
        pooled.merge(x)
    return pooled


def _seat_figures(tot: Totals) -> dict:
    n, g = tot.players, max(1, tot.games)
    seats = []
    for w in tot.win_shares:
        lo, hi = st.wilson(w, tot.games)
        seats.append({"share": _r(w / g), "low": _r(lo), "high": _r(hi)})
    fair = 1 / n
    edge = {"win_share": _r(seats[0]["share"] - fair), "low": _r(seats[0]["low"] - fair),
            "high": _r(seats[0]["high"] - fair), "score": None, "score_low": None, "score_high": None}
    if n > 1:
        d = n - 1  # edge_sum holds (n-1) * (seat 1 minus the others' mean)
        mean, lo, hi = st.mean_interval(tot.edge_sum / d, tot.edge_sq / d ** 2, tot.games)
        edge.update(score=_r(mean, 2), score_low=_r(lo, 2), score_high=_r(hi, 2))
    return {"seat_win_share": seats, "first_seat_edge": edge}


def _bh_pair(tests: dict) -> dict:
    """subject -> (BH-adjusted p_above, BH-adjusted p_below) over every subject of one kind."""
    names = list(tests)
    a = st.bh([tests[x][3] for x in names])
    b = st.bh([tests[x][4] for x in names])
    return {x: (a[i], b[i]) for i, x in enumerate(names)}


__all__ = ["balance_report", "format_markdown", "write_report", "available_track", "locked_double"]


def write_report(r: dict, out_dir: Path, board: Optional[Board] = None) -> dict:
    """Write report.md and report.json (and, where the figures modules exist, the PNGs and
    report.html) into out_dir; return the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / "report.md"
    js = out_dir / "report.json"
    markdown = format_markdown(r)
    _atomic_write(md, markdown)
    _atomic_write(js, json.dumps(r, indent=2) + "\n")
    files = {"markdown": str(md), "json": str(js)}
    # ---- the figures: PNGs and the self-contained report.html ---------------------------------
    # mapkit.balance.figures.write_figures(report, board, out_dir) and
    # mapkit.balance.html.write_html(report, board, out_dir, markdown); called when they exist.
    if board is not None:
        try:
            from mapkit.balance import figures, html
        except ImportError:
            figures = html = None
        if figures is not None:
            made = figures.write_figures(r, board, out_dir)
            if isinstance(made, dict):
                files.update({k: str(v) for k, v in made.items()})
            else:  # a list of the PNGs, named by what they show
                files.update({Path(v).name: str(v) for v in made})
            page = html.write_html(r, board, out_dir, markdown)
            if page is not None:
                files["html"] = str(page)
    # ---------------------------------------------------------------------------------------------
    return files


def _atomic_write(path: Path, text: str) -> None:
    """Write to a temporary file and rename (mapkit.outputs), so a full disk never leaves a half report."""
    from mapkit.outputs import atomic_write_text

    atomic_write_text(path, text)

