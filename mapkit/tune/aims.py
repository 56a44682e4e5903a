"""What `mapkit tune` aims for: six aims with defaults a designer can read and override.

An aim is a band a measured figure should lie in, judged per subject (a ticket, a color, a route)
and per player count:

    name            default     the figure (per player count)                         subjects
    ticket-worth    0.10        holder win share within ±0.10 of the baseline 1/players  tickets
    value-rises     3           net points per holding (points when completed, the      tickets,
                                failed-ticket rule's when not) within ±3 of the deck's  the trend
                                trend line on ticket length (Theil–Sen), which rises
    ticket-kept     0.20        a ticket kept in at least 20 % of the offers with it    tickets
    completion      0.40:0.90   completion rate of a kept ticket between 40 % and 90 %  tickets
    color-wilds     0.5         wild cards spent per claim of a color at most 0.5 above colors
                                the same figure over every colored claim
    seat-edge       0.03        the first seat's win share within ±0.03 of 1/players    the first seat
    route-claimed   0.05        a route (a double whose tracks cannot both be claimed   routes
                                counts once) claimed in at least 5 % of games

Overrides, the later winning: the board file's optional `tune` section, then `--aim` on the
command line.

    "tune": {"aims": {"completion": [0.35, 0.9], "seat_edge": 0.05, "route_claimed": false},
             "unwanted_ok": ["hillsboro-tanasbourne", "orenco-willow-creek"]}

    mapkit tune portland --aim completion=0.35:0.9 --aim seat-edge=0.05 --aim route-claimed=off

A name may be written with dashes or underscores; `false` / `off` turns an aim off; a band is
`LOW:HIGH` on the command line and `[LOW, HIGH]` in the file (completion only; the others take
one number). `unwanted_ok` lists routes (route ids, or a double's group name for both tracks)
the designer means to be rarely claimed: route-claimed does not judge them and tune proposes
nothing for them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from mapkit.errors import MapkitError, UsageError, did_you_mean

AIM_NAMES = ("ticket-worth", "value-rises", "ticket-kept", "completion", "color-wilds", "seat-edge", "route-claimed")
DEFAULTS = {
    "ticket-worth": 0.10, "value-rises": 3.0, "ticket-kept": 0.20, "completion": (0.40, 0.90),
    "color-wilds": 0.5, "seat-edge": 0.03, "route-claimed": 0.05,
}
# the range a designer may set each one to (a band outside it is a typo, not a wish)
RANGES = {
    "ticket-worth": (0.0, 1.0), "value-rises": (0.0, 100.0), "ticket-kept": (0.0, 1.0), "completion": (0.0, 1.0),
    "color-wilds": (0.0, 10.0), "seat-edge": (0.0, 1.0), "route-claimed": (0.0, 1.0),
}
# Non-inferiority margins, per subject: how much an aim's miss (a subject's distance outside its
# band, in the aim's own units) may grow on average over the aim's subjects in a kept change; the
# aim's total miss may grow by the margin times its number of subjects. A change is kept only when
# the data show that no aim grew by that much. A margin of 0 would ask to prove that nothing moved
# at all, which no finite number of games can; the defaults are about what one confirmation of
# 150 games per player count can rule out on the bundled boards (more --step-games: smaller ones).
MARGINS = {
    "ticket-worth": 0.03, "value-rises": 0.5, "ticket-kept": 0.03, "completion": 0.03,
    "color-wilds": 0.05, "seat-edge": 0.06, "route-claimed": 0.01,
}
MARGIN_RANGE = {a: (0.0, 100.0 if a == "value-rises" else 10.0) for a in MARGINS}
TEXT = {
    "ticket-worth": "every ticket's holders win within ±{v:.0%} of the baseline share",
    "value-rises": "net points per holding on a rising trend with length, each ticket within ±{v:g}",
    "ticket-kept": "every ticket kept in at least {v:.0%} of the offers that include it",
    "completion": "every kept ticket completed {lo:.0%}–{hi:.0%} of the time",
    "color-wilds": "no color starved: wilds per claim at most {v:.2f} above all colors'",
    "seat-edge": "the first seat's win share within ±{v:.0%} of its fair share",
    "route-claimed": "every route claimed in at least {v:.0%} of games",
}


def canonical(name: str) -> str:
    return str(name).strip().lower().replace("_", "-")


@dataclass(frozen=True)
class Aims:
    values: dict = field(default_factory=lambda: dict(DEFAULTS))   # name -> value, or None when off
    unwanted_ok: frozenset = frozenset()                            # route ids / double groups
    margins: dict = field(default_factory=lambda: dict(MARGINS))    # name -> non-inferiority margin
    # a ticket held fewer times than this at a player count, or a color claimed fewer times, is
    # not judged there (reported as too little evidence): a rate of 3 holdings says nothing
    min_holdings: int = 20
    min_claims: int = 10

    @property
    def active(self) -> list[str]:
        return [a for a in AIM_NAMES if self.values.get(a) is not None]

    def value(self, name: str):
        return self.values.get(name)

    def describe(self, name: str) -> str:
        v = self.values.get(name)
        if v is None:
            return f"{name}: off"
        if name == "completion":
            return TEXT[name].format(lo=v[0], hi=v[1])
        return TEXT[name].format(v=v)

    def as_dict(self) -> dict:
        return {"aims": {a: (list(v) if isinstance(v, tuple) else v) for a, v in self.values.items()},
                "margins": {a: self.margins[a] for a in self.active},
                "unwanted_ok": sorted(self.unwanted_ok), "min_holdings": self.min_holdings,
                "min_claims": self.min_claims}


def _parse_value(name: str, raw, where: str):
    """One aim's value from the file (JSON) or the command line (text); None means off."""
    if raw is False or raw is None or (isinstance(raw, str) and raw.strip().lower() in ("off", "false", "none")):
        return None
    lo_ok, hi_ok = RANGES[name]
    if name == "completion":
        if isinstance(raw, str):
            parts = raw.split(":")
        elif isinstance(raw, (list, tuple)):
            parts = list(raw)
        else:
            parts = None
        try:
            lo, hi = (float(p) for p in parts)
        except (TypeError, ValueError):
            raise UsageError(f"{where}: completion takes a band LOW:HIGH (e.g. 0.4:0.9), not {raw!r}")
        if not lo_ok <= lo < hi <= hi_ok:
            raise UsageError(f"{where}: completion band {lo}:{hi} must satisfy 0 <= LOW < HIGH <= 1")
        return (lo, hi)
    if isinstance(raw, bool):
        raise UsageError(f"{where}: {name} takes a number or off, not {raw!r}")
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise UsageError(f"{where}: {name} takes a number or off, not {raw!r}")
    if not lo_ok <= v <= hi_ok:
        raise UsageError(f"{where}: {name} = {v} is outside {lo_ok}..{hi_ok}")
    return v


def _name(raw: str, where: str) -> str:
    name = canonical(raw)
    if name not in AIM_NAMES:
        raise UsageError(f"{where}: unknown aim '{raw}'{did_you_mean(name, AIM_NAMES)}; aims: {', '.join(AIM_NAMES)}")
    return name


def _parse_margin(name: str, raw, where: str) -> float:
    lo, hi = MARGIN_RANGE[name]
    try:
        v = float(raw)
    except (TypeError, ValueError):
        raise UsageError(f"{where}: a margin is a number (the most {name}'s total miss may grow), not {raw!r}")
    if isinstance(raw, bool) or not lo <= v <= hi:
        raise UsageError(f"{where}: margin {raw!r} for {name} must be a number in {lo:g}..{hi:g}")
    return v


def _option(item: str, flag: str, example: str) -> tuple[str, str, str]:
    """An `--aim`/`--margin` NAME=VALUE option: the aim's canonical name, the raw value, and where
    it was written (for messages)."""
    if "=" not in item:
        raise UsageError(f"{flag} {item!r}: write NAME=VALUE, e.g. {example}")
    raw, v = item.split("=", 1)
    where = f"{flag} {item}"
    return _name(raw, where), v, where


def read_aims(data: dict, cli_aims: tuple = (), route_ids=(), double_groups=(), source: str = "board",
              cli_margins: tuple = ()) -> Aims:
    """The aims for a board file's raw data (its `tune` section) and `--aim NAME=VALUE` options,
    with the non-inferiority margins (`tune.margins`, then `--margin NAME=VALUE`).
    A bad name or value is a UsageError naming where it was written and what it takes."""
    values = dict(DEFAULTS)
    section = data.get("tune") or {}
    margins = dict(MARGINS)
    for raw, v in (section.get("margins") or {}).items():
        name = _name(raw, f"{source}: $.tune.margins.{raw}")
        margins[name] = _parse_margin(name, v, f"{source}: $.tune.margins.{raw}")
    for item in cli_margins:
        name, v, where = _option(item, "--margin", "--margin ticket-worth=0.05")
        margins[name] = _parse_margin(name, v, where)
    for raw, v in (section.get("aims") or {}).items():
        name = _name(raw, f"{source}: $.tune.aims.{raw}")
        values[name] = _parse_value(name, v, f"{source}: $.tune.aims.{raw}")
    known = set(route_ids) | set(double_groups)
    unwanted = set()
    for i, r in enumerate(section.get("unwanted_ok") or ()):
        if known and r not in known:
            raise MapkitError(f"{source}: $.tune.unwanted_ok[{i}]: no route or double group '{r}'"
                              f"{did_you_mean(r, known)}; name a route id (as `mapkit info` lists them) or a "
                              f"double's group")
        unwanted.add(r)
    for item in cli_aims:
        name, v, where = _option(item, "--aim", "--aim completion=0.4:0.9 or --aim seat-edge=off")
        values[name] = _parse_value(name, v, where)
    return Aims(values=values, unwanted_ok=frozenset(unwanted), margins=margins)


def with_values(aims: Aims, **changes) -> Aims:
    return replace(aims, values=aims.values | {canonical(k): v for k, v in changes.items()})


def band(aims: Aims, name: str, players: int) -> Optional[tuple[float, float]]:
    """The band a subject's figure should lie in at `players` (None: off or one-sided above)."""
    v = aims.values.get(name)
    if v is None:
        return None
    if name == "completion":
        return v
    if name in ("ticket-worth", "seat-edge"):
        fair = 1 / players
        return (fair - v, fair + v)
    if name == "value-rises":
        return (-v, v)   # residual from the deck's trend line
    if name in ("route-claimed", "ticket-kept"):
        return (v, 1.0)
    if name == "color-wilds":
        return (float("-inf"), v)   # relative to all colors' figure
    raise KeyError(name)
