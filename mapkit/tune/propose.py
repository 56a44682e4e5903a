"""Changes to try, read from the evidence: what moved which aim, and what to change it to.

What may change (`--change`), in the order tried (least disruptive first):

- `tickets`: a ticket's points (aims ticket-worth, value-rises, ticket-kept): a ticket the
  evidence flags moves to the deck's own convention for its length (the median points per space
  of the deck in play, robust while fewer than half the tickets are off; within a point or a
  fifth of it counts as on it); a ticket already on it moves by a quarter, on decided evidence
  only. Then a ticket shown to be completed outside the completion band, or rarely kept after its
  points were tried, is replaced by one mapkit generates (mapkit/ticket_deck.py: the same targets
  as `tickets generate`, the rest of the deck pinned) in the same slot.
- `cards`: a starved color (wild cards per claim above the band) takes one train card from the
  color whose claims need the fewest wilds; palette constraints (fixed, min, max, fewer than the
  longest route) are respected and the total stays.
- `doubles`: the second track of a double nobody claims (below route-claimed where both tracks
  are open) is removed; when the first seat's edge is above its band at a player count where both
  tracks are open, the single route claimed in the most games gets a gray second track.
- `colors` (a map change: only when asked for, never by default): a starved color (wild cards per
  claim above the band, or its track rarely claimed) of one or two routes, not starved by the
  palette's own design (a fixed count, or fewer cards than its longest route), has its routes made
  gray, or given the color of a neighbouring line (a color already at one of their end stations,
  the one with the most cards per space of track); a colored route rarely claimed is made gray.
  Routes the designer lists as `unwanted_ok` are left as they are. A route keeps its drawn kind.
  A color left with no route leaves the palette and the deck: its cards go to the neighbour that
  took its routes, or (made gray) one by one to the colors furthest below the share `mapkit
  cards` would give them.

Never stations, nor a route's length, nor (unless `colors` is allowed) its color: those are the map.

A change works on the board file's parsed data (a dict) and knows its patches for
`mapkit.writer.patch_text` (JSON path -> new value, or DELETE).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

from mapkit.tune.aims import Aims
from mapkit.tune.evidence import MET, MISSED, Evidence, Subject

KINDS = ("tickets", "cards", "doubles", "colors")
DEFAULT_KINDS = ("tickets", "cards", "doubles")   # colors change the map: only when asked for
FEW_ROUTES = 2       # a color of this many routes or fewer may be folded into gray or a neighbour
RARELY_KEPT = 0.20
DOUBLE_TRIES = 5     # single routes looked at for a second track, most claimed first


@dataclass
class Change:
    kind: str                 # ticket-points, ticket-replace, cards, double-remove, double-add, recolor
    subject: str              # what it changes, in the designer's words
    aim: str                  # the aim it is for
    before: object
    after: object
    why: str                  # the evidence, in a sentence
    edits: list = field(default_factory=list)   # (JSON path tuple, new value or DELETE)
    targets: frozenset = frozenset()             # (aim, subject) keys whose miss must shrink, before
    targets_after: frozenset = frozenset()       # ... and their names on the changed board
    to_line: bool = False                        # a ticket brought to the deck's points line
    problem: str = ""                            # why it cannot be tried (logged, never played)

    @property
    def key(self) -> tuple:
        return (self.kind, self.subject, str(self.after))

    def as_dict(self) -> dict:
        return {"kind": self.kind, "subject": self.subject, "aim": self.aim, "before": self.before,
                "after": self.after, "why": self.why}


def apply_edits(data: dict, edits: list) -> dict:
    """A copy of the board data with the edits made (paths into it; DELETE removes a key or an
    array item; a path one past an array's end appends)."""
    from mapkit.tune.writeback import DELETE

    out = copy.deepcopy(data)
    # array deletions last and from the back, so earlier indices in the same array stay right
    ordered = sorted(edits, key=lambda e: (e[1] is DELETE and isinstance(e[0][-1], int),
                                           -(e[0][-1] if isinstance(e[0][-1], int) else 0)))
    for path, value in ordered:
        node = out
        for p in path[:-1]:
            node = node[p]
        last = path[-1]
        if value is DELETE:
            del node[last]
        elif isinstance(node, list) and last == len(node):
            node.append(value)
        else:
            node[last] = value
    return out


# ---------------------------------------------------------------------------- tickets

def _pool_slots(data: dict, rules) -> list[tuple[str, int]]:
    return [(name, i) for name in rules.ticket_decks for i in range(len(data.get("ticket_decks", {}).get(name, [])))]


def points_line(ev: Evidence) -> tuple[float, float]:
    """The deck's convention as (intercept 0, points per space): the median of points / shortest
    length over the deck in play. A median stays right while fewer than half the tickets are off
    (a Theil–Sen line breaks down at about 29 %); published decks follow points ≈ length, a
    proportional rule, so no intercept is fitted."""
    ok = ev.lengths > 0
    if not ok.any():
        return 0.0, 1.0
    return 0.0, float(np.median(ev.points[ok] / ev.lengths[ok]))


def propose_points(ev: Evidence, subjects: list[Subject], aims: Aims, data: dict, rules, tried: set) -> list[Change]:
    """Points changes for the tickets the evidence flags: net points per holding off the deck's
    trend (value-rises), holders winning outside the band (ticket-worth), rarely kept
    (ticket-kept). The new value is the deck's own convention for the ticket's length (its
    median points per space); a ticket already on that line moves by a quarter in the direction the
    evidence says. Which way the evidence points is read with care: raising a ticket's points
    raises its net points per holding only when it is completed more often than the failed-ticket
    rule takes back (c + (1 - c) * factor > 0); below that a higher value digs the hole deeper."""
    slots = _pool_slots(data, rules)
    intercept, slope = points_line(ev)
    by = {}
    for s in subjects:
        if s.aim in ("ticket-worth", "value-rises", "ticket-kept") and s.status != MET and s.subject in ev.labels:
            by.setdefault(s.subject, []).append(s)
    h_all = ev.held.sum(axis=0)
    c_all = ev.done.sum(axis=0) / np.maximum(h_all, 1)
    out = []
    for label, subs in by.items():
        i = ev.labels.index(label)
        old = int(ev.points[i])
        fit = min(200, max(1, int(round(intercept + slope * ev.lengths[i]))))
        # within a point or a fifth of the line counts as on it: published decks round, and a
        # one-point nudge to a convention is not worth a step of games
        on_line = abs(fit - old) < max(2, 0.2 * fit)
        if not on_line:
            new, direction = fit, (1 if fit > old else -1)
        elif not any(s.status == MISSED for s in subs):
            continue  # on the deck's line and nothing shown wrong: noise is no reason to move it
        else:
            votes = 0.0
            for s in subs:
                if s.aim == "value-rises":
                    gain = c_all[i] + (1 - c_all[i]) * ev.factor
                    votes += -np.sign(s.estimate) * np.sign(gain)
                elif s.aim == "ticket-worth":
                    votes += -np.sign(s.estimate - 1 / s.players)
                else:
                    votes += 1
            direction = int(np.sign(votes))
            if not direction:
                continue
            new = min(200, max(1, old + direction * max(1, round(0.25 * old))))
        if new == old:
            continue
        reasons = []
        for s in subs:
            if s.aim == "value-rises":
                reasons.append(f"net points per holding {s.extra['net_points_per_holding']:+.1f} at {s.players}p against "
                               f"the deck's trend {s.extra['trend']:+.1f} at length {s.extra['length']}")
            elif s.aim == "ticket-worth":
                reasons.append(f"holders win {s.estimate:.0%} at {s.players}p (band {s.band[0]:.0%}–{s.band[1]:.0%})")
            else:
                reasons.append(f"kept in {s.estimate:.0%} of {int(s.n)} offers at {s.players}p")
        reasons.append(f"the deck's points line gives {fit} at length {int(ev.lengths[i])}")
        deck, idx = slots[i]
        targets = frozenset((s.aim, (s.subject, s.players)) for s in subs)
        ch = Change("ticket-points", label, subs[0].aim, old, new, "; ".join(reasons),
                    [(("ticket_decks", deck, idx, "points"), new)], targets, targets)
        ch.to_line = not on_line
        if ch.key not in tried:
            out.append(ch)
    return out


def propose_replacements(ev: Evidence, subjects: list[Subject], aims: Aims, data: dict, board, rules,
                         tried: set, seed: int, repricing: frozenset = frozenset()) -> list[Change]:
    """Replace a ticket shown to miss the completion band, or rarely kept, by a generated one."""
    from mapkit.balance.stats import p_rate_beyond

    slots = _pool_slots(data, rules)
    comp = [s for s in subjects if s.aim == "completion" and s.status == MISSED]
    bad: dict[int, str] = {}
    for s in comp:
        i = ev.labels.index(s.subject)
        bad.setdefault(i, f"completed {s.estimate:.0%} at {s.players}p ({s.low:.0%}–{s.high:.0%}; band "
                          f"{s.band[0]:.0%}–{s.band[1]:.0%})")
    offered, kept = ev.offered.sum(axis=0), ev.kept.sum(axis=0)
    for i in range(len(ev.labels)):
        if ev.labels[i] in repricing:
            continue  # its points are tried first: the least disruptive change
        if offered[i] >= aims.min_holdings and p_rate_beyond(float(kept[i]), float(offered[i]), RARELY_KEPT)[1] < 0.05:
            bad.setdefault(i, f"kept in {kept[i] / offered[i]:.0%} of {int(offered[i])} offers (fewer than "
                              f"{RARELY_KEPT:.0%})")
    out = []
    intercept, slope = points_line(ev)
    for i, why in sorted(bad.items()):
        deck, idx = slots[i]
        if ("ticket-replace", ev.labels[i]) in {k[:2] for k in tried}:
            continue
        new = _generate_one(board, data, deck, idx, seed)
        if new is None:
            continue
        if deck != "transit":
            new["points"] = max(1, int(round(intercept + slope * new.pop("_length"))))
        else:
            new.pop("_length")
        old = data["ticket_decks"][deck][idx]
        prefix = "" if len(rules.ticket_decks) == 1 else f"{deck}:"
        new_label = prefix + f"{new['from']}-{new['to']}"
        targets = frozenset(("completion", (ev.labels[i], n)) for n in ev.counts)
        targets_after = frozenset(("completion", (new_label, n)) for n in ev.counts)
        ch = Change("ticket-replace", ev.labels[i], "completion",
                    f"{old['from']}-{old['to']} ({old['points']})", f"{new['from']}-{new['to']} ({new['points']})",
                    why, [(("ticket_decks", deck, idx), new)], targets, targets_after)
        if ch.key not in tried:
            out.append(ch)
    return out


def _generate_one(board, data: dict, deck: str, idx: int, seed: int):
    """A generated ticket for slot idx of `deck`, the deck's other tickets pinned (None if none fits)."""
    from mapkit.errors import MapkitError
    from mapkit.ticket_deck import STYLES, generate

    tickets = data["ticket_decks"][deck]
    others = [(t["from"], t["to"]) for j, t in enumerate(tickets) if j != idx]
    here = {tuple(sorted((t["from"], t["to"]))) for t in tickets}
    style = deck if deck in STYLES else "standard"
    for attempt in range(3):
        try:
            g = generate(board, style=style, count=len(tickets), seed=seed * 31 + idx * 7 + attempt,
                         required=others, iterations=1500)
        except MapkitError:
            return None
        fresh = [t for t in g.tickets if tuple(sorted((t.a, t.b))) not in here]
        if fresh:
            t = fresh[0]
            rows = [r for r in g.deck_json() if (r["from"], r["to"]) == (t.a, t.b)]
            row = dict(rows[0]) if rows else {"from": t.a, "to": t.b, "points": t.points}
            row["_length"] = t.length
            return row
    return None


# ---------------------------------------------------------------------------- cards

def _count_fits(color, k: int, longest: dict) -> bool:
    """Whether k cards of a palette color respect its constraints (fixed, min, max, fewer than
    its longest route) and give it at least one."""
    cc = color.cards
    if cc.fixed is not None and k != cc.fixed:
        return False
    if cc.min is not None and k < cc.min or cc.max is not None and k > cc.max:
        return False
    if cc.below_longest_route and longest.get(color.id) and k >= longest[color.id]:
        return False
    return k >= 1


def propose_cards(ev: Evidence, subjects: list[Subject], aims: Aims, data: dict, board, tried: set) -> list[Change]:
    from mapkit.cards import derive_deck

    starved = [s for s in subjects if s.aim == "color-wilds" and s.status != MET]
    if not starved:
        return []
    deck = data.get("deck")
    if deck is None:
        derived = derive_deck(board)
        deck = {"total": derived.total, "wild": derived.wild, "counts": dict(derived.counts)}
    counts = dict(deck["counts"])
    palette = {c.id: c for c in board.palette}
    longest = {}
    for r in board.routes:
        longest[r.color] = max(longest.get(r.color, 0), r.length)

    def room(cid: str, delta: int) -> bool:
        c = palette.get(cid)
        return c is not None and c.cards.fixed is None and _count_fits(c, counts.get(cid, 0) + delta, longest)
    # wilds per claim pooled over counts: the donor is the color whose claims need the fewest
    k_all = ev.claims.sum(axis=0).astype(float)
    w_all = ev.wilds.sum(axis=0).astype(float)
    per = {cid: w_all[j] / k_all[j] for j, cid in enumerate(ev.colors[:-1]) if k_all[j] >= aims.min_claims}
    out = []
    worst = {}
    for s in starved:
        if s.subject not in worst or s.estimate > worst[s.subject].estimate:
            worst[s.subject] = s
    for cid, s in sorted(worst.items(), key=lambda kv: -kv[1].estimate):
        # one card, and two (from the two colors needing the fewest wilds, or one color twice):
        # screening picks the size the evidence supports
        for size in (1, 2):
            if not room(cid, +size):
                continue
            donors = sorted((v, d) for d, v in per.items() if d != cid and d not in worst and room(d, -1))
            if not donors:
                continue
            takes = {}
            for _, d in donors[:size]:
                takes[d] = 1
            if sum(takes.values()) < size:
                d0 = donors[0][1]
                if not room(d0, -2):
                    continue
                takes = {d0: 2}
            new = dict(counts)
            new[cid] += size
            for d, k in takes.items():
                new[d] -= k
            touched = [cid] + sorted(takes)
            if "deck" in data:
                edits = [(("deck", "counts", x), new[x]) for x in touched]
            else:
                nd = copy.deepcopy(deck)
                nd["counts"] = new
                edits = [(("deck",), nd)]
            targets = frozenset(("color-wilds", (cid, x.players)) for x in starved if x.subject == cid)
            donors_txt = ", ".join(f"{d} {per[d]:.2f}" for d in sorted(takes))
            ch = Change("cards", f"{cid} cards +{size} (from {', '.join(sorted(takes))})", "color-wilds",
                        {x: counts[x] for x in touched}, {x: new[x] for x in touched},
                        f"{cid} claims take {s.extra.get('wilds_per_claim')} wilds each at {s.players}p against "
                        f"{s.extra.get('all_colors')} for all colors; the donors need the fewest ({donors_txt})",
                        edits, targets, targets)
            if ch.key not in tried:
                out.append(ch)
    return out


# ---------------------------------------------------------------------------- doubles

def propose_doubles(ev: Evidence, subjects: list[Subject], aims: Aims, data: dict, board, rules, t,
                    tried: set) -> list[Change]:
    routes = data["routes"]
    out = []
    rare = [s for s in subjects if s.aim == "route-claimed" and s.status != MET and "#" in s.subject]
    by_id = {rid: i for i, rid in enumerate(t.route_ids)}
    seen = set()
    for s in sorted(rare, key=lambda x: x.estimate):
        r = by_id.get(s.subject)
        if r is None or t.route_partner[r] < 0 or t.double_group[r] in seen:
            continue
        seen.add(t.double_group[r])
        partner = t.route_partner[r]
        keep = partner
        edits = [(("routes", r), _DELETE()), (("routes", keep, "double"), _DELETE())]
        targets = frozenset(("route-claimed", (x.subject, x.players)) for x in rare if x.subject == s.subject)
        ch = Change("double-remove", s.subject, "route-claimed", "two tracks", f"one track ({t.route_ids[keep]} stays)",
                    f"track {s.subject} is claimed in {s.estimate:.0%} of games at {s.players}p (at least "
                    f"{s.band[0]:.0%} wanted) while both tracks are open", edits, targets, frozenset())
        if ch.key not in tried:
            out.append(ch)
    # a second track for the most wanted single route, when the first seat's edge is too big
    edge = [s for s in subjects if s.aim == "seat-edge" and s.status != MET and s.estimate > s.band[1]
            and s.players >= rules.double_routes_min_players]
    if edge:
        n = max(edge, key=lambda s: s.estimate - s.band[1]).players
        mask = ev.players == n
        share = ev.claimed[mask].mean(axis=0)
        singles = [r for r in range(t.n_routes) if t.route_partner[r] < 0 and "bonus" not in routes[r]]
        es = [s for s in edge if s.players == n]
        targets = frozenset(("seat-edge", ("first seat", s.players)) for s in edge)
        base_problems = None
        # the most claimed single route whose second track fits the drawing: one that would
        # overlap or cross something is logged as dropped and the next most claimed is looked at
        for r in sorted(singles, key=lambda x: (-share[x], x))[:DOUBLE_TRIES]:
            raw = routes[r]
            group = _group_name(raw, {x.get("double") for x in routes})
            new = {"from": raw["from"], "to": raw["to"], "color": "gray", "length": raw["length"], "double": group}
            for k in ("kind", "line", "waypoints"):
                if k in raw:
                    new[k] = copy.deepcopy(raw[k])
            edits = [(("routes", r, "double"), group), (("routes", len(routes)), new)]
            ch = Change("double-add", t.route_ids[r], "seat-edge", "one track", "a gray second track",
                        f"the first seat wins {es[0].estimate:.0%} at {n}p (band up to {es[0].band[1]:.0%}); "
                        f"{t.route_ids[r]} is claimed in {share[r]:.0%} of those games, the most of any single "
                        f"route whose second track fits", edits, targets, targets)
            if ch.key in tried:
                continue
            if base_problems is None:
                base_problems = geometry_findings(board)
            ch.problem = new_geometry_problem(base_problems, apply_edits(data, edits))
            out.append(ch)
            if not ch.problem:
                break
    return out


# ---------------------------------------------------------------------------- colors

def _by_design(color) -> bool:
    """A color the palette means to be short of cards (a fixed count, or fewer than its longest
    route): starved on purpose, so never folded away."""
    return color.cards.fixed is not None or color.cards.below_longest_route


def _unwanted(route, aims: Aims) -> bool:
    """A route the designer means to be rarely claimed (`unwanted_ok`): tune changes nothing of it."""
    return route.id in aims.unwanted_ok or bool(route.double and route.double in aims.unwanted_ok)


def _deck_counts(data: dict, board) -> dict:
    from mapkit.cards import derive_deck

    if "deck" in data:
        return dict(data["deck"]["counts"])
    return dict(derive_deck(board).counts)


def _cards(k: int) -> str:
    return f"{k} card" + ("" if k == 1 else "s")


def recolor_edits(data: dict, board, routes: list, new: str) -> tuple[list, str, str]:
    """The edits that give `routes` (indices) the color `new` (a palette color or gray), keeping
    each route's drawn kind, and the cards that follow: a color left with no route leaves the
    palette and, when the file writes the deck, the deck; its cards go to `new` if that color
    can take them, else one by one to the colors furthest below the share `mapkit cards` gives
    them on the changed board. Returns (edits, what the cards do, a problem or '')."""
    from mapkit.boardfile import build_board, whole_numbers
    from mapkit.cards import InfeasibleDeck, derive_deck
    from mapkit.errors import MapkitError
    from mapkit.model import GRAY

    gray_kind = data.get("gray", {}).get("kind", "rail")
    kinds = {c.id: c.kind for c in board.palette}
    edits = []
    for r in routes:
        edits.append((("routes", r, "color"), new))
        route = board.routes[r]
        if "kind" not in data["routes"][r] and route.kind != (gray_kind if new == GRAY else kinds.get(new)):
            edits.append((("routes", r, "kind"), route.kind))
    moved = set(routes)
    leaving = sorted({board.routes[r].color for r in routes} - {GRAY, new},
                     key=lambda c: [p.id for p in board.palette].index(c))
    leaving = [c for c in leaving if all(i in moved for i, x in enumerate(board.routes) if x.color == c)]
    if not leaving:
        return edits, "", ""
    order = [c.id for c in board.palette]
    edits += [(("palette", order.index(c)), _DELETE()) for c in leaving]
    if "deck" not in data:
        return edits, f"{', '.join(leaving)} leaves the palette (the deck is derived from it)", ""
    counts = dict(data["deck"]["counts"])
    free = sum(counts.pop(c, 0) for c in leaving)
    edits += [(("deck", "counts", c), _DELETE()) for c in leaving if c in data["deck"]["counts"]]
    changed = apply_edits(data, edits)
    try:
        nb = build_board(whole_numbers(copy.deepcopy(changed)), "tune")
    except (MapkitError, KeyError, TypeError, ValueError) as exc:   # logged, never played
        return edits, "", f"the changed board does not build: {exc}"
    palette = {c.id: c for c in nb.palette}
    longest = {}
    for r in nb.routes:
        longest[r.color] = max(longest.get(r.color, 0), r.length)
    if new in palette and _count_fits(palette[new], counts.get(new, 0) + free, longest):
        counts[new] = counts.get(new, 0) + free
        edits.append((("deck", "counts", new), counts[new]))
        goes = "goes" if free == 1 else "go"
        return edits, f"{', '.join(leaving)} leaves the palette; its {_cards(free)} {goes} to {new}", ""
    try:
        target = {f.color: f.target for f in derive_deck(nb, data["deck"]["total"], data["deck"]["wild"]).colors}
    except InfeasibleDeck as exc:
        return edits, "", f"no deck fits the changed palette: {exc}"
    given = {}
    for _ in range(free):
        room = [c for c in order if c in palette and _count_fits(palette[c], counts.get(c, 0) + 1, longest)]
        if not room:
            return edits, "", f"no color can take the {_cards(free)} of {', '.join(leaving)}"
        c = max(room, key=lambda x: (target[x] - counts.get(x, 0), -order.index(x)))
        counts[c] = counts.get(c, 0) + 1
        given[c] = given.get(c, 0) + 1
    edits += [(("deck", "counts", c), counts[c]) for c in sorted(given, key=order.index)]
    shared = ", ".join(f"{c} +{k}" for c, k in sorted(given.items(), key=lambda kv: order.index(kv[0])))
    return edits, f"{', '.join(leaving)} leaves the palette; its {_cards(free)} shared out as `mapkit cards` would " \
                  f"({shared})", ""


def propose_colors(ev: Evidence, subjects: list[Subject], aims: Aims, data: dict, board, t,
                   tried: set) -> list[Change]:
    """Map changes for what the evidence names as the cause: a starved color of few routes (wild
    cards per claim above the band, or one of its routes rarely claimed) folded into gray or a
    neighbouring line's color; a colored route rarely claimed made gray."""
    from mapkit.model import GRAY

    palette = {c.id: c for c in board.palette}
    routes_of, spaces = {}, {}
    for i, r in enumerate(board.routes):
        routes_of.setdefault(r.color, []).append(i)
        spaces[r.color] = spaces.get(r.color, 0) + r.length
    counts = _deck_counts(data, board)
    starved, rare = {}, {}
    for s in subjects:
        if s.status == MET:
            continue
        if s.aim == "color-wilds" and (s.subject not in starved or s.estimate > starved[s.subject].estimate):
            starved[s.subject] = s
        if s.aim == "route-claimed" and s.subject in t.route_ids and (s.subject not in rare or
                                                                       s.estimate < rare[s.subject].estimate):
            rare[s.subject] = s
    by_route = {rid: i for i, rid in enumerate(t.route_ids)}
    out, done = [], set()

    def targets_of(color: str, routes: list, leaves: bool) -> tuple[frozenset, frozenset]:
        names = {board.routes[r].id for r in routes}
        routed = frozenset((s.aim, (s.subject, s.players)) for s in subjects
                           if s.aim == "route-claimed" and s.status != MET and s.subject in names)
        colored = frozenset((s.aim, (s.subject, s.players)) for s in subjects
                            if s.aim == "color-wilds" and s.status != MET and s.subject == color)
        return routed | colored, routed | (frozenset() if leaves else colored)

    def add(for_aim, subject, color, routes, new, why):
        if (frozenset(routes), new) in done:
            return
        done.add((frozenset(routes), new))
        edits, cards, problem = recolor_edits(data, board, routes, new)
        leaves = any(p[0] == "palette" for p, _ in edits)
        targets, after = targets_of(color, routes, leaves)
        ch = Change("recolor", subject, for_aim, color, new, why + (f"; {cards}" if cards else ""),
                    edits, targets, after)
        ch.problem = problem
        if ch.key not in tried:
            out.append(ch)

    def rare_text(routes):
        return "; ".join(f"{board.routes[r].id} claimed in {rare[board.routes[r].id].estimate:.0%} of games at "
                         f"{rare[board.routes[r].id].players}p" for r in routes if board.routes[r].id in rare)

    for cid, color in palette.items():
        routes = routes_of.get(cid, [])
        flagged = cid in starved or any(board.routes[r].id in rare for r in routes)
        if not routes or len(routes) > FEW_ROUTES or _by_design(color) or not flagged or any(
                _unwanted(board.routes[r], aims) for r in routes):
            continue
        s = starved.get(cid)
        why = (f"{cid} claims take {s.extra.get('wilds_per_claim')} wilds each at {s.players}p against "
               f"{s.extra.get('all_colors')} for all colors" if s else rare_text(routes))
        why += f"; {cid} has {len(routes)} route{'s' if len(routes) > 1 else ''} ({spaces[cid]} spaces)"
        subject = f"{cid} ({', '.join(board.routes[r].id for r in routes)})"
        aim = "color-wilds" if s else "route-claimed"
        add(aim, subject, cid, routes, GRAY, why)
        ends = {x for r in routes for x in (board.routes[r].a, board.routes[r].b)}
        near = {x.color for x in board.routes if x.ends & ends} - {cid, GRAY}
        near = [c for c in near if c in palette and spaces.get(c) and not _by_design(palette[c])]
        if near:
            order = list(palette)
            nb = max(near, key=lambda c: (counts.get(c, 0) / spaces[c], -order.index(c)))
            add(aim, subject, cid, routes, nb, why + f"; {nb}, at its ends, has the most cards per space of "
                                                     f"track there ({counts.get(nb, 0)} cards for {spaces[nb]} spaces)")
    for rid, s in sorted(rare.items(), key=lambda kv: (kv[1].estimate, kv[0])):
        r = by_route[rid]
        color = board.routes[r].color
        if color == GRAY or color not in palette or _by_design(palette[color]) or _unwanted(board.routes[r], aims):
            continue
        add("route-claimed", rid, color, [r], GRAY, f"{rid} ({color}) is claimed in {s.estimate:.0%} of games at "
                                                    f"{s.players}p (at least {s.band[0]:.0%} wanted)")
    return out


def _finding_key(p) -> tuple:
    """A geometry finding in terms that survive the change: route ids without their track
    number (a route that becomes a double is `a-b#1`), and the other route it names."""
    import re

    named = re.findall(r"'([^']+)'", p.message)
    strip = lambda x: re.sub(r"#\d+$", "", x.replace("route ", ""))  # noqa: E731
    return (p.code, strip(p.subject), tuple(strip(x) for x in named))


def geometry_findings(board) -> set:
    """The board's geometry findings (mapkit/checks.py: overlapping spaces, spaces on stations,
    crossings, off the board, too short), as keys to compare with a changed board's."""
    from mapkit.checks import check_geometry

    return {_finding_key(p) for p in check_geometry(board)}


def new_geometry_problem(before: set, data: dict) -> str:
    """What a changed board's geometry has that the board's had not ('' when nothing): the
    second track of a double must not overlap or cross other routes, or cover a station."""
    from mapkit.boardfile import build_board, whole_numbers
    from mapkit.checks import check_geometry

    from mapkit.errors import MapkitError

    try:
        board = build_board(whole_numbers(copy.deepcopy(data)), "tune")
    except MapkitError as exc:
        return f"the changed board does not build: {exc}"
    fresh = [p for p in check_geometry(board) if _finding_key(p) not in before]
    if not fresh:
        return ""
    p = fresh[0]
    more = f" (and {len(fresh) - 1} more)" if len(fresh) > 1 else ""
    return f"the second track would not fit the drawing: {p.subject}: {p.message}{more}"


def _group_name(raw: dict, taken: set) -> str:
    base = f"{raw['from']}-{raw['to']}"[:56]
    name, k = base, 2
    while name in taken:
        name, k = f"{base}-{k}", k + 1
    return name


def _DELETE():
    from mapkit.tune.writeback import DELETE

    return DELETE


def propose(ev: Evidence, subjects: list[Subject], aims: Aims, data: dict, board, rules, t, allowed,
            tried: set, seed: int) -> list[list[Change]]:
    """Groups of changes to try, in order: each group is simulated as one step."""
    groups, singles = [], []
    pts = propose_points(ev, subjects, aims, data, rules, tried) if "tickets" in allowed else []
    if pts:
        # every flagged ticket repriced in one change, proven together (the budget buys more), and
        # those brought back to the deck's own line together; then each on its own, decided
        # evidence first. Screening chooses among them.
        missed = {s.subject for s in subjects if s.status == MISSED}
        if len(pts) > 1:
            groups.append(pts)
        # ... those on decided evidence only, and those brought back to the deck's line
        for part in ([c for c in pts if c.subject in missed], [c for c in pts if c.to_line]):
            if 1 < len(part) < len(pts) and part not in groups:
                groups.append(part)
        singles = sorted(pts, key=lambda c: (c.subject not in missed, not c.to_line, c.subject))
    if "cards" in allowed:
        groups += [[c] for c in propose_cards(ev, subjects, aims, data, board, tried)]
    if "colors" in allowed:
        groups += [[c] for c in propose_colors(ev, subjects, aims, data, board, t, tried)]
    if "doubles" in allowed:
        groups += [[c] for c in propose_doubles(ev, subjects, aims, data, board, rules, t, tried)]
    if "tickets" in allowed:
        repricing = frozenset(c.subject for c in pts)
        groups += [[c] for c in propose_replacements(ev, subjects, aims, data, board, rules, tried, seed, repricing)]
    return groups + [[c] for c in singles]
