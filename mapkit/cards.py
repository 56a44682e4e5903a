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
    findings: tuple  # DeckWarning, ...: how the deck plays badly (deck_warnings)
    doubles: str
    gray: str

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w.text for w in self.findings)

    def as_dict(self) -> dict:
        return {
            "total": self.total, "wild": self.wild, "counts": dict(self.counts),
            "doubles": self.doubles, "gray": self.gray,
            "colors": [c.as_dict() for c in self.colors], "warnings": list(self.warnings),
            "warning_codes": [w.code for w in self.findings],
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
    figures = []
    for c, t, n in zip(palette, targets, counts):
        need = longest[c.id]
        note = ""
        if need and n < need:
            note = "needs wild cards for its longest route" + (" (by design)" if _by_design(c) else "")
        figures.append(ColorFigures(
            color=c.id, name=c.name, spaces=spaces[c.id], share=weights[c.id] / all_weight, target=t,
            cards=n, longest=need, draws_longest=expected_draws(need, n + wild, total),
            draws_longest_no_wild=expected_draws(need, n, total), note=note,
        ))
    counts_of = {c.id: n for c, n in zip(palette, counts)}
    return DerivedDeck(total=total, wild=wild, counts=counts_of, colors=tuple(figures),
                       findings=tuple(deck_warnings(board, counts_of, wild)), doubles=doubles, gray=gray)


# the standard map's hardest color: 12 of 110 cards for a 6-space route, about 51 blind draws
# without wild cards; a color whose longest route takes more than twice that is starved
STANDARD_HARDEST_DRAWS = expected_draws(6, 12, 110)
STARVED_DRAWS = 2 * STANDARD_HARDEST_DRAWS


@dataclass(frozen=True)
class DeckWarning:
    """A way a deck plays badly: code (starved-color, one-color-deck), the color it is about ('' for
    the deck as a whole) and the message, lowercase, ending with what to do."""

    code: str
    color: str
    message: str

    @property
    def text(self) -> str:
        return f"color '{self.color}' is {self.message}" if self.color else self.message


def _by_design(c) -> bool:
    """A color whose card count the designer set on purpose (fixed, or below its longest route)."""
    return c.cards.fixed is not None or c.cards.below_longest_route


def deck_warnings(board: Board, counts: dict, wild: int) -> list[DeckWarning]:
    """The ways the deck `counts` (cards per color) with `wild` wild cards plays badly on this board;
    `mapkit validate` reports them as warnings (mapkit.checks.check_deck_play) and `mapkit cards`
    prints them under the deck it derives.

    - starved-color: a color with fewer cards than its longest route has spaces (that route can
      never be claimed without wild cards), or whose longest route takes more than STARVED_DRAWS
      blind draws without wild cards (twice the standard map's hardest color: 12 cards of 110 for
      6 spaces). Measured against the standard map, not against the board's other colors: a color
      with 15 cards for its 5 spaces has room to spare however rich the others are. Colors whose
      count is set on purpose ("fixed", "below_longest_route") are left alone, and so is a color
      with no card in a deck without wild cards (an error of `mapkit validate`: deck-missing-color).
    - one-color-deck: every colored card is of one color, so any hand pays for any route and
      collecting cards is no decision.
    """
    total = sum(counts.values()) + wild
    longest, route_of = Counter(), {}
    for r in board.routes:
        if r.length > longest[r.color]:
            longest[r.color], route_of[r.color] = r.length, r.id
    out = []
    for c in board.palette:
        n, need = counts.get(c.id, 0), longest[c.id]
        if not need or _by_design(c) or (n == 0 and wild == 0):
            continue
        if n < need:
            more = need - n
            why = f"{_cards(n)} for its {need}-space route {route_of[c.id]}, which can never be claimed without wild cards"
        elif expected_draws(need, n, total) > STARVED_DRAWS:
            enough = n + 1
            while expected_draws(need, enough, total) > STARVED_DRAWS:
                enough += 1
            more = enough - n
            why = (f"its {need}-space route {route_of[c.id]} takes about {expected_draws(need, n, total):.0f} blind"
                   f" draws without wild cards ({_cards(n)} of {total}; the standard map's hardest color takes"
                   f" {STANDARD_HARDEST_DRAWS:.0f})")
        else:
            continue
        field = "max" if c.cards.max is not None and c.cards.max < n + more else "min"
        out.append(DeckWarning("starved-color", c.id,
                               f"starved: {why}; give it {more} more card{'s' if more != 1 else ''} (\"{field}\": {n + more}"
                               f" in its palette entry, then `mapkit cards --write`), make that route gray, or give it"
                               f" {_neighbour_color(board, route_of[c.id], counts)}"))
    held = [cid for cid, n in counts.items() if n > 0]
    if len(held) == 1 and board.routes:
        out.append(DeckWarning("one-color-deck", "",
                               f"one card color: every colored card is '{held[0]}', so any hand pays for any route and"
                               " collecting cards is no decision; give the lines more card colors (the standard map"
                               " has 8): add palette colors and give some routes one of them"))
    return out


def _neighbour_color(board: Board, route_id: str, counts: dict) -> str:
    """`the color of a line it meets ('blue', 14 cards)`: of the routes at either end of this one, the
    other card color with the most cards; `another line's color` where none meets it."""
    route = next(r for r in board.routes if r.id == route_id)
    met = {r.color for r in board.routes if r.ends & route.ends and not r.is_gray and r.color != route.color}
    if not met:
        return "another line's color"
    best = max(sorted(met), key=lambda cid: counts.get(cid, 0))
    return f"the color of a line it meets ('{best}', {_cards(counts.get(best, 0))})"


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


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
    from mapkit.texttable import text_table

    lines = [f"{deck.total} cards: {deck.total - deck.wild} colored + {deck.wild} wild "
             f"(double routes: {deck.doubles} tracks; gray spaces: {deck.gray})", ""]
    rows = [[f.color, f.spaces, f"{f.share:.1%}", f"{f.target:.2f}", f.cards, f.longest, f"{f.draws_longest:.1f}",
             "never" if math.isinf(f.draws_longest_no_wild) else f"{f.draws_longest_no_wild:.1f}", f" {f.note}"]
            for f in deck.colors]
    lines += text_table(["color", "spaces", "share", "target", "cards", "longest", "draws", "no wild", ""], rows,
                        "lrrrrrrrl")
    lines.append("")
    lines.append("  draws: expected blind draws to hold a color's longest route, wild cards counting; "
                 "no wild: the same without them")
    for w in deck.findings:
        lines.append(f"warning: [{w.code}] {w.text}")
    return "\n".join(lines)
