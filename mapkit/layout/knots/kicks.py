"""After the repair: kicks, each followed by a local re-optimization, for the knots that one local
move cannot undo.

What the repair (mapkit.layout.repair) leaves is a knot: a station sitting on a neighbour's double
with its own routes on both sides of it, a station on the board's edge with more routes than half a
turn can hold, a bent route threaded through a station. Moving one point makes things worse
elsewhere, so the repair's judge refuses every single move. Here each problem left gets a few
kicks (the covered station put across the route that covers it, a crowded station pulled in
towards its neighbours, a point of it moved a long step) and after each kick the part of the board
around it is optimized again: `scipy.optimize.least_squares` on the points within RELAX_MM of the
problem, everything else held, the checks' terms at their heaviest. A kick is kept only when the
real checks find less on the whole board. The kicks are bounded in number, so a seed gives one
result; a board the repair left clean never comes here.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from mapkit.layout.optimize import Drawing, Weights, run_rounds
from mapkit.layout.judge import score
from mapkit.layout.repair import DIRECTIONS, Repair

KICK_MM = (30.0, 60.0)   # the long steps (the repair's own go up to 32 mm, without the re-optimization)
PULL_MM = (20.0, 40.0)   # a crowded station pulled this far towards its neighbours
RELAX_MM = 110.0         # points this close to the problem move in the re-optimization
CONTEXT_MM = 60.0        # and routes this much farther away are in it, held, as obstacles
MAX_KICKS = 24           # kicks (each with its re-optimization) over one untangling
RELAX_ROUNDS = 1
BEARING_OFF = np.radians(60)  # a route this far off its real bearing: its far end is worth turning back
RELAX_NFEV = 15          # evaluations of the re-optimization (it starts near its answer)


class Untangle:
    def __init__(self, rp: Repair, w: Weights, style: str):
        self.rp, self.net, self.dr, self.style = rp, rp.net, rp.dr, style
        # the rules at full weight, the map's shape only as a tie-break (the knot is the rules' problem)
        self.w = replace(w, geo=w.geo / 3, bearing=w.bearing / 3, order=0.0, fill=0.0)
        self.kicks = 0
        self.neighbours: dict[int, set[int]] = {}
        for b in self.net.bundles:
            self.neighbours.setdefault(b.a, set()).add(b.b)
            self.neighbours.setdefault(b.b, set()).add(b.a)

    def candidates(self, p) -> list[tuple[int, np.ndarray] | None]:
        """None (only the re-optimization), then the kicks, most specific first."""
        rp, pos, out = self.rp, self.dr.pos, [None]
        out += rp._reflections(p)
        pts = rp._points(p)
        out += self._bearings(pts)
        for i in pts:
            if i < self.net.n and self.neighbours.get(i):
                c = pos[sorted(self.neighbours[i])].mean(0)
                d = c - pos[i]
                nd = float(np.linalg.norm(d))
                if nd > 1e-6:
                    out += [(i, pos[i] + d / nd * min(step, 0.6 * nd)) for step in PULL_MM]
        for step in KICK_MM:
            for i in pts:
                out += [(i, pos[i] + step * d) for d in DIRECTIONS]
        return [m for m in out if m is None or rp._inside(m[1])]

    def _bearings(self, pts) -> list[tuple[int, np.ndarray]]:
        """A station of the problem turned about a neighbour to the side of it the real map has it
        on (its route within BEARING_OFF of its real bearing), when the drawing has it far off: the
        knot of a station that jumped to the other side of a neighbour, whose routes now run through it."""
        net, pos, out = self.net, self.dr.pos, []
        for i in pts:
            if i >= net.n:
                continue
            for j in sorted(self.neighbours.get(i, ())):
                g = net.geo[i] - net.geo[j]
                d = pos[i] - pos[j]
                ng, nd = float(np.linalg.norm(g)), float(np.linalg.norm(d))
                if ng < 1e-12 or nd < 1e-6:
                    continue
                if np.dot(g, d) / (ng * nd) < np.cos(BEARING_OFF):
                    out.append((i, pos[j] + g / ng * nd))
        return out

    def relax(self, centres: np.ndarray, rounds: int = RELAX_ROUNDS, extra: dict | None = None) -> None:
        """Least squares on the points near the centres, the rest of the board held (`extra` goes
        to the local Drawing: the unfolding lets an overpass cross there)."""
        net, dr, rp = self.net, self.dr, self.rp
        near = np.min(np.linalg.norm(dr.pos[:, None, :] - centres[None], axis=2), axis=1) < RELAX_MM
        free = dr.free & near
        if not free.any():
            return
        _, sub = rp.select(dr.pos[free], CONTEXT_MM)
        if not sub:
            return
        local = Drawing(dr.pos.copy(), dr.n_stations, [list(dr.lines[k]) for k in sub], free, bounds=dr.bounds,
                        anchor=dr.anchor, extra=dict(extra or {}))
        run_rounds(replace(net, bundles=[net.bundles[k] for k in sub], order_rows=None), local, self.w, self.style,
                   rounds=rounds, start=3, max_nfev=RELAX_NFEV)
        dr.pos[free] = local.pos[free]

    def try_problem(self, p, current) -> tuple | None:
        """The first kick (with its re-optimization) that makes the whole board better, kept; its checks' result."""
        rp, dr = self.rp, self.dr
        pts = rp._points(p)
        if not pts:
            return None
        for move in self.candidates(p):
            if self.kicks >= MAX_KICKS:
                return None
            self.kicks += 1
            saved = dr.pos.copy()
            centres = [dr.pos[i] for i in pts]
            if move is not None:
                dr.pos[move[0]] = move[1]
                centres.append(move[1])
            self.relax(np.array(centres))
            found = rp.full()
            if score(found) < current:
                return found
            dr.pos = saved
        return None

    def run(self, found):
        current = score(found)
        while found and self.kicks < MAX_KICKS:
            for p in sorted(found, key=lambda q: (q.severity != "error", q.code, q.subject, q.message)):
                new = self.try_problem(p, current)
                if new is not None:
                    found, current = new, score(new)
                    break   # the problems have changed: start again from the new list
            else:
                break       # no kick helps any problem left
        return found

def untangle(net, dr, size_out, check, found, w: Weights, style: str):
    """Kicks and local re-optimizations until the checks find nothing or the kicks run out; what is left."""
    if not found:
        return found
    rp = Repair(net, dr, size_out, check)
    return Untangle(rp, w, style).run(found)
