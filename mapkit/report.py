"""Balance reports: many seeded games per player count, and what they say about the board.

What a designer reads in it:
- seat advantage: win rate by seat, with a chi-square test against equal chances (scipy);
- tickets that are (almost) never completed, and the easiest ones;
- routes nobody takes, and the most contested;
- color use: how much of each color's track gets claimed, beside the deck's starvation warnings;
- where the points come from (routes, stations, tickets, bonuses), game length, trains left;
- rules gaps (stalled games, exhausted cards, endless wipes, cut-off games).
"""

from __future__ import annotations

import json
from pathlib import Path

from scipy import stats

from mapkit.cards import derive_deck
from mapkit.model import Board
from mapkit.sim.batch import pool_labels, run_games, summarize
from mapkit.sim.rules import rules_for_board
from mapkit.sim.tables import build_tables

RARE_TICKET = 0.15   # completion below this (among tickets held often enough) is flagged
RARE_ROUTE = 0.05    # claimed in fewer than this share of games
SEAT_P = 0.01        # seat advantage flagged below this p-value


def balance_report(board: Board, players: list[int], games: int, agents: str = "route-focus",
                   seed: int = 0, jobs: int = 1, preset: str | None = None, variants: tuple = (),
                   scheduler: str | None = None) -> dict:
    rules = rules_for_board(board, preset, variants)
    t = build_tables(board)
    labels = pool_labels(t, rules)
    runs = []
    for n in players:
        names = [a.strip() for a in agents.split(",")]
        names = names * n if len(names) == 1 else names
        totals, _ = run_games(t, rules, names, games, seed + n, jobs=jobs, scheduler=scheduler)
        runs.append(_analyse(board, t, rules, summarize(t, rules, names, seed + n, totals, labels)))
    deck = derive_deck(board) if board.deck is None else None
    return {
        "board": board.id, "name": board.name, "rules": rules.name, "agents": agents, "seed": seed,
        "games_per_player_count": games, "runs": runs,
        "deck_warnings": list(deck.warnings) if deck else [],
    }


def _analyse(board: Board, t, rules, summary: dict) -> dict:
    g = summary["games"]
    n = summary["players"]
    wins = summary["wins"]
    outright = [w for w in wins]
    chi = stats.chisquare(outright) if sum(outright) and n > 1 else None
    tickets = []
    for label, v in summary["tickets"].items():
        rate = v["completed"] / v["held"] if v["held"] else None
        tickets.append({"ticket": label, "held": v["held"], "completed": v["completed"],
                        "rate": round(rate, 3) if rate is not None else None})
    often = [x for x in tickets if x["held"] >= max(10, g // 50)]
    hard = sorted((x for x in often if x["rate"] < RARE_TICKET), key=lambda x: x["rate"])
    easy = sorted(often, key=lambda x: -x["rate"])[:5]
    claims = summary["route_claims"]
    # below the double-route player count only one track of a double can be taken: judge the pair
    used = dict(claims)
    shown = {}
    for r in board.routes:
        if r.double and n < rules.double_routes_min_players and r.double not in rules.double_exceptions:
            pair = sum(claims.get(x.id, 0) for x in board.routes if x.double == r.double)
            used[r.id] = pair
            shown[r.id] = f"{r.double} (either track)"
    unused = sorted({shown.get(rid, rid): used[rid] for rid in claims if used[rid] < RARE_ROUTE * g}.items(),
                    key=lambda kv: (kv[1], kv[0]))
    unused = [name for name, _ in unused]
    contested = sorted(claims, key=lambda r: -claims[r])[:5]
    by_color = {}
    for r in board.routes:
        c = by_color.setdefault(r.color, [0, 0])
        c[0] += r.length * g
        c[1] += r.length * claims.get(r.id, 0)
    color_use = {c: round(v[1] / v[0], 3) for c, v in by_color.items()}
    ms = summary["mean_score"]
    return {
        "players": n, "games": g, "agents": summary["agents"],
        "win_rate": summary["win_rate"], "shared_wins": summary["shared_wins"],
        "seat_p_value": round(float(chi.pvalue), 4) if chi is not None else None,
        "seat_advantage": bool(chi is not None and chi.pvalue < SEAT_P),
        "ticket_completion": summary["ticket_completion"],
        "hard_tickets": hard, "easy_tickets": easy,
        "unused_routes": unused, "contested_routes": [{"route": r, "claims": claims[r]} for r in contested],
        "color_use": color_use,
        "mean_score": ms, "turns": summary["turns"], "trains_left": summary["trains_left"],
        "rules_gaps": summary["rules_gaps"], "ends": summary["ends"],
    }


def format_markdown(r: dict) -> str:
    out = [f"# Balance report: {r['name']}", "",
           f"Rules `{r['rules']}`, agents `{r['agents']}`, {r['games_per_player_count']} games per player count, "
           f"seed {r['seed']}. Regenerate with `mapkit report {r['board']} --games {r['games_per_player_count']} "
           f"--seed {r['seed']}`.", ""]
    if r["deck_warnings"]:
        out += ["## Deck", ""] + [f"- {w}" for w in r["deck_warnings"]] + [""]
    for run in r["runs"]:
        n = run["players"]
        out += [f"## {n} players", ""]
        out.append(f"- win rate by seat: {', '.join(f'{x:.1%}' for x in run['win_rate'])}"
                   f" (shared wins: {run['shared_wins']}); chi-square p = {run['seat_p_value']}"
                   + (" — **seat advantage**" if run["seat_advantage"] else ""))
        tc = run["ticket_completion"]
        out.append(f"- ticket completion: {tc:.1%}" if tc is not None else "- ticket completion: no tickets held")
        ms = run["mean_score"]
        out.append("- mean score: " + ", ".join(f"{k} {v:g}" for k, v in ms.items()))
        out.append(f"- turns per game: {run['turns']['mean']} (min {run['turns']['min']}, max {run['turns']['max']});"
                   f" trains left: {', '.join(f'{x:g}' for x in run['trains_left'])}")
        gaps = run["rules_gaps"]
        out.append("- rules gaps: " + (", ".join(f"{k} {v['events']} in {v['games']} games" for k, v in gaps.items()) or "none"))
        out.append("- game ends: " + ", ".join(f"{k} {v}" for k, v in run["ends"].items()))
        if run["hard_tickets"]:
            out.append("- tickets rarely completed: " + ", ".join(
                f"{x['ticket']} {x['rate']:.0%} of {x['held']}" for x in run["hard_tickets"][:10]))
        out.append("- easiest tickets: " + ", ".join(f"{x['ticket']} {x['rate']:.0%}" for x in run["easy_tickets"]))
        if run["unused_routes"]:
            out.append(f"- routes claimed in under {RARE_ROUTE:.0%} of games: " + ", ".join(run["unused_routes"][:15])
                       + (f" and {len(run['unused_routes']) - 15} more" if len(run["unused_routes"]) > 15 else ""))
        out.append("- most contested routes: " + ", ".join(f"{x['route']} {x['claims']}" for x in run["contested_routes"]))
        out.append("- share of each color's track claimed: " + ", ".join(f"{k} {v:.0%}" for k, v in sorted(run["color_use"].items())))
        out.append("")
    return "\n".join(out)


def write_report(r: dict, out_dir: Path) -> dict:
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / "report.md"
    js = out_dir / "report.json"
    md.write_text(format_markdown(r))
    js.write_text(json.dumps(r, indent=2) + "\n")
    return {"markdown": str(md), "json": str(js)}
