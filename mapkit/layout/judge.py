"""How the layout's local steps judge a drawing: what `mapkit validate` says of it (the layout's own
check, geometry_problems), the weight of those problems (score: fewer first, then smaller), the
routes and stations a problem names, and the fill a local move must keep.

Every local step (the repair, the tightening, the label step, the polish, the reseat, the finish)
compares drawings with these, so they sit below all of them."""

from __future__ import annotations

import re

import numpy as np


def score(found) -> tuple[int, float]:
    """(errors + warnings, how bad they are): compared as a pair, smaller is better."""
    size = 0.0
    for p in found:
        size += _size_of(p)
    return len(found), size


def _size_of(p) -> float:
    """_size of one problem (the repair and the polish score the same few messages thousands of times)."""
    key = (p.code, p.message)
    v = _SIZES.get(key)
    if v is None:
        v = _size(p.code, p.message)
        if len(_SIZES) >= 20_000:
            _SIZES.clear()
        _SIZES[key] = v
    return v


_SIZES: dict = {}   # (code, message) -> _size of it


def _size(code: str, message: str) -> float:
    """How bad one problem is, read from its message."""
    nums = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) mm", message)]
    if code in ("space-overlap", "space-on-station"):
        m = re.search(r"\((\d+) mm²\)", message)
        return float(m.group(1)) if m else 10.0
    if code == "route-too-short" and len(nums) >= 2:
        return 10.0 * max(nums[0] - nums[1], 0.5)
    if code == "station-overlap":
        return 20.0
    return 10.0


def _named(p, kind: str, codes: tuple[str, ...]) -> list[str]:
    """The ids of one kind ("route" or "station") a problem names: its subject, and for these codes
    the other one its message quotes. Remembered by what it is read from (kept_from reads every
    problem of a part before a move, for each move)."""
    key = (p.subject, p.code, p.message, kind, codes)
    got = _NAMED.get(key)
    if got is None:
        if len(_NAMED) >= 20_000:
            _NAMED.clear()
        got = _NAMED[key] = _named_plain(p, kind, codes)
    return list(got)


def _named_plain(p, kind: str, codes: tuple[str, ...]) -> list[str]:
    out = []
    if p.subject.startswith(kind + " "):
        out.append(p.subject[len(kind) + 1:])
    if p.code in codes:
        m = re.search(kind + r" '([^']+)'", p.message)
        if m:
            out.append(m.group(1))
    return out


def _route_names(p) -> list[str]:
    return _named(p, "route", ("space-overlap", "crossing"))


def _station_names(p) -> list[str]:
    return _named(p, "station", ("space-on-station", "station-overlap"))


def geometry_problems(data: dict, even: bool = False):
    """What `mapkit validate` says of the drawing (the geometry checks, on the real shapes); even:
    with every route's spaces spread evenly (mapkit.geometry.Layout's even), as even_problems."""
    from mapkit.boardfile import build_board
    from mapkit.checks import check_geometry
    from mapkit.geometry import Layout

    board = build_board(data)
    return list(check_geometry(board, Layout(board, even=True) if even else None))


def even_problems(data: dict):
    """geometry_problems of the drawing with every route's spaces spread evenly (no end given its
    need): how the layout's checked repairs judge a drawing, their models and moves being made for
    the even spread. A step given this check judges every board, part and flight path so."""
    return geometry_problems(data, even=True)


OWN_CHECKS = (geometry_problems, even_problems)   # the layout's own checks (the repair's fast paths know them)


def problem_bundles(net, found) -> set[int]:
    """The bundles the problems name (as subject or in their message)."""
    bundle_of = {net.route_ids[r]: k for k, b in enumerate(net.bundles) for r in b.routes}
    out = set()
    for p in found:
        for rid in [p.subject.split(" ", 1)[-1]] + re.findall(r"route '([^']+)'", p.message):
            if rid in bundle_of:
                out.add(bundle_of[rid])
    return out


def fill_kept(dr, span_before) -> bool:
    """The stations' bounding box still spans what the board asks (dr.fill_box), or no less than it
    did: a local move must not undo the fill the optimization reached."""
    if dr.fill_box is None:
        return True
    st = dr.pos[: dr.n_stations]
    span = st.max(0) - st.min(0)
    return bool((span >= np.minimum(span_before, np.asarray(dr.fill_box, dtype=float)) - 1e-9).all())


def station_span(dr) -> np.ndarray:
    st = dr.pos[: dr.n_stations]
    return st.max(0) - st.min(0)


_NAMED: dict = {}   # (subject, code, message, kind, codes) -> _named_plain of them
