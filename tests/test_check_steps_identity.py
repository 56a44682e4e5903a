"""The checks' step-by-step shortcuts (docs/design/speed.md, "Layout") give what the code
without them gives: checks.geometry_steps, step after step, are check_geometry's problems as the
code before it wrote them (a copy below); Part.score_until returns the whole score or, exactly when
its test holds of the whole score, None; Repair.try_problem with its moves judged only until they
are no better makes the very moves (and counts the very tries) judging every move whole makes, also
when it replays its memo; the prepared Layouts without their clipped lines find the same crossings."""

from __future__ import annotations

import numpy as np
import pytest

import geometry_plain as plain
from test_geometry_fast import findings   # (what a Layout finds, as a comparable dict)
from test_layout_caches_identity import _drawing   # (a raw drawing of a synthetic board: many problems)
import mapkit.checks as checks
import mapkit.geometry as fast
from mapkit.checks import ERROR, WARNING, _fitting_lengths, _p, geometry_steps
from mapkit.layout import judge as J
from mapkit.layout import repair as R
from mapkit.layout.overpass import rank
from mapkit.layout.judge import geometry_problems
from mapkit.layout.judge import score
from mapkit.layout.repair import PartBoards, Repair


def _check_geometry_before(board, layout):
    """check_geometry as it was written before geometry_steps (main d2e716c), for comparison."""
    known = {s.id for s in board.stations}
    if any(r.a not in known or r.b not in known for r in board.routes):
        return
    stations = {s.id: s for s in board.stations}
    routes = {r.id: r for r in board.routes}
    r_mm = board.physical.station_radius_mm
    for a, b, dist in layout.station_overlaps():
        yield _p(board, ERROR, "station-overlap",
                 f"marker overlaps station '{a}' ({dist:.1f} mm apart; keep at least {2 * r_mm + 3:.0f} mm)",
                 stations[b].json_path, f"station {b}")
    for sid in layout.stations_off_board():
        yield _p(board, ERROR, "off-board", "marker is outside the board's playing area (the board less its margin)",
                 stations[sid].json_path, f"station {sid}")
    for rid in layout.routes_off_board():
        yield _p(board, ERROR, "off-board", "spaces fall outside the board's playing area (the board less its margin)",
                 routes[rid].json_path, f"route {rid}")
    too_short = set()
    for rid, shape in layout.routes.items():
        r = routes[rid]
        if shape.usable_mm < shape.needed_mm:
            too_short.add(rid)
            yield _p(board, ERROR, "route-too-short",
                     f"{r.length} spaces need {shape.needed_mm:.0f} mm but the route is drawn {shape.usable_mm:.0f} mm long"
                     f"{_fitting_lengths(board, shape.usable_mm)}; move its stations apart or add waypoints",
                     r.json_path + ".length", f"route {rid}")
        elif shape.stretch > board.physical.max_stretch and r.kind != "flight":
            yield _p(board, WARNING, "route-stretched",
                     f"{r.length} spaces need {shape.needed_mm:.0f} mm but the route is drawn {shape.usable_mm:.0f} mm long"
                     f" ({shape.stretch:.1f}x){_fitting_lengths(board, shape.usable_mm)}; move its stations closer",
                     r.json_path + ".length", f"route {rid}")
    for a, b, area in layout.space_overlaps():
        if a in too_short or b in too_short:
            continue
        yield _p(board, ERROR, "space-overlap", f"spaces overlap route '{a}' ({area:.0f} mm²)",
                 routes[b].json_path, f"route {b}")
    for rid, sid, area in layout.spaces_on_stations():
        if rid in too_short:
            continue
        yield _p(board, ERROR, "space-on-station", f"a space covers station '{sid}' ({area:.0f} mm²)",
                 routes[rid].json_path, f"route {rid}")
    for a, b, (x, y) in layout.crossings():
        yield _p(board, WARNING, "crossing",
                 f"crosses route '{a}' at ({x:.0f}, {y:.0f}) mm; move a station, add waypoints, or flag one \"overpass\": true",
                 routes[b].json_path, f"route {b}")


def _crowded(n_stations, seed, jitter=25.0):
    """_drawing's drawing with every station moved at random: routes cross, cover stations and
    overlap (every step of the checks finds something)."""
    net, dr = _drawing(n_stations, seed=seed)
    dr.pos = dr.pos + np.random.default_rng(seed).normal(0, jitter, dr.pos.shape)
    return net, dr


def _parts(n_stations=40, seed=1, count=30):
    """(Repair, part) pairs round random points of a raw drawing (overlaps, stations covered, routes
    too short and crossings: every step has problems), a point moved between them."""
    net, dr = _crowded(n_stations, seed)
    rp = Repair(net, dr, (1000, 700), geometry_problems)
    rng = np.random.default_rng(seed)
    for t in range(count):
        i = int(rng.integers(net.n))
        yield rp, rp.select(rp._centres([i]), 40.0 + 10.0 * (t % 4))
        dr.pos[int(rng.integers(net.n))] += rng.normal(0, 15, 2)


def test_geometry_steps_are_check_geometry_as_before():
    seen = set()
    for rp, part in _parts():
        view = rp.view(part)
        steps = list(geometry_steps(view.board, view.layout()))
        assert len(steps) == 7
        found = [p for step in steps for p in step]
        # the same problems in the same order (the wording of the messages has moved on since)
        assert [(p.code, p.subject, p.json_path) for p in found] == \
               [(p.code, p.subject, p.json_path) for p in _check_geometry_before(view.board, view.layout())]
        assert found == list(checks.check_geometry(view.board, view.layout()))
        seen.update(p.code for p in found)
    assert {"space-overlap", "space-on-station", "crossing", "route-too-short"} <= seen


def test_score_until_is_the_whole_score_or_none_when_its_test_holds(monkeypatch):
    """Every bound round the whole score (a count and a size below, at and above it): None
    exactly when the test holds of the whole score, else the whole score to the bit; and the
    crossings are not asked for some of the parts (the shortcut does cut)."""
    asked = []
    was = fast.Layout.crossings
    monkeypatch.setattr(fast.Layout, "crossings", lambda self: asked.append(1) or was(self))
    parts = nones = 0
    for rp, part in _parts(count=20):
        view = rp.view(part)
        whole = score(view.problems())
        ranked = rank(view.problems())
        assert view.score_until(lambda sc: False) == whole
        assert view.score_until(lambda sc: False, ranked=True) == ranked
        for dc in (-2, -1, 0, 1):
            for ds in (-15.0, -0.5, 0.0, 0.5, 15.0):
                limit = (whole[0] + dc, whole[1] + ds)
                asked.clear()
                got = rp.view(part).score_until(lambda sc: sc > limit)
                if whole > limit:
                    assert got is None
                    nones += not asked
                else:
                    assert got == whole and repr(got) == repr(whole)
                lim3 = (ranked[0] + dc, ranked[1], ranked[2] + ds)
                got = rp.view(part).score_until(lambda sc: sc > lim3, ranked=True)
                assert got is None if ranked > lim3 else got == ranked
        parts += 1
    assert parts == 20 and nones > 0


def test_score_unless_is_the_gain_test():
    """score_unless(base, best_gain): None exactly when the whole score's gain over base is not below best_gain."""
    for rp, part in _parts(count=12):
        view = rp.view(part)
        whole, ranked = score(view.problems()), rank(view.problems())
        for best in ((0, 0.0), (-1, 0.0), (0, -10.0), (1, 5.0)):
            base = (whole[0] + 1, whole[1] + 10.0)
            gain = (whole[0] - base[0], whole[1] - base[1])
            got = rp.view(part).score_unless(base, best)
            assert got is None if not gain < best else got == whole
        base3, best3 = (ranked[0], ranked[1] + 1, ranked[2]), (0, -1, 0.0)
        got = rp.view(part).score_unless(base3, best3, ranked=True)
        gain3 = tuple(a - b for a, b in zip(ranked, base3))
        assert got is None if not gain3 < best3 else got == ranked


def _plain_score_unless(self, base, best_gain, ranked=False, known=None):
    """Part.score_unless judging the whole part, as the plain code judges every move."""
    return (rank if ranked else score)(self.problems())


@pytest.mark.parametrize("n_stations, seed", [(30, 3), (40, 1)])
def test_try_problem_makes_the_moves_whole_judging_makes(monkeypatch, n_stations, seed):
    """Each problem of a raw drawing tried on two copies of it, one with every move judged whole:
    the same move made (the same points after), the same tries counted, and again when the
    memo replays it (a second try of the same problem on the same drawing)."""
    plain_rps, fast_rps = [], []
    for rps in (plain_rps, fast_rps):
        net, dr = _crowded(n_stations, seed)
        rps.append(Repair(net, dr, (1000, 700), geometry_problems))
    found = fast_rps[0].full()
    assert len(found) > 10
    moved = 0
    for p in sorted(found, key=lambda q: (q.severity != "error", q.code, q.subject, q.message))[:12]:
        results = []
        for rps, plain_judge in ((plain_rps, True), (fast_rps, False)):
            rp = rps[0]
            with monkeypatch.context() as m:
                if plain_judge:
                    m.setattr(R.Part, "score_unless", _plain_score_unless)
                dr = rp.dr
                start, before = (dr.pos.copy(), dr.free.copy(), [list(ln) for ln in dr.lines]), rp.tries
                kept = rp.try_problem(p)
                after, tries = (dr.pos.copy(), [list(ln) for ln in dr.lines]), rp.tries
                # the same drawing again (a bend made is taken out): the memo's replay
                dr.pos, dr.free, dr.lines = start[0].copy(), start[1].copy(), [list(ln) for ln in start[2]]
                rp.tries = before
                again = rp.try_problem(p)
                assert again == kept and np.array_equal(dr.pos, after[0]) and dr.lines == after[1]
                assert rp.tries == tries
                results.append((kept, after[0].tobytes(), after[1], tries))
        assert results[0] == results[1], p.message
        moved += results[0][0]
    assert moved > 0


def test_layouts_without_clipped_lines_find_the_same():
    """geometry.layouts_of(clip=False) (the repair's prepared Layouts): the crossings and every
    other finding as the plain geometry's, the clipped lines made by each Layout itself."""
    fast._CLIPPED.clear()
    for rp, part in _parts(30, seed=3, count=4):
        boards = [PartBoards(rp).board(part)]
        for step in (5.0, -7.0, 11.0):
            rp.dr.pos[part[0][0]] += step
            boards.append(PartBoards(rp).board(part))
        for board, lay in zip(boards, fast.layouts_of(boards, clip=False)):
            got, want = findings(lay), findings(plain.Layout(board))
            assert got == want


def _plain_score_until(self, enough, ranked=False):
    """Part.score_until's contract, judging the whole part: None exactly when enough(whole score)."""
    whole = (rank if ranked else score)(self.problems())
    return None if enough(whole) else whole


def test_polish_moves_as_with_whole_checks(monkeypatch):
    """The polish (its moves' parts checked only until worse than before) keeps the moves it
    keeps with every part checked whole."""
    from mapkit.layout.bearings import polish

    out = []
    for plain_judge in (True, False):
        net, dr = _crowded(40, 1, jitter=6.0)
        rp = Repair(net, dr, (1000, 700), geometry_problems)
        with monkeypatch.context() as m:
            if plain_judge:
                m.setattr(R.Part, "score_until", _plain_score_until)
            kept = polish(rp, max_tries=80)
        out.append((kept, dr.pos.tobytes()))
    assert out[0] == out[1] and out[0][0] > 0


def test_kept_from_are_among_the_moved_parts_problems():
    """What a move leaves as it was (Part.kept_from): each is found again on the part after the
    move, the same problem (an overlap's size at most one mm² apart: the areas may be summed in
    another order); and score_until given them is still the whole score or None exactly when its
    test holds of the whole score. Some are kept, and some not (the moved point's own)."""
    kept_some = dropped_some = 0
    rng = np.random.default_rng(9)
    for rp, part in _parts(count=16):
        before = rp.view(part)
        found = before.problems()
        i = part[0][int(rng.integers(len(part[0])))]
        old = rp.dr.pos[i].copy()
        rp.dr.pos[i] = old + rng.normal(0, 6, 2)
        after = rp.view(part)
        kept = after.kept_from(before, found)
        now = after.problems()
        rp.dr.pos[i] = old
        if kept is None:
            continue
        for p in kept:
            same = [q for q in now if (q.code, q.subject) == (p.code, p.subject)
                    and (q.message == p.message or q.code in ("space-overlap", "space-on-station")
                         and abs(J._size_of(q) - J._size_of(p)) <= 1.0)]
            assert same, p.message
        kept_some += bool(kept)
        dropped_some += len(kept) < len(found)
        whole = score(now)
        for dc in (-1, 0, 1):
            for ds in (-20.0, 0.0, 20.0):
                limit = (whole[0] + dc, whole[1] + ds)
                got = after.score_until(lambda sc: sc > limit, known=kept)
                assert got is None if whole > limit else got == whole
    assert kept_some and dropped_some


def test_later_steps_sum_the_known_by_step():
    """_later_steps: row k the errors, problems and sizes (overlaps one mm² less) of the known
    problems of geometry_steps' step k and after; None for a size that is not a whole number."""
    for rp, part in _parts(count=30):   # a part with overlaps, spaces on stations and crossings
        found = rp.view(part).problems()
        if {"space-overlap", "space-on-station", "crossing"} <= {p.code for p in found}:
            break
    else:
        raise AssertionError("no part with every kind of problem")
    rows = R._later_steps(found)
    assert len(rows) == checks.GEOMETRY_STEPS + 1 and rows[-1] == (0, 0, 0.0)
    for k in range(checks.GEOMETRY_STEPS):
        mine = [p for p in found if checks.geometry_step(p) >= k]
        assert rows[k][:2] == (sum(p.severity == "error" for p in mine), len(mine))
        assert rows[k][2] == sum(max(J._size_of(p) - 1.0, 0.0) if p.code in ("space-overlap", "space-on-station")
                                 else J._size_of(p) for p in mine)
    steps = list(geometry_steps(rp.view(part).board))
    assert [checks.geometry_step(p) for p in found] == [k for k, step in enumerate(steps) for _ in step]
    odd = checks._p(rp.view(part).board, ERROR, "route-too-short", "3 spaces need 41.3 mm but the route is drawn 40 mm long",
                    "$.routes[0]", "route x")
    assert R._later_steps(found + [odd]) is None
