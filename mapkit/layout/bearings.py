"""The last step of a clean layout in the geographic style: stations nudged towards their routes'
real bearings (the schematic style keeps its octilinear directions).

The optimization weighs bearings against everything else and stops where its hinges hold with a
margin; a clean board usually has room left to turn a few routes nearer their real direction. Here
stations are taken worst first (the summed squared direction error of their routes, against the
bearings from lat/lon, the figure `direction_error_deg_*` measures, plus a cost for gaps between
spaces wider than the route may have, network.MAX_GAP_MM or what a crowded station needs, the figure
`routes_over_gap`) and tried at a few short steps;
a step is kept only when the routes it turns are nearer their bearings on the whole, the geometry
checks find nothing more on the part of the board it changes (then on the whole board: a board
left with a warning is polished too, and keeps no more than that warning), the
stations around it keep room for their labels and the stations still fill the board as asked. Bounded tries, so a seed gives one result.
"""

from __future__ import annotations

import numpy as np

from mapkit.layout.judge import fill_kept, station_span
from mapkit.layout.labelroom import LABEL_REACH_MM
from mapkit.layout.network import gaps_kept
from mapkit.layout.judge import score

POLISH_STEPS_MM = (1.5, 3.0, 6.0, 10.0)
POLISH_TRIES = 900
POLISH_ROUNDS = 4
GAP_MM = 6.0          # wider gaps between spaces cost too (see _cost)
GAP_WEIGHT = 0.004    # rad² per mm² beyond GAP_MM: a 16 mm gap weighs as a route 36° off
RULE_GAP_WEIGHT = 1.0  # with the gap rule, per mm² beyond a route's gap_max: 1 mm over weighs as a route 57° off


def _errors(net, pos, bundles) -> np.ndarray:
    """Squared angle (rad²) between each bundle's board direction and its real bearing."""
    a = np.array([net.bundles[k].a for k in bundles], dtype=int)
    b = np.array([net.bundles[k].b for k in bundles], dtype=int)
    g = net.geo[b] - net.geo[a]
    d = pos[b] - pos[a]
    ang = np.arctan2(g[:, 0] * d[:, 1] - g[:, 1] * d[:, 0], (g * d).sum(1))
    return ang ** 2


def _cost(net, pos, bundles, bent=frozenset()) -> float:
    """Direction errors, and gaps between spaces wider than the bundle's gap_max (a route that no
    longer reads as one line), GAP_WEIGHT rad² per mm² beyond it."""
    ks = list(bundles)
    L = np.array([np.linalg.norm(pos[net.bundles[k].b] - pos[net.bundles[k].a]) for k in ks])
    n = np.array([net.bundles[k].length for k in ks], dtype=float)
    fl = np.array([net.bundles[k].flight or k in bent for k in ks])   # a bent route's length is not its chord
    gmax = np.array([net.bundles[k].gap_max if net.gap_rule else GAP_MM for k in ks], dtype=float)
    gap = (L - 2 * net.radius - n * net.space_len) / (n + 1)
    over = np.where(fl, 0.0, np.maximum(gap - gmax, 0.0))
    return float(_errors(net, pos, ks).sum() + (RULE_GAP_WEIGHT if net.gap_rule else GAP_WEIGHT) * (over ** 2).sum())


class Costs:
    """_cost of the routes at each station, with the index arrays made once (the polish asks for
    it some 8,000 times on 60 stations) and for many positions of that station in one call: the
    same arithmetic, element for element, as _cost (tests/test_layout_identity.py compares them)."""

    def __init__(self, net, touching, bent):
        self.radius, self.space_len = net.radius, net.space_len
        self.weight = RULE_GAP_WEIGHT if net.gap_rule else GAP_WEIGHT
        self.at = {}
        for s, ks in touching.items():
            a = np.array([net.bundles[k].a for k in ks], dtype=int)
            b = np.array([net.bundles[k].b for k in ks], dtype=int)
            n = np.array([net.bundles[k].length for k in ks], dtype=float)
            fl = np.array([net.bundles[k].flight or k in bent for k in ks])
            gmax = np.array([net.bundles[k].gap_max if net.gap_rule else GAP_MM for k in ks], dtype=float)
            self.at[s] = (a, b, n, fl, gmax, net.geo[b] - net.geo[a])

    def _of(self, d, n, fl, gmax, g):
        """Costs of direction vectors d (..., m, 2) of the m routes, one per leading index."""
        L = np.linalg.norm(d, axis=-1)
        gap = (L - 2 * self.radius - n * self.space_len) / (n + 1)
        over = np.where(fl, 0.0, np.maximum(gap - gmax, 0.0))
        ang = np.arctan2(g[:, 0] * d[..., 1] - g[:, 1] * d[..., 0], (g * d).sum(-1))
        return (ang ** 2).sum(-1) + self.weight * (over ** 2).sum(-1)

    def of(self, pos, s) -> float:
        a, b, n, fl, gmax, g = self.at[s]
        return float(self._of(pos[b] - pos[a], n, fl, gmax, g))

    def moved(self, pos, s, xys) -> np.ndarray:
        """The cost with station s at each of xys (k, 2), everything else where it is."""
        a, b, n, fl, gmax, g = self.at[s]
        pa = np.repeat(pos[a][None], len(xys), axis=0)
        pb = np.repeat(pos[b][None], len(xys), axis=0)
        pa[:, a == s] = xys[:, None, :]
        pb[:, b == s] = xys[:, None, :]
        return self._of(pb - pa, n, fl, gmax, g)


def polish(rp, max_tries: int = POLISH_TRIES) -> int:
    """Nudge stations of a board with no errors (rp: mapkit.layout.repair.Repair); returns the moves kept."""
    net, dr = rp.net, rp.dr
    bent = {k for k, line in enumerate(dr.lines) if len(line) > 2}
    touching: dict[int, list[int]] = {}
    for k, b in enumerate(net.bundles):   # a bent route too: its direction is read station to station
        touching.setdefault(b.a, []).append(k)
        touching.setdefault(b.b, []).append(k)
    dirs = [np.array([np.cos(t), np.sin(t)]) for t in np.arange(8) * np.pi / 4]
    start = dr.pos.copy()
    kept = _polish(rp, net, dr, bent, touching, dirs, max_tries)
    # a move is judged on the part of the board around it (everything a 10 mm step of one station
    # can touch), the whole board once at the end: on 200 stations a whole check per move was
    # most of the layout's time. Should the whole board be worse after all, no move is kept.
    if kept and not rp.no_worse():
        dr.pos = start
        return 0
    return kept


def _polish(rp, net, dr, bent, touching, dirs, max_tries) -> int:
    tries = kept = 0
    costs = Costs(net, touching, bent)
    steps = [(step, d) for step in POLISH_STEPS_MM for d in dirs]
    for _ in range(POLISH_ROUNDS):
        worst = sorted((s for s in touching if dr.free[s]), key=lambda s: -costs.of(dr.pos, s))
        for s in worst:
            if tries >= max_tries:
                return kept
            before = costs.of(dr.pos, s)
            if before < np.radians(5) ** 2:
                continue
            old = dr.pos[s].copy()
            xys = np.array([old + step * d for step, d in steps])
            gains = before - costs.moved(dr.pos, s, xys)
            moves = [(-float(gain), step, tuple(d)) for (step, d), xy, gain in zip(steps, xys, gains)
                     if gain > 1e-4 and rp._inside(xy)]
            if not moves:
                continue
            centres = rp._centres([s])
            part = rp.select(centres, 25.0 + max(POLISH_STEPS_MM))
            near = {net.ids[i] for i in np.nonzero(np.linalg.norm(dr.pos[: net.n] - old, axis=1) < LABEL_REACH_MM)[0]}
            # the part's checks and label room before the move are needed only when the move
            # leaves something (nothing found is no worse than anything): each is measured once,
            # when a move first needs it, which on a clean board is seldom
            base = room = None
            span = station_span(dr)
            for _, step, d in sorted(moves)[:4]:
                if tries >= max_tries:
                    break
                tries += 1
                new = old + step * np.array(d)
                dr.pos[s] = new
                if not fill_kept(dr, span) or not gaps_kept(net, dr, s, old):
                    dr.pos[s] = old
                    continue
                sub = rp.view(part)   # its checks and its label room on one board

                def worse(found):
                    """Whether the part's checks find more than before the move (base, measured
                    the first time it is needed): asked of the checks' score step by step, which
                    stop once it is (Part.score_until: a larger score is worse too)."""
                    nonlocal base
                    if not found[0]:
                        return False
                    if base is None:
                        dr.pos[s] = old
                        base = score(rp.view(part).problems())
                        dr.pos[s] = new
                    return found > base

                if sub.score_until(worse) is None:
                    dr.pos[s] = old
                    continue
                lacking = len(sub.without_room(only=near))
                if lacking:
                    if room is None:
                        dr.pos[s] = old
                        room = len(rp.view(part).without_room(only=near))
                        dr.pos[s] = new
                    if lacking > room:
                        dr.pos[s] = old
                        continue
                kept += 1
                break
    return kept
