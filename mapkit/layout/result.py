"""The result of a layout: the new board dict and the changes to write into the file.

Only station `board` positions, route `waypoints` and (with --size auto) the physical board size
change; positions are rounded to 0.1 mm, as a designer would write them.
"""

from __future__ import annotations

import copy

import numpy as np

from mapkit.textpatch import DELETE


def _xy(p) -> dict:
    return {"x": round(float(p[0]), 1), "y": round(float(p[1]), 1)}


def build_result(net, dr, size: tuple[float, float] | None) -> tuple[dict, dict]:
    """(new board dict, {json path tuple: value or DELETE})."""
    data = copy.deepcopy(net.data)
    changes: dict = {}
    for i, s in enumerate(data["stations"]):
        new = _xy(dr.pos[i])
        if s.get("board") != new:
            s["board"] = new
            changes[("stations", i, "board")] = new
    for k, b in enumerate(net.bundles):
        wps = [_xy(dr.pos[p]) for p in dr.lines[k][1:-1]]
        for ri in b.routes:
            r = data["routes"][ri]
            if b.fixed_waypoints:
                continue
            if wps:
                if r.get("waypoints") != wps:
                    r["waypoints"] = wps
                    changes[("routes", ri, "waypoints")] = wps
            elif "waypoints" in r:
                del r["waypoints"]
                changes[("routes", ri, "waypoints")] = DELETE
    if size is not None:
        w, h = (int(v) if float(v).is_integer() else v for v in size)
        phys = data.get("physical")
        if phys is None:
            data["physical"] = {"width_mm": w, "height_mm": h}
            changes[("physical",)] = {"width_mm": w, "height_mm": h}
        else:
            for key, v in (("width_mm", w), ("height_mm", h)):
                if phys.get(key, {"width_mm": 800, "height_mm": 530}[key]) != v:
                    phys[key] = v
                    changes[("physical", key)] = v
    return data, changes


def station_positions(data: dict) -> np.ndarray:
    return np.array([[s["board"]["x"], s["board"]["y"]] for s in data["stations"]], dtype=float)
