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
        "stop": result.stop, "spending": result.spending,
        "report_games": result.report_games, "games_in_all": result.games + result.report_games,
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


def _games_line(result) -> str:
    g = result.spending.get("games", {})
    parts = [f"{g.get(k, 0)} {k}" for k in ("baseline", "screening", "confirmation")]
    extra = result.settings.get("reserved_for_report", 0)
    rep = f" + {result.report_games} for the tuned board's report" if result.report_games else (
        f" (+ {extra} kept back for the tuned board's report)" if extra else "")
    return (f"games: {result.games} in the loop ({', '.join(parts)}){rep}, of a budget of {result.budget}; "
            f"alpha spent {result.spending.get('alpha_spent', 0):.4f} of {result.settings.get('alpha', 0.05)}")


def format_text(result, aims: Aims, board_id: str, files: dict | None = None) -> str:
    s = result.settings
    lines = [f"mapkit tune {board_id}: seed {s['seed']}, panel {', '.join(s['panel'])}, "
             f"players {', '.join(map(str, s['players']))}",
             _games_line(result),
             f"each round: changes screened on {s['screen_games']} games per player count, the best "
             f"{s['confirm_per_round']} confirmed on {s['step_games']} fresh ones (the same seeds before and after); "
             f"stopped: {result.stop}", "",
             "An aim is met when none of its subjects is shown outside its band (95 % interval wholly outside);",
             "in band counts the subjects whose estimate lies inside it. Verdicts depend on the AI panel.",
             "A change is kept when its target improves and no aim's miss grows by its margin or more, at the",
             "confirmation's share of alpha (spent in proportion to its games: the whole run's error <= alpha).", "",
             f"{'aim':<14} {'before':<42} after"]
    for a in aims.active:
        lines.append(f"{a:<14} {_status(result.before[a]):<42} {_status(result.after[a])}")
        lines.append(f"{'':<14} {aims.describe(a)}; margin {aims.margins[a]:g}")
    kept = [st for st in result.steps if st.kept]
    lines += ["", f"changes kept: {len(result.kept)} in {len(kept)} steps"]
    for k, st in enumerate(kept, 1):
        lines += _step_lines(k, st)
    rejected = [st for st in result.steps if not st.kept]
    confirmed = [st for st in rejected if st.stage == "confirmed"]
    lines += ["", f"confirmed but not kept: {len(confirmed)} (looks of sequential extensions: "
              f"{sum(1 for st in result.steps if st.stage == 'extended')}); dropped at screening: "
              f"{sum(1 for st in rejected if st.stage == 'screened')}; invalid: "
              f"{sum(1 for st in rejected if st.stage == 'invalid')}"]
    for st in rejected:
        names = ", ".join(f"{c.subject} {c.before} -> {c.after}" for c in st.changes[:4])
        more = f" and {len(st.changes) - 4} more" if len(st.changes) > 4 else ""
        t = st.target
        fig = f" (target {t['change']:+.3f}, bound {t['low']:+.3f})" if t else (
            f" (screening z {st.screen_z:+.2f})" if st.screen_z is not None and abs(st.screen_z) < 1e9 else "")
        lines.append(f"  round {st.round} {st.stage}: {st.changes[0].kind}: {names}{more}: {st.reason}{fig}")
    if files:
        lines += ["", "wrote: " + ", ".join(str(v) for v in files.values())]
    return "\n".join(lines)


def _step_lines(k: int, st) -> list:
    out = [f"  step {k} (round {st.round}): {len(st.changes)} change{'s' if len(st.changes) != 1 else ''} kept together"]
    for c in st.changes:
        out.append(f"   - {c.kind}: {c.subject} {c.before} -> {c.after} (aim {c.aim})")
        out.append(f"     why: {c.why}")
    t = st.target
    look = f", at look {st.look} of its sequential extension" if st.look > 1 else ""
    sz = f"; screening z {st.screen_z:+.2f}" if st.screen_z is not None and abs(st.screen_z) < 1e9 else ""
    out.append(f"     its subjects' miss shrank by {t['change']:.3f} (one-sided bound {t['low']:+.3f} at level "
               f"{t['level']:.2g}, z {t['z']:.2f}) on {st.paired_games} games per board{look}{sz}"
               f" (games by stage in the log's totals)")
    before = {(f["aim"], f["subject"], f["players"]): f for f in st.figures if f["when"] == "before"}
    after = {(f["aim"], f["subject"], f["players"]): f for f in st.figures if f["when"] == "after"}
    for key in sorted(set(before) | set(after), key=lambda x: (x[0], x[1], x[2])):
        b, a = before.get(key), after.get(key)
        fb = f"{_fig(b['estimate'], key[0])} [{_fig(b['low'], key[0])}, {_fig(b['high'], key[0])}]" if b else "-"
        fa = f"{_fig(a['estimate'], key[0])} [{_fig(a['low'], key[0])}, {_fig(a['high'], key[0])}]" if a else "-"
        out.append(f"     {key[0]} {key[1]} at {key[2]}p: {fb} -> {fa}")
    out.append("     every aim's miss, before minus after (its bound; it may not fall to -margin): " + ", ".join(
        f"{a} {v['change']:+.3f} ({v['low']:+.3f} > -{v['margin']:g})" for a, v in st.aims.items()))
    return out
