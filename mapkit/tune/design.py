"""How a tuning step spends its games and its error rate: screen many changes cheaply, confirm the
best few on more games, with the error rate of the whole run held at alpha.

Two blocks of the panel's games, both played on every board version with the same seeds (common
random numbers):

    screening block     games 0 .. S-1 of every panel table (S small: --screen-games)
    confirmation block  games S .. S+M-1 (M: --step-games)

Each round every proposed change (one ticket, every flagged ticket repriced together, a
replacement, a card move, a double, a route color) is played on the screening block only and
ranked by how surely its target improves there (the paired difference over its bootstrap spread,
a z-score: unit-free, so a ticket's points and a color's wilds rank on one scale); a change whose
any aim grew beyond its margin there is dropped. The best `CONFIRM` are then played on the confirmation
block, best first, and the first that passes is kept. The screening games never enter a decision:
they only choose what is tested, and they are independent of the confirmation games, so the
confirmation test keeps its level whatever was screened.

The decision (confirmation block, paired bootstrap over games, Poisson(1) weights shared by both
boards) keeps a change when

    the target subjects' miss shrinks:      d - z * sd > 0
    no aim's total miss grows beyond its    d_a - z * sd_a > -margin_a      for every aim a
    non-inferiority margin:

with d the paired difference before minus after on the data itself, sd its bootstrap standard
deviation (a normal bound: the levels below are far in the tail, where 1000 resamples have no
quantile), z the one-sided normal quantile at level alpha_k / (aims + 1): Bonferroni across the
target and the aims within a confirmation.

Alpha spending across the run: confirmation k, playing g_k games, is given alpha_k =
alpha * g_k / B, B the games the run may spend on confirmations (--budget less the baseline and
the tuned board's report). The confirmations together play at most B games, so the alphas sum to
at most alpha, and by the union bound the chance that any kept change is a false improvement is
at most alpha over the whole run. (The harm bounds are at one-sided HARM_ALPHA over the aims per
kept change, not spent over the run.)

Sequential looks: a change whose interval straddles (`undecided`: its target improved on the data
and no aim grew by its margin on the data; only the bounds fell short) is extended: the board and
the change play the next confirmation block (the same tables' next games: the same seeds
continue) and the change is tested again on all its blocks. Look j is one more test in the sum
above, at alpha * g_j / B with g_j the games the look newly played: a Bonferroni split over the
looks (a linear alpha-spending function). P(some look keeps a false improvement) <= sum over the
looks of P(its statistic passes its bound) <= sum of alpha_j <= alpha: the looks share data, but
the union bound needs no independence, and deciding to look again changes whether a look is made,
not what its statistic is. Every look's games are inside B, so any number of extensions keeps
the run at alpha. A round's first look reads a block no proposal was read from; a later look
re-reads only its own earlier blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from mapkit.tune.aims import Aims
from mapkit.tune.evidence import ALPHA

CONFIRM = 2        # changes confirmed per round at most (best screened first)
MAX_SCREENED = 8   # changes screened per round at most (proposals beyond it wait a round)
HARM_ALPHA = ALPHA  # non-inferiority: every aim at once, one-sided, per kept change (the report's level)
SCREEN_Z = 1.645   # screening drops a change whose harm is clear at one-sided 5 %


@dataclass
class Spending:
    """Alpha spent in proportion to the games each confirmation plays."""

    alpha: float
    games: int          # B: games available for confirmations
    spent: float = 0.0

    def level(self, games: int) -> float:
        return self.alpha * games / max(self.games, games)

    def spend(self, games: int) -> float:
        a = self.level(games)
        self.spent += a
        return a


def _sum(misses: dict, keys, rows: int) -> np.ndarray:
    out = np.zeros(rows)
    for a, k in keys:
        v = misses.get(a, {}).get(k)
        if v is not None:
            out = out + v
    return out


def differences(m_before: dict, m_after: dict, changes: list, aims: Aims, rows: int) -> tuple[np.ndarray, dict]:
    """Paired differences (before minus after: positive is better) of the target subjects' miss
    and of every aim's total miss, as arrays over the bootstrap rows (row 0: the data)."""
    targets = frozenset().union(*(c.targets for c in changes))
    after_names = frozenset().union(*(c.targets_after for c in changes))
    before_t = _sum(m_before, targets, rows)
    after_t = _sum(m_after, after_names, rows)
    # a target that keeps its name but is no longer judged after the change (a ticket nobody
    # holds any more) keeps its old miss: going unmeasured is no improvement
    for a, k in targets & after_names:
        if k not in m_after.get(a, {}) and k in m_before.get(a, {}):
            after_t = after_t + m_before[a][k]
    per_aim = {}
    for aim in aims.active:
        b = np.zeros(rows) + sum(m_before.get(aim, {}).values(), np.zeros(rows))
        a = np.zeros(rows) + sum(m_after.get(aim, {}).values(), np.zeros(rows))
        per_aim[aim] = b - a
    return before_t - after_t, per_aim


def _bound(d: np.ndarray, z: float) -> tuple[float, float]:
    rows = d[1:][np.isfinite(d[1:])]   # a resample without a figure (NaN) is left out
    sd = float(np.std(rows, ddof=1)) if len(rows) > 2 else 0.0
    return float(d[0]) - z * sd, sd


def margin_of(aims: Aims, aim: str, subjects: dict) -> float:
    """The aim's margin on its total miss: the per-subject margin times its subjects (at least one)."""
    return aims.margins[aim] * max(1, subjects.get(aim, 0))


def screen_score(m_before: dict, m_after: dict, changes: list, aims: Aims, rows: int,
                 subjects: dict) -> tuple[float, str]:
    """A screened change's rank (the target's z-score) and why it is dropped ('' when it is not):
    no improvement on the screening games, or an aim grown beyond its margin there."""
    d, per_aim = differences(m_before, m_after, changes, aims, rows)
    _, sd = _bound(d, 0.0)
    z = float(d[0]) / sd if sd > 0 else (np.inf if d[0] > 0 else 0.0)
    z = 0.0 if d[0] == 0 else z
    # worse there: dropped; unchanged there (a target too rare on so few games to be measured)
    # ranks at 0 and may still be confirmed
    if d[0] < 0:
        return z, "worse on the screening games"
    # harm beyond a margin drops a change only when it is clear even on these few games (its
    # optimistic bound, 1.64 spreads up, still beyond): the confirmation judges the rest
    worse = [a for a, v in per_aim.items() if _bound(v, -SCREEN_Z)[0] < -margin_of(aims, a, subjects)]
    if worse:
        return z, "grew beyond its margin on the screening games: " + ", ".join(worse)
    return z, ""


def decide(m_before: dict, m_after: dict, changes: list, aims: Aims, rows: int, level: float,
           subjects: dict) -> tuple[bool, str, dict, dict]:
    """The confirmation's decision: (keep, why, per-aim differences with bounds and margins, the
    target's). The improvement is tested at `level` (this confirmation's share of alpha); each
    aim's non-inferiority at one-sided HARM_ALPHA / aims (Bonferroni across the aims: every aim
    at once). `subjects`: aim -> subjects judged before, for the margins."""
    z = float(norm.isf(level))
    zh = float(norm.isf(HARM_ALPHA / max(1, len(aims.active))))
    d, per_aim = differences(m_before, m_after, changes, aims, rows)
    low, sd = _bound(d, z)
    target = {"change": round(float(d[0]), 4), "low": round(low, 4), "sd": round(sd, 4),
              "level": level, "z": round(z, 3)}
    rows_out, worse = {}, []
    for aim, v in per_aim.items():
        lo, sd_a = _bound(v, zh)
        margin = margin_of(aims, aim, subjects)
        rows_out[aim] = {"change": round(float(v[0]), 4), "low": round(lo, 4), "sd": round(sd_a, 4),
                         "margin": round(margin, 4), "z": round(zh, 3)}
        if lo <= -margin:
            worse.append(aim)
    if worse:
        return False, "not shown within the margin: " + ", ".join(worse), rows_out, target
    if not low > 0:
        return False, "no improvement beyond the interval", rows_out, target
    return True, "improved", rows_out, target


def undecided(per_aim: dict, target: dict) -> bool:
    """A change not kept whose interval straddles: its target improved on the data (the bound is
    what fell short) and no aim grew by its margin or more on the data (only its bound did). More
    paired games may decide it either way; anything else is a decided no."""
    return target["change"] > 0 and all(v["change"] > -v["margin"] for v in per_aim.values())
