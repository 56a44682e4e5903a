"""Assemble the draft board: feed → lines → stations → routes → palette → a board dict and a
summary of every decision the designer should look at.

`import_feed` is pure apart from reading the feed; `finish_board` adds what `mapkit build` would
(the layout on the draft's board size, the train-card deck with room in every color, a standard
ticket deck without tickets inside one place) and validates the result in memory; the playtest
(playtest.py) then plays it.
"""

from __future__ import annotations

import math
import re
import time
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from mapkit.errors import MapkitError, UsageError
from mapkit.importers.gtfs import lines as L
from mapkit.importers.gtfs.palette import MAX_DECK_COLORS, build_palette, deck_colors
from mapkit.importers.gtfs import fit
from mapkit.importers.gtfs.planar import check_stop_spread, make_drawable, project
from mapkit.importers.gtfs.read import Feed
from mapkit.importers.gtfs.names import unique_names
from mapkit.importers.gtfs.select import (BUS_MODES, count_trips, frequency_runs, read_agencies, read_feed_info,
                                          read_lines, select_lines)
from mapkit.importers.gtfs.service import busiest_day
from mapkit.importers.gtfs.stations import (keep_stations, merge_stations, read_stops, read_trip_stops,
                                            representative, station_pattern)

DEFAULT_TARGETS = (60, 50, 42, 35)   # tried without --stations (see import_feed)


class EmptySelection(MapkitError):
    exit_code = 1


@dataclass
class ImportResult:
    data: dict                       # the board dict (no layout, decks or tickets yet)
    summary: dict                    # every decision, for the text and JSON reports
    notes: list = field(default_factory=list)


def slug(text: str, limit: int = 28) -> str:
    """A readable id: lowercase words joined by dashes, cut after the last whole word that fits
    ("mother-of-good-counsel", not "mother-of-good-counsel-schoo"), with small words left
    dangling at the cut taken off; one word longer than the limit is cut."""
    s = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    words = [w for w in re.split(r"[^a-z0-9]+", s) if w]
    out = []
    for w in words:
        if len("-".join(out + [w])) > limit:
            break
        out.append(w)
    if len(out) < len(words):
        while len(out) > 1 and out[-1] in _DANGLING:
            out.pop()
    if not out:
        return words[0][:limit] if words else "station"
    return "-".join(out)


_DANGLING = {"of", "the", "and", "at", "via", "de", "la", "le", "du", "des", "von", "der", "to", "on", "in", "st-of"}


def _largest_component(patterns: dict[str, tuple]) -> tuple[set, list[str]]:
    """The stations of the biggest connected part of the network and the lines outside it."""
    adj = defaultdict(set)
    for p in patterns.values():
        for a, b in zip(p, p[1:]):
            adj[a].add(b)
            adj[b].add(a)
    seen, parts = set(), []
    for s in sorted(adj):
        if s in seen:
            continue
        part, todo = set(), [s]
        while todo:
            x = todo.pop()
            if x in part:
                continue
            part.add(x)
            todo.extend(adj[x] - part)
        seen |= part
        parts.append(part)
    best = max(parts, key=len)
    return best, [ln for ln, p in patterns.items() if not set(p) & best]


def import_feed(path: Path, *, modes=None, routes=None, agency=None, stations=None, name=None,
                fit_tolerance: float = 1.0, names: dict | None = None, colors: int | None = None, size=None) -> ImportResult:
    """The draft board of a feed. fit_tolerance: how far the estimated drawing may exceed the
    largest board before lengths are scaled down (fit.py; the layout squeezes a little)."""
    return import_attempts(path, modes=modes, routes=routes, agency=agency, stations=stations, name=name,
                           tolerances=(fit_tolerance,), names=names, colors=colors, size=size)[0]


def import_attempts(path: Path, *, modes=None, routes=None, agency=None, stations=None, name=None,
                    tolerances=fit.TOLERANCES, names: dict | None = None, colors: int | None = None,
                    size=None) -> list[ImportResult]:
    """Drafts to lay out in turn until one validates: for each board size (fit.board_sizes: `size`,
    else the standard sizes from 800 x 530 mm up), each tolerance (fit.TOLERANCES) and, without
    --stations, each of DEFAULT_TARGETS (the feed is read once). The smallest board two players can
    play comes first; on one board, the drafts with the most players and trains, then the fewest
    one-space routes, then the most spaces. names: the --names overrides (names.read_names_file);
    colors: --colors."""
    started = time.perf_counter()
    feed = Feed(path)
    try:
        return _import(feed, modes, routes, agency, stations, name, started, tuple(tolerances), names, colors, size)
    finally:
        feed.close()


def _import(feed, modes, routes, agency, target, name, started, tolerances, names=None, colors=None,
            size=None) -> list[ImportResult]:
    notes: list[str] = []
    agencies = read_agencies(feed)
    info = read_feed_info(feed)
    lines = read_lines(feed)
    day, services = busiest_day(feed)
    runs = frequency_runs(feed)
    notes += count_trips(feed, lines, services, runs)
    sel = select_lines(lines, modes, routes, agency, agencies)
    notes += sel.notes
    dropped = list(sel.dropped)
    if not sel.lines:
        what = []
        if modes:
            what.append(f"modes {', '.join(modes)}")
        if routes:
            what.append(f"routes {', '.join(routes)}")
        if agency:
            what.append(f"agency {agency}")
        have = Counter(m for ln in lines if ln.trips for m in ln.modes[:1])
        raise EmptySelection(f"the selection ({'; '.join(what) or 'all lines'}) has no trips on {day} (the feed's "
                             f"busiest day); lines with trips by mode: "
                             + (", ".join(f"{m} {n}" for m, n in sorted(have.items())) or "none")
                             + (f"; left out: {', '.join(f'{a} ({b})' for a, b in dropped[:8])}" if dropped else ""))
    stops = read_stops(feed)
    trip_line = {t: ln.route_id for ln in sel.lines for t in ln.trip_ids}
    line_by_id = {ln.route_id: ln for ln in sel.lines}
    trip_stops = read_trip_stops(feed, set(trip_line), stops)
    used = {s for seq in trip_stops.values() for s in seq}
    check_stop_spread(used, stops)
    rail = frozenset(s for t, seq in trip_stops.items() if not set(line_by_id[trip_line[t]].modes) & set(BUS_MODES)
                     for s in seq)
    stop_station, st, merge_figures = merge_stations(used, stops, feed, rail)
    rail_st = frozenset(stop_station[s] for s in rail)
    by_line: dict[str, Counter] = defaultdict(Counter)
    for t, seq in trip_stops.items():
        by_line[trip_line[t]][station_pattern(seq, stop_station)] += runs.get(t, 1)
    patterns, pattern_figures = {}, {}
    for ln in sel.lines:
        p, n, other = representative(by_line.get(ln.route_id, Counter()))
        if not p:
            dropped.append((ln.label, "its trips stop at fewer than two stations"))
            continue
        patterns[ln.route_id] = p
        pattern_figures[ln.route_id] = {"pattern_trips": n, "other_pattern_trips": other,
                                        "patterns": len({min(q, q[::-1]) for q in by_line[ln.route_id]})}
    if not patterns:
        raise EmptySelection("no selected line has a trip that stops at two stations or more")
    main_part, apart = _largest_component(patterns)
    for r in apart:
        ln = next(x for x in sel.lines if x.route_id == r)
        dropped.append((ln.label, "it does not touch the rest of the network (a board is one network)"))
        del patterns[r]
    chosen = [ln for ln in sel.lines if ln.route_id in patterns]
    trips = {ln.route_id: ln.trips for ln in chosen}
    palette, assign, pnotes = build_palette(chosen)
    every_color = len(set(assign.values()) - {"gray"}) <= MAX_DECK_COLORS
    notes += pnotes
    line_of = {ln.route_id: ln for ln in chosen}
    target_spaces = math.ceil(L.PLAYERS * L.TRAINS * L.ROOM)
    xy = project(st)
    boards = fit.board_sizes(size)
    fixed = size is not None and size != "auto"

    shapes = {}     # target → the drawable network: lengths alone depend on the tolerance

    def draft(want, tolerance, board):
        if want not in shapes:
            kept, figs = keep_stations(patterns, st, want)
            pats, kept, segs, drawn = make_drawable(patterns, kept, st, trips, lambda k: st[k].name, rail_st)
            figs = dict(figs, kept=len(kept), target=want)
            shapes[want] = (kept, figs, pats, drawn) + L.plan_tracks(segs, assign, trips, every_color)
        kept, figs, pats, drawn, plans, crowded, single = shapes[want]
        dist, tracks = [sg.distance_m for sg, _ in plans], [len(t) for _, t in plans]
        ends = [(sg.a, sg.b) for sg, _ in plans]
        lengths, scale, _ = L.scale_lengths(dist, tracks, target_spaces)
        full = fit.span_mm(xy, ends, lengths)
        shrunk = None

        def fits(span):
            return fit.fits(span, tolerance, board, fixed)

        if not fits(full) and not math.isinf(scale):
            # the lengths ask for more than the board: the largest scale that fits
            lo, hi = 0.0, scale
            for _ in range(24):
                mid = (lo + hi) / 2
                if fits(fit.span_mm(xy, ends, L.lengths_at(dist, mid))):
                    lo = mid
                else:
                    hi = mid
            if lo > 0:
                lengths, scale = L.lengths_at(dist, lo), lo
                shrunk = full
        spaces = sum(n * t for n, t in zip(lengths, tracks))
        span = fit.span_mm(xy, ends, lengths)
        return dict(kept=kept, figs=figs, patterns=pats, drawn=drawn, plans=plans,
                    crowded=[dict(c) for c in crowded], single=[dict(c) for c in single],
                    lengths=lengths, scale=scale, spaces=spaces, shrunk=shrunk,
                    span=span, fits=fits(span), tolerance=tolerance,
                    board=fit.oriented(board, (span[0] / tolerance, span[1] / tolerance), fixed))

    base_notes = notes

    def build(d, tried):
        notes = list(base_notes)
        tolerance = d["tolerance"]
        kept, station_figs, drawn = d["kept"], d["figs"], d["drawn"]
        plans, crowded, single = d["plans"], d["crowded"], d["single"]
        lengths, scale, spaces = d["lengths"], d["scale"], d["spaces"]
        want = station_figs["target"]
        if tried:
            notes.append(f"station target {want}; the drafts for the default targets at lengths for {tolerance}x the board "
                         "hold " + ", ".join(f"{x['figs']['target']}: {x['spaces']} spaces" if x["fits"] else
                                             f"{x['figs']['target']}: too big for the board even at 1 space a route"
                                             for x in tried)
                         + " (laid out the most spaces first, the next while one does not validate: see the layout "
                           "lines); --stations N to choose")
        if not d["fits"]:
            notes.append(f"even with its shortest lengths the network would be drawn about {d['span'][0]:.0f} x {d['span'][1]:.0f} mm, "
                         f"more than the {d['board'][0]:.0f} x {d['board'][1]:.0f} mm board: expect the layout to shrink it and fail; "
                         f"choose fewer stations (--stations) or lines (--route, --modes), or a larger --size")
        if station_figs["junctions_kept"] < station_figs["junctions"]:
            notes.append(f"{station_figs['junctions_kept']} of {station_figs['junctions']} junctions (where lines meet or part) kept: all of them and the "
                         f"{station_figs['terminals']} terminals would be more than {want} stations; raise --stations to keep them all, or select fewer lines")
        for c in crowded + single:
            c["lines"] = [line_of[x].label for x in c["lines"]]
            c["drawn"] = [line_of[x].label for x in c["drawn"]]
        longest = max(lengths)
        rules = {"preset": "standard"}
        fit_players = L.players_and_trains(spaces)
        if fit_players is None:
            raise EmptySelection(f"the selection makes {len(kept)} stations and {len(plans)} routes of {spaces} spaces in "
                                 f"all: too small for a board, where two players need at least "
                                 f"{math.ceil(L.MIN_PLAYERS * L.MIN_TRAINS * L.ROOM)} spaces ({L.MIN_TRAINS} trains each "
                                 f"with room); select more lines (--modes, --route) or a bigger feed")
        players, trains = fit_players
        overrides = {}
        if trains != L.TRAINS:
            overrides["trains"] = trains
        if players < L.PLAYERS:
            overrides["max_players"] = players
        if overrides:
            rules["overrides"] = overrides
        why = (f"(lengths scaled down to fit the {d['board'][0]:.0f} x {d['board'][1]:.0f} mm board: "
               f"{d['shrunk'][0]:.0f} x {d['shrunk'][1]:.0f} mm at full lengths)"
               if d["shrunk"] else "(lengths following distance)")
        if players < L.PLAYERS:
            counts = f"{L.MIN_PLAYERS}-{players}" if players > L.MIN_PLAYERS else f"{players}"
            notes.append(f"the network holds {spaces} spaces {why}: too few for five players of {L.FIVE_PLAYER_TRAINS}+ trains, so "
                         f"{counts} players with {trains} trains each ({L.ROOM:.2f} spaces a train at "
                         f"{players} players, the standard map's room: 309 spaces for 5 x 45 trains)")
        elif trains < L.TRAINS:
            notes.append(f"the network holds {spaces} spaces {why}: {trains} trains each (from {L.TRAINS}) so that five "
                         f"players have the standard map's {L.ROOM:.2f} spaces a train")

        # station ids and names: printed names no two stations share, the designer's --names first
        shown_names, name_notes = _printed_names(kept, st, d["patterns"], line_of, names or {})
        notes.extend(name_notes)
        ids, station_json = {}, []
        used_ids = set()
        for key in sorted(kept, key=lambda k: (-st[k].lat, st[k].lon, k)):
            s = st[key]
            shown = shown_names[key]
            base = slug(shown)
            sid, n = base, 2
            while sid in used_ids:
                sid = f"{base}-{n}"
                n += 1
            used_ids.add(sid)
            ids[key] = sid
            station_json.append({"id": sid, "name": shown, "lat": round(s.lat, 6), "lon": round(s.lon, 6)})
        for c in crowded + single:
            c["between"] = [ids[k] for k in c["between"]]
        dc = deck_colors(palette, assign, plans, lengths, line_of, colors)
        notes[len(base_notes):len(base_notes)] = dc.notes
        gray_kinds = Counter({"bus": 0})
        for n, (sg, tracks), track_colors in zip(lengths, plans, dc.tracks):
            for x in (x for x, c in zip(tracks, track_colors) if c == "gray"):
                gray_kinds[line_of[x].kind] += n
        gray_kind = max(gray_kinds, key=lambda k: (gray_kinds[k], k == "bus"))   # the kind of most gray spaces
        kinds = {c.id: c.kind for c in dc.palette} | {"gray": gray_kind}
        routes_json, doubles = [], 0
        for n, (sg, tracks), track_colors in zip(lengths, plans, dc.tracks):
            a, b = ids[sg.a], ids[sg.b]
            group = slug(f"{a} {b}", 60) if len(tracks) == 2 else None
            doubles += group is not None
            for ln_id, color in zip(tracks, track_colors):
                ln = line_of[ln_id]
                r = {"from": a, "to": b, "color": color, "length": n}
                if group:
                    r["double"] = group
                kind = kinds.get(color, "bus")
                if ln.kind != kind:
                    r["kind"] = ln.kind
                if frozenset((sg.a, sg.b)) in drawn["overpass_pairs"]:
                    r["overpass"] = True
                r["line"] = ", ".join(line_of[x].label for x in sg.lines)[:80]
                routes_json.append(r)
        agency_names = sorted({a["agency_name"] for a in agencies
                               if not agency or a.get("agency_id") == agency or a["agency_name"].lower() == agency.lower()
                               or len(agencies) == 1})
        title = name or f"{' / '.join(agency_names)[:100]}: draft"
        data = {
            "schema_version": 1,
            "id": slug(name or " ".join(agency_names), 60),
            "name": title[:120],
            "version": "draft",
            "credits": credits_text(agency_names, agencies, info, feed, day)[:2000],
            "rules": rules,
            "route_points": L.route_points(longest),
            "palette": [c.as_json() for c in dc.palette],
            "wild": {"name": "Transit Pass"},
            "gray": {"name": "Bus (any one color)" if gray_kind == "bus" else "Gray (any one color)",
                     "kind": gray_kind},
            "stations": station_json,
            "routes": routes_json,
        }
        summary = {
            "feed": str(feed.path), "service_day": day.isoformat(), "services": len(services),
            "modes": list(sel.modes),
            "lines": [{"route_id": ln.route_id, "name": ln.name, "mode": (ln.modes or ("?",))[0], "kind": ln.kind,
                       "trips": ln.trips, "color": ", ".join(sorted({c for (_, t), cs in zip(plans, dc.tracks)
                                                                      for x, c in zip(t, cs) if x == ln.route_id})) or "-",
                       **pattern_figures[ln.route_id]} for ln in chosen],
            "dropped": [{"line": a, "why": b} for a, b in dropped],
            "stations": {"stops_used": len(used), "merged_stations": len(st), "merge": merge_figures, **station_figs},
            "routes": len(routes_json), "doubles": doubles, "crowded_segments": crowded,
            "shared_single": single,
            "drawable": _decisions(drawn, ids, st, line_of),
            "colors": [{"id": c.id, "name": c.name, "hex": c.hex.upper(), "kind": c.kind, "source": c.source,
                        "lines": [line_of[x].label for x in c.lines]} for c in dc.palette],
            "color_groups": dc.grouping,
            "gray_lines": sorted({line_of[x].label for (_, t), cs in zip(plans, dc.tracks) for x, c in zip(t, cs)
                                  if c == "gray"} - {line_of[x].label for (_, t), cs in zip(plans, dc.tracks)
                                                     for x, c in zip(t, cs) if c != "gray"}),
            "lengths": {"spaces_per_km": None if math.isinf(scale) else round(scale, 3), "spaces": spaces,
                        "target_spaces": target_spaces, "longest": longest,
                        "cut_to_longest": sum(1 for n, (sg, _) in zip(lengths, plans)
                                              if n == L.MAX_LENGTH and not math.isinf(scale)
                                              and round((sg.distance_m / 1000) ** L.EXPONENT * scale) > L.MAX_LENGTH),
                        "histogram": dict(sorted(Counter(lengths).items())),
                        "drawn_mm": [round(v) for v in d["span"]], "board_mm": list(d["board"]),
                        "fits": d["fits"], "shrunk_from_mm": d["shrunk"] and [round(v) for v in d["shrunk"]],
                        "fit_tolerance": tolerance},
            "trains": trains, "players": [L.MIN_PLAYERS, players],
            "route_points": data["route_points"],
            "notes": notes,
            "seconds_import": round(time.perf_counter() - started, 2),
        }
        return ImportResult(data, summary, notes)

    # the smallest board first; on each, the drafts holding the most spaces (five players' trains
    # with room at most), then the higher tolerance, then more stations
    tried_at = {(b, t): [draft(target, t, b)] if target else [draft(n, t, b) for n in DEFAULT_TARGETS]
                for b in boards for t in tolerances}
    # the smallest board with a draft two players can play goes first (a larger board gives more
    # spaces but leaves a sparse network mostly empty: fewer players instead, as the city maps),
    # the larger ones after it while the layout leaves problems, the smaller ones last
    def players(x):
        pt = L.players_and_trains(x["spaces"]) if x["fits"] else None
        return pt[0] if pt else 0

    drafts = [d for key in tried_at for d in tried_at[key]]
    by_board = {}
    for d in drafts:
        by_board[d["board"]] = max(by_board.get(d["board"], 0), players(d))
    playable = [b for b, v in by_board.items() if v >= L.MIN_PLAYERS] or list(by_board)
    first = min(playable, key=lambda b: b[0] * b[1])
    def play(x):
        # on one board: the most players, then trains in steps of 5, then fewer one-space routes (a
        # route of one space scores 1 point: a board of them plays poorly), then more spaces
        pt = L.players_and_trains(x["spaces"]) if x["fits"] else None
        ones = sum(1 for n in x["lengths"] if n == 1) / max(1, len(x["lengths"]))
        return (-(pt[0] if pt else 0), -(min(pt[1], L.TRAINS) // 5 if pt else 0), round(ones, 1),
                -min(x["spaces"], target_spaces))

    ranked = sorted(drafts, key=lambda x: (x["board"][0] * x["board"][1] < first[0] * first[1],
                                           x["board"][0] * x["board"][1], not x["fits"], play(x),
                                           -x["tolerance"], -x["figs"]["target"]))
    results, refused = [], None
    for d in ranked:
        try:
            results.append(build(d, [] if target else [x for x in ranked if x["tolerance"] == d["tolerance"]
                                                       and x["board"] == d["board"]]))
        except EmptySelection as e:      # too small at these lengths: the others may do
            refused = refused or e
    if not results:
        raise refused
    return results



def _printed_names(kept, st, patterns, line_of, overrides: dict) -> tuple[dict, list[str]]:
    """key → the station's printed name, and notes. overrides (--names): stop_id, or a station's
    name as the feed or the board gives it → (name, line); every entry must match a kept station
    or a stop of one, else it is named in a note."""
    serving = defaultdict(list)
    for ln, p in patterns.items():
        for k in dict.fromkeys(p):
            serving[k].append(line_of[ln].label)
    printed = unique_names([{"key": k, "name": st[k].name, "stop_names": st[k].stop_names, "lines": serving[k],
                             "lat": st[k].lat, "lon": st[k].lon} for k in sorted(kept)])
    notes, used = [], set()
    for k in sorted(kept):
        for c in [*st[k].stops, *st[k].stop_ids, st[k].name, printed[k], *st[k].stop_names]:
            if c in overrides:
                printed[k] = overrides[c][0]
                used.add(c)
                break
    if overrides:
        unmatched = [f"{c} (line {overrides[c][1]})" for c in overrides if c not in used]
        notes.append(f"--names: {len(used)} name(s) given" + (f"; {len(unmatched)} match no station on the board: "
                     + ", ".join(unmatched[:6]) + (" ..." if len(unmatched) > 6 else "") if unmatched else ""))
    twice = [n for n, c in Counter(v.lower() for v in printed.values()).items() if c > 1]
    if twice:
        raise UsageError(f"--names: two stations would be printed '{twice[0]}'; give each station its own name")
    return printed, notes


def _decisions(drawn: dict, ids: dict, st: dict, line_of: dict) -> dict:
    """make_drawable's decisions with board station ids and line labels, for the summary."""
    def sid(k):
        return ids.get(k) or f"({st[k].name}, thinned away)"

    def labels(xs):
        return [line_of[x].label for x in xs]

    out = {"crossings_left": drawn["crossings_left"]}
    out["kept_at_crossing"] = [{"station": sid(d["station"]), "routes": d["routes"]} for d in drawn["kept_at_crossing"]]
    out["merged_at_crossing"] = [{"station": sid(d["station"]), "merged": st[d["merged"]].name, "metres": d["metres"],
                                  "routes": d["routes"]} for d in drawn["merged_at_crossing"]]
    out["kept_to_uncross"] = [{"station": sid(d["station"]), "routes": d["routes"]} for d in drawn["kept_to_uncross"]]
    for key in ("dropped", "overpass"):
        out[key] = [{"route": [sid(x) for x in d["route"]], "lines": labels(d["lines"]), "crosses": d["crosses"]}
                    for d in drawn[key]]
    out["merged_side_by_side"] = [{"route": [sid(x) for x in d["route"]], "through": sid(d["through"]),
                                   "lines": labels(d["lines"])} for d in drawn["merged_side_by_side"]]
    return out


def credits_text(agency_names, agencies, info, feed, day) -> str:
    urls = sorted({a.get("agency_url", "") for a in agencies if a["agency_name"] in agency_names} - {""})
    parts = [f"Draft board made by mapkit from the GTFS feed of {', '.join(agency_names) or 'an unnamed agency'}"
             + (f" ({', '.join(urls)})" if urls else "") + f", service of {day.isoformat()}."]
    if info.get("feed_publisher_name"):
        pub = info["feed_publisher_name"] + (f" ({info['feed_publisher_url']})" if info.get("feed_publisher_url") else "")
        ver = f", version {info['feed_version']}" if info.get("feed_version") else ""
        parts.append(f"Feed published by {pub}{ver}.")
    parts.append("Station positions, names and line colors come from that feed; use it under its publisher's license "
                 "terms and name them here. Unofficial fan board, not affiliated with or endorsed by the agency or by "
                 "Days of Wonder; Ticket to Ride designed by Alan R. Moon.")
    return " ".join(parts)


@dataclass
class Finished:
    data: dict
    text: str
    report: object                  # mapkit.errors.Report of the finished board (strict: no warnings)
    layout: dict                    # figures and problems of the layout
    deck: dict
    tickets: int
    notes: list = field(default_factory=list)


def finish_board(data: dict, *, seed: int = 0, style: str = "geographic", source: str = "imported board",
                 size="auto") -> Finished:
    """What `mapkit build` derives, on the imported board: the layout (mapkit.layout) on `size`
    ('auto' or (width, height) mm), the train-card deck (mapkit.cards, every color with room for its
    longest route: playtest.deck_with_room) and a standard ticket deck (mapkit.ticket_deck) without
    tickets between two stations of one place; then the three gates of `validate` on the text that
    would be written."""
    import dataclasses

    from mapkit.boardfile import build_board, schema_problems, whole_numbers
    from mapkit.errors import BoardError
    from mapkit.importers.gtfs.playtest import SPARE_CARDS, deck_with_room, one_place_tickets
    from mapkit.layout import layout_board
    from mapkit.model import Deck
    from mapkit.ticket_deck import generate
    from mapkit.writer import dump_board_json, validate_text

    problems = schema_problems(data, source)
    if problems:  # the importer's own bug if it ever happens: say what, not a traceback
        raise BoardError(source, problems)
    notes = []
    res = layout_board(data, style=style, size=size if size == "auto" else tuple(size), seed=seed)
    laid = res.data
    board = build_board(whole_numbers(laid), source)
    deck, raised = deck_with_room(board)
    if raised:
        notes.append("cards: " + ", ".join(f"{c} at least {n}" for c, n in raised.items())
                     + f" (its longest route and {SPARE_CARDS} more)")
    laid = dict(laid)
    laid["deck"] = deck.deck_json()
    board = dataclasses.replace(board, deck=Deck(deck.total, deck.wild, dict(deck.counts)))
    tickets = None
    for count in (30, 24, 18, 12, 8, 5):
        # a small network has too few pairs for the standard 30 tickets: a smaller deck, said so
        try:
            tickets = generate(board, seed=seed, count=count)
            break
        except MapkitError:
            if count == 5:
                raise
    if tickets.figures["ends_added"]:
        notes.append("tickets: " + ", ".join(tickets.figures["ends_added"]) + " added so that every line's end "
                     "station is on a ticket")
    laid["ticket_decks"] = {"standard": tickets.deck_json()}
    same = set(one_place_tickets(laid))
    if same:
        laid["ticket_decks"]["standard"] = [t for t in laid["ticket_decks"]["standard"] if (t["from"], t["to"]) not in same]
        notes.append(f"tickets: {len(same)} between two stations of one place taken out: "
                     + ", ".join(f"{a}-{b}" for a, b in sorted(same)))
    text = dump_board_json(laid)
    report = validate_text(text, source)
    return Finished(laid, text, report, {"figures": res.figures, "problems": list(res.problems)},
                    deck.deck_json(), len(laid["ticket_decks"]["standard"]), notes)
