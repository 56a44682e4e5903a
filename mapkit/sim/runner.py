"""The referee: plays seeded games between agents and never lets a broken agent stop a game.

An agent that raises or returns an illegal action forfeits its turn (a pass; while choosing
tickets, it keeps the first ones it must keep) and the event is recorded as a rules gap
"agent_error". Game seeds come from numpy's SeedSequence(seed).spawn(games), so game i is the same
whatever the number of worker processes and whichever process plays it.

Besides the scores, a result records what the balance report needs per game:
- `offers`: ticket index in the pool → [times offered, times kept] (every KEEP choice, at setup
  and after a ticket draw, read from the state's offer before the choice is applied);
- `color_units`: track claimed per route color (color index, GRAY = -1), in half-spaces, with each
  double counted once where only one of its tracks may be claimed: a claimed track of such a double
  credits each of its group's track colors with half its length (so a red/blue double claimed on the
  red track counts half for red and half for blue, and a gray/gray double counts once for gray);
- `claim_wilds`: route color → [claims, wild cards spent on them] (scarcity beside demand).
"""

from __future__ import annotations

import random

import numpy as np

from mapkit.sim import engine
from mapkit.sim.legal import Legal, draw_legal
from mapkit.sim.agents import make_agent
from mapkit.sim.rules import RuleSet
from mapkit.sim.scoring import final_scores, winners
from mapkit.sim.tables import Tables
from mapkit.sim.view import SeatView


def game_seeds(seed, games: int, start: int = 0) -> list[int]:
    """One 63-bit seed per game, independent of how games are split among workers or batches.

    `seed` is an int or a list of ints (the SeedSequence entropy, e.g. [seed, players, table]).
    Game i's seed is that of the i-th child of SeedSequence(seed).spawn(...), built directly from
    its spawn key, so games start..start+games-1 are the same whichever batch plays them."""
    return [_seed_int(np.random.SeedSequence(seed, spawn_key=(i,))) for i in range(start, start + games)]


def _seed_int(ss: np.random.SeedSequence) -> int:
    return int(ss.generate_state(2, dtype=np.uint32).astype(np.uint64) @ np.array([1 << 31, 1], dtype=np.uint64)) & ((1 << 63) - 1)


def _forfeit(s: engine.State, legal) -> tuple:
    if s.phase in (engine.SETUP, engine.KEEP_PHASE):
        return (engine.KEEP, (1 << s.min_keep) - 1)
    if s.phase == engine.DRAW2:
        # the second card is forfeited: end the turn by taking nothing more
        return None
    return (engine.PASS,)


def play_game(t: Tables, rules: RuleSet, agent_names: list[str], seed: int, log: bool = False) -> dict:
    players = len(agent_names)
    s = engine.new_game(t, rules, players, seed)
    agent_rng = random.Random(seed ^ 0x5DEECE66D)
    agents = []
    for seat, name in enumerate(agent_names):
        agent = make_agent(name)
        agent.reset(seat, t, players, random.Random(agent_rng.getrandbits(64)))
        agents.append(agent)
    views = [SeatView(s, p) for p in range(players)]
    seconds = [getattr(agent, "second_draw", None) for agent in agents]  # Agent.second_draw: most have none
    actions = [] if log else None
    errors = 0
    final = {"turns": 0, "scoring_legal": 0, "draws_while_scoring_legal": 0}
    offers: dict[int, list[int]] = {}
    claim_log = []  # (route, wilds) of every claim, in play order
    OVER, TURN, DRAW2, KEEP, CLAIM, apply = engine.OVER, engine.TURN, engine.DRAW2, engine.KEEP, engine.CLAIM, engine.apply  # the loop's names
    while s.phase != OVER:
        p = s.current
        if s.phase == DRAW2 and seconds[p] is not None:
            # the second card of a draw turn from the agent's `second_draw`, checked on the state:
            # the same action `act` would return, checked as `in legal` checks it (draw_legal)
            try:
                a = seconds[p](views[p])
                ok = a is None or draw_legal(s, a)
            except Exception:  # a broken agent must not stop the game
                a, ok = False, False
            if a is not None:
                if ok:
                    if log:
                        actions.append(list(a))
                    apply(s, a)
                else:  # what the act path does with a broken second card: the turn ends
                    errors += 1
                    s.gaps["agent_error"] += 1
                    engine._end_turn(s)
                    if log:
                        actions.append(["end"])
                continue
            # None: the agent asks to be asked through act
        legal = Legal(s)
        # a turn started in the final round is that seat's last: note whether it could score
        last_turn = s.phase == TURN and s.final_turns_left is not None
        if last_turn:
            scoring = bool(legal.fewest_wild_claims() or legal.stations())  # any claim at all
        try:
            a = agents[p].act(views[p], legal)
            ok = a in legal
        except Exception:  # a broken agent must not stop the game
            a, ok = None, False
        if last_turn:
            final["turns"] += 1
            final["scoring_legal"] += scoring
            final["draws_while_scoring_legal"] += scoring and ok and a[0] in (engine.FACE_UP, engine.BLIND)
        if not ok:
            errors += 1
            s.gaps["agent_error"] += 1
            a = _forfeit(s, legal)
            if a is None:
                engine._end_turn(s)
                if log:
                    actions.append(["end"])
                continue
        if log:
            actions.append(list(a))
        kind = a[0]
        if kind == KEEP:
            for j, i in enumerate(s.offer):
                o = offers.setdefault(i, [0, 0])
                o[0] += 1
                o[1] += a[1] >> j & 1
        elif kind == CLAIM:
            claim_log.append((a[1], a[3]))
        apply(s, a)
    rows = final_scores(s)
    win = winners(s, rows)
    held = {}
    for row in rows:
        for i, ok in row["results"]:
            h = held.setdefault(i, [0, 0])
            h[0] += 1
            h[1] += ok
    result = {
        "seed": seed, "players": players, "agents": list(agent_names), "rules": rules.name,
        "scores": rows, "winners": win, "turns": s.turn, "end": s.end_reason, "gaps": dict(s.gaps),
        "tickets": {i: tuple(v) for i, v in held.items()},
        "claims": [r for p in range(players) for r in s.claims[p]],
        "turns_by_seat": list(s.turns_taken), "hand_at_end": [sum(h) for h in s.hands], "final_turns": final,
        "offers": offers, **_color_figures(t, s, claim_log),
    }
    if log:
        result["actions"] = actions
    return result


def _color_figures(t: Tables, s: engine.State, claim_log: list) -> dict:
    units: dict[int, int] = {}
    wilds: dict[int, list[int]] = {}
    for r, w in claim_log:
        c = t.route_color[r]
        x = wilds.setdefault(c, [0, 0])
        x[0] += 1
        x[1] += w
        partner = t.route_partner[r]
        if partner >= 0 and not s.shared[r]:
            # one track only: the double is one piece of track, half to each track's color
            for q in (r, partner):
                units[t.route_color[q]] = units.get(t.route_color[q], 0) + t.route_len[r]
        else:
            units[c] = units.get(c, 0) + 2 * t.route_len[r]
    return {"color_units": units, "claim_wilds": wilds}


def replay(t: Tables, rules: RuleSet, players: int, seed: int, actions: list) -> engine.State:
    """Rebuild a logged game from its seed and actions (no agents needed: chance is in the state)."""
    s = engine.new_game(t, rules, players, seed)
    for a in actions:
        if a == ["end"]:
            engine._end_turn(s)
        else:
            engine.apply(s, tuple(a))
    return s
