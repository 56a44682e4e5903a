"""Gate 3: semantic, graph, geometry and capacity checks of a schema-valid board.

One small function per rule, each yielding Problems with a stable code. `problems(board)` runs
them all; `is_valid(board)` is the yes/no. Codes and severities are listed in docs/board-format.md
and in the README.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Callable, Iterator

from mapkit.errors import ERROR, WARNING, Problem, did_you_mean, sort_problems
from mapkit.graph import components
from mapkit.model import GRAY, Board

Check = Callable[[Board], Iterator[Problem]]
CAPACITY_WARN_RATIO = 1.25  # spaces per train at the largest player count; the standard map has ~1.4
# lengths and distances within this of a bound meet it: a position computed to the bound (a
# projected station on the playing area's edge) is not past it by a rounding error
TOLERANCE_MM = 1e-6


def _p(board: Board, severity: str, code: str, message: str, path: str, subject: str = "") -> Problem:
    return Problem(severity, code, message, json_path=path, subject=subject, source=board.source)


def _station_ref(board: Board, value: str, path: str, subject: str) -> Iterator[Problem]:
    # board._stations_by_id is built once per board: a set rebuilt per route end made this n^2
    ids = board._stations_by_id
    if value in ids:
        return
    by_name = {s.name.lower(): s.id for s in board.stations}  # only on the error path
    if value.lower() in by_name:
        hint = f" (use the station's id '{by_name[value.lower()]}', not its name)"
    else:
        hint = did_you_mean(value, ids)
    yield _p(board, ERROR, "unknown-station", f"unknown station '{value}'{hint}", path, subject)


# ------------------------------------------------------------------ ids, names, references

def check_duplicates(board: Board) -> Iterator[Problem]:
    for what, items, key in (
        ("station id", board.stations, lambda s: s.id),
        ("station name", board.stations, lambda s: s.name.strip().lower()),
        ("color id", board.palette, lambda c: c.id),
    ):
        first = {}
        for item in items:
            k = key(item)
            if k in first:
                code = "duplicate-name" if what == "station name" else "duplicate-id"
                shown = item.name if what == "station name" else k
                path = item.json_path + (".name" if what == "station name" else ".id")
                noun = "station" if what.startswith("station") else "color"
                yield _p(board, ERROR, code, f"duplicate {what} '{shown}' (first at {first[k]})", path, f"{noun} {item.id}")
            else:
                first[k] = item.json_path
    seen = {}
    for r in board.routes:
        if r.id in seen:
            yield _p(board, ERROR, "duplicate-id",
                     f"duplicate route id '{r.id}' (first at {seen[r.id]}); give one of them an explicit \"id\"",
                     r.json_path, f"route {r.id}")
        else:
            seen[r.id] = r.json_path


def check_route_references(board: Board) -> Iterator[Problem]:
    colors = {c.id for c in board.palette}
    for r in board.routes:
        subject = f"route {r.id}"
        yield from _station_ref(board, r.a, r.json_path + ".from", subject)
        yield from _station_ref(board, r.b, r.json_path + ".to", subject)
        if r.a == r.b:
            yield _p(board, ERROR, "self-loop", f"route joins station '{r.a}' to itself", r.json_path, subject)
        if r.color != GRAY and r.color not in colors:
            yield _p(board, ERROR, "unknown-color",
                     f"unknown color '{r.color}'{did_you_mean(r.color, colors | {GRAY})}; "
                     f"use a palette color id or 'gray'", r.json_path + ".color", subject)
        if r.length > len(board.route_points):
            yield _p(board, ERROR, "length-not-scored",
                     f"length {r.length} is past the route scoring table, which stops at {len(board.route_points)};"
                     f" extend \"route_points\"", r.json_path + ".length", subject)


def check_doubles(board: Board) -> Iterator[Problem]:
    groups = defaultdict(list)
    for r in board.routes:
        if r.double:
            groups[r.double].append(r)
    for name, members in groups.items():
        first = members[0]
        subject = f"double {name}"
        if len(members) != 2:
            yield _p(board, ERROR, "bad-double",
                     f"double route '{name}' has {len(members)} track{'s' if len(members) != 1 else ''}; a double route is exactly two",
                     first.json_path + ".double", subject)
            continue
        other = members[1]
        if other.ends != first.ends:
            yield _p(board, ERROR, "bad-double",
                     f"tracks of double route '{name}' join different stations ({first.a}-{first.b} and {other.a}-{other.b})",
                     other.json_path, subject)
        if other.length != first.length:
            yield _p(board, ERROR, "bad-double",
                     f"tracks of double route '{name}' differ in length ({first.length} and {other.length})",
                     other.json_path + ".length", subject)
    by_ends = defaultdict(list)
    for r in board.routes:
        by_ends[r.ends].append(r)
    for ends, members in by_ends.items():
        undeclared = [r for r in members if not r.double]
        if len(members) > 1 and undeclared:
            r = undeclared[-1]
            yield _p(board, WARNING, "undeclared-double",
                     f"{len(members)} routes join {' and '.join(sorted(ends))}; mark parallel tracks with the same \"double\" group",
                     r.json_path, f"route {r.id}")


def check_palette_use(board: Board) -> Iterator[Problem]:
    used = {r.color for r in board.routes}
    for c in board.palette:
        if c.id not in used:
            yield _p(board, WARNING, "unused-color", f"no route has color '{c.id}' ({c.name})", c.json_path, f"color {c.id}")


def check_connectivity(board: Board) -> Iterator[Problem]:
    touched = {r.a for r in board.routes} | {r.b for r in board.routes}
    for s in board.stations:
        if s.id not in touched:
            yield _p(board, WARNING, "isolated-station", f"station '{s.name}' has no route", s.json_path, f"station {s.id}")
    comps = [c for c in components(board) if len(c) > 1 or next(iter(c)) in touched]
    if len(comps) > 1:
        main = comps[0]
        order = {s.id: i for i, s in enumerate(board.stations)}  # not a scan of all stations per component
        for comp in comps[1:]:
            names = sorted(comp)
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            first = board.stations[min(order[sid] for sid in comp if sid in order)]
            yield _p(board, ERROR, "disconnected",
                     f"stations {shown} are not connected to the main network ({len(main)} stations)",
                     first.json_path, f"station {first.id}")


def check_bonuses(board: Board) -> Iterator[Problem]:
    for r in board.routes:
        if r.bonus and r.double:
            yield _p(board, WARNING, "bonus-on-double",
                     f"bonus '{r.bonus.name}' is on a track of double route '{r.double}'; both tracks would score it",
                     r.json_path + ".bonus", f"route {r.id}")


def check_color_distance(board: Board) -> Iterator[Problem]:
    """Route colors players can tell apart: every two palette colors, and each palette color and
    the gray that gray routes are drawn in, at least MIN_COLOR_DELTA_E apart (CIEDE2000)."""
    from mapkit.colors import GRAY_DISPLAY_HEX, MIN_COLOR_DELTA_E, color_distance

    has_gray = any(r.is_gray for r in board.routes)
    shown = list(board.palette)
    for i, c in enumerate(shown):
        others = [(o.id, o.hex) for o in shown[:i]] + ([(GRAY, GRAY_DISPLAY_HEX)] if has_gray else [])
        for oid, ohex in others:
            d = color_distance(c.hex, ohex)
            if d < MIN_COLOR_DELTA_E:
                what = "gray routes' display color" if oid == GRAY else f"color '{oid}'"
                yield _p(board, WARNING, "similar-colors",
                         f"{c.hex} is hard to tell from {what} ({ohex}): color difference {d:.1f}, aim for"
                         f" {MIN_COLOR_DELTA_E:.0f} or more (CIEDE2000); change one \"hex\"", c.json_path + ".hex", f"color {c.id}")


# ------------------------------------------------------------------ tickets and deck

def check_tickets(board: Board) -> Iterator[Problem]:
    comp_of = {}
    for i, comp in enumerate(components(board)):
        for sid in comp:
            comp_of[sid] = i
    ids = {s.id for s in board.stations}
    for deck_name, tickets in board.ticket_decks.items():
        seen = {}
        for t in tickets:
            subject = f"ticket {t.a}-{t.b}"
            bad = list(_station_ref(board, t.a, t.json_path + ".from", subject))
            bad += list(_station_ref(board, t.b, t.json_path + ".to", subject))
            yield from bad
            if bad:
                continue
            if t.a == t.b:
                yield _p(board, ERROR, "ticket-self", f"ticket joins station '{t.a}' to itself", t.json_path, subject)
            elif t.a in ids and comp_of.get(t.a) != comp_of.get(t.b):
                yield _p(board, ERROR, "ticket-unreachable",
                         f"no routes connect '{t.a}' and '{t.b}', so this ticket can never be completed", t.json_path, subject)
            key = frozenset((t.a, t.b))
            if key in seen:
                yield _p(board, WARNING, "duplicate-ticket",
                         f"deck '{deck_name}' has this pair twice (first at {seen[key]})", t.json_path, subject)
            else:
                seen[key] = t.json_path


def check_deck(board: Board) -> Iterator[Problem]:
    deck = board.deck
    if deck is None:
        return
    colors = {c.id: c for c in board.palette}
    counted = sum(deck.counts.values()) + deck.wild
    if counted != deck.total:
        yield _p(board, ERROR, "deck-total",
                 f"deck total is {deck.total} but its counts ({sum(deck.counts.values())}) and wild cards ({deck.wild}) make {counted}",
                 "$.deck.total", "deck")
    for cid, n in deck.counts.items():
        if cid not in colors:
            yield _p(board, ERROR, "unknown-color", f"deck counts unknown color '{cid}'{did_you_mean(cid, colors)}",
                     f"$.deck.counts.{cid}", "deck")
    longest = Counter()
    for r in board.routes:
        longest[r.color] = max(longest[r.color], r.length)
    for cid, c in colors.items():
        n = deck.counts.get(cid, 0)
        path, subject = f"$.deck.counts.{cid}", f"color {cid}"
        if n == 0 and longest[cid] and deck.wild == 0:
            yield _p(board, ERROR, "deck-missing-color", f"routes of color '{cid}' exist but the deck has no card for it", path, subject)
        k = c.cards
        if k.fixed is not None and n != k.fixed:
            yield _p(board, ERROR, "deck-constraint", f"deck has {n} '{cid}' cards; the palette fixes {k.fixed}", path, subject)
        if k.min is not None and n < k.min:
            yield _p(board, ERROR, "deck-constraint", f"deck has {n} '{cid}' cards; the palette asks for at least {k.min}", path, subject)
        if k.max is not None and n > k.max:
            yield _p(board, ERROR, "deck-constraint", f"deck has {n} '{cid}' cards; the palette allows at most {k.max}", path, subject)
        if k.below_longest_route and longest[cid] and n >= longest[cid]:
            yield _p(board, ERROR, "deck-constraint",
                     f"deck has {n} '{cid}' cards; the palette wants fewer than its longest route's {longest[cid]} spaces",
                     path, subject)


def check_colored_cards(board: Board) -> Iterator[Problem]:
    """The board's deck has colored cards: with wild cards alone the face-up row is all wild, wiped
    and turned again without end (the wild_reset rule), and no color's card can ever be drawn."""
    deck = board.deck
    if deck is not None and deck.total and not any(deck.counts.values()):
        yield _p(board, ERROR, "deck-no-colors",
                 f"the deck has no colored cards, only {deck.wild} wild cards, so no game plays by the rules; give"
                 " the colors cards (`mapkit cards BOARD --write` derives a deck from the map)", "$.deck.counts", "deck")


def check_card_constraints(board: Board) -> Iterator[Problem]:
    """Each palette color's card constraints can be met together (else no deck can be derived)."""
    longest = Counter()
    for r in board.routes:
        longest[r.color] = max(longest[r.color], r.length)
    for c in board.palette:
        k, path, subject = c.cards, c.json_path + ".cards", f"color {c.id}"
        if k.min is not None and k.max is not None and k.min > k.max:
            yield _p(board, ERROR, "card-constraint", f"asks for at least {k.min} cards (min) but at most {k.max} (max);"
                     " make min no larger than max", path, subject)
        elif k.below_longest_route and longest[c.id] == 1 and k.fixed is None and (k.min is None or k.min >= 1):
            yield _p(board, ERROR, "card-constraint",
                     "below_longest_route wants fewer cards than its longest route's 1 space, which is none, but a"
                     " color with routes needs at least one card; lengthen that route or drop below_longest_route",
                     path + ".below_longest_route", subject)
        elif k.below_longest_route and k.min is not None and longest[c.id] and k.min >= longest[c.id]:
            yield _p(board, ERROR, "card-constraint",
                     f"asks for at least {k.min} cards (min) but fewer than its longest route's {longest[c.id]} spaces"
                     " (below_longest_route); lower min or drop below_longest_route", path, subject)


def _card_counts(board: Board) -> tuple[dict, int] | None:
    """(cards per color, wild cards) of the deck a game is played with: the board's own, or the
    derived one; None when it cannot be derived (check_card_constraints says why)."""
    if board.deck is not None:
        return board.deck.counts, board.deck.wild
    from mapkit.cards import derive_deck
    from mapkit.errors import MapkitError

    try:
        d = derive_deck(board)
    except MapkitError:
        return None
    return d.counts, d.wild


def check_deck_play(board: Board) -> Iterator[Problem]:
    """The deck a game is played with (the board's own, or the derived one) plays: no color starved
    of cards, more than one card color (mapkit.cards.deck_warnings, the rule `mapkit cards` prints)."""
    from mapkit.cards import deck_warnings

    known = board._stations_by_id
    if any(r.a not in known or r.b not in known for r in board.routes):
        return  # reference errors first: the shares of a half-defined network say nothing useful
    cards = _card_counts(board)
    if cards is None or not any(cards[0].values()):
        return  # no deck to judge, or no colored card at all (check_colored_cards: an error)
    colors = {c.id: c for c in board.palette}
    for w in deck_warnings(board, *cards):
        if w.color:
            path = f"$.deck.counts.{w.color}" if board.deck is not None else colors[w.color].json_path + ".cards"
            yield _p(board, WARNING, w.code, w.message, path, f"color {w.color}")
        else:
            yield _p(board, WARNING, w.code, w.message, "$.deck" if board.deck is not None else "$.palette", "deck")


def check_claimable(board: Board) -> Iterator[Problem]:
    """Some route can be claimed at every player count: it is no longer than a player's trains and
    the deck has enough cards of its color (any one color for gray) and wild cards to pay for it.
    A board where nothing can be claimed plays no game at all, so it is an error."""
    from mapkit.sim.rules import PRESETS, board_rules

    if board.rules.preset not in PRESETS:
        return
    rules = board_rules(board.rules.preset, board.rules.overrides)
    cards = _card_counts(board)
    best_color = max(cards[0].values(), default=0) if cards else 0

    def payable(r) -> bool:
        if cards is None:
            return True
        counts, wild = cards
        return (best_color if r.is_gray else counts.get(r.color, 0)) + wild >= r.length

    if cards is not None and not any(payable(r) for r in board.routes):
        yield _p(board, ERROR, "unclaimable",
                 f"no route can ever be claimed: no color has enough cards for any of its routes (the most cards"
                 f" of one color are {best_color}, with {cards[1]} wild cards, and the shortest route has"
                 f" {min(r.length for r in board.routes)} spaces); add cards or wild cards to the deck",
                 "$.deck" if board.deck else "$.palette", "board")
        return
    shortest = min(r.length for r in board.routes if payable(r))
    for players in range(rules.min_players, rules.max_players + 1):
        trains = rules.trains_for(players)
        if trains < shortest:
            yield _p(board, ERROR, "unclaimable",
                     f"no route can ever be claimed with {players} players: each has {trains} trains but the shortest"
                     f" route{' the deck can pay for' if cards else ''} has {shortest} spaces; raise the trains per"
                     " player or add shorter routes", "$.rules", "rules")
            return


def check_rules(board: Board) -> Iterator[Problem]:
    """The ruleset names a preset that exists, its fields agree with each other, and its double
    exceptions name double routes. Each field's type and range is the schema's (`$defs/ruleset`)."""
    from mapkit.sim.rules import PRESETS, RuleSet, board_rules, ruleset_problems

    if board.rules.preset not in PRESETS:
        yield _p(board, ERROR, "unknown-preset",
                 f"unknown ruleset preset '{board.rules.preset}'{did_you_mean(board.rules.preset, PRESETS)};"
                 f" presets: {', '.join(sorted(PRESETS))}", "$.rules.preset", "rules")
    for name in board.rules.for_presets:
        if name not in PRESETS:
            yield _p(board, ERROR, "unknown-preset",
                     f"unknown ruleset preset '{name}'{did_you_mean(name, PRESETS)}", f"$.rules.for_presets.{name}", "rules")
    played = [("$.rules.overrides", board.rules.preset, board.rules.overrides, "$.rules.preset")] + [
        (f"$.rules.for_presets.{n}", n, o, f"$.rules.for_presets.{n}") for n, o in board.rules.for_presets.items()]
    groups = {r.double for r in board.routes if r.double}
    for where, preset, overrides, fallback in played:
        if preset in PRESETS:
            for involved, message in ruleset_problems(board_rules(preset, overrides)):
                # point at the override the designer wrote; a preset's own values are not theirs to fix
                mine = [f for f in involved if f in overrides]
                path = f"{where}.{mine[0]}" if mine else fallback
                # name what the preset itself brings to the conflict, which the file does not show
                base = PRESETS[preset]
                theirs = [f"{f} {getattr(base, f)}" for f in involved
                          if f not in overrides and getattr(base, f) != getattr(RuleSet(), f)]
                hint = f" (the '{preset}' preset sets {', '.join(theirs)})" if theirs else ""
                yield _p(board, ERROR, "bad-rule", message + hint, path, "rules")
        for g in overrides.get("double_exceptions", ()):
            if g not in groups:
                yield _p(board, ERROR, "unknown-rule", f"double_exceptions names '{g}', which is no double route"
                         f"{did_you_mean(g, groups)}", f"{where}.double_exceptions", "rules")


def capacity(board: Board) -> list[dict]:
    """Spaces per train for each player count of the board's ruleset.

    Below the ruleset's double-route player count only one track of each double can be claimed,
    so those games count one track per double.
    """
    from mapkit.sim.rules import board_rules

    rules = board_rules(board.rules.preset, board.rules.overrides)
    seen, second_tracks = set(), 0
    for r in board.routes:
        if r.double:
            if r.double in seen:
                second_tracks += r.length
            seen.add(r.double)
    total = board.total_spaces
    rows = []
    for players in range(rules.min_players, rules.max_players + 1):
        usable = total - (second_tracks if players < rules.double_routes_min_players else 0)
        trains = rules.trains_for(players) * players
        rows.append({"players": players, "spaces": usable, "trains": trains, "ratio": round(usable / trains, 3)})
    return rows


def check_capacity(board: Board) -> Iterator[Problem]:
    rows = capacity(board)
    short = [row for row in rows if row["ratio"] < 1.0]
    if short:
        worst = min(short, key=lambda row: row["ratio"])
        counts = ", ".join(str(row["players"]) for row in short)
        yield _p(board, ERROR, "capacity",
                 f"too few spaces for {counts} players: {worst['players']} players have {worst['trains']} trains"
                 f" but only {worst['spaces']} spaces they can use; add routes or lower the trains per player",
                 "$.routes", "board")
    elif rows and rows[-1]["ratio"] < CAPACITY_WARN_RATIO:
        row = rows[-1]
        yield _p(board, WARNING, "capacity",
                 f"{row['players']} players have {row['trains']} trains for {row['spaces']} spaces "
                 f"({row['ratio']:.2f} per train; aim for {CAPACITY_WARN_RATIO} or more, the standard map has about 1.4)",
                 "$.routes", "board")


# ------------------------------------------------------------------ geometry

def check_geometry(board: Board, layout=None) -> Iterator[Problem]:
    """layout: the board's mapkit.geometry.Layout when the caller has made it already (the layout
    step judges a part of the board and then its label room on one Layout)."""
    for step in geometry_steps(board, layout):
        yield from step


def check_drawing(board: Board) -> Iterator[Problem]:
    """The geometry checks of the board as it is drawn. A board none of whose stations has a board
    position has no drawing yet: it is drawn by projecting lat/lon, which puts stations of a real
    network on top of each other, so its geometry problems say one thing, said once (no-drawing:
    how many there are, and the command that lays the board out)."""
    found = list(check_geometry(board))
    if not found or any(s.board is not None for s in board.stations):
        yield from found
        return
    import shlex

    counts = Counter(p.code for p in found)
    what = ", ".join(f"{n} {code}" for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    severity = ERROR if any(p.severity == ERROR for p in found) else WARNING
    target = shlex.quote(board.source) if board.source else "BOARD"
    yield _p(board, severity, "no-drawing",
             f"the board has no drawing yet (no station has a board position), so it is drawn from the"
             f" stations' lat/lon, and that drawing has {len(found)} geometry problem{'s' if len(found) != 1 else ''}"
             f" ({what}); lay it out with `mapkit layout {target} --write` (or --out FILE for a new file)",
             "$.stations", "board")


GEOMETRY_STEPS = 7   # how many lists geometry_steps yields
_STEP_OF = {"station-overlap": 0, "route-too-short": 3, "route-stretched": 3, "space-overlap": 4,
            "space-on-station": 5, "crossing": 6}


def geometry_step(p: Problem) -> int:
    """The step of geometry_steps that finds a problem of check_geometry (0 to 6)."""
    if p.code == "off-board":
        return 1 if p.subject.startswith("station ") else 2
    return _STEP_OF[p.code]


def geometry_steps(board: Board, layout=None) -> Iterator[list[Problem]]:
    """check_geometry's problems a step at a time, in its order (markers too close, markers off the
    board, spaces off it, routes too short or stretched, spaces overlapping, spaces on markers,
    crossings), each step's list made only when the next is asked for: the layout's repair stops
    asking once a move is certainly no better than the best one found (its score only grows with
    more problems; mapkit.layout.repair.Part.score_unless), and the last steps are the costly ones."""
    from mapkit.geometry import Layout

    known = {s.id for s in board.stations}
    if any(r.a not in known or r.b not in known for r in board.routes):
        return  # reference errors first; geometry of a half-defined board says nothing useful
    layout = Layout(board) if layout is None else layout
    stations = {s.id: s for s in board.stations}
    routes = {r.id: r for r in board.routes}
    ph = board.physical
    r_mm = ph.station_radius_mm
    keep = 2 * r_mm + 3
    found = []
    for a, b, dist in layout.station_overlaps():
        if dist < keep - TOLERANCE_MM:
            apart, least = f"{dist:.1f}", f"{keep:g}"
            if float(apart) == float(least):
                apart, least = _mm_pair(dist, keep, 2)
            found.append(_p(board, ERROR, "station-overlap",
                            f"marker overlaps station '{a}' ({apart} mm apart; keep at least {least} mm)",
                            stations[b].json_path, f"station {b}"))
    yield found
    bounds = _area_text(board)
    yield [_p(board, ERROR, "off-board", f"marker is outside the board's playing area ({bounds})",
              stations[sid].json_path, f"station {sid}")
           for sid in layout.stations_off_board()
           if _past_area(board, [layout.positions[sid]], r_mm) > TOLERANCE_MM]
    yield [_p(board, ERROR, "off-board", f"spaces fall outside the board's playing area ({bounds})",
              routes[rid].json_path, f"route {rid}")
           for rid in layout.routes_off_board()
           if _past_area(board, [c for sp in layout.routes[rid].spaces for c in sp]) > TOLERANCE_MM]
    too_short, found = set(), []
    for rid, shape in layout.routes.items():
        r = routes[rid]
        need, drawn = _mm_pair(shape.needed_mm, shape.usable_mm)
        spaces = f"{r.length} space needs" if r.length == 1 else f"{r.length} spaces need"
        if shape.usable_mm < shape.needed_mm - TOLERANCE_MM:
            too_short.add(rid)  # its spaces spill onto stations: that is this one problem, not more
            found.append(_p(board, ERROR, "route-too-short",
                            f"{spaces} {need} mm but the route is drawn {drawn} mm long"
                            f"{_fitting_lengths(board, shape.usable_mm)}; move its stations apart or add waypoints",
                            r.json_path + ".length", f"route {rid}"))
        elif shape.usable_mm > shape.needed_mm * ph.max_stretch + TOLERANCE_MM and r.kind != "flight":
            found.append(_p(board, WARNING, "route-stretched",
                            f"{spaces} {need} mm but the route is drawn {drawn} mm long"
                            f" ({shape.stretch:.1f}x){_fitting_lengths(board, shape.usable_mm)}; move its stations closer",
                            r.json_path + ".length", f"route {rid}"))
    yield found
    yield [_p(board, ERROR, "space-overlap", f"spaces overlap route '{a}' ({area:.0f} mm²)",
              routes[b].json_path, f"route {b}")
           for a, b, area in layout.space_overlaps() if a not in too_short and b not in too_short]
    yield [_p(board, ERROR, "space-on-station", f"a space covers station '{sid}' ({area:.0f} mm²)",
              routes[rid].json_path, f"route {rid}")
           for rid, sid, area in layout.spaces_on_stations() if rid not in too_short]
    yield [_p(board, WARNING, "crossing",
              f"crosses route '{a}' at ({x:.0f}, {y:.0f}) mm; move a station, add waypoints, or flag one \"overpass\": true",
              routes[b].json_path, f"route {b}")
           for a, b, (x, y) in layout.crossings()]


def _mm_pair(a: float, b: float, fewest: int = 0) -> tuple[str, str]:
    """a and b (mm) as people read them: with `fewest` decimals (whole millimetres), or as many more
    (up to 6) as it takes for two different values to print differently."""
    for decimals in range(fewest, 7):
        x, y = f"{a:.{decimals}f}", f"{b:.{decimals}f}"
        if x != y:
            break
    return x, y


def _area_text(board: Board) -> str:
    """The playing area in words: `x 25-775 mm, y 25-505 mm: the board less its margin`."""
    ph = board.physical
    m = ph.margin_mm
    return f"x {m:g}-{ph.width_mm - m:g} mm, y {m:g}-{ph.height_mm - m:g} mm: the board less its margin"


def _past_area(board: Board, points: list, radius: float = 0.0) -> float:
    """How far (mm) the farthest of these points, each grown by radius, reaches past the playing
    area (0 or less: inside). The off-board checks flag a marker or a space only past
    TOLERANCE_MM, so a station placed on the area's edge by arithmetic is not off the board."""
    ph = board.physical
    m = ph.margin_mm
    lo_x, lo_y, hi_x, hi_y = m, m, ph.width_mm - m, ph.height_mm - m
    return max(max(lo_x - (x - radius), (x + radius) - hi_x, lo_y - (y - radius), (y + radius) - hi_y)
               for x, y in points)


def _fitting_lengths(board: Board, usable: float) -> str:
    """` (lengths 3-4 fit this drawing)`: the lengths neither too short nor stretched here."""
    ph = board.physical

    def need_of(n: int) -> float:
        return n * ph.space_length_mm + (n + 1) * ph.space_gap_mm

    fit = [n for n in range(1, len(board.route_points) + 1)
           if need_of(n) - TOLERANCE_MM <= usable <= need_of(n) * ph.max_stretch + TOLERANCE_MM]
    if not fit:
        return ""
    return f" (length {fit[0]} fits this drawing)" if len(fit) == 1 else f" (lengths {fit[0]}-{fit[-1]} fit this drawing)"


# ------------------------------------------------------------------ all of them

CHECKS: tuple[Check, ...] = (
    check_duplicates, check_route_references, check_doubles, check_palette_use, check_connectivity,
    check_bonuses, check_color_distance, check_tickets, check_deck, check_colored_cards, check_card_constraints,
    check_rules,
    check_claimable, check_deck_play, check_capacity, check_drawing,
)


def problems(board: Board) -> list[Problem]:
    """Every problem of a schema-valid board, sorted by location."""
    found = []
    for check in CHECKS:
        found.extend(check(board))
    return sort_problems(found)


def is_valid(board: Board) -> bool:
    return not any(p.severity == ERROR for p in problems(board))
