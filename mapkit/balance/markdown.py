"""report.md: the balance report in words, built around what to change (the causes, each with
its change and what that change did in simulation), then the verdicts behind them (robust,
depending on the AI players, the AI players disagreeing, not yet decided), then each player
count's figures with their intervals, beside the published map's where the report has them."""

from __future__ import annotations

from typing import Optional

from mapkit.balance.panel import default_panel
from mapkit.balance.published import TRUST, ticket_band
from mapkit.balance.verdicts import AGENT_DEPENDENT, AGENTS_DISAGREE, KIND_ORDER, NEEDS_GAMES, ROBUST


def _pct(x) -> str:
    return "?" if x is None else f"{x:.0%}" if abs(x) >= 0.1 else f"{x:.1%}"


def _conf(v) -> str:
    c = v.get("confidence") or 0.95
    return f"{c:.1%}".replace(".0%", "%") + " interval"


def _fig(v, x) -> str:
    if v["kind"] == "seat-advantage":
        return f"{x:+.1%}"
    if v["kind"] == "color-starved":
        return f"{x:+.0%}"
    return _pct(x)


def _interval(v) -> str:
    where = f"{_fig(v, v['estimate'])} ({_conf(v)} {_fig(v, v['low'])} to {_fig(v, v['high'])})"
    if v["kind"] == "color-starved":
        where += " vs all colored track"
    return where


_WORDS = {
    "seat-advantage": ("the first seat has an advantage", "no seat advantage worth acting on",
                       "the first seat's excess win share", "above"),
    "ticket-too-hard": ("ticket {s} is too hard", "ticket {s} is not too hard", "completion", "below"),
    "ticket-too-easy": ("ticket {s} is too easy", "ticket {s} is not too easy", "completion", "above"),
    "ticket-holders-lose": ("the holders of ticket {s} lose", "the holders of ticket {s} win their share",
                            "holder win share", "below"),
    "route-rarely-claimed": ("route {s} is rarely claimed", "route {s} is claimed often enough", "claimed in",
                             "below"),
    "color-starved": ("{s} is starved", "{s} is not starved", "share of its track claimed", "below"),
}


GAP_WORDS = {
    "cards_exhausted": "the train-card deck ran out (no card left to draw)",
    "endless_wipes": "the face-up cards were wiped again and again (too many wild cards)",
    "no_legal_action": "a player had no legal move",
    "stalled": "the game stalled (nobody could do anything useful)",
    "turn_limit": "the game hit the turn limit",
    "agent_error": "an AI player made an illegal move",
}


def _players(n: int) -> str:
    return f"{n} player" + ("s" if n != 1 else "")


def verdict_text(v: dict) -> str:
    """One sentence: the verdict, its number with the interval at the level it was decided at,
    the cut-off it is judged against, and what would decide it."""
    yes, no, what, side = _WORDS[v["kind"]]
    s = v["subject"]
    head = f"{_players(v['players'])}: "
    figure = f"{what} {_interval(v)} over {v['games']} games; cut-off {_fig(v, v['cutoff'])}"
    by = v.get("by_agent") or {}
    if v["verdict"] == ROBUST:
        return head + (yes if v["finding"] else no).format(s=s) + f" — {figure}, with every agent"
    if v["verdict"] == AGENT_DEPENDENT:
        claim = (yes if v["finding"] else no)
        who = ", ".join(f"{a} {_fig(v, by[a])}" if a in by else a for a in v["agents"])
        return head + claim.format(s=s) + f" — {figure}; depends on the agents: not so for {who}"
    if v["verdict"] == AGENTS_DISAGREE:
        ones = ", ".join(f"{a} {_fig(v, by[a])}" for a in v["agents"] if a in by)
        others = ", ".join(f"{a} {_fig(v, by[a])}" for a in v.get("against", []) if a in by)
        return head + f"the AI players disagree whether {yes.format(s=s)} — {figure}; {side} the cut-off: " \
                      f"{ones}; not: {others}. More games would not settle it: it depends on how the board is played"
    need = f"about {v['games_needed']} more games would decide it" if v["games_needed"] else \
        "too near its cut-off for any feasible number of games to decide"
    return head + f"not yet decided whether {yes.format(s=s)} — {figure}; {need}"


def _cause_line(c: dict) -> str:
    who = ", ".join(c["subjects"][:6]) + (f" and {len(c['subjects']) - 6} more" if len(c["subjects"]) > 6 else "")
    ps = c["players"]
    at = f"{ps[0]} players" if len(ps) == 1 else f"{', '.join(map(str, ps[:-1]))} and {ps[-1]} players"
    line = f"**{who}** ({at}): {c['why']}."
    line += f" Change: {c['change']}." if c.get("change") else " No map change proposed."
    t = c.get("tested")
    if t:
        line += (f" Tried on {t['games']} games at {t['players']} players (the same seeds): {t['figure']} "
                 f"{_pct(t['before'])} → {_pct(t['after'])} (95 % interval {_pct(t['low'])}–{_pct(t['high'])}).")
    if not c.get("robust"):
        line += " (Depends on the AI players.)"
    return line


def _trust_lines() -> list[str]:
    p, e = TRUST["people"], TRUST["expert"]
    return [f"How far to trust the AI: on the published map under the Mega rules, {e['who']} score {e['score']:g} "
            f"points with {e['tickets']:g} tickets in {e['turns']:g} turns a player (`{e['command']}`); "
            f"{p['who']} scored {p['score']:g} with {p['tickets']:g} tickets in {p['turns']:g} turns. The panel's "
            "other agents are weaker than the expert: a verdict about how people would play rests on that.", ""]


def _and(ns: list[int]) -> str:
    return ", ".join(map(str, ns[:-1])) + f" and {ns[-1]}" if len(ns) > 1 else str(ns[0])


def _reference_lines(r: dict) -> list[str]:
    ref = r.get("reference")
    if not ref:
        return ["Cut-offs are fixed (no published reference was played with these rules and agents).", ""]
    out = [f"Judged against the published map: the {ref['name']} played by the same panel with its published "
           f"ticket deck ({ref['games']} games per player count, {ref['source']}). A verdict is raised only where "
           f"this board falls outside what the published map itself does:", ""]
    here = {str(n): b.get("trains") for n, b in (r.get("bands") or {}).items()}
    scaled = [(n, here.get(n), b["trains"]) for n, b in ref["bands"].items()
              if b.get("trains") and here.get(n) and here.get(n) != b["trains"]]
    if scaled:
        counts: dict[tuple, list[int]] = {}
        for n, mine, theirs in scaled:
            counts.setdefault((mine, theirs), []).append(int(n))
        said = "; ".join(f"at {_and(sorted(ns))} players {mine} trains a player against the published {theirs}, so a "
                         f"ticket of p points is judged as one of p × {theirs} / {mine} published points"
                         for (mine, theirs), ns in sorted(counts.items(), key=lambda kv: min(kv[1])))
        out += [f"A ticket is compared with published tickets needing the same share of a player's trains: {said}.",
                ""]
    out += ["| players | published tickets: completion at 6 / 12 / 20 points | first seat edge | least claimed "
            "route | least claimed color vs all |", "|---|---|---|---|---|"]
    for n, b in sorted(ref["bands"].items(), key=lambda kv: int(kv[0])):
        if str(n) not in {str(x["players"]) for x in r["runs"]}:
            continue
        spans = " / ".join(f"{_pct(ticket_band(b, p)[0])}–{_pct(ticket_band(b, p)[1])}" for p in (6, 12, 20))
        out.append(f"| {n} | {spans} | {b['seat_edge']:+.1%} (up to {b['seat_high']:+.1%}) | {_pct(b['route_low'])} "
                   f"of games | {b['color_low']:+.0%} |")
    return out + [""]


CAUSES_SHOWN = 12


def strategy_findings(s: dict, pub: dict) -> list[str]:
    """Sentences for the strategy tables: a restricted strategy that wins clearly more than the
    expert at its table and than on the published map dominates; skill that pays clearly less (or
    more) than on the published map. Decided on the 95 % intervals, and said to rest on the AI."""
    out = []
    pub_r = {x["agent"]: x for x in pub.get("restricted", [])}
    pub_s = {(x["better"], x["worse"]): x for x in pub.get("skill", [])}
    for x in s.get("restricted", []):
        e, p = x.get("expert"), pub_r.get(x["agent"])
        if x.get("share") is None or not e or not p:
            continue
        if x["low"] > e["high"] and x["low"] > p["high"]:
            out.append(f"A player who {x['what']} wins {_pct(x['share'])} of the seats it plays, more than the "
                       f"expert at the same table ({_pct(e['share'])}) and than the same strategy on the published "
                       f"map ({_pct(p['share'])}): that strategy dominates this board. Make it pay less (fewer "
                       "points for short routes, tickets worth keeping) and playtest it with people.")
    for x in s.get("skill", []):
        p = pub_s.get((x["better"], x["worse"]))
        if x.get("share") is None or not p:
            continue
        if x["high"] < p["low"]:
            out.append(f"`{x['better']}` beats `{x['worse']}` in {_pct(x['share'])} of the games here against "
                       f"{_pct(p['share'])} on the published map: this board rewards playing better less than the "
                       "published one (more luck, fewer decisions that matter).")
        elif x["low"] > p["high"]:
            out.append(f"`{x['better']}` beats `{x['worse']}` in {_pct(x['share'])} of the games here against "
                       f"{_pct(p['share'])} on the published map: this board rewards playing better more.")
    return out


def _share(x: Optional[dict]) -> str:
    if not x or x.get("share") is None:
        return "–"
    return f"{_pct(x['share'])} ({_pct(x['low'])}–{_pct(x['high'])})"


def _strategy_lines(r: dict) -> list[str]:
    s = r.get("strategies")
    if not s:
        return []
    pub = ((r.get("reference") or {}).get("strategies")) or {}
    pub_r = {x["agent"]: x for x in pub.get("restricted", [])}
    pub_s = {(x["better"], x["worse"]): x for x in pub.get("skill", [])}
    out = ["## Does one simple strategy dominate?", "",
           f"A restricted player at a table with the panel ({s['players']} players, every agent in every seat in "
           f"turn, about {s['games']} games each): its win share per seat played (fair share "
           f"{_pct(1 / s['players'])}), beside the unrestricted expert's at the same table and the same strategy's "
           "on the published map. A strategy dominates where it wins clearly more than the expert here and more "
           "than on the published map.", "",
           "| strategy | win share here | the expert at that table | on the published map |", "|---|---|---|---|"]
    for x in s["restricted"]:
        out.append(f"| {x['what']} (`{x['agent']}`) | {_share(x)} | {_share(x.get('expert'))} | "
                   f"{_share(pub_r.get(x['agent']))} |")
    if s["skill"]:
        out += ["", "Does skill pay? The stronger agent's win share head to head at two players (seats "
                "alternating): the higher, the more the map rewards playing better.", "",
                "| match | here | on the published map |", "|---|---|---|"]
        for x in s["skill"]:
            out.append(f"| `{x['better']}` against `{x['worse']}` | {_share(x)} | "
                       f"{_share(pub_s.get((x['better'], x['worse'])))} |")
    found = strategy_findings(s, pub)
    if found:
        out += [""] + [f"- {line} (This rests on the AI players.)" for line in found]
    return out + [""]


def regenerate_command(r: dict) -> str:
    """The `mapkit report` command that makes this report again: the board file as it was given
    (its id where the report does not say, as in reports made before the file was recorded) and
    every option that shaped the games (--jobs does not change them)."""
    import shlex

    from mapkit.resources import bundled_boards

    source = r.get("source") or r["board"]
    if source == f"boards/{r['board']}.json" and r["board"] in bundled_boards():
        source = r["board"]  # a bundled board (as source_name names one): by its name, from any folder
    words = ["mapkit", "report", source, "--seed", str(r["seed"])]
    if r.get("games"):
        words += ["--games", str(r["games"])]
    else:
        words += ["--max-games", str(r["max_games"])]
    if r.get("players"):
        words += ["--players", ",".join(str(n) for n in r["players"])]
    if r["panel"] != default_panel():
        words += ["--agents", ",".join(r["panel"])]
    if r.get("preset"):
        words += ["--rules", r["preset"]]
    for v in r.get("variants") or ():
        words += ["--variant", v]
    if "reference" in r and not r["reference"]:
        words += ["--reference", "none"]
    return " ".join(shlex.quote(w) for w in words)


def format_markdown(r: dict) -> str:
    fixed = r.get("games")
    sizing = f"{fixed or r['max_games']} games per player count"
    cmd = regenerate_command(r)
    d = r.get("decision") or {}
    out = [f"# Balance report: {r['name']}", "",
           f"Rules `{r['rules']}`; agent panel {', '.join(f'`{a}`' for a in r['panel'])} "
           f"(each in self-play{', and all together at a mixed table with seats rotated' if len(r['panel']) > 1 else ''}); "
           f"{sizing}; seed {r['seed']}. Regenerate with `{cmd}`.", "",
           "Every verdict comes from AI players, not people. *robust*: decided, and every agent of the panel "
           "agrees; *agent-dependent*: decided on the pooled games, but some agents play it the other way; "
           "*the AI players disagree*: not decided, and the agents fall on both sides (more games would not "
           "settle it); *not yet decided*: more games would decide it. Each interval is printed at the level "
           f"its verdict was decided at (lists: Benjamini–Hochberg at {d.get('fdr', 0.05):.0%} false discoveries; "
           f"the first seat: {d.get('seat_level', 0.0125):.2%} a side per player count), so a printed interval "
           "clears its cut-off exactly when the verdict is decided.", ""]
    out += _trust_lines()
    out += _reference_lines(r)
    vs = r["verdicts"]
    cs = r.get("causes") or []
    act = [v for v in vs if v["verdict"] == ROBUST and v["finding"]]
    dep = [v for v in vs if v["verdict"] == AGENT_DEPENDENT]
    dis = [v for v in vs if v["verdict"] == AGENTS_DISAGREE]
    und = [v for v in vs if v["verdict"] == NEEDS_GAMES]
    ok = [v for v in vs if v["verdict"] == ROBUST and not v["finding"]]
    out += ["## What to change", ""]
    out += [f"{i}. {_cause_line(c)}" for i, c in enumerate(cs[:CAUSES_SHOWN], 1)] or \
        ["- nothing: no decided finding falls outside what the published map does"]
    if len(cs) > CAUSES_SHOWN:
        out.append(f"- and {len(cs) - CAUSES_SHOWN} more causes, smaller or depending on the AI players "
                   "(report.json's `causes`)")
    out.append("")
    if act:
        out += ["## The findings behind it", ""] + [f"- {v['text']}" for v in _ordered(act)] + [""]
    if dep:
        out += ["## Depends on the AI players", ""] + [f"- {v['text']}" for v in _ordered(dep)] + [""]
    if dis:
        out += ["## The AI players disagree", ""] + [f"- {v['text']}" for v in _ordered(dis)[:40]]
        if len(dis) > 40:
            out.append(f"- and {len(dis) - 40} more (see report.json)")
        out.append("")
    if und:
        seats = [v for v in und if v["kind"] == "seat-advantage" and not v["games_needed"]]
        rest = [v for v in und if v not in seats]
        out += ["## Not yet decided", ""]
        if seats:
            out.append(f"- the first seat's edge at {', '.join(str(v['players']) for v in seats)} players is too near "
                       "the published map's for any feasible number of games to decide")
        out += [f"- {v['text']}" for v in _ordered(rest)[:40]]
        if len(rest) > 40:
            out.append(f"- and {len(rest) - 40} more (see report.json)")
        out.append("")
    if ok:
        out += ["## Checked and fine", ""] + [f"- {v['text']}" for v in _ordered(ok)] + [""]
    if r["deck_warnings"]:
        out += ["## Deck", ""] + [f"- {w}" for w in r["deck_warnings"]] + [""]
    out += _strategy_lines(r)
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
    out.append("- rules gaps: " + ("; ".join(f"{GAP_WORDS.get(k, k)} in {_pct(v['games'] / max(1, run['games']))} of "
                                             f"games ({v['games']} of {run['games']})" for k, v in gaps.items()) or "none"))
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
