"""Deriving the train-card deck from the board: how many cards of each color.

Reading of the seeds ("the busiest lines have the most cards and the rarest routes the fewest"):

- A color's weight is the number of spaces of its routes. Both tracks of a double route count
  (`doubles="both"`, the default), since in 4-5 player games both are claimed and paid for;
  `doubles="one"` counts one track, as in 2-3 player games.
- Gray spaces are paid with any one color, so they belong to no color: by default they are left
  out (`gray="ignore"`); `gray="spread"` shares them evenly over the colors without a fixed count.
- Colors with a fixed count take it first; the remaining colored cards are shared among the other
  colors in proportion to their weights (the proportional target).
- Allocation: integers that respect every palette constraint (fixed, min, max, fewer than the
  longest route) and at least one card for every color that has a route, as close as possible to
  the targets in the sense of the smallest sum of squared differences. The objective is separable
  and convex, so a greedy method that hands out one card at a time where it lowers the objective
  most is exact; it is also deterministic and explainable (ties go to the larger remainder, then
  palette order). Without binding constraints it is the largest-remainder (Hamilton) method.
  tests/test_cards.py checks it against brute force.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from mapkit.errors import MapkitError
from mapkit.model import Board

DEFAULT_TOTAL = 110
DEFAULT_WILD = 14


class InfeasibleDeck(MapkitError):
    """No deck satisfies the palette's constraints with this many cards."""


@dataclass(frozen=True)
class ColorFigures:
    color: str
    name: str
    spaces: int
    share: float          # of all weighted spaces
    target: float         # proportional target (fixed colors: their fixed count)
    cards: int
    longest: int          # spaces of this color's longest route
    draws_longest: float  # expected blind draws to hold `longest` cards of this color or wild
    draws_longest_no_wild: float
    note: str = ""

    def as_dict(self) -> dict:
        return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class DerivedDeck:
    total: int
    wild: int
    counts: dict
    colors: tuple[ColorFigures, ...]
    warnings: tuple[str, ...]
    doubles: str
    gray: str

    def as_dict(self) -> dict:
        return {
            "total": self.total, "wild": self.wild, "counts": dict(self.counts),
            "doubles": self.doubles, "gray": self.gray,
            "colors": [c.as_dict() for c in self.colors], "warnings": list(self.warnings),
        }

    def deck_json(self) -> dict:
        return {"total": self.total, "wild": self.wild, "counts": dict(self.counts)}


def color_weights(board: Board, doubles: str = "both", gray: str = "ignore") -> tuple[Counter, Counter]:
    """(weights, spaces): spaces per palette color as counted for the deck, and as on the board."""
    spaces, weights = Counter(), Counter()
    seen_double = set()
    gray_spaces = 0
    for r in board.routes:
        second = bool(r.double) and r.double in seen_double
        if r.double:
            seen_double.add(r.double)
        counted = 0 if (second and doubles == "one") else r.length
        if r.is_gray:
            gray_spaces += counted
            continue
        spaces[r.color] += r.length
        weights[r.color] += counted
    if gray == "spread":
        free = [c.id for c in board.palette if c.cards.fixed is None]
        for cid in free:
            weights[cid] += gray_spaces / len(free)
    return weights, spaces


def apportion(targets: list[float], lower: list[int], upper: list[int], total: int, names: list[str]) -> list[int]:
    """Integers n with lower ≤ n ≤ upper and sum total, minimizing Σ (n - target)².

    Greedy from the lower bounds: each step adds the card that lowers the objective most
    (the color whose target exceeds its count by the most); exact for this separable convex
    objective. Ties: larger target, then earlier position.
    """
    if sum(lower) > total:
        raise InfeasibleDeck(f"the palette's minimums need {sum(lower)} colored cards but there are only {total}: "
                             + ", ".join(f"{n} at least {lo}" for n, lo in zip(names, lower) if lo))
    if sum(upper) < total:
        raise InfeasibleDeck(f"the palette's limits allow only {sum(upper)} colored cards but {total} are needed: "
                             + ", ".join(f"{n} at most {up}" for n, up in zip(names, upper)))
    counts = list(lower)
    for _ in range(total - sum(counts)):
        best, best_key = None, None
        for i, t in enumerate(targets):
            if counts[i] >= upper[i]:
                continue
            # gain of adding one card: (c - t)² - (c + 1 - t)² = 2(t - c) - 1
            key = (2 * (t - counts[i]) - 1, t, -i)
            if best_key is None or key > best_key:
                best, best_key = i, key
        counts[best] += 1
    return counts


def expected_draws(need: int, good: int, deck: int) -> float:
    """Expected blind draws from a shuffled deck until `need` of its `good` cards are drawn
    (negative hypergeometric mean: need · (deck + 1) / (good + 1)); inf when impossible."""
    if need <= 0:
        return 0.0
    if good < need:
        return math.inf
    return need * (deck + 1) / (good + 1)


def derive_deck(board: Board, total: int = DEFAULT_TOTAL, wild: int = DEFAULT_WILD,
                doubles: str = "both", gray: str = "ignore") -> DerivedDeck:
    if wild < 0 or total < wild:
        raise InfeasibleDeck(f"a deck of {total} cards cannot hold {wild} wild cards")
    weights, spaces = color_weights(board, doubles, gray)
    longest = Counter()
    for r in board.routes:
        longest[r.color] = max(longest[r.color], r.length)
    palette = list(board.palette)
    colored = total - wild
    fixed = {c.id: c.cards.fixed for c in palette if c.cards.fixed is not None}
    free = [c for c in palette if c.id not in fixed]
    free_cards = colored - sum(fixed.values())
    free_weight = sum(weights[c.id] for c in free)
    targets, lower, upper = [], [], []
    for c in palette:
        if c.id in fixed:
            targets.append(float(fixed[c.id]))
            lower.append(fixed[c.id])
            upper.append(fixed[c.id])
            continue
        targets.append(free_cards * weights[c.id] / free_weight if free_weight else free_cards / max(1, len(free)))
        lo = c.cards.min if c.cards.min is not None else (1 if spaces[c.id] else 0)
        up = c.cards.max if c.cards.max is not None else colored
        capped_by_route = False
        if c.cards.below_longest_route and longest[c.id] and longest[c.id] - 1 < up:
            up, capped_by_route = longest[c.id] - 1, True
        if lo > up:
            raise InfeasibleDeck(_contradiction(c, lo, up, capped_by_route, longest[c.id], colored))
        lower.append(lo)
        upper.append(up)
    counts = apportion(targets, lower, upper, colored, [c.id for c in palette])
    all_weight = sum(weights.values()) or 1
    figures, warnings = [], []
    for c, t, n in zip(palette, targets, counts):
        need = longest[c.id]
        with_wild = expected_draws(need, n + wild, total)
        no_wild = expected_draws(need, n, total)
        intended = c.cards.fixed is not None or c.cards.below_longest_route
        note = ""
        if need and n < need:
            note = "needs wild cards for its longest route"
            if not intended:
                warnings.append(f"color '{c.id}' is starved: {n} cards for a {need}-space route; "
                                f"it can never be claimed without wild cards")
            else:
                note += " (by design)"
        figures.append(ColorFigures(
            color=c.id, name=c.name, spaces=spaces[c.id], share=weights[c.id] / all_weight, target=t,
            cards=n, longest=need, draws_longest=with_wild, draws_longest_no_wild=no_wild, note=note,
        ))
    # a color is starved too when collecting its longest route takes far more draws than the rest
    finite = sorted(f.draws_longest_no_wild for f in figures if math.isfinite(f.draws_longest_no_wild) and f.longest)
    if finite:
        median = finite[len(finite) // 2]
        for f, c in zip(figures, palette):
            intended = c.cards.fixed is not None or c.cards.below_longest_route
            if not intended and math.isfinite(f.draws_longest_no_wild) and f.draws_longest_no_wild > 2.5 * median:
                warnings.append(f"color '{f.color}' is starved: its {f.longest}-space route takes about "
                                f"{f.draws_longest_no_wild:.0f} blind draws without wild cards (median color: {median:.0f})")
    return DerivedDeck(total=total, wild=wild, counts={c.id: n for c, n in zip(palette, counts)},
                       colors=tuple(figures), warnings=tuple(warnings), doubles=doubles, gray=gray)


def _contradiction(c, lo: int, up: int, capped_by_route: bool, longest: int, colored: int) -> str:
    """Why a color has no possible card count, naming the palette fields that clash and the fix."""
    where = f"$.palette color '{c.id}'"
    if c.cards.min is not None:
        need = f"{lo} (\"min\": {lo})"
        fix_lo = f"lower \"min\" to {up}"
    else:
        need = "1 (every color with a route gets one)"
        fix_lo = None
    if capped_by_route:
        allow = (f"{up} (\"below_longest_route\" keeps it under its longest route's {longest} "
                 f"space{'s' if longest != 1 else ''})")
        fix_up = "drop \"below_longest_route\"" + (" or make that route longer" if longest <= 1 else "")
    elif c.cards.max is not None:
        allow = f"{up} (\"max\": {up})"
        fix_up = f"raise \"max\" to at least {lo}"
    else:
        allow = f"{up} (the deck's {colored} colored cards)"
        fix_up = "give the deck more cards (--total) or fewer wild cards (--wild)"
    fixes = " or ".join(f for f in (fix_up, fix_lo) if f)
    return f"{where}: no card count fits: it needs at least {need} but may have at most {allow}; {fixes}"


def format_deck(deck: DerivedDeck) -> str:
    lines = [f"{deck.total} cards: {deck.total - deck.wild} colored + {deck.wild} wild "
             f"(double routes: {deck.doubles} tracks; gray spaces: {deck.gray})", ""]
    lines.append(f"  {'color':<14} {'spaces':>6} {'share':>6} {'target':>7} {'cards':>5} {'longest':>7} {'draws':>6} {'no wild':>7}")
    for f in deck.colors:
        nw = "never" if math.isinf(f.draws_longest_no_wild) else f"{f.draws_longest_no_wild:.1f}"
        lines.append(f"  {f.color:<14} {f.spaces:>6} {f.share:>6.1%} {f.target:>7.2f} {f.cards:>5} {f.longest:>7}"
                     f" {f.draws_longest:>6.1f} {nw:>7}" + (f"  {f.note}" if f.note else ""))
    lines.append("")
    lines.append("  draws: expected blind draws to hold a color's longest route, wild cards counting; "
                 "no wild: the same without them")
    for w in deck.warnings:
        lines.append(f"warning: {w}")
    return "\n".join(lines)
