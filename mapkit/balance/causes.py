"""From verdicts to causes: what a designer would change, one line per cause across player counts.

`find_causes(report, data)` groups a balance report's verdicts and rules gaps into causes a
designer recognizes, each with the smallest change that addresses it, as board-file edits:

- `color-short`: a color starved of claims (its cards cannot pay its routes): cards +N for that
  color (up to the standard map's two cards per space of its longest route), taken from the color
  with the most cards per space of track, so the deck's total stays;
- `ticket-not-worth-it`: a ticket too hard, whose holders lose, or rarely kept: its points +2
  (or, past the published map's longest ticket, say so: move it to a long deck);
- `ticket-too-easy`: its points -1 (never below 1);
- `unclaimed-corridor`: routes rarely claimed, joined into the corridors or dead ends they form
  (networkx connected components): each route's length -1, or gray for a one-space route; one
  track of a double nobody claims is removed (the other track stays);
- `deck-runs-out`: the train-card deck ran out in more than 5 % of the games at a player count:
  +10 cards (shared by the colors as `mapkit cards` would) or fewer players;
- `seat-advantage`: the first seat wins more than the published map's first seat: no map edit
  proposed (the rules' seat order is not the map's).

`test_causes(...)` plays the top causes' changes on the same seeds (common random numbers) at the
player count where the cause is strongest and records the figure before and after, with the
interval of the after figure.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

import networkx as nx

from mapkit.model import Board
from mapkit.balance.stats import wilson
from mapkit.balance.verdicts import AGENT_DEPENDENT, ROBUST

GAP_SHARE = 0.05          # a rules gap in more than 5 % of games at a player count is a cause
STANDARD_CARDS_PER_SPACE = 2   # the standard map: 12 cards a color, longest route 6


def _acted(v: dict) -> bool:
    return v["verdict"] in (ROBUST, AGENT_DEPENDENT) and v["finding"] is True


def find_causes(report: dict, data: dict) -> list[dict]:
    """Causes of the report's decided findings and rules gaps, most players affected first."""
    by_subject: dict[tuple, list[dict]] = {}
    for v in report["verdicts"]:
        if _acted(v):
            by_subject.setdefault((v["kind"], v["subject"]), []).append(v)
    causes: list[dict] = []
    causes += _colors(by_subject, data)
    causes += _tickets(by_subject, data, report)
    causes += _corridors(by_subject, data)
    causes += _gaps(report, data)
    for (kind, subject), vs in sorted(by_subject.items()):
        if kind == "seat-advantage":
            causes.append({"kind": "seat-advantage", "subjects": [subject],
                           "players": sorted({v["players"] for v in vs}), "change": None, "edits": [],
                           "why": "the first seat wins more often than on the published map", "tested": None,
                           "robust": any(v["verdict"] == ROBUST for v in vs)})
    causes.sort(key=lambda c: (not c["robust"], -len(c["players"]), c["kind"], c["subjects"]))
    return causes


def _players(vs) -> list[int]:
    return sorted({v["players"] for v in vs})


def _colors(by_subject, data) -> list[dict]:
    out = []
    deck = data.get("deck") or {}
    counts = deck.get("counts") or {}
    longest: dict[str, int] = {}
    spaces: dict[str, int] = {}
    for r in data.get("routes", []):
        longest[r["color"]] = max(longest.get(r["color"], 0), int(r["length"]))
        spaces[r["color"]] = spaces.get(r["color"], 0) + int(r["length"])
    for (kind, color), vs in sorted(by_subject.items()):
        if kind != "color-starved":
            continue
        have = counts.get(color)
        want = STANDARD_CARDS_PER_SPACE * longest.get(color, 1)
        cause = {"kind": "color-short", "subjects": [color], "players": _players(vs), "edits": [], "tested": None,
                 "robust": any(v["verdict"] == ROBUST for v in vs),
                 "why": f"{color}'s track is claimed less than the published map's least claimed color"}
        if have is None:
            cause["change"] = f"give {color} more train cards (mapkit cards {color}=N, about {want})"
        else:
            n = max(1, want - have)
            donors = [c for c in counts if c != color and spaces.get(c)]
            donor = max(donors, key=lambda c: (counts[c] / spaces[c], c)) if donors else None
            if donor is None or counts[donor] - n < longest.get(donor, 1):
                cause["change"] = f"cards +{n} for {color} ({have} → {have + n}), deck {deck.get('total')} → " \
                                  f"{deck.get('total', 0) + n}"
                cause["edits"] = [[["deck", "counts", color], have + n], [["deck", "total"], deck.get("total", 0) + n]]
            else:
                cause["change"] = f"cards +{n} for {color} ({have} → {have + n}), taken from {donor} " \
                                  f"({counts[donor]} → {counts[donor] - n})"
                cause["edits"] = [[["deck", "counts", color], have + n], [["deck", "counts", donor], counts[donor] - n]]
            cause["figure"] = {"kind": "color", "subject": color}
        out.append(cause)
    return out


def _ticket_index(data: dict) -> dict[str, tuple[str, int, dict]]:
    """Ticket label ("a-b", or "deck:a-b" where several decks are shuffled) -> (deck, index, ticket)."""
    out = {}
    for deck, items in (data.get("ticket_decks") or {}).items():
        for i, t in enumerate(items):
            out.setdefault(f"{t['from']}-{t['to']}", (deck, i, t))
            out.setdefault(f"{deck}:{t['from']}-{t['to']}", (deck, i, t))
    return out


def _tickets(by_subject, data, report) -> list[dict]:
    index = _ticket_index(data)
    # the longest published ticket in this board's points: the same share of a player's trains
    here = report.get("bands") or {}
    longest_published = max((round(b["ticket_points"][1] * here[n]["trains"] / b["trains"])
                             if b.get("trains") and (here.get(n) or {}).get("trains") else b["ticket_points"][1]
                             for n, b in ((report.get("reference") or {}).get("bands") or {}).items()), default=None)
    grouped: dict[str, list[dict]] = {}
    easy: dict[str, list[dict]] = {}
    for (kind, subject), vs in by_subject.items():
        if kind in ("ticket-too-hard", "ticket-holders-lose"):
            grouped.setdefault(subject, []).extend(vs)
        elif kind == "ticket-too-easy":
            easy[subject] = vs
    out = []
    for subject, vs in sorted(grouped.items()):
        kinds = sorted({v["kind"] for v in vs})
        why = " and ".join({"ticket-too-hard": "completed less than the published tickets of its length (as a share "
                                               "of a player's trains)",
                            "ticket-holders-lose": "its holders win far less than their share"}[k] for k in kinds)
        cause = {"kind": "ticket-not-worth-it", "subjects": [subject], "players": _players(vs), "edits": [],
                 "tested": None, "robust": any(v["verdict"] == ROBUST for v in vs), "why": why,
                 "figure": {"kind": "holder", "subject": subject}}
        found = index.get(subject)
        if found:
            deck, i, t = found
            pts = int(t["points"])
            if longest_published is not None and pts > longest_published:
                cause["change"] = f"points {pts} → {pts + 2}, or move it to a long deck (longer than every " \
                                  f"published ticket: {longest_published} points at this board's trains a player)"
            else:
                cause["change"] = f"points {pts} → {pts + 2}"
            cause["edits"] = [[["ticket_decks", deck, i, "points"], pts + 2]]
        else:
            cause["change"] = "raise its points by 2"
        out.append(cause)
    for subject, vs in sorted(easy.items()):
        cause = {"kind": "ticket-too-easy", "subjects": [subject], "players": _players(vs), "edits": [],
                 "tested": None, "robust": any(v["verdict"] == ROBUST for v in vs),
                 "why": "completed more than the published tickets of its length (as a share of a player's "
                        "trains)",
                 "figure": {"kind": "completion", "subject": subject}}
        found = index.get(subject)
        if found:
            deck, i, t = found
            pts = int(t["points"])
            if pts > 1:
                cause["change"] = f"points {pts} → {pts - 1}"
                cause["edits"] = [[["ticket_decks", deck, i, "points"], pts - 1]]
            else:
                cause["change"] = "replace it (mapkit tickets generate)"
        else:
            cause["change"] = "lower its points by 1"
        out.append(cause)
    return out


def _corridors(by_subject, data) -> list[dict]:
    routes = data.get("routes", [])
    ids = {}
    for i, r in enumerate(routes):
        ids.setdefault(r["id"], []).append(i)
        if r.get("double"):
            ids.setdefault(f"{r['double']} (either track)", []).append(i)
    flagged = {s: vs for (k, s), vs in by_subject.items() if k == "route-rarely-claimed"}
    g = nx.Graph()
    for subject in flagged:
        for i in ids.get(subject, []):
            g.add_edge(routes[i]["from"], routes[i]["to"], subject=subject)
    out = []
    for comp in sorted(nx.connected_components(g), key=lambda c: sorted(c)):
        subjects = sorted({d["subject"] for _, _, d in g.subgraph(comp).edges(data=True)})
        vs = [v for s in subjects for v in flagged[s]]
        edits, words, kept = [], [], {}
        for s in subjects:
            for i in ids.get(s, [])[:1]:
                r = routes[i]
                if r.get("double") and not s.endswith(" (either track)"):
                    # one track of a double nobody claims: the other track stays, this one goes
                    edits.append([["routes", i], None])
                    words.append(f"{s} removed (the double's other track stays)")
                    kept[s] = next((x["id"] for j, x in enumerate(routes)
                                    if j != i and x.get("double") == r["double"]), None)
                elif int(r["length"]) > 1:
                    edits.append([["routes", i, "length"], int(r["length"]) - 1])
                    words.append(f"{s} length {r['length']} → {int(r['length']) - 1}")
                elif r["color"] != "gray":
                    edits.append([["routes", i, "color"], "gray"])
                    words.append(f"{s} gray")
        what = "corridor" if len(subjects) > 1 else "route"
        # the figure the change is tried by: a subject's claims, or, when every subject is a track
        # removed, the claims of the track that stays (a removed track has none to compare)
        figure = next(({"kind": "route", "subject": s} for s in subjects if s not in kept), None)
        if figure is None and kept[subjects[0]] is not None:
            figure = {"kind": "route", "subject": kept[subjects[0]],
                      "name": f"{kept[subjects[0]]} (the track that stays) claimed in"}
        out.append({"kind": "unclaimed-corridor", "subjects": subjects, "players": _players(vs), "edits": edits,
                    "change": "; ".join(words) or None, "tested": None,
                    "robust": any(v["verdict"] == ROBUST for v in vs),
                    "why": f"a {what} claimed less than the published map's least claimed route",
                    "figure": figure})
    return out


def _gaps(report, data) -> list[dict]:
    players = []
    for run in report["runs"]:
        gap = (run.get("rules_gaps") or {}).get("cards_exhausted")
        if gap and gap["games"] > GAP_SHARE * max(1, run["games"]):
            players.append((run["players"], gap["games"] / max(1, run["games"])))
    if not players:
        return []
    deck = data.get("deck") or {}
    share = ", ".join(f"{n} players {s:.0%}" for n, s in players)
    cause = {"kind": "deck-runs-out", "subjects": ["train-card deck"], "players": [n for n, _ in players],
             "why": f"the train-card deck ran out in {share} of games", "edits": [], "tested": None, "robust": True,
             "figure": {"kind": "gap", "subject": "cards_exhausted"}}
    top = max(n for n, _ in players)
    if deck.get("total"):
        cause["change"] = f"deck {deck['total']} → {deck['total'] + 10} cards (mapkit cards --total " \
                          f"{deck['total'] + 10} --write), or at most {top - 1} players"
    else:
        cause["change"] = f"a deck of 120 cards (mapkit cards --total 120 --write), or at most {top - 1} players"
    return [cause]


def figure_of(report: dict, figure: dict, players: int) -> Optional[dict]:
    """The cause's figure at `players` in a report: {"value", "low", "high"} or None."""
    run = next((r for r in report["runs"] if r["players"] == players), None)
    if run is None:
        return None
    kind, subject = figure["kind"], figure["subject"]
    if kind in ("holder", "completion"):
        t = next((x for x in run["tickets"] if x["ticket"] == subject and x["held"]), None)
        if t is None:
            return None
        if kind == "holder":
            return {"name": "holder win share", "value": t["holder_win_share"], "low": t["holder_low"],
                    "high": t["holder_high"]}
        return {"name": "completion", "value": t["completion"], "low": t["low"], "high": t["high"]}
    if kind == "color":
        c = run["color_use"].get(subject)
        return None if c is None else {"name": "track claimed", "value": c["claimed_share"], "low": c["low"],
                                       "high": c["high"]}
    if kind == "route":
        share = run["route_claim_share"].get(subject.replace(" (either track)", ""))
        if share is None:
            return None
        lo, hi = wilson(share * run["games"], run["games"])
        return {"name": "claimed in", "value": share, "low": round(lo, 4), "high": round(hi, 4)}
    if kind == "gap":
        g = (run.get("rules_gaps") or {}).get(subject) or {"games": 0}
        lo, hi = wilson(g["games"], run["games"])
        return {"name": "games with the deck run out", "value": round(g["games"] / max(1, run["games"]), 4),
                "low": round(lo, 4), "high": round(hi, 4)}
    return None


def board_data(board: Board) -> dict:
    """What the causes read of a board, in the board file's shape (routes with their ids)."""
    return {
        "routes": [{"id": r.id, "from": r.a, "to": r.b, "color": r.color, "length": r.length,
                    **({"double": r.double} if r.double else {})} for r in board.routes],
        "deck": ({"total": board.deck.total, "wild": board.deck.wild, "counts": dict(board.deck.counts)}
                 if board.deck else None),
        "ticket_decks": {name: [t.as_json() for t in ts] for name, ts in board.ticket_decks.items()},
    }


def board_with(board: Board, edits: list) -> Board:
    """The board with a cause's edits made (the paths `find_causes` writes)."""
    routes, decks, deck = list(board.routes), {k: list(v) for k, v in board.ticket_decks.items()}, board.deck
    gone = set()
    for path, value in edits:
        if path[0] == "routes" and len(path) == 2:  # a double's track removed: its partner is single
            gone.add(path[1])
        elif path[0] == "routes":
            routes[path[1]] = replace(routes[path[1]], **{path[2]: value})
        elif path[0] == "ticket_decks":
            decks[path[1]][path[2]] = replace(decks[path[1]][path[2]], points=value)
        elif path[:2] == ["deck", "counts"]:
            deck = replace(deck, counts={**deck.counts, path[2]: value})
        elif path == ["deck", "total"]:
            deck = replace(deck, total=value)
        else:
            raise ValueError(f"no such edit: {path}")
    if gone:
        groups = {routes[i].double for i in gone}
        kept = [r for i, r in enumerate(routes) if i not in gone]
        left = {g: sum(r.double == g for r in kept) for g in groups}
        routes = [replace(r, double=None) if r.double in groups and left[r.double] < 2 else r for r in kept]
    return replace(board, routes=tuple(routes), ticket_decks={k: tuple(v) for k, v in decks.items()}, deck=deck)


def public(cause: dict) -> dict:
    """The cause as report.json keeps it."""
    return {"kind": cause["kind"], "subjects": cause["subjects"], "players": cause["players"],
            "change": cause["change"], "why": cause["why"], "robust": cause["robust"], "tested": cause["tested"]}


def worth_testing(cause: dict) -> bool:
    return bool(cause.get("edits")) and cause.get("figure") is not None


def strongest_count(cause: dict) -> int:
    return max(cause["players"]) if cause["kind"] == "deck-runs-out" else min(cause["players"])


__all__ = ["find_causes", "figure_of", "public", "worth_testing", "strongest_count", "board_data", "board_with"]
