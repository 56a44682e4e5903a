"""report.md: the balance report in words, built around its verdicts (what to act on first,
what depends on the AI players, what is undecided and the games that would decide it), then each
player count's figures with their intervals."""

from __future__ import annotations

from mapkit.balance.panel import default_panel
from mapkit.balance.verdicts import AGENT_DEPENDENT, KIND_ORDER, ROBUST, UNDECIDED_VERDICT


def _pct(x) -> str:
    return "?" if x is None else f"{x:.0%}" if abs(x) >= 0.1 else f"{x:.1%}"


def _interval(v) -> str:
    if v["kind"] == "seat-advantage":
        return f"{v['estimate']:+.1%} (95 % CI {v['low']:+.1%} to {v['high']:+.1%})"
    if v["kind"] == "color-starved":
        return f"{v['estimate']:+.0%} vs all colored track (95 % CI {v['low']:+.0%} to {v['high']:+.0%})"
    return f"{_pct(v['estimate'])} (95 % CI {_pct(v['low'])}–{_pct(v['high'])})"


_WORDS = {
    "seat-advantage": ("the first seat has an advantage", "no seat advantage worth acting on",
                       "the first seat's excess win share"),
    "ticket-too-hard": ("ticket {s} is too hard", "ticket {s} is not too hard", "completion"),
    "ticket-too-easy": ("ticket {s} is too easy", "ticket {s} is not too easy", "completion"),
    "route-rarely-claimed": ("route {s} is rarely claimed", "route {s} is claimed often enough", "claimed in"),
    "color-starved": ("{s} is starved", "{s} is not starved", "share of its track claimed"),
}


def _players(n: int) -> str:
    return f"{n} player" + ("s" if n != 1 else "")


def verdict_text(v: dict) -> str:
    """One sentence: the verdict, its number with the 95 % interval, and what would decide it."""
    yes, no, what = _WORDS[v["kind"]]
    s = v["subject"]
    head = f"{_players(v['players'])}: "
    figure = f"{what} {_interval(v)} over {v['games']} games"
    if v["verdict"] == ROBUST:
        return head + (yes if v["finding"] else no).format(s=s) + f" — {figure}, with every agent"
    if v["verdict"] == AGENT_DEPENDENT:
        claim = (yes if v["finding"] else no) if v["finding"] is not None else yes + "?"
        verb = "disagrees" if len(v["agents"]) == 1 else "disagree"
        return head + claim.format(s=s) + f" — {figure}; depends on the agents: {', '.join(v['agents'])} {verb}"
    need = f"about {v['games_needed']} more games would decide it" if v["games_needed"] else \
        "no feasible number of games would decide it (it sits on the cut-off)"
    who = f" (the estimate of {', '.join(v['agents'])} lies on the other side)" if v["agents"] else ""
    return head + f"undecided whether {yes.format(s=s)} — {figure}{who}; {need}"


def regenerate_command(r: dict) -> str:
    """The `mapkit report` command that makes this report again: the board file as it was given
    (its id where the report does not say, as in reports made before the file was recorded) and
    every option that shaped the games (--jobs does not change them)."""
    import shlex

    words = ["mapkit", "report", r.get("source") or r["board"], "--seed", str(r["seed"])]
    if r.get("games"):
        words += ["--games", str(r["games"])]
    else:
        words += ["--max-games", str(r["max_games"]), "--batch", str(r["batch"])]
    if r.get("players"):
        words += ["--players", ",".join(str(n) for n in r["players"])]
    if r["panel"] != default_panel():
        words += ["--agents", ",".join(r["panel"])]
    if r.get("preset"):
        words += ["--rules", r["preset"]]
    for v in r.get("variants") or ():
        words += ["--variant", v]
    return " ".join(shlex.quote(w) for w in words)


def format_markdown(r: dict) -> str:
    fixed = r.get("games")
    sizing = (f"{fixed} games per player count" if fixed else
              f"up to {r['max_games']} games per player count, in rounds of {r['batch']} until every verdict is decided")
    cmd = regenerate_command(r)
    out = [f"# Balance report: {r['name']}", "",
           f"Rules `{r['rules']}`; agent panel {', '.join(f'`{a}`' for a in r['panel'])} "
           f"(each in self-play{', and all together at a mixed table with seats rotated' if len(r['panel']) > 1 else ''}); "
           f"{sizing}; seed {r['seed']}. Regenerate with `{cmd}`.", "",
           "Every verdict comes from AI players, not people: *robust* means every agent of the panel agrees "
           "and the 95 % interval clears the cut-off; *agent-dependent* means the agents disagree (it depends "
           "on how the board is played); *undecided* means more games are needed.", ""]
    vs = r["verdicts"]
    act = [v for v in vs if v["verdict"] == ROBUST and v["finding"]]
    dep = [v for v in vs if v["verdict"] == AGENT_DEPENDENT]
    und = [v for v in vs if v["verdict"] == UNDECIDED_VERDICT]
    ok = [v for v in vs if v["verdict"] == ROBUST and not v["finding"]]
    out += ["## Act on first", ""]
    out += [f"- {v['text']}" for v in _ordered(act)] or ["- nothing: no problem is robust across the panel"]
    out.append("")
    if dep:
        out += ["## Depends on the AI players", ""] + [f"- {v['text']}" for v in _ordered(dep)] + [""]
    if und:
        out += ["## Undecided", ""] + [f"- {v['text']}" for v in _ordered(und)[:40]]
        if len(und) > 40:
            out.append(f"- and {len(und) - 40} more (see report.json)")
        out.append("")
    if ok:
        out += ["## Checked and fine", ""] + [f"- {v['text']}" for v in _ordered(ok)] + [""]
    if r["deck_warnings"]:
        out += ["## Deck", ""] + [f"- {w}" for w in r["deck_warnings"]] + [""]
    for run in r["runs"]:
        out += _run_markdown(run)
    return "\n".join(out)


def _ordered(vs):
    return sorted(vs, key=lambda v: (KIND_ORDER.index(v["kind"]), v["players"], v["subject"]))


def _run_markdown(run: dict) -> list[str]:
    n = run["players"]
    out = [f"## {_players(n)} ({run['games']} games)", ""]
    out.append("- win share by seat (ties split): " + ", ".join(
        f"{x['share']:.1%} ({x['low']:.1%}–{x['high']:.1%})" for x in run["seat_win_share"]))
    e = run["first_seat_edge"]
    if e["score"] is not None:
        out.append(f"- first seat vs the others: win share {e['win_share']:+.1%} ({e['low']:+.1%} to {e['high']:+.1%}), "
                   f"score {e['score']:+.1f} ({e['score_low']:+.1f} to {e['score_high']:+.1f}) points per game")
    out.append("- mean score by seat: " + ", ".join(f"{x['mean']:.1f} ({x['low']:.1f} to {x['high']:.1f})"
                                                   for x in run["score_by_seat"]))
    m = run["margins"]
    if n > 1:
        close = [sum(c for e, c in zip(m["edges"], m["counts"]) if e < k) / max(1, run["games"]) for k in (5, 10)]
        out.append(f"- winning margin (winner minus runner-up): mean {m['mean']:g} points; under 5 points in "
                   f"{_pct(close[0])} of games, under 10 in {_pct(close[1])} (histogram in report.json)")
    ld = run["longest_decides"]
    out.append(f"- the longest-path bonus decides the winner in {_pct(ld['share'])} of games ({_pct(ld['low'])}–{_pct(ld['high'])})")
    tc = run["ticket_completion"]
    out.append(f"- ticket completion: {tc:.1%}" if tc is not None else "- ticket completion: no tickets held")
    out.append("- mean score: " + ", ".join(f"{k} {v:g}" for k, v in run["mean_score"].items()))
    out.append(f"- turns per game: {run['turns']['mean']} (min {run['turns']['min']}, max {run['turns']['max']})")
    gaps = run["rules_gaps"]
    out.append("- rules gaps: " + (", ".join(f"{k} {v['events']} in {v['games']} games" for k, v in gaps.items()) or "none"))
    out.append("- game ends: " + ", ".join(f"{k} {v}" for k, v in run["ends"].items()))
    for tb in run["tables"]:
        if tb["mixed"]:
            out.append(f"- {tb['table']}: win share per seat played " + ", ".join(
                f"{a} {x['share']:.1%} ({x['low']:.1%}–{x['high']:.1%})" for a, x in tb["agent_win_share"].items()
                if x["share"] is not None))
    if run["rarely_kept"]:
        out.append("- tickets rarely kept (below 20 % of offers, BH-controlled): " + ", ".join(run["rarely_kept"][:15]))
    out += ["", "| color | track claimed (95 % CI) | wilds per claim |", "|---|---|---|"]
    for c, x in run["color_use"].items():
        wpc = "–" if x["wilds_per_claim"] is None else f"{x['wilds_per_claim']:.2f}"
        out.append(f"| {c} | {_pct(x['claimed_share'])} ({_pct(x['low'])}–{_pct(x['high'])}) | {wpc} |")
    held = [x for x in run["tickets"] if x["held"]]
    if held:
        out += ["", "Ticket value, hardest first (completion with 95 % CI; net points per holding; holder win share "
                f"vs the baseline {1 / n:.0%}):", "",
                "| ticket | points | keep rate | completion | net points | holder win share |", "|---|---|---|---|---|---|"]
        for x in sorted(held, key=lambda x: (x["completion"], x["ticket"]))[:12]:
            keep = "–" if x["keep_rate"] is None else _pct(x["keep_rate"])
            out.append(f"| {x['ticket']} | {x['points']} | {keep} of {x['offered']} | {_pct(x['completion'])} "
                       f"({_pct(x['low'])}–{_pct(x['high'])}) of {x['held']} | {x['net_points_per_holding']:+.1f} | "
                       f"{_pct(x['holder_win_share'])} ({_pct(x['holder_low'])}–{_pct(x['holder_high'])}) |")
    out.append("")
    return out
