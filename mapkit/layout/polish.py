"""The last step of a clean layout: stations nudged towards their routes' real bearings.

The optimization weighs bearings against everything else and stops where its hinges hold with a
margin; a clean board usually has room left to turn a few routes nearer their real direction. Here
stations are taken worst first (the summed squared direction error of their routes, against the
bearings from lat/lon, the figure `direction_error_deg_*` measures) and tried at a few short steps;
a step is kept only when the routes it turns are nearer their bearings on the whole, the geometry
checks still find nothing on the part of the board it changes (then on the whole board), and the
stations around it keep room for their labels. Bounded tries, so a seed gives one result.
"""

from __future__ import annotations

import numpy as np

from mapkit.layout.labels import LABEL_REACH_MM, without_room

POLISH_STEPS_MM = (2.5, 5.0, 9.0)
POLISH_TRIES = 300
POLISH_ROUNDS = 2


def _errors(net, pos, bundles) -> np.ndarray:
    """Squared angle (rad²) between each bundle's board direction and its real bearing."""
    a = np.array([net.bundles[k].a for k in bundles], dtype=int)
    b = np.array([net.bundles[k].b for k in bundles], dtype=int)
    g = net.geo[b] - net.geo[a]
    d = pos[b] - pos[a]
    ang = np.arctan2(g[:, 0] * d[:, 1] - g[:, 1] * d[:, 0], (g * d).sum(1))
    return ang ** 2


def polish(rp, max_tries: int = POLISH_TRIES) -> int:
    """Nudge stations of a clean board (rp: mapkit.layout.repair.Repair); returns the moves kept."""
    net, dr = rp.net, rp.dr
    touching: dict[int, list[int]] = {}
    for k, b in enumerate(net.bundles):
        if len(dr.lines[k]) == 2:   # a bent route's direction is its waypoints' business
            touching.setdefault(b.a, []).append(k)
            touching.setdefault(b.b, []).append(k)
    dirs = [np.array([np.cos(t), np.sin(t)]) for t in np.arange(8) * np.pi / 4]
    tries = kept = 0
    for _ in range(POLISH_ROUNDS):
        worst = sorted((s for s in touching if dr.free[s]),
                       key=lambda s: -float(_errors(net, dr.pos, touching[s]).sum()))
        for s in worst:
            if tries >= max_tries:
                return kept
            ks = touching[s]
            before = float(_errors(net, dr.pos, ks).sum())
            if before < np.radians(10) ** 2:
                continue
            old = dr.pos[s].copy()
            moves = []
            for step in POLISH_STEPS_MM:
                for d in dirs:
                    dr.pos[s] = old + step * d
                    gain = before - float(_errors(net, dr.pos, ks).sum())
                    if gain > 1e-4 and rp._inside(dr.pos[s]):
                        moves.append((-gain, step, tuple(d)))
            dr.pos[s] = old
            if not moves:
                continue
            centres = rp._centres([s])
            part = rp.select(centres, 25.0 + max(POLISH_STEPS_MM))
            near = {net.ids[i] for i in np.nonzero(np.linalg.norm(dr.pos[: net.n] - old, axis=1) < LABEL_REACH_MM)[0]}
            room = len(without_room(rp.part_data(part), only=near))
            for _, step, d in sorted(moves)[:4]:
                if tries >= max_tries:
                    break
                tries += 1
                dr.pos[s] = old + step * np.array(d)
                sub = rp.part_data(part)
                if not rp.check(sub) and len(without_room(sub, only=near)) <= room and not rp.check(rp.full_data()):
                    kept += 1
                    break
                dr.pos[s] = old
    return kept
