"""Balance reports: an agent panel plays seeded games per player count, the board is judged against
what the published map does, and the report says what to change, each number with its interval.

How it plays (mapkit/balance/panel.py): per player count, a self-play table per panel agent and a
mixed table with seat rotation; every game of the budget is played (`games`, else `max_games`, per
player count, rounded to whole seat rotations; `batch` only paces the progress calls).

Cut-offs: with `reference` (reference.py: the published North America map played by the same
panel), each subject's cut-off is the end of the range the published map spans (`bands_at`,
published.ticket_band); without it, the fixed cut-offs below.

Statistics (mapkit/balance/stats.py): ties split; Wilson intervals and score tests on rates,
Student-t on means. Within a list (a kind at one player count) Benjamini–Hochberg at 5 % decides
at its per-test level R q / m (stats.bh_level); the first seat at 5 % / player counts a side. A
verdict's interval is printed at the level it was decided at, so it clears its cut-off exactly when
decided. Verdicts (verdicts.py): robust, agent-dependent, agents-disagree, needs-games.

Causes (causes.py): the decided findings grouped, each with the smallest change; the first
`tested` of them played on the same seeds (TEST_GAMES games). Strategies (strategies.py, with
`strategies`): restricted play and skill.

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
     "verdicts": [{"kind" (seat-advantage, color-starved, ticket-too-hard, ticket-holders-lose,
                   route-rarely-claimed, ticket-too-easy), "subject", "players",
                   "verdict" (robust / agent-dependent / agents-disagree / needs-games), "agents",
                   "against" (see verdicts.py), "by_agent": {agent: estimate}, "finding", "estimate",
                   "low", "high", "confidence" (of that interval), "cutoff", "games", "games_needed", "text"}],
     "deck_warnings": [...],
     "source", "players", "preset", "variants" (the options of the run: report.md's Regenerate line),
     "decision": {"fdr", "seat_level", "games_cap"}, "reference" (reference.py, or null),
     "bands": {players: what this board itself spans, the shape a reference keeps},
     "causes": [{"kind", "subjects", "players", "change", "why", "robust",
                 "tested": {"figure", "players", "games", "before", "after", "low", "high"}, or null when
                 the change was not played (no map change, or past the first TESTED_CAUSES that have one)}],
     "strategies" (with strategies=True: {"games", "players", "restricted": [...], "skill": [...]})}
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from mapkit.balance import causes
from mapkit.balance.published import ticket_band
from mapkit.balance import stats as st
from mapkit.balance.panel import default_panel, panel_tables, rotation
from mapkit.balance.markdown import format_markdown, verdict_text
from mapkit.balance.verdicts import KIND_ORDER, NEEDS_GAMES, judge
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
HOLDERS_LOSE = 0.5     # the seats holding a ticket win less than half their fair 1/players

BAND_MIN_HELD = 30     # a published ticket counts in the reference band once held this often
TESTED_CAUSES = 3      # causes whose change the report plays
TEST_GAMES = 400       # games per change (and for the board on the same seeds)
GAMES_CAP_FACTOR = 5   # "needs games" only while the games it needs are within 5x this report's budget

DEFAULT_MAX_GAMES = 2000
DEFAULT_BATCH = 200


def balance_report(board: Board, players: list[int], games: Optional[int] = None, agents=None, seed: int = 0,
                   jobs: int = 1, preset: Optional[str] = None, variants: tuple = (), scheduler=None,
                   max_games: int = DEFAULT_MAX_GAMES, batch: int = DEFAULT_BATCH,
                   progress: Optional[Callable[[int, int, int], None]] = None,
                   reference: Optional[dict] = None, tested: int = TESTED_CAUSES, strategies: bool = False) -> dict:
    """Play the panel (`agents`: a list or comma-separated names; default the panel) at each
    player count and judge the board. `progress(players, games done, games at most)`.

    `reference`: the published map's bands (reference.py) the verdicts are judged against (None:
    the fixed cut-offs); `tested`: how many causes have their change played (TEST_GAMES games at
    the player count where they show, twice: the board and the change on the same seeds);
    `strategies`: also play the restricted-play and skill tables (strategies.py)."""
    rules = rules_for_board(board, preset, variants)
    t = build_tables(board)
    labels = pool_labels(t, rules)
    points = [x[2] for name in rules.ticket_decks for x in t.ticket_decks.get(name, ())]
    if isinstance(agents, str):
        agents = [a.strip() for a in agents.split(",") if a.strip()]
    panel = list(dict.fromkeys(agents)) if agents else default_panel()
    tables = panel_tables(panel)
    rot = rotation(panel)
    budget = games or max_games
    per_table = _round_up(math.ceil(budget / len(tables)), rot) if games else max(rot, budget // len(tables) // rot * rot)
    step_size = min(per_table, _round_up(math.ceil(batch / len(tables)), rot))
    ctx = _Context(board, t, rules, labels, points, panel, tables, counts=len(players), reference=reference,
                   games_cap=GAMES_CAP_FACTOR * per_table * len(tables))
    runs, evidence, totals = [], {}, {}
    with GameRunner(jobs, scheduler) as runner:
        for n in players:
            tot = [Totals(n) for _ in tables]
            played = 0
            while played < per_table:  # steps only pace the progress line: every game is played
                step = min(step_size, per_table - played)
                work, owner = [], []
                for k, tb in enumerate(tables):
                    items = chunks(t, rules, n, tb.games(seed, n, played, step))
                    work += items
                    owner += [k] * len(items)
                for k, (part, _) in zip(owner, runner.map(work)):
                    tot[k].merge(part)
                    if progress:
                        progress(n, sum(x.games for x in tot), per_table * len(tables))
                played += step
            evidence[n] = ctx.evidence(n, tot)
            totals[n] = tot
            runs.append(ctx.run(n, tot))
    verdicts = ctx.verdicts(evidence)
    bands = {str(n): ctx.bands_at(n, tot) for n, tot in totals.items()}
    for run in runs:
        seat = [v for v in verdicts if v["kind"] == "seat-advantage" and v["players"] == run["players"]]
        run["seat_advantage"] = seat[0]["finding"] if seat else None
    deck = derive_deck(board) if board.deck is None else None
    out = {
        "board": board.id, "name": board.name, "rules": rules.name, "seed": seed, "panel": panel,
        "source": board.source, "players": list(players), "preset": preset, "variants": list(variants),
        "max_games": None if games else per_table * len(tables), "games": games or None, "batch": batch,
        "cutoffs": {"seat": SEAT_CUT, "ticket_hard": TICKET_HARD, "ticket_easy": TICKET_EASY,
                    "route_rare": ROUTE_RARE, "color_starved": COLOR_STARVED, "rarely_kept": RARELY_KEPT,
                    "holders_lose": HOLDERS_LOSE},
        "decision": {"fdr": st.ALPHA, "seat_level": st.ALPHA / len(players),
                     "games_cap": ctx.games_cap},
        "reference": reference,
        "bands": bands, "runs": runs, "verdicts": verdicts,
        "deck_warnings": list(deck.warnings) if deck else [],
    }
    out["causes"] = _causes(out, board, panel, seed, jobs, preset, variants, scheduler, tested) if players else []
    if strategies:
        from mapkit.balance.strategies import strategy_figures

        out["strategies"] = strategy_figures(board, panel, seed, jobs, preset, variants, scheduler)
    return out


def _causes(report: dict, board: Board, panel, seed, jobs, preset, variants, scheduler, tested: int) -> list[dict]:
    """The report's causes (causes.py), the first `tested` of them that have a change played on
    the same seeds as the board (TEST_GAMES games at the player count where the cause shows first)."""
    found = causes.find_causes(report, causes.board_data(board))
    plain: dict[int, dict] = {}
    done = 0
    for c in found:
        if done >= tested or not causes.worth_testing(c):
            continue
        n = causes.strongest_count(c)
        if n not in plain:
            plain[n] = balance_report(board, [n], TEST_GAMES, panel, seed, jobs, preset, variants, scheduler,
                                      tested=0)
        changed = balance_report(causes.board_with(board, c["edits"]), [n], TEST_GAMES, panel, seed, jobs, preset,
                                 variants, scheduler, tested=0)
        before = causes.figure_of(plain[n], c["figure"], n)
        after = causes.figure_of(changed, c["figure"], n)
        if before and after:
            c["tested"] = {"figure": c["figure"].get("name", before["name"]), "players": n, "games": changed["runs"][0]["games"],
                           "before": before["value"], "after": after["value"], "low": after["low"],
                           "high": after["high"]}
        done += 1
    return [causes.public(c) for c in found]


def _round_up(x: int, m: int) -> int:
    return max(m, -(-x // m) * m)


def _r(x, nd=4):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else round(float(x), nd)


@dataclass
class Test:
    """One comparison of a subject's figure with its cut-off. A rate (`k` successes of `m`,
    Wilson interval, score test) or a mean (sums of `n` values, Student-t); `above`: the finding
    holds when the figure lies above the cut-off."""
    estimate: float
    cut: float
    above: bool
    k: float = 0.0
    m: float = 0.0
    total: float = 0.0
    squares: float = 0.0
    n: int = 0
    per_game: float = 1.0      # observations one game gives (for the games a decision needs)
    shift: float = 0.0         # printed figure = rate + shift (the seat's edge over 1/players)

    @property
    def rate(self) -> bool:
        return self.m > 0 or self.n == 0

    @cached_property
    def sides(self) -> tuple[float, float]:
        """One-sided p-values (the finding holds, the opposite holds): figure beyond the cut-off on
        the flagged side, and on the other."""
        if self.rate:
            a, b = st.p_score_beyond([self.k], [self.m], [self.cut - self.shift])
            above, below = a[0], b[0]
        else:
            above, below = st.p_mean_beyond(self.total, self.squares, self.n, self.cut)
        return (above, below) if self.above else (below, above)

    def decision(self, levels: tuple[float, float]) -> str:
        """FLAG, CLEAR or UNDECIDED at (the flag level, the clear level)."""
        p_flag, p_clear = self.sides
        return st.FLAG if p_flag <= levels[0] else st.CLEAR if p_clear <= levels[1] else st.UNDECIDED

    def interval(self, level: float) -> tuple[float, float]:
        """The interval whose one-sided tails are `level` each: it clears the cut-off exactly
        when the matching one-sided test decides at `level`."""
        conf = max(0.0, 1 - 2 * level)
        if self.rate:
            lo, hi = st.wilson(self.k, self.m, conf)
            return lo + self.shift, hi + self.shift
        _, lo, hi = st.mean_interval(self.total, self.squares, self.n, conf)
        return lo, hi

    def sd(self) -> float:
        if self.rate:
            c = min(max(self.cut - self.shift, 1e-6), 1 - 1e-6)
            return math.sqrt(c * (1 - c))
        return st.mean_sd(self.total, self.squares, self.n)

    @property
    def flagged_side(self) -> bool:
        return (self.estimate > self.cut) == self.above


class _Context:
    """What every analysis of one report shares: the board's tables, the panel, the reference."""

    def __init__(self, board, t, rules, labels, points, panel, tables, counts, reference=None, games_cap=None):
        self.board, self.t, self.rules, self.labels, self.points = board, t, rules, labels, points
        self.panel, self.tables, self.counts = panel, tables, counts
        self.reference, self.games_cap = reference, games_cap
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

    def color_diffs(self, n: int, tot: Totals) -> dict[str, tuple[float, float, float]]:
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

    def bands(self, n: int) -> Optional[dict]:
        if not self.reference:
            return None
        return self.reference["bands"].get(str(n))

    def evidence(self, n: int, tot: list[Totals]) -> dict:
        """Every comparison at n players: pooled, and per panel agent's self-play table."""
        pooled = _pool(n, tot)
        by_agent = {tb.agents[0]: x for tb, x in zip(self.tables, tot) if not tb.mixed}
        return {"pooled": self._tests(n, pooled), "agents": {a: self._tests(n, x) for a, x in by_agent.items()},
                "games": pooled.games, "tables": len(self.tables)}

    def _tests(self, n: int, tot: Totals) -> dict[str, dict[str, Test]]:
        """kind -> subject -> Test, each against its cut-off: the published map's band at n players
        where the report has a reference (reference.py), else the fixed cut-offs above."""
        g = max(1, tot.games)
        ref = self.bands(n)
        out: dict[str, dict[str, Test]] = {}
        fair = 1 / n
        if n > 1:  # a solo game has no seats to compare
            share0 = tot.win_shares[0]
            cut = max(SEAT_CUT, ref["seat_high"]) if ref else SEAT_CUT
            out["seat-advantage"] = {"first seat": Test(share0 / g - fair, cut, True, k=share0, m=g, shift=-fair)}
        hard, easy, lose = {}, {}, {}
        for i, (h, c) in sorted(tot.tickets.items()):
            if h <= 0:
                continue
            label, pts = self.labels[i], self.points[i]
            lo_cut, hi_cut = ticket_band(ref, pts, self.rules.trains_for(n)) if ref else (TICKET_HARD, TICKET_EASY)
            hard[label] = Test(c / h, lo_cut, False, k=c, m=h, per_game=h / g)
            easy[label] = Test(c / h, hi_cut, True, k=c, m=h, per_game=h / g)
            w = tot.ticket_win_units.get(i, 0) / tot.unit
            cut = ref["holder_low"] if ref else HOLDERS_LOSE * fair
            if n > 1:
                lose[label] = Test(w / h, cut, False, k=w, m=h, per_game=h / g)
        out["ticket-too-hard"], out["ticket-too-easy"] = hard, easy
        if n > 1:
            out["ticket-holders-lose"] = lose
        cut = ref["route_low"] if ref else ROUTE_RARE
        out["route-rarely-claimed"] = {name: Test(k / g, cut, False, k=k, m=g)
                                       for name, k in sorted(self.route_subjects(n, tot).items())}
        cut = ref["color_low"] if ref else -COLOR_STARVED
        out["color-starved"] = {name: Test(total / g, cut, False, total=total, squares=squares, n=tot.games)
                                for name, (_, total, squares) in self.color_diffs(n, tot).items()}
        return out

    def bands_at(self, n: int, tot: list[Totals]) -> dict:
        """What the published map itself does at n players (reference.py reads this from a report
        of the published map): the range its tickets, routes, colors and first seat span."""
        pooled = _pool(n, tot)
        g = max(1, pooled.games)
        pts, comp, weight, holder, keep = [], [], [], [], []
        least = BAND_MIN_HELD if any(h >= BAND_MIN_HELD for h, _ in pooled.tickets.values()) else 1
        for i, (h, c) in pooled.tickets.items():
            if h >= least:
                pts.append(self.points[i])
                comp.append(c / h)
                weight.append(h)
                holder.append(pooled.ticket_win_units.get(i, 0) / pooled.unit / h)
        for i, (o, k) in pooled.offers.items():
            if o >= BAND_MIN_HELD:
                keep.append(k / o)
        routes = self.route_subjects(n, pooled)
        colors = self.color_diffs(n, pooled)
        if not pts or not colors or not routes:
            return {"games": pooled.games, "trains": self.rules.trains_for(n)}  # too little played to span anything
        x, y, w = np.array(pts, float), np.array(comp), np.sqrt(np.array(weight, float))
        slope, intercept = (np.polyfit(x, y, 1, w=w) if len(set(pts)) > 1 else (0.0, float(np.mean(y))))
        resid = y - (intercept + slope * x)
        share0 = pooled.win_shares[0]
        lo, hi = st.wilson(share0, pooled.games)
        return {"games": pooled.games, "trains": self.rules.trains_for(n),
                "ticket_trend": [_r(float(intercept), 5), _r(float(slope), 5)],
                "ticket_spread": [_r(float(resid.min()), 4), _r(float(resid.max()), 4)],
                "ticket_points": [int(x.min()), int(x.max())],
                "holder_low": _r(min(holder), 4), "keep_low": _r(min(keep), 4) if keep else None,
                "route_low": _r(min(routes.values()) / g, 4),
                "color_low": _r(min(total / g for _, total, _ in colors.values()), 4),
                "color_high": _r(max(total / g for _, total, _ in colors.values()), 4),
                "seat_edge": _r(share0 / g - 1 / n, 4), "seat_high": _r(hi - 1 / n, 4)}

    # ------------------------------------------------------------------ verdicts

    def verdicts(self, evidence: dict) -> list[dict]:
        """Verdicts for the player counts in `evidence` (n -> `evidence(...)`).

        Each decision is made at the level its interval is printed at: within one list (a kind at
        one player count) Benjamini–Hochberg at 5 % decides at the per-test level R q / m
        (`st.bh_level`), the seat verdicts at 5 % / player counts (Bonferroni); the printed
        interval's one-sided tails are that level, so it clears the cut-off exactly when decided."""
        out = []
        for n, ev in sorted(evidence.items()):
            for kind in KIND_ORDER:
                pooled = ev["pooled"].get(kind, {})
                if not pooled:
                    continue
                level = self._levels(kind, pooled)
                agent_levels = {a: self._levels(kind, e.get(kind, {})) for a, e in ev["agents"].items()}
                for subject, x in pooled.items():
                    d_pool = x.decision(level)
                    agents, by_agent = {}, {}
                    for a, e in ev["agents"].items():
                        y = e.get(kind, {}).get(subject)
                        if y is None:  # never held at that table: says nothing either way
                            continue
                        agents[a] = (y.decision(agent_levels[a]), y.flagged_side)
                        by_agent[a] = _r(y.estimate)
                    j = judge(d_pool, agents)
                    if kind != "seat-advantage" and j["finding"] is not True and (
                            j["finding"] is False or not x.flagged_side):
                        continue  # a list shows the subjects that are, or may be, problems
                    used = level[1] if j["finding"] is False else level[0]
                    lo, hi = x.interval(used)
                    v = {"kind": kind, "subject": subject, "players": n, **j,
                         "estimate": _r(x.estimate), "low": _r(lo), "high": _r(hi),
                         "confidence": _r(1 - 2 * used, 4), "cutoff": _r(x.cut), "games": ev["games"],
                         "by_agent": by_agent, "games_needed": None}
                    if j["verdict"] == NEEDS_GAMES:
                        v["games_needed"] = self._needed(x, ev["games"], used)
                    v["text"] = verdict_text(v)
                    out.append(v)
        return out

    def _levels(self, kind: str, tests: dict) -> tuple[float, float]:
        """(level of the flag decisions, level of the clear decisions) for one list."""
        if kind == "seat-advantage":
            a = st.ALPHA / max(1, self.counts)
            return a, a
        return st.bh_level([x.sides[0] for x in tests.values()]), st.bh_level([x.sides[1] for x in tests.values()])

    def _needed(self, x: Test, games: int, level: float) -> Optional[int]:
        """Games per player count an undecided verdict would need if the effect is what it looks,
        at the level it is decided at; None when that is beyond the report's budget cap (the
        estimate sits too near its cut-off for games to decide it)."""
        need = st.games_needed(x.estimate, x.sd(), x.cut, x.per_game, games, alpha=level)
        if need is None or (self.games_cap and games + need > self.games_cap):
            return None
        return need

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
        pa, pb = st.p_score_beyond([x["kept"] for x in tickets], [x["offered"] for x in tickets], RARELY_KEPT)
        rarely = [x["ticket"] for x, p in zip(tickets, pb) if p <= st.bh_level(pb)]
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



__all__ = ["balance_report", "format_markdown", "write_report", "available_track", "locked_double"]


def write_report(r: dict, out_dir: Path, board: Optional[Board] = None) -> dict:
    """Write report.md and report.json into out_dir, and with the board the figures (PNGs) and the
    self-contained report.html; return the paths written."""
    from mapkit.balance import figures, html

    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / "report.md"
    js = out_dir / "report.json"
    markdown = format_markdown(r)
    _atomic_write(md, markdown)
    _atomic_write(js, json.dumps(r, indent=2) + "\n")
    files = {"markdown": str(md), "json": str(js)}
    if board is not None:
        files.update({Path(v).name: str(v) for v in figures.write_figures(r, board, out_dir)})
        page = html.write_html(r, board, out_dir, markdown)
        if page is not None:
            files["html"] = str(page)
    return files


def _atomic_write(path: Path, text: str) -> None:
    """Write to a temporary file and rename (mapkit.outputs), so a full disk never leaves a half report."""
    from mapkit.outputs import atomic_write_text

    atomic_write_text(path, text)

