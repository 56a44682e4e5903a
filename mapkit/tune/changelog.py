"""The change log of a tuning run, as text for the designer and as JSON for programs.

Each step lists its changes and their evidence, the figures of the subjects it was for before and
after (with 95 % intervals), the paired difference of every aim's miss (95 % bootstrap interval;
positive = better) and of the target's (at the corrected level), and whether it was kept.
"""

from __future__ import annotations

from mapkit.tune.aims import Aims


def _pct(x) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def _fig(x, aim: str) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.2f}" if aim in ("value-rises", "color-wilds") else f"{x:.0%}"


def _status(row: dict) -> str:
    if row["subjects"] == 0:
        return "no subjects judged"
    word = "met" if row["met"] else "NOT met"
    return f"{word} ({row['met_count']}/{row['subjects']} in band, {row['missed']} shown outside)"


def as_json(result, aims: Aims, board_id: str, files: dict | None = None) -> dict:
    return {
        "board": board_id, "settings": result.settings, "games": result.games, "budget": result.budget,
        "stop": result.stop,
        "aims": {a: {"text": aims.describe(a), "before": _row(result.before[a]), "after": _row(result.after[a])}
                 for a in aims.active},
        "kept": [c.as_dict() for c in result.kept],
        "steps": [s.as_dict() for s in result.steps],
        "subjects_before": [s.as_dict() for s in result.subjects_before],
        "subjects_after": [s.as_dict() for s in result.subjects_after],
        "changes_to_file": [{"path": list(p), "value": None if _is_delete(v) else v, "delete": _is_delete(v)}
                            for p, v in result.patches.changes.items()],
        "files": files or {},
    }


def _is_delete(v) -> bool:
    from mapkit.tune.writeback import DELETE

    return v is DELETE


def _row(r: dict) -> dict:
    return {"met": r["met"], "in_band": r["in_band"], "subjects": r["subjects"], "in_band_count": r["met_count"],
            "unclear": r["unclear"], "missed": r["missed"]}


def format_text(result, aims: Aims, board_id: str, files: dict | None = None) -> str:
    s = result.settings
    lines = [f"mapkit tune {board_id}: seed {s['seed']}, panel {', '.join(s['panel'])}, "
             f"players {', '.join(map(str, s['players']))}",
             f"games: {result.games} of a budget of {result.budget} ({s['step_games']} per player count per step, "
             f"the same seeds every step); stopped: {result.stop}", "",
             "An aim is met when none of its subjects is shown outside its band (95 % interval wholly outside);",
             "in band counts the subjects whose estimate lies inside it. Verdicts depend on the AI panel.", "",
             f"{'aim':<14} {'before':<42} after"]
    for a in aims.active:
        lines.append(f"{a:<14} {_status(result.before[a]):<42} {_status(result.after[a])}")
        lines.append(f"{'':<14} {aims.describe(a)}")
    kept = [st for st in result.steps if st.kept]
    lines += ["", f"changes kept: {len(result.kept)}"]
    for k, st in enumerate(kept, 1):
        lines += _step_lines(k, st)
    rejected = [st for st in result.steps if not st.kept]
    lines += ["", f"steps not kept: {len(rejected)}"]
    for k, st in enumerate(rejected, 1):
        names = ", ".join(f"{c.subject} {c.before} -> {c.after}" for c in st.changes[:4])
        more = f" and {len(st.changes) - 4} more" if len(st.changes) > 4 else ""
        t = st.target
        fig = f" (target {t['change']:+.3f}, {t['low']:+.3f} to {t['high']:+.3f})" if t else ""
        lines.append(f"  {k}. {st.changes[0].kind}: {names}{more}: {st.reason}{fig}")
    if files:
        lines += ["", "wrote: " + ", ".join(str(v) for v in files.values())]
    return "\n".join(lines)


def _step_lines(k: int, st) -> list:
    out = [f"  step {k}: {len(st.changes)} change{'s' if len(st.changes) != 1 else ''} kept together"]
    for c in st.changes:
        out.append(f"   - {c.kind}: {c.subject} {c.before} -> {c.after} (aim {c.aim})")
        out.append(f"     why: {c.why}")
    t = st.target
    out.append(f"     its subjects' miss shrank by {t['change']:.3f} ({t['level']:.1%} interval {t['low']:+.3f} to "
               f"{t['high']:+.3f}) over {st.games} paired games")
    before = {(f["aim"], f["subject"], f["players"]): f for f in st.figures if f["when"] == "before"}
    after = {(f["aim"], f["subject"], f["players"]): f for f in st.figures if f["when"] == "after"}
    for key in sorted(set(before) | set(after), key=lambda x: (x[0], x[1], x[2])):
        b, a = before.get(key), after.get(key)
        fb = f"{_fig(b['estimate'], key[0])} [{_fig(b['low'], key[0])}, {_fig(b['high'], key[0])}]" if b else "-"
        fa = f"{_fig(a['estimate'], key[0])} [{_fig(a['low'], key[0])}, {_fig(a['high'], key[0])}]" if a else "-"
        out.append(f"     {key[0]} {key[1]} at {key[2]}p: {fb} -> {fa}")
    out.append("     every aim's miss, before minus after (95 %): " + ", ".join(
        f"{a} {v['change']:+.3f} [{v['low']:+.3f}, {v['high']:+.3f}]" for a, v in st.aims.items()))
    return out
