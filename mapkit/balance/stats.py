"""Statistics for balance verdicts: pure functions, no board or game knowledge.

- `split_ties`: a shared win counts 1/k to each of the k tied seats (shares sum to 1);
- `wilson`: Wilson score interval of a rate (also for fractional successes such as split wins);
- `mean_interval`: Student-t interval of a mean from its sum and sum of squares (chunks merge
  exactly: only sums are kept), used for scores and paired differences;
- `p_rate_beyond` / `p_mean_beyond`: one-sided p-values that a rate or mean lies beyond a cut-off;
- `p_score_beyond`: the score test the Wilson interval inverts, for many rates at once;
- `bh_level`: the per-test level at which Benjamini–Hochberg decides a family (so a verdict's
  interval can be printed at the level it was decided at);
- `games_needed`: a power-based estimate of how many more games an undecided verdict needs.

Which correction where: Bonferroni for the seat verdicts (one hypothesis per player count, few
of them, each one acted on, so the family-wise error rate is the promise, and one level to print
the intervals at); Benjamini–Hochberg for the threshold lists (hard tickets, rarely claimed routes, starved colors: tens to hundreds of
subjects, where a designer wants the list to be mostly right rather than to miss nearly every real
problem, which is what family-wise control would cost at these sample sizes).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

ALPHA = 0.05
POWER = 0.8
FLAG, CLEAR, UNDECIDED = "flag", "clear", "undecided"


def split_ties(winners, players: int) -> list[float]:
    """Win share of every seat in one game: 1/k for each of k winners, 0 for the others."""
    out = [0.0] * players
    for p in winners:
        out[p] += 1 / len(winners)
    return out


def _z(conf: float) -> float:
    return float(stats.norm.ppf(0.5 + conf / 2))


def wilson(successes: float, n: float, conf: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for successes/n; (0, 1) when n is 0. Works for fractional successes
    (split wins) with the same formula scipy's binomtest(...).proportion_ci('wilson') uses."""
    if n <= 0:
        return 0.0, 1.0
    z = _z(conf)
    p = min(1.0, max(0.0, successes / n))
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(total: float, squares: float, n: int, conf: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): Student-t interval of a mean from the sum and sum of squares of n values."""
    if n <= 0:
        return 0.0, float("-inf"), float("inf")
    mean = total / n
    if n == 1:
        return mean, float("-inf"), float("inf")
    var = max(0.0, (squares - total * total / n) / (n - 1))
    half = float(stats.t.ppf(0.5 + conf / 2, n - 1)) * math.sqrt(var / n)
    return mean, mean - half, mean + half


def mean_sd(total: float, squares: float, n: int) -> float:
    if n <= 1:
        return float("nan")
    return math.sqrt(max(0.0, (squares - total * total / n) / (n - 1)))




def p_rate_beyond(successes: float, n: float, cut: float) -> tuple[float, float]:
    """One-sided p-values (rate > cut, rate < cut) for successes out of n.

    Whole counts use scipy's exact binomial test; fractional ones (split wins) the score test
    that the Wilson interval inverts."""
    if n <= 0:
        return 1.0, 1.0
    cut = min(max(cut, 1e-12), 1 - 1e-12)
    if float(successes).is_integer() and float(n).is_integer():
        above, below = p_counts_beyond([successes], [n], cut)
        return above[0], below[0]
    z = (successes / n - cut) / math.sqrt(cut * (1 - cut) / n)
    return float(stats.norm.sf(z)), float(stats.norm.cdf(z))


def p_counts_beyond(successes, n, cut: float) -> tuple[list[float], list[float]]:
    """Exact one-sided binomial p-values (rate > cut, rate < cut) for many whole counts at once;
    the same numbers as scipy.stats.binomtest(k, n, cut, alternative=...) but vectorized."""
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    cut = min(max(cut, 1e-12), 1 - 1e-12)
    above = np.where(m > 0, stats.binom.sf(k - 1, m, cut), 1.0)
    below = np.where(m > 0, stats.binom.cdf(k, m, cut), 1.0)
    return above.tolist(), below.tolist()


def p_score_beyond(successes, n, cuts) -> tuple[list[float], list[float]]:
    """One-sided score-test p-values (rate > cut, rate < cut) for many rates, each with its own
    cut-off: the test the Wilson interval inverts, so the Wilson interval at confidence 1 - 2a
    excludes the cut-off exactly when the matching p-value is below a."""
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    c = np.clip(np.broadcast_to(np.asarray(cuts, dtype=float), k.shape), 1e-12, 1 - 1e-12)
    safe = np.where(m > 0, m, 1.0)
    z = np.where(m > 0, (k / safe - c) / np.sqrt(c * (1 - c) / safe), 0.0)
    above = np.where(m > 0, stats.norm.sf(z), 1.0)
    below = np.where(m > 0, stats.norm.cdf(z), 1.0)
    return above.tolist(), below.tolist()


def bh_level(pvalues, q: float = ALPHA) -> float:
    """The per-test level at which Benjamini–Hochberg at rate q decides this family: with R
    rejections, a p-value is rejected exactly when it is at most R q / m (q / m when R is 0; the
    level Benjamini and Yekutieli's false-coverage-rate intervals use)."""
    p = np.sort(np.asarray(list(pvalues), dtype=float))
    m = len(p)
    if m == 0:
        return q
    ok = np.nonzero(p <= q * np.arange(1, m + 1) / m)[0]
    r = int(ok[-1]) + 1 if len(ok) else 0
    return max(r, 1) * q / m


def p_mean_beyond(total: float, squares: float, n: int, cut: float) -> tuple[float, float]:
    """One-sided t-test p-values (mean > cut, mean < cut) from sums."""
    if n <= 1:
        return 1.0, 1.0
    mean = total / n
    sd = mean_sd(total, squares, n)
    if sd == 0:
        return (0.0, 1.0) if mean > cut else (1.0, 0.0) if mean < cut else (1.0, 1.0)
    t = (mean - cut) / (sd / math.sqrt(n))
    return float(stats.t.sf(t, n - 1)), float(stats.t.cdf(t, n - 1))



def games_needed(estimate: float, sd: float, cut: float, per_game: float, games: int,
                 alpha: float = ALPHA, power: float = POWER, tests: int = 1) -> int | None:
    """More games an undecided comparison needs, if the effect is as large as it looks now:
    observations n with |estimate - cut| = (z_{1-alpha/tests} + z_power) * sd / sqrt(n), divided by
    the observations one game gives (`per_game`), minus the games played. None when the estimate
    sits on the cut-off (no number of games would decide it) or nothing is known yet."""
    gap = abs(estimate - cut)
    if not (gap > 1e-12) or not (sd > 0) or not (per_game > 0) or math.isnan(sd):
        return None
    z = float(stats.norm.ppf(1 - alpha / max(1, tests)) + stats.norm.ppf(power))
    n = (z * sd / gap) ** 2
    return max(1, math.ceil(n / per_game) - games)
