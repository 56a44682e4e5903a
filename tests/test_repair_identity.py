"""The repair's fast paths (docs/design/speed.md, "Layout"):
each faster path gives what the plain code it replaced gave, checked at every call during one
layout of a small synthetic board (Repair._distances measuring only what can be within reach,
PartBoards rounding only the moved points and making new fans from them, the Layout's marker keys,
Repair._centres' table of steps, Repair.full's memo key, _named remembered, label_bounds made once)."""

from __future__ import annotations

import hashlib
import math
from dataclasses import fields

import numpy as np
import pytest
import shapely

import mapkit.geometry as G
import mapkit.layout.judge as J
import mapkit.layout.labelroom as L
import mapkit.layout.repair as R
from mapkit.boardfile import build_board
from mapkit.checks import check_geometry
from mapkit.geometry import station_fan
from mapkit.layout import layout_board
from mapkit.layout.result import _xy
from mapkit.layout.synthetic import layout_board_data
from mapkit.model import Board
from mapkit.render import shapes


def _plain_distances(rp, centres):
    """Repair._distances in its plain form: every station and segment measured."""
    pos = rp.dr.pos
    p_, q_, own = rp._segments()
    station_dist = np.min(R._norms(pos[: rp.net.n, None, :] - centres[None]), axis=1)
    a, d = pos[p_], pos[q_] - pos[p_]
    t = np.einsum("csk,sk->cs", centres[:, None, :] - a[None], d) / np.maximum((d * d).sum(1), 1e-9)[None]
    foot = a[None] + np.clip(t, 0.0, 1.0)[..., None] * d[None]
    segment_dist = np.min(R._norms(centres[:, None, :] - foot), axis=0)
    return station_dist, segment_dist, own


def _plain_select(rp, centres, reach):
    station_dist, segment_dist, own = _plain_distances(rp, centres)
    stations = set(np.nonzero(station_dist < reach)[0].tolist())
    hit = np.zeros(len(rp.dr.lines), dtype=bool)
    hit[own[segment_dist < reach]] = True
    bundles = np.flatnonzero(hit).tolist()
    for k in bundles:
        stations.update((rp.net.bundles[k].a, rp.net.bundles[k].b))
    return sorted(stations), bundles


def _plain_whole_needs(pb, order):
    """PartBoards.whole_needs in its plain form: every station's fan made anew from _xy's dicts."""
    rp, net = pb.rp, pb.rp.net
    dr = rp.dr
    route_bundle = {ri: k for k, b in enumerate(net.bundles) for ri in b.routes}
    index = {sid: i for i, sid in enumerate(net.ids)}
    ends = {}
    for k, b in enumerate(net.bundles):
        for s_ in (b.a, b.b):
            ends.setdefault(s_, []).append(k)
    ks = {route_bundle[ri] for ri in order}
    got = {}
    for s_ in {q for k in ks for q in (dr.lines[k][0], dr.lines[k][-1])}:
        bands = {}
        for k in ends.get(s_, []):
            line = dr.lines[k]
            end, q = (0, line[1]) if line[0] == s_ else (1, line[-2])
            here, nxt = _xy(dr.pos[s_]), _xy(dr.pos[q])
            pts = [_xy(dr.pos[p]) for p in line]
            total = sum(math.hypot(u["x"] - v["x"], u["y"] - v["y"]) for u, v in zip(pts[:-1], pts[1:]))
            b = net.bundles[k]
            even = (total - 2 * net.radius - b.length * net.space_len) / (b.length + 1)
            bands[k] = (end, math.atan2(nxt["y"] - here["y"], nxt["x"] - here["x"]), b.half_width, even)
        need = station_fan([v[1:] for v in bands.values()], net.radius, net.space_gap)
        got[s_] = {(k, v[0]): n for (k, v), n in zip(bands.items(), need)}
    out = {}
    for ri in order:
        k = route_bundle[ri]
        line = dr.lines[k]
        n0, n1 = got[line[0]].get((k, 0), 0.0), got[line[-1]].get((k, 1), 0.0)
        out[ri] = (n0, n1) if line[0] == index[net.board.routes[ri].a] else (n1, n0)
    return out


def _plain_centres(rp, points):
    """Repair._centres in its plain form (np.linspace made for every segment)."""
    pts = set(points)
    out = [rp.dr.pos[i] for i in pts]
    for line in rp.dr.lines:
        if pts.isdisjoint(line):
            continue
        for j in range(len(line) - 1):
            a, b = rp.dr.pos[line[j]], rp.dr.pos[line[j + 1]]
            d = b - a
            m = max(int(np.sqrt(d.dot(d)) // R.SAMPLE_MM), 1)
            out.extend(a + d * np.linspace(0.0, 1.0, m + 1)[:, None])
    return np.array(out)


def _plain_stations_off_board(layout):
    """Layout.stations_off_board of every marker polygon, nothing remembered."""
    ids, discs = layout._discs
    return [sid for sid, ok in zip(ids, layout._inside(discs).tolist()) if not ok]


def _same_array(a, b) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.fixture(scope="module")
def seen():
    """One layout of a small synthetic board with the repair's fast paths checked against the plain
    code at every call: {name: [calls, mismatches]}."""
    counts = {k: [0, 0] for k in ("select", "distances", "rounded", "whole_needs", "board", "centres",
                                  "off_board", "full", "named")}
    fast = {"select": R.Repair.select, "rounded": R.PartBoards._rounded, "whole_needs": R.PartBoards.whole_needs,
            "board": R.PartBoards.board, "centres": R.Repair._centres, "off_board": G.Layout.stations_off_board,
            "full": R.Repair.full, "named": J._named}

    def count(name, wrong):
        counts[name][0] += 1
        counts[name][1] += bool(wrong)

    def select(self, centres, reach):
        got = fast["select"](self, centres, reach)
        count("select", got != _plain_select(self, centres, reach))
        # the distances returned: exact wherever they can be within the reach
        st, sg, _ = self._dist
        pst, psg, _ = _plain_distances(self, centres)
        near_s, near_g = pst < self._dist_reach + 1.0, psg < self._dist_reach + 1.0
        count("distances", not (_same_array(st[near_s], pst[near_s]) and _same_array(sg[near_g], psg[near_g])
                                and (st[~near_s] >= self._dist_reach).all() and (sg[~near_g] >= self._dist_reach).all()))
        return got

    def rounded(self, pos):
        got = fast["rounded"](self, pos)
        count("rounded", list(got) != [(round(x, 1), round(y, 1)) for x, y in pos.tolist()]
              or [tuple(map(math.copysign, (1.0, 1.0), v)) for v in got] !=
              [tuple(map(math.copysign, (1.0, 1.0), (round(x, 1), round(y, 1)))) for x, y in pos.tolist()])
        return got

    def whole_needs(self, order):
        got = fast["whole_needs"](self, order)
        count("whole_needs", got != _plain_whole_needs(self, order))
        return got

    def board(self, part, with_needs=False):
        got = fast["board"](self, part, with_needs)
        b = got[0] if with_needs else got
        count("board", b != build_board(self.rp.part_data(part)) or set(b.__dict__) != {f.name for f in fields(Board)})
        return got

    def centres(self, points):
        got = fast["centres"](self, points)
        count("centres", not _same_array(got, _plain_centres(self, points)))
        return got

    def off_board(self):
        got = fast["off_board"](self)
        count("off_board", got != _plain_stations_off_board(self))
        return got

    def full(self):
        got = fast["full"](self)
        whole = self._whole()
        if whole is not None:
            # the memo's answer is the board's own check, and its key tells the boards apart as the
            # plain key did (the waypoints' dataclass repr): one to one over the layout
            board = self._boards.board(whole)
            count("full", got != list(check_geometry(board, G.Layout(board, even=self.even))))
            old_key = hashlib.sha256(repr([[(s.board.x, s.board.y) for s in board.stations],
                                           [r.waypoints for r in board.routes], self.size_out]).encode()).digest()
            keys.add((old_key, R._full_key(board, self.size_out)))
        return got

    def named(p, kind, codes):
        got = fast["named"](p, kind, codes)
        count("named", got != J._named_plain(p, kind, codes))
        return got

    keys: set = set()   # (the plain key, _full_key) of each whole board checked
    mp = pytest.MonkeyPatch()
    mp.setattr(R.Repair, "select", select)
    mp.setattr(R.PartBoards, "_rounded", rounded)
    mp.setattr(R.PartBoards, "whole_needs", whole_needs)
    mp.setattr(R.PartBoards, "board", board)
    mp.setattr(R.Repair, "_centres", centres)
    mp.setattr(G.Layout, "stations_off_board", off_board)
    mp.setattr(R.Repair, "full", full)
    mp.setattr(J, "_named", named)
    try:
        layout_board(layout_board_data(24, seed=0), seed=0)
    finally:
        mp.undo()
    counts["full keys"] = [len(keys), len(keys) - min(len({a for a, _ in keys}), len({b for _, b in keys}))]
    return counts


def test_select_measures_only_what_can_be_within_reach(seen):
    for name in ("select", "distances"):
        calls, wrong = seen[name]
        assert calls > 100 and wrong == 0, name


def test_part_boards_round_only_moved_points_and_make_the_same_fans(seen):
    for name in ("rounded", "whole_needs", "board"):
        calls, wrong = seen[name]
        assert calls > 100 and wrong == 0, name


def test_centres_take_their_steps_from_the_table(seen):
    calls, wrong = seen["centres"]
    assert calls > 20 and wrong == 0


def test_stations_off_board_from_the_marker_keys(seen):
    calls, wrong = seen["off_board"]
    assert calls > 100 and wrong == 0


def test_full_checks_memo_key(seen):
    calls, wrong = seen["full"]
    assert calls > 10 and wrong == 0
    boards, wrong = seen["full keys"]
    assert boards > 10 and wrong == 0


def test_named_remembered(seen):
    calls, wrong = seen["named"]
    assert calls > 100 and wrong == 0


def test_rounded_points_follow_every_change():
    """PartBoards._rounded against plain rounding through moves, a signed zero, a NaN, an added and a
    dropped point (the repair's bends)."""
    pb = R.PartBoards.__new__(R.PartBoards)
    pb._round_src, pb._round_out = None, []

    def plain(pos):
        return [(round(x, 1), round(y, 1)) for x, y in pos.tolist()]

    def signs(pts):
        return [(math.copysign(1.0, x), math.copysign(1.0, y)) for x, y in pts]

    pos = np.array([[10.04, 20.05], [30.26, 40.0], [0.0, 5.0]])
    for step in range(7):
        if step == 1:
            pos[1, 0] = 30.35
        elif step == 2:
            pos[2, 0] = -0.0
        elif step == 3:
            pos[0, 1] = np.nan
        elif step == 4:
            pos = np.vstack([pos, [[7.77, 8.88]]])
        elif step == 5:
            pos = pos[:-2].copy()
        elif step == 6:
            pos = pos.copy()   # the same bits in another array
        got = pb._rounded(pos)
        want = plain(pos)
        assert len(got) == len(want)
        assert [repr(v) for v in got] == [repr(v) for v in want], step
        assert signs(got) == signs(want), step


def test_label_bounds_made_once_are_the_box():
    from mapkit.model import Physical

    for ph in (Physical(), Physical(width_mm=900.0, height_mm=600.0, margin_mm=15.0)):
        inset = shapes.track_band(ph.margin_mm).inner + 1.0
        want = shapely.box(inset, inset, ph.width_mm - inset, ph.height_mm - inset)
        for _ in range(2):
            got = L.label_bounds(ph)
            assert got.bounds == want.bounds and shapely.equals_exact(got, want, 0.0)


def _old_full_key(board, size_out) -> bytes:
    return hashlib.sha256(repr([[(s.board.x, s.board.y) for s in board.stations],
                                [r.waypoints for r in board.routes], size_out]).encode()).digest()


def test_full_key_tells_the_boards_apart_as_the_repr_did():
    """_full_key of boards that differ in one waypoint (moved, a signed zero, one more, none) and
    in a station: equal exactly when the plain key (the waypoints' repr) is."""
    from dataclasses import replace

    from mapkit.model import Point

    base = build_board(layout_board_data(6, seed=0))
    base = replace(base, stations=tuple(replace(s, board=Point(x=10.0 * n, y=20.0)) for n, s in enumerate(base.stations)))
    variants = []
    for wps in ((), (Point(x=5.0, y=6.0),), (Point(x=5.0, y=6.1),), (Point(x=0.0, y=6.0),), (Point(x=-0.0, y=6.0),),
                (Point(x=5.0, y=6.0), Point(x=7.0, y=8.0)), (Point(lat=5.0, lon=6.0),),
                (Point(lat=1.0, lon=2.0, x=5.0, y=6.0),)):
        routes = (replace(base.routes[0], waypoints=wps),) + base.routes[1:]
        variants.append(replace(base, routes=routes))
    variants.append(replace(variants[1], stations=(replace(base.stations[0], board=Point(x=0.0, y=20.1)),) + base.stations[1:]))
    variants.append(variants[1])
    for a in variants:
        for b in variants:
            for size in ((800.0, 530.0), None):
                assert (R._full_key(a, size) == R._full_key(b, size)) == (_old_full_key(a, size) == _old_full_key(b, size))
