"""RuleSet: every rule the engine consults, as data, with named presets for the seeds' systems.

A board names its preset (`rules.preset`) and may override any field (`rules.overrides`).
Where a seed is ambiguous, the reading chosen is written next to the field.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from mapkit.errors import UsageError, did_you_mean


@dataclass(frozen=True)
class RuleSet:
    """Every rule the engine consults. Readings of the seeds where they are ambiguous:

    - Winner (002 §5, 004 "Tiebreaks"): most points, then most completed tickets, then the longer
      continuous path (004: "Longest continuous route"); seats still tied share the win. 002 names
      the longest-path *bonus* holder as the second tie-break; comparing path lengths agrees with it
      whenever a tied seat holds the bonus, and also decides games played without the bonus (1910,
      Cities) and ties between seats neither of which holds it.
    - Solo puzzle (002 §6 "discard the leftmost face-up Train Car card and refill the display"):
      the row slides left and the new card is turned at the right end, so every face-up card leaves
      the row after at most five turns (refilling the leftmost slot in place would discard the
      newest card every turn and keep the other four for ever).
    - Transit expansion player count: 2-4 (003 describes 2 players and compares the double-route
      rule with "a game with three or four players"; it says nothing of 5).
    - Transit station points past the scoring table (003: points "based on the number of cards
      played"): a station playing more cards than the board's table is long scores its last value.
    - Transit station cost at 2 players: both tracks of a double count, one card each, as at any
      player count: 003 asks one card "for every route leading into that neighborhood" and 002
      counts each parallel line as a separate route; the 2-player rule limits claiming, not stations.
    - Quick game (002 §6): 30 trains; its optional "discard and replace one starting ticket" is
      `starting_replacements` (variant `quick-redraw`): before choosing which starting tickets to
      keep, a seat may return one of them to the bottom of the deck and take the top ticket instead.
    - Long game (002 §6 "use all 45 train cars"): 45 trains at every player count, whatever the
      preset says, and the final round at one train or none.
    - Mega (004): the standard and 1910 tickets and the four further tickets of the 1910 box
      (69 in all: 004 "69 total tickets"; a board's `mega` deck holds those four).
    """

    name: str = "standard"
    min_players: int = 2
    max_players: int = 5
    # trains per player, by player count; a count not listed uses `trains`.
    # Reading of the quick game: 30 trains whatever the player count.
    trains: int = 45
    trains_by_players: tuple[tuple[int, int], ...] = ()
    starting_hand: int = 4
    face_up: int = 5
    wild_reset: int = 3               # this many face-up wilds discard the row (0: never)
    draws_per_turn: int = 2
    face_up_wild_takes_turn: bool = True   # relaxed variant: False (counts as one of two)
    deal_tickets: int = 3
    keep_at_start: int = 2
    draw_tickets: int = 3
    keep_on_draw: int = 1
    starting_replacements: int = 0    # starting tickets a seat may return and replace (quick game option: 1)
    ticket_decks: tuple[str, ...] = ("standard",)   # board decks shuffled together
    end_trigger: int = 2              # final round when a player ends a turn with ≤ this many trains
    longest_path_bonus: int = 10
    globetrotter_bonus: int = 0       # most completed tickets (1910, Mega)
    failed_ticket_factor: int = -1    # family variant: 0
    double_routes_min_players: int = 4  # below this, one track of a double only
    open_tickets: bool = False
    ticket_market: int = 0            # face-up tickets beside the deck (variant: 3)
    # Friendly route protection, formalized: while any opponent has had fewer than this many turns,
    # a player may not claim a route that would leave a station with no open route into it when
    # that opponent owns no route there (it would trap that station before they could reach it).
    friendly_protection_turns: int = 0
    teams: int = 0                    # 2: two teams of alternating seats
    shared_team_tickets: bool = False
    # teams "discuss plans openly" (seed 002 §6): teammates see each other's hands and tickets
    team_open_hands: bool = False
    solo: bool = False
    turn_limit: int = 1000            # a game not over by then is cut off and recorded as a rules gap
    # seed 003, the transit expansion: a second action builds a bus or train station in a station
    # ("neighborhood"); tickets carry a second, transit value. Readings of the seed:
    # - a station costs one card per route into it (both tracks of a double), of that route's
    #   color; each gray route takes one card of any color, with no matching between routes (003:
    #   "gray may be any color"); wild cards stand in for missing colors; a train station also
    #   discards one wild card; it scores the route table's value for the cards played (capped at
    #   the table's last value), half (rounded up) when the other type already stands there;
    # - at most one bus and one train station per neighborhood, from a shared supply of tokens;
    # - a ticket scores its transit value when both ends and every station on some chain of
    #   adjacent stations between them have a station of one type (anyone's); it fails only if it
    #   scores neither value, and then costs the lower value;
    # - most completed bus tickets and most completed train tickets each earn a bonus.
    transit: bool = False
    transit_tokens: int = 17
    transit_ticket_bonus: int = 10
    double_exceptions: tuple[str, ...] = ()   # double groups open on both tracks at any player count
    double_either_color: bool = False         # a closed-partner double may be paid in either track's color

    def trains_for(self, players: int) -> int:
        for count, trains in self.trains_by_players:
            if count == players:
                return trains
        return self.trains


PRESETS: dict[str, RuleSet] = {
    # seeds 002 and 004: the standard rules
    "standard": RuleSet(),
    # seeds 000 and 001: 40 trains for 2-3 players, 45 for 4-5; bonuses come from the board
    "stop-requested": RuleSet(name="stop-requested", trains_by_players=((2, 40), (3, 40), (4, 45), (5, 45))),
    # seed 004, Board Game Arena expansions of the standard map
    "1910": RuleSet(name="1910", ticket_decks=("1910",), longest_path_bonus=0, globetrotter_bonus=15),
    # Mega plays every ticket of the 1910 box: 004 "Both base game tickets AND 1910 tickets are used
    # (69 total tickets)"; the base game has 30 (004) and 1910 35, so a board's `mega` deck holds
    # the other four (in the published box, four tickets reprinted from the Mystery Train expansion)
    "mega": RuleSet(name="mega", ticket_decks=("standard", "1910", "mega"), deal_tickets=5, keep_at_start=3,
                    draw_tickets=4, keep_on_draw=1, globetrotter_bonus=15),
    "cities": RuleSet(name="cities", ticket_decks=("cities",), deal_tickets=5, keep_at_start=3,
                      draw_tickets=4, keep_on_draw=1, longest_path_bonus=0),
    # seed 003, the Seattle transit expansion: 30 automobiles, keep at least 1 of 3 at setup, two
    # players use one track of each double (either color) except the board's named exceptions;
    # 2-4 players (see the docstring)
    "transit": RuleSet(name="transit", trains=30, keep_at_start=1, ticket_decks=("transit",), transit=True,
                       double_routes_min_players=3, double_either_color=True, max_players=4),
}

# seed 002 Section 6 (and the quick/long games), applied on top of a preset with --variant
VARIANTS: dict[str, dict] = {
    "open-tickets": {"open_tickets": True},
    "family": {"failed_ticket_factor": 0},           # unfinished tickets score zero
    "relaxed-wilds": {"face_up_wild_takes_turn": False},
    "ticket-market": {"ticket_market": 3},
    "friendly-protection": {"friendly_protection_turns": 2},
    "quick": {"trains": 30, "trains_by_players": ()},
    # the quick game with its option: each seat may discard and replace one starting ticket
    "quick-redraw": {"trains": 30, "trains_by_players": (), "starting_replacements": 1},
    # "use all 45 train cars" (002 §6), whatever the preset gives (Stop Requested: 40 at 2-3)
    "long": {"end_trigger": 1, "trains": 45, "trains_by_players": ()},
    "teams": {"teams": 2, "min_players": 4, "max_players": 4},
    "teams-shared": {"teams": 2, "min_players": 4, "max_players": 4, "shared_team_tickets": True},
    "teams-open": {"teams": 2, "min_players": 4, "max_players": 4, "team_open_hands": True},
    "solo": {"solo": True, "min_players": 1, "max_players": 1, "deal_tickets": 5, "keep_at_start": 5},
}


def preset_names() -> list[str]:
    return sorted(PRESETS)


def get_preset(name: str, overrides: Optional[dict] = None) -> RuleSet:
    if name not in PRESETS:
        raise UsageError(f"unknown ruleset '{name}'{did_you_mean(name, PRESETS)}; presets: {', '.join(preset_names())}")
    rules = PRESETS[name]
    return replace(rules, **(overrides or {})) if overrides else rules


def resolve_rules(board_preset: str, board_overrides: dict, preset: Optional[str] = None,
                  variants: tuple[str, ...] = (), for_presets: Optional[dict] = None) -> RuleSet:
    """The ruleset of a run: the preset (the board's unless given), the board's overrides when it is
    the board's own preset (its `for_presets` entry for another preset), then each variant in
    order. The name records all of it. Rules that contradict each other (`solo` with `teams`,
    teams with a player count that does not split into teams) are refused with UsageError."""
    name = preset or board_preset
    rules = get_preset(name)
    if name == board_preset:
        rules = board_rules(board_preset, board_overrides)
    elif for_presets and name in for_presets:
        rules = board_rules(name, for_presets[name])
    for v in variants:
        if v not in VARIANTS:
            raise UsageError(f"unknown variant '{v}'{did_you_mean(v, VARIANTS)}; variants: {', '.join(sorted(VARIANTS))}")
        rules = replace(rules, **VARIANTS[v])
    label = "+".join((name, *variants))
    conflicts = ruleset_problems(rules)
    if conflicts:
        shown = "; ".join(message for _, message in conflicts)
        hint = " (drop one of the variants)" if len(variants) > 1 else ""
        raise UsageError(f"the rules {label} cannot be played: {shown}{hint}")
    return replace(rules, name=label)


def override_problems(overrides: dict) -> list[tuple[str, str]]:
    """(field, message) for each override that names no field or has a value of the wrong type or
    out of range. The ranges are the board schema's (`$defs/ruleset`), so they are stated once."""
    from mapkit.boardfile import ruleset_problems_of_overrides

    return ruleset_problems_of_overrides(overrides)


def ruleset_problems(rules: RuleSet) -> list[tuple[tuple[str, ...], str]]:
    """(fields involved, message) for each pair of fields of a ruleset that contradict each other.

    Each field's own range is the schema's; these are the rules between fields, the ones a preset
    plus overrides plus variants can break together.
    """
    found = []
    if rules.max_players < rules.min_players:
        found.append((("max_players", "min_players"),
                      f"max_players {rules.max_players} is below min_players {rules.min_players}; make it at least that"))
    if rules.keep_at_start > rules.deal_tickets:
        found.append((("keep_at_start", "deal_tickets"),
                      f"keep_at_start {rules.keep_at_start} is more than the {rules.deal_tickets} tickets dealt (deal_tickets);"
                      " a player cannot keep more than they are dealt"))
    if rules.keep_on_draw > rules.draw_tickets:
        found.append((("keep_on_draw", "draw_tickets"),
                      f"keep_on_draw {rules.keep_on_draw} is more than the {rules.draw_tickets} tickets drawn (draw_tickets);"
                      " a player cannot keep more than they draw"))
    counts = range(rules.min_players, rules.max_players + 1)
    short = [p for p in counts if rules.trains_for(p) <= rules.end_trigger]
    if short:
        p = short[0]
        found.append((("end_trigger", "trains", "trains_by_players"),
                      f"end_trigger {rules.end_trigger} is not below the {rules.trains_for(p)} trains of a player in a"
                      f" {p}-player game, so the game would end on its first turn; give more trains or lower end_trigger"))
    if rules.solo and rules.teams:
        found.append((("solo", "teams"), "the solo puzzle is one player and cannot be played in teams; use one of solo and teams"))
    elif rules.solo and (rules.min_players, rules.max_players) != (1, 1):
        found.append((("solo", "min_players", "max_players"),
                      f"the solo puzzle is one player, but the rules allow {players_text(rules)}; set min_players"
                      " and max_players to 1"))
    elif rules.teams:
        bad = [p for p in counts if p % rules.teams or p // rules.teams < 2]
        if bad:
            fit = [p for p in range(2 * rules.teams, 6) if p % rules.teams == 0]
            need = " or ".join(str(p) for p in fit) or "more than 5"
            found.append((("teams", "min_players", "max_players"),
                          f"{rules.teams} teams of two or more need {need} players, but the rules allow {players_text(rules)};"
                          f" set min_players and max_players to {fit[0] if fit else 'a multiple of teams'}"))
    return found


def _freeze(value):
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


def board_rules(preset: str, overrides: dict) -> RuleSet:
    """The ruleset of a board: its preset with its overrides (unknown or mistyped ones left out;
    the board's checks report them)."""
    bad = {key for key, _ in override_problems(overrides)}
    good = {k: _freeze(v) for k, v in overrides.items() if k not in bad}
    return replace(PRESETS.get(preset, PRESETS["standard"]), **good)


def rules_for_board(board, preset: Optional[str] = None, variants: tuple[str, ...] = ()) -> RuleSet:
    """The ruleset a board is played with: see `resolve_rules`."""
    r = board.rules
    return resolve_rules(r.preset, r.overrides, preset, tuple(variants), r.for_presets)


def players_text(rules: RuleSet) -> str:
    """'2-5 players' or '4 players'."""
    if rules.min_players == rules.max_players:
        return f"{rules.min_players} player{'s' if rules.min_players != 1 else ''}"
    return f"{rules.min_players}-{rules.max_players} players"


def deck_hint(board_id: str, deck: str) -> str:
    """The command that makes a ticket deck some rules need."""
    style = f" --style {deck}" if deck in ("long", "cities", "transit") else ""
    count = " --count 4" if deck == "mega" else ""  # Mega's four tickets beyond standard and 1910
    return f"`mapkit tickets generate {board_id}{style}{count} --deck {deck} --write`"
