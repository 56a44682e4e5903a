"""Diagnostic (issue 10, end needs): on boards as laid out today, for each route whose even-spread gap
is over 6 mm, is an end at a narrow angle to a neighbouring band at its station (its even-spread gap no
more than its need + 2 mm)? And how much shorter could it be drawn if only its narrow end(s) kept their need?

python reports/layout/endneed_diag.py  (lays out the cases; prints one line a case and the totals)"""
import json, math, sys, time
from pathlib import Path
import numpy as np
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from mapkit.boardfile import build_board
from mapkit.geometry import Layout
from mapkit.layout import layout_board, stripped as layout_stripped
from mapkit.layout.crowding import pair_gap
from mapkit.layout.synthetic import layout_board_data

BOARDS = Path(__file__).resolve().parents[2] / "boards"


def stripped(name):
    return layout_stripped(json.loads((BOARDS / f"{name}.json").read_text(encoding="utf-8")))


def end_needs(board, lay):
    """{(route id, station id): need in mm from the rim} from the bands' directions at each station."""
    ph = board.physical
    w = ph.space_width_mm
    bands = {}   # station -> list of (angle, half, [route ids])
    seen = {}
    for r in board.routes:
        if r.id not in lay.routes:
            continue
        key = (r.double, frozenset((r.a, r.b))) if r.double else r.id
        coords = [lay.positions[r.a], *(lay.point(p) for p in r.waypoints), lay.positions[r.b]]
        for st, nxt, here in ((r.a, coords[1], coords[0]), (r.b, coords[-2], coords[-1])):
            k = (key, st)
            if k in seen:
                seen[k][2].append(r.id)
                seen[k][1] = w + 1.0
                continue
            ang = math.atan2(nxt[1] - here[1], nxt[0] - here[0])
            item = [ang, w / 2, [r.id]]
            seen[k] = item
            bands.setdefault(st, []).append(item)
    need = {}
    for st, items in bands.items():
        items.sort(key=lambda t: t[0])
        m = len(items)
        for i, (ang, h, ids) in enumerate(items):
            nd = 0.0
            if m >= 2:
                for j in ((i - 1) % m, (i + 1) % m):
                    a2, h2, _ = items[j]
                    th = abs(ang - a2) % (2 * math.pi)
                    th = min(th, 2 * math.pi - th)
                    nd = max(nd, pair_gap(th, h, h2, ph.station_radius_mm, 0.0))
            for rid in ids:
                need[(rid, st)] = nd
    return need


def diag(data):
    board = build_board(data)
    lay = Layout(board)
    ph = board.physical
    L, r0 = ph.space_length_mm, ph.station_radius_mm
    need = end_needs(board, lay)
    over = narrow = 0
    gain_all, gain_new_vs_old, fixable = [], [], 0
    for r in board.routes:
        if r.kind == "flight" or r.id not in lay.routes:
            continue
        n = r.length
        usable = lay.routes[r.id].usable_mm
        g = (usable - n * L) / (n + 1)
        if round(g, 1) <= 6.0:
            continue
        over += 1
        na, nb = need[(r.id, r.a)], need[(r.id, r.b)]
        if not (g <= na + 2 or g <= nb + 2):
            continue
        narrow += 1
        ea, eb = max(6.0, na), max(6.0, nb)
        new_good = n * L + (n - 1) * 6 + ea + eb
        old_good = n * L + (n + 1) * max(6.0, na, nb)
        gain_all.append(usable - new_good)
        gain_new_vs_old.append(old_good - new_good)
        inner = (usable - n * L - ea - eb) / (n - 1) if n > 1 else 0
        fixable += n > 1 and round(inner, 1) <= 6.0
    return over, narrow, gain_all, gain_new_vs_old, fixable


def cases(which):
    if "real" in which:
        yield "portland", stripped("portland"), dict(size=(900, 600), geo_anchor=1.0)
        yield "north-america", stripped("north-america"), dict(size=(800, 530), geo_anchor=1.0)
        yield "seattle", stripped("seattle"), dict(size="auto")
    for n in (20, 40, 60, 100, 200):
        for s in (0, 1, 2):
            if f"{n}" in which:
                yield f"synthetic {n} s{s}", layout_board_data(n, seed=s), dict(size="auto")


if __name__ == "__main__":
    which = sys.argv[1:] or ["real", "20", "40"]
    T = [0, 0, [], [], 0]
    for name, data, kw in cases(which):
        t = time.process_time()
        res = layout_board(data, seed=0, **kw)
        o, nr, ga, gn, fx = diag(res.data)
        T[0] += o; T[1] += nr; T[2] += ga; T[3] += gn; T[4] += fx
        print(f"{name}: over {o}, narrow end {nr}; gain vs drawn median {np.median(ga) if ga else 0:.1f} mm,"
              f" new good shorter than old good median {np.median(gn) if gn else 0:.1f} max {max(gn) if gn else 0:.1f};"
              f" inner<=6 with no move {fx}  ({time.process_time()-t:.1f}s)", flush=True)
    o, nr, ga, gn, fx = T
    print(f"TOTAL over {o}, narrow {nr} ({nr/max(o,1):.0%}); length to gain vs drawn: median {np.median(ga):.1f} mean {np.mean(ga):.1f} mm;"
          f" new good vs old good: median {np.median(gn):.1f} mean {np.mean(gn):.1f}; inner<=6 with no move {fx}")
