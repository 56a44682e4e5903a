"""Evidence for the aims: the agent panel's games on a board, kept game by game.

A tuning step compares a board with a changed copy of it on common random numbers: the same
panel tables (mapkit/balance/panel.py), the same game seeds (SeedSequence([seed, players,
table]), game i its i-th child) and the same seat lineups before and after. So game g of one
evidence and game g of the other are a pair, and every comparison is paired: a bootstrap that
resamples games (Poisson weights, one weight per game used for both boards) gives the interval of
the difference, which is much narrower than two independent intervals would be.

Per game we keep only what the aims read (numpy arrays, one row per game): the first seat's win
share (ties split), per ticket of the pool how often it was held, completed, offered and kept and
the win share of the seats holding it, per route whether it was claimed, per color the claims and
the wild cards spent on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from mapkit.balance import stats as st
from mapkit.balance.panel import panel_tables
from mapkit.balance.report import locked_double
from mapkit.sim.batch import GameRunner, pool_labels
from mapkit.sim.runner import play_game
from mapkit.sim.tables import GRAY
from mapkit.tune.aims import Aims, band

CHUNK = 25          # games per work item: small enough to spread over a few workers
BOOTSTRAP = 1000    # resamples of the paired bootstrap
ALPHA = st.ALPHA
MET, MISSED, UNCLEAR, THIN = "met", "missed", "unclear", "too little evidence"


@dataclass
class Evidence:
    """The panel's games on one version of the board, in a fixed order (player count, table, game)."""

    players: np.ndarray          # (G,) player count of each game
    s0: np.ndarray               # (G,) first seat's win share
    held: np.ndarray             # (G, P) times each pool ticket was held
    done: np.ndarray             # (G, P) ... and completed
    hwin: np.ndarray             # (G, P) win share of the seats holding it
    offered: np.ndarray          # (G, P)
    kept: np.ndarray             # (G, P)
    claimed: np.ndarray          # (G, R) 0/1
    claims: np.ndarray           # (G, C + 1) claims per color, gray last
    wilds: np.ndarray            # (G, C + 1) wild cards spent on them
    labels: list                 # ticket labels, pool order
    points: np.ndarray           # (P,) ticket points
    lengths: np.ndarray          # (P,) shortest connection of each ticket, in spaces
    factor: int                  # failed-ticket factor of the rules
    route_ids: list
    subjects: dict               # players -> (subject names, (R, S) 0/1 map of routes to subjects)
    colors: list                 # color ids, gray last
    counts: list                 # player counts played
    panel: list
    games_by_count: dict = field(default_factory=dict)

    @property
    def games(self) -> int:
        return len(self.players)


def _play_chunk(args):
    """Worker: play (seed, lineup) games and keep what the aims read, as arrays."""
    t, rules, n, games, p, c = args
    r_count = t.n_routes
    g = len(games)
    out = {"s0": np.zeros(g), "held": np.zeros((g, p), np.int16), "done": np.zeros((g, p), np.int16),
           "hwin": np.zeros((g, p)), "offered": np.zeros((g, p), np.int16), "kept": np.zeros((g, p), np.int16),
           "claimed": np.zeros((g, r_count), np.int8), "claims": np.zeros((g, c + 1), np.int16),
           "wilds": np.zeros((g, c + 1), np.int16)}
    for k, (seed, lineup) in enumerate(games):
        r = play_game(t, rules, lineup, seed)
        share = 1 / max(1, len(r["winners"]))
        if 0 in r["winners"]:
            out["s0"][k] = share
        for row in r["scores"]:
            won = row["seat"] in r["winners"]
            for i, ok in row["results"]:
                out["held"][k, i] += 1
                out["done"][k, i] += bool(ok)
                if won:
                    out["hwin"][k, i] += share
        for i, (o, kept) in r["offers"].items():
            out["offered"][k, i] += o
            out["kept"][k, i] += kept
        for route in r["claims"]:
            out["claimed"][k, route] = 1
        for col, (claims, wilds) in r["claim_wilds"].items():
            j = c if col == GRAY else col
            out["claims"][k, j] += claims
            out["wilds"][k, j] += wilds
    return out


def run_map(runner: GameRunner, fn, work: list) -> list:
    """fn over the work items here, on the runner's process pool or its Dask cluster, in order."""
    if runner.client is not None:
        futures = runner.client.map(fn, work, pure=False)
        return [f.result() for f in futures]
    if runner.pool is not None and len(work) > 1:
        return list(runner.pool.map(fn, work))
    return [fn(w) for w in work]


def ticket_lengths(board, rules) -> np.ndarray:
    """Shortest connection of every ticket of the pool (what a ticket's points are set against)."""
    from mapkit.tickets import TicketScorer

    scorer = TicketScorer(board)
    out = []
    for name in rules.ticket_decks:
        for tk in board.ticket_decks.get(name, ()):
            out.append(scorer.distances(tk.a).get(tk.b, 0))
    return np.asarray(out, dtype=float)


def route_subjects(t, rules, n: int, unwanted_ok) -> tuple[list, np.ndarray]:
    """The route subjects at n players (a double whose tracks cannot both be claimed is one) and
    the 0/1 map from routes to them; routes the designer marked `unwanted_ok` are left out."""
    names, index = [], {}
    m = []
    for r in range(t.n_routes):
        if t.route_ids[r] in unwanted_ok or (t.double_group[r] and t.double_group[r] in unwanted_ok):
            m.append(None)
            continue
        name = f"{t.double_group[r]} (either track)" if locked_double(t, rules, n, r) else t.route_ids[r]
        if name not in index:
            index[name] = len(names)
            names.append(name)
        m.append(index[name])
    out = np.zeros((t.n_routes, len(names)), dtype=float)
    for r, j in enumerate(m):
        if j is not None:
            out[r, j] = 1
    return names, out


def per_table(panel: list, games: int) -> int:
    """Games per table for about `games` per player count: split evenly over the panel's tables,
    in whole seat rotations of the mixed table (at least one)."""
    rot = len(panel) if len(panel) > 1 else 1
    return max(rot, -(-max(1, games // len(panel_tables(panel))) // rot) * rot)


def gather(board, rules, t, counts: list, panel: list, games: int, seed: int, runner: GameRunner,
           aims: Aims, progress=None, start: int = 0) -> Evidence:
    """Play `games` per player count (split evenly over the panel's tables, whole seat rotations)
    and keep them game by game. The same arguments give the same games on any board version.
    `start` (games per table, a whole number of rotations) skips the first games of every table:
    the tuning loop's screening block is games 0.. and its confirmation blocks follow it."""
    return gather_many([(board, rules, t)], counts, panel, games, seed, runner, aims, start)[0]


def gather_many(versions: list, counts: list, panel: list, games: int, seed: int, runner: GameRunner,
                aims: Aims, start: int = 0) -> list:
    """`gather` for several (board, rules, tables) versions at once: one map over every version's
    chunks, so a round's screening keeps every worker busy. The same games for every version."""
    tables = panel_tables(panel)
    per = per_table(panel, games)
    work, owner = [], []
    for v, (board, rules, t) in enumerate(versions):
        p, c = len(pool_labels(t, rules)), len(t.color_ids)
        for n in counts:
            for tb in tables:
                gl = tb.games(seed, n, start, per)
                for i in range(0, len(gl), CHUNK):
                    work.append((t, rules, n, gl[i:i + CHUNK], p, c))
                    owner.append((v, n))
    results = run_map(runner, _play_chunk, work)
    out = []
    for v, (board, rules, t) in enumerate(versions):
        mine = [(part, n) for part, (vv, n) in zip(results, owner) if vv == v]
        parts = [x for x, _ in mine]
        players = np.concatenate([np.full(len(x["s0"]), n) for x, n in mine])
        cat = {k: np.concatenate([x[k] for x in parts]) for k in parts[0]}
        points = [x[2] for name in rules.ticket_decks for x in t.ticket_decks.get(name, ())]
        subjects = {n: route_subjects(t, rules, n, aims.unwanted_ok) for n in counts}
        out.append(Evidence(players=players, labels=pool_labels(t, rules), points=np.asarray(points, float),
                            lengths=ticket_lengths(board, rules), factor=rules.failed_ticket_factor,
                            route_ids=list(t.route_ids), subjects=subjects, colors=list(t.color_ids) + ["gray"],
                            counts=list(counts), panel=list(panel),
                            games_by_count={n: int((players == n).sum()) for n in counts}, **cat))
    return out


GAME_ARRAYS = ("players", "s0", "held", "done", "hwin", "offered", "kept", "claimed", "claims", "wilds")


def concat(evs: list) -> Evidence:
    """Several blocks of one board version's games as one evidence, blocks in the order given (a
    sequential look reads every block so far; the two boards' blocks line up game for game)."""
    if len(evs) == 1:
        return evs[0]
    first = evs[0]
    return replace(first, **{k: np.concatenate([getattr(e, k) for e in evs]) for k in GAME_ARRAYS},
                   games_by_count={n: sum(e.games_by_count.get(n, 0) for e in evs) for n in first.counts})


# ---------------------------------------------------------------------------- the figures

def weights(games: int, seed, step: int, b: int = BOOTSTRAP, block: int = 0) -> np.ndarray:
    """Paired-bootstrap weights (Poisson(1) per game and resample), row 0 all ones (the data
    itself). Seeded from [seed, step, block], so a run's intervals are reproducible."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x7475, int(step), int(block)]))
    w = rng.poisson(1.0, size=(b + 1, games)).astype(float)
    w[0] = 1.0
    return w


@dataclass
class Subject:
    aim: str
    subject: str
    players: int
    estimate: float
    low: float
    high: float
    band: tuple
    status: str
    n: float              # observations behind it (holdings, claims, games)
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        r = lambda x: None if x is None or not np.isfinite(x) else round(float(x), 4)  # noqa: E731
        return {"aim": self.aim, "subject": self.subject, "players": self.players, "estimate": r(self.estimate),
                "low": r(self.low), "high": r(self.high), "band": [r(self.band[0]), r(self.band[1])],
                "status": self.status, "observations": int(self.n), **self.extra}


def _status(est, lo, hi, bnd) -> str:
    if bnd[0] <= est <= bnd[1]:
        return MET
    if hi < bnd[0] or lo > bnd[1]:
        return MISSED
    return UNCLEAR


def _miss(x: np.ndarray, bnd) -> np.ndarray:
    """Distance outside the band (0 inside), elementwise."""
    lo, hi = bnd
    return np.maximum(0.0, lo - x) + np.maximum(0.0, x - hi)


def theil_sen_rows(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Theil–Sen line of each row of y on the fixed x (median of pairwise slopes, then median
    intercept): robust to the few tickets that are off, which is what it is for."""
    i, j = np.triu_indices(len(x), 1)
    ok = x[j] != x[i]
    i, j = i[ok], j[ok]
    slopes = (y[:, j] - y[:, i]) / (x[j] - x[i])
    slope = np.median(slopes, axis=1)
    intercept = np.median(y - slope[:, None] * x[None, :], axis=1)
    return slope, intercept


def analyse(ev: Evidence, aims: Aims, w: np.ndarray) -> tuple[dict, list]:
    """Every aim's misses, per resample: {aim: {subject key: (B+1,) distance outside its band}},
    and the subjects as read from the data itself (row 0 of w)."""
    misses: dict = {a: {} for a in aims.active}
    subjects: list[Subject] = []
    conf_lo, conf_hi = 100 * ALPHA / 2, 100 * (1 - ALPHA / 2)

    def add(aim, name, n, values, bnd, obs, lo=None, hi=None, extra=None):
        est = float(values[0])
        if lo is None:
            lo, hi = np.nanpercentile(values[1:], [conf_lo, conf_hi])
        misses[aim][(name, n)] = _miss(values, bnd)
        subjects.append(Subject(aim, name, n, est, float(lo), float(hi), bnd, _status(est, lo, hi, bnd), obs,
                                extra or {}))

    for n in ev.counts:
        mask = ev.players == n
        wn = w[:, mask]
        # a resample that drew none of this count's games (possible on a few screening games)
        # has no figure there: NaN, left out of the spreads
        games = np.where(wn.sum(axis=1) > 0, wn.sum(axis=1), np.nan)
        g0 = float(games[0])
        if not g0 > 0:
            continue
        held = wn @ ev.held[mask]
        done = wn @ ev.done[mask]
        hwin = wn @ ev.hwin[mask]
        judged = np.flatnonzero(held[0] >= aims.min_holdings)
        for aim in aims.active:
            bnd = band(aims, aim, n)
            if aim == "seat-edge" and n > 1:
                share = (wn @ ev.s0[mask]) / games
                lo, hi = st.wilson(float(share[0]) * g0, g0)
                add(aim, "first seat", n, share, bnd, g0, lo, hi)
            elif aim in ("ticket-worth", "completion"):
                for i in judged:
                    h = np.maximum(held[:, i], 1e-9)
                    rate = (hwin[:, i] if aim == "ticket-worth" else done[:, i]) / h
                    lo, hi = st.wilson(float(rate[0]) * held[0, i], held[0, i])
                    add(aim, ev.labels[i], n, rate, bnd, held[0, i], lo, hi,
                        {"points": int(ev.points[i]), "length": int(ev.lengths[i])})
            elif aim == "ticket-kept":
                off = wn @ ev.offered[mask]
                kep = wn @ ev.kept[mask]
                for i in np.flatnonzero(off[0] >= aims.min_holdings):
                    rate = kep[:, i] / np.maximum(off[:, i], 1e-9)
                    lo, hi = st.wilson(float(kep[0, i]), float(off[0, i]))
                    add(aim, ev.labels[i], n, rate, bnd, off[0, i], lo, hi,
                        {"points": int(ev.points[i]), "length": int(ev.lengths[i])})
            elif aim == "value-rises" and len(judged) >= 3 and len(set(ev.lengths[judged])) >= 2:
                h = np.maximum(held[:, judged], 1e-9)
                d = done[:, judged]
                pts = ev.points[judged]
                npph = (d * pts + (h - d) * ev.factor * pts) / h
                slope, intercept = theil_sen_rows(ev.lengths[judged], npph)
                add(aim, "trend slope", n, slope, (0.0, np.inf), len(judged))
                resid = npph - (intercept[:, None] + slope[:, None] * ev.lengths[judged][None, :])
                for col, i in enumerate(judged):
                    add(aim, ev.labels[i], n, resid[:, col], bnd, held[0, i],
                        extra={"points": int(ev.points[i]), "length": int(ev.lengths[i]),
                               "net_points_per_holding": round(float(npph[0, col]), 2),
                               "trend": round(float(intercept[0] + slope[0] * ev.lengths[i]), 2)})
            elif aim == "color-wilds":
                k = wn @ ev.claims[mask]
                wl = wn @ ev.wilds[mask]
                colored = slice(0, len(ev.colors) - 1)   # gray takes any color: it is no card color
                with np.errstate(invalid="ignore", divide="ignore"):
                    overall = wl[:, colored].sum(axis=1) / np.maximum(k[:, colored].sum(axis=1), 1e-9)
                for j, cid in enumerate(ev.colors[:-1]):
                    if k[0, j] < aims.min_claims:
                        continue
                    excess = wl[:, j] / np.maximum(k[:, j], 1e-9) - overall
                    add(aim, cid, n, excess, bnd, k[0, j],
                        extra={"wilds_per_claim": round(float(wl[0, j] / k[0, j]), 3),
                               "all_colors": round(float(overall[0]), 3)})
            elif aim == "route-claimed":
                names, m = ev.subjects[n]
                share = (wn @ (ev.claimed[mask] @ m)) / games[:, None]
                for j, name in enumerate(names):
                    lo, hi = st.wilson(float(share[0, j]) * g0, g0)
                    add(aim, name, n, share[:, j], bnd, g0, lo, hi)
    return misses, subjects


def aim_table(subjects: list[Subject], aims: Aims) -> dict:
    """Per aim: met (no subject shown outside its band), and the counts behind it."""
    out = {}
    for a in aims.active:
        mine = [s for s in subjects if s.aim == a]
        counts = {k: sum(1 for s in mine if s.status == k) for k in (MET, UNCLEAR, MISSED)}
        out[a] = {"met": counts[MISSED] == 0, "subjects": len(mine), "met_count": counts[MET],
                  "unclear": counts[UNCLEAR], "missed": counts[MISSED], "in_band": counts[MET] == len(mine)}
    return out
