"""The tuning loop: propose, screen many changes cheaply, confirm the best on fresh games, keep
only what is proven to help and shown to harm no aim beyond its margin.

    the board's evidence (the panel's games: the screening block and a first confirmation block)
    repeat (a round):
        if a change is undecided (pending): a sequential look instead: the board and the change
            play the next confirmation block (the same tables' next games), the change is tested
            on every block so far at the share of alpha of this look's games; kept, decided no,
            or still undecided (extended again while the budget has room)
        propose changes from the current board's latest evidence (propose.py): every kind allowed,
            single tickets and every flagged ticket repriced together, replacements, card moves,
            doubles, and (when allowed) route colors
        screen: play each on the screening block (few games, the same seeds as the board's) and
            rank them by how surely their target improves there (design.screen_score)
        confirm: play the board and the best CONFIRM changes on a fresh confirmation block (the
            next games of every table, common random numbers between them), best first; keep the
            first whose target's miss shrinks and whose every aim's miss grows by less than its
            margin, at this confirmation's share of alpha (design.decide, design.Spending); the
            first undecided one (design.undecided) ends the round and is extended next. A change
            of several tickets is not judged at screening (its sign there is noise): the largest
            untried one is confirmed first
        every board version plays with the coupled train-card shuffle (mapkit/sim/shuffle.py),
            so a card change's games stay paired
    until every subject of every aim is in its band, nothing untried is left (and no change is
    undecided), or the budget of games is spent (a round that would pass it is cut to what fits,
    or not started).

Fresh confirmation games every round: the proposals read the data of earlier rounds, the test
reads new games, so the test is not biased by the choice (a ticket picked because it looked
worst would otherwise look better next time by chance alone) and the spent alphas add up.

Deterministic: the games come from SeedSequence([seed, players, table]) (panel.py), the bootstrap
weights from SeedSequence([seed, 0x7475, round, block]), chunks merge in submission order; so a
seed gives the same log and the same board whatever --jobs or the Dask scheduler.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

import numpy as np

from mapkit.boardfile import build_board, whole_numbers
from mapkit.errors import MapkitError, UsageError
from mapkit.sim.batch import GameRunner
from mapkit.sim.rules import rules_for_board
from mapkit.sim.tables import build_tables
from mapkit.tune.aims import Aims
from mapkit.sim.shuffle import coupled
from mapkit.tune.design import CONFIRM, MAX_SCREENED, Spending, decide, screen_score, undecided
from mapkit.tune.evidence import ALPHA, MET, aim_table, analyse, concat, gather_many, per_table, weights
from mapkit.tune.propose import DEFAULT_KINDS, KINDS, apply_edits, propose
from mapkit.tune.writeback import Patches, validate_text

DEFAULT_BUDGET = 8000
DEFAULT_STEP_GAMES = 100
SCREEN_MIN = 3     # holdings (claims) of a subject on the screening games for it to count there


def default_screen_games(step_games: int) -> int:
    """Screening games per player count: an eighth of a confirmation's, at least one rotation per table."""
    return max(1, step_games // 8)


@dataclass
class Step:
    changes: list
    games: int                  # games this change played (screening and, if confirmed, confirmation)
    kept: bool
    reason: str
    aims: dict                  # aim -> {"change", "low", "sd", "margin"} (miss before minus after)
    target: dict                # {"change", "low", "sd", "level", "z"}
    figures: list = field(default_factory=list)   # target subjects before / after with intervals
    round: int = 0
    stage: str = "screened"     # "screened" (dropped there), "confirmed" (first look), "extended"
    #                             (a later look), "undecided" (left so at the end), "invalid"
    screen_z: Optional[float] = None
    look: int = 0               # which sequential look (1: the first confirmation block)
    paired_games: int = 0       # games per board the decision read (every block of its looks)

    def as_dict(self) -> dict:
        return {"round": self.round, "stage": self.stage, "changes": [c.as_dict() for c in self.changes],
                "games": self.games, "kept": self.kept, "reason": self.reason,
                "screen_z": None if self.screen_z is None or not np.isfinite(self.screen_z)
                else round(float(self.screen_z), 3),
                "look": self.look, "paired_games": self.paired_games,
                "target": self.target, "aims": self.aims, "figures": self.figures}


@dataclass
class TuneResult:
    data: dict                  # the tuned board's data
    patches: Patches
    steps: list
    before: dict                # aim table of the board as given
    after: dict                 # ... and as tuned
    subjects_before: list
    subjects_after: list
    games: int                  # games played by the loop
    budget: int
    stop: str
    settings: dict
    spending: dict = field(default_factory=dict)   # games by stage, alpha spent
    report_games: int = 0       # games of the tuned board's report (played by the CLI, inside the budget)

    @property
    def kept(self) -> list:
        return [c for s in self.steps if s.kept for c in s.changes]


def board_of(data: dict, source: str):
    """The model of board data, or None when it would not validate (with the first problem)."""
    report = validate_text(json.dumps(data), source)
    if not report.valid:
        return None, report.errors[0].format() if report.errors else "invalid"
    return build_board(whole_numbers(data), source), None


def gkey(group: list) -> tuple:
    """What is remembered of a tried change: a single change's key, or a group's own."""
    if len(group) == 1:
        return group[0].key
    return ("group",) + tuple(sorted(str(c.key) for c in group))


def _figures(subjects_before, subjects_after, changes) -> list:
    keys = frozenset().union(*(c.targets for c in changes)) | frozenset().union(*(c.targets_after for c in changes))
    out = []
    for when, subjects in (("before", subjects_before), ("after", subjects_after)):
        for s in subjects:
            if (s.aim, (s.subject, s.players)) in keys:
                out.append({"when": when, **s.as_dict()})
    return out


def tune(data: dict, source: str, aims: Aims, counts: list, panel: list, *, allowed=DEFAULT_KINDS,
         budget: int = DEFAULT_BUDGET, step_games: int = DEFAULT_STEP_GAMES, screen_games: Optional[int] = None,
         reserve: int = 0, seed: int = 0, jobs: int = 1, scheduler=None, preset: Optional[str] = None,
         variants: tuple = (), progress: Optional[Callable[[str, int, int], None]] = None) -> TuneResult:
    """Tune the board data (see the module docstring); `reserve` games of `budget` are kept back
    (the tuned board's report); `progress(what, games so far, budget)`."""
    bad = [k for k in allowed if k not in KINDS]
    if bad:
        raise UsageError(f"--change: unknown kind '{bad[0]}'; kinds: {', '.join(KINDS)}")
    board, problem = board_of(data, source)
    if board is None:
        raise MapkitError(f"{source}: the board does not validate ({problem}); run mapkit validate first")
    screen_games = screen_games or default_screen_games(step_games)
    s_per, m_per = per_table(panel, screen_games), per_table(panel, step_games)
    n_tables = len(panel) + (1 if len(panel) > 1 else 0)
    s_cost, m_cost = s_per * n_tables * len(counts), m_per * n_tables * len(counts)
    limit = budget - reserve
    # the least a run needs: the board on both blocks, one screened change, one confirmation
    least = s_cost + m_cost + s_cost + 2 * m_cost
    if limit < least:
        raise UsageError(f"--budget {budget}: too small for one round ({least} games with these --step-games / "
                         f"--screen-games and player counts" + (f", plus {reserve} for the tuned board's report"
                                                                 if reserve else "") + "); give at least "
                         f"{least + reserve}, or fewer --step-games")
    spend = Spending(ALPHA, limit - s_cost - m_cost)
    spent = {"screening": 0, "confirmation": 0, "baseline": 0}
    settings = {"seed": seed, "panel": list(panel), "players": list(counts), "step_games": step_games,
                "screen_games": screen_games, "games_per_table": {"screening": s_per, "confirmation": m_per},
                "budget": budget, "reserved_for_report": reserve, "change": list(allowed), "aims": aims.as_dict(),
                "alpha": ALPHA, "confirm_per_round": CONFIRM, "screened_per_round": MAX_SCREENED}

    def total():
        return sum(spent.values())

    def note(what):
        if progress:
            progress(what, total(), budget)

    with GameRunner(jobs, scheduler) as runner:
        def version(d, bd):
            # both arms of every comparison shuffle the train cards with the coupled shuffle, so a
            # card change's games stay paired (mapkit/sim/shuffle.py)
            return bd, coupled(rules_for_board(bd, preset, variants)), build_tables(bd)

        def play(versions, games, block):
            start = 0 if block < 0 else s_per + block * m_per
            return gather_many(versions, counts, panel, games, seed, runner, aims, start)

        cur = version(data, board)
        ev_s, ev_m = play([cur], screen_games, -1)[0], play([cur], step_games, 0)[0]
        spent["baseline"] += ev_s.games + ev_m.games
        note("the board as given")
        w_s = weights(ev_s.games, seed, 0, block=0)
        _, subjects = analyse(ev_m, aims, weights(ev_m.games, seed, 0, block=1))
        before, subjects_before = aim_table(subjects, aims), subjects
        patches = Patches(data)
        # tried: confirmed and not kept, or invalid (never again); screened_out: dropped at
        # screening on this version of the board (tried again once a change is kept); keys of
        # groups (several tickets repriced together) are their own, so a group refused leaves its
        # tickets to be tried one by one
        steps, tried, screened_out = [], set(), set()
        # undecided confirmations, extended block by block on the same seeds: the board's blocks
        # so far (shared by every pending change: they were confirmed in the same round) and each
        # change's own
        pending, pend_base = [], []
        block, rnd, stop = 0, 0, ""

        def test(cand, base_ev, rnd, blk, level, look):
            """One look at a candidate: decide on every block it and the board played so far."""
            b_all, c_all = concat(base_ev), concat(cand["evs"])
            w = weights(b_all.games, seed, rnd, block=blk + 1)
            m1, s1 = analyse(b_all, aims, w)
            m2, s2 = analyse(c_all, aims, w)
            keep, why, per_aim, target = decide(m1, m2, cand["g"], aims, len(w), level, n_subj)
            open_ = not keep and undecided(per_aim, target)
            if open_:
                why += f"; undecided on {b_all.games} games: extended on the next block"
            steps.append(Step(cand["g"], cand["games"], keep, why, per_aim, target, _figures(s1, s2, cand["g"]),
                              round=rnd, stage="confirmed" if look == 1 else "extended",
                              screen_z=cand["z"], look=look, paired_games=b_all.games))
            note(f"round {rnd}: {'kept' if keep else 'undecided' if open_ else 'not kept'}")
            return keep, open_

        def take(cand):
            nonlocal data, cur, ev_s, ev_m, subjects
            screened_out.clear()
            patches.add([e for c in cand["g"] for e in c.edits])
            data, cur, ev_s, ev_m = cand["nd"], cand["v"], cand["ev_s"], concat(cand["evs"])
            subjects = analyse(ev_m, aims, weights(ev_m.games, seed, 0, block=1))[1]

        while True:
            if all(s.status == MET for s in subjects):
                stop = "every aim is met"
                break
            n_subj = {a: sum(1 for x in subjects if x.aim == a) for a in aims.active}
            if pending:
                # a sequential look: the board and every pending change (best first, as many as
                # fit) play the next block; each is tested on all its blocks so far, at the share
                # of alpha of the games this look played
                fit = pending[:max(0, (limit - total()) // m_cost - 1)]
                if not fit:
                    stop = "budget spent (an undecided change could not be extended)"
                    break
                rnd += 1
                block += 1
                ev_base = play([cur], step_games, block)[0]
                spent["baseline"] += ev_base.games
                pend_base.append(ev_base)
                carry = spend.spend(ev_base.games)
                for cand, ev2 in zip(fit, play([c["v"] for c in fit], step_games, block)):
                    spent["confirmation"] += ev2.games
                    cand["evs"].append(ev2)
                    cand["games"] += ev2.games
                still, kept_one = [], False
                for cand in pending[len(fit):]:
                    steps.append(Step(cand["g"], cand["games"], False, "undecided, and the budget left no room to "
                                      "extend it", {}, {}, round=rnd, stage="undecided", screen_z=cand["z"]))
                for cand in fit:
                    # this look's share of alpha: its new games (the board's block goes with the first)
                    level, carry = spend.spend(cand["evs"][-1].games) + carry, 0.0
                    keep, open_ = test(cand, pend_base, rnd, block, level, len(cand["evs"]))
                    if keep:
                        take(cand)
                        kept_one = True
                        break
                    if open_:
                        still.append(cand)
                    else:
                        tried.add(cand["key"])
                pending = [] if kept_one else still
                if not pending and not kept_one:
                    # every block the board played is the latest evidence to propose from
                    ev_m = concat(pend_base)
                    subjects = analyse(ev_m, aims, weights(ev_m.games, seed, 0, block=1))[1]
                if not pending:
                    pend_base = []
                continue
            groups = [g for g in propose(ev_m, subjects, aims, data, cur[0], cur[1], cur[2], allowed,
                                         tried | screened_out, seed) if gkey(g) not in tried | screened_out]
            if not groups:
                stop = "nothing more to try"
                break
            rnd += 1
            # a proposal known not to fit (a second track over another route) is logged, not
            # screened: it takes no slot of the round
            for g in [g for g in groups if any(c.problem for c in g)]:
                tried.add(gkey(g))
                steps.append(Step(g, 0, False, next(c.problem for c in g if c.problem), {}, {}, round=rnd,
                                  stage="invalid"))
            groups = [g for g in groups if not any(c.problem for c in g)]
            if not groups:
                continue
            # what this round can afford: its screening and at least the board and one change confirmed
            room = limit - total() - 2 * m_cost
            groups = groups[:max(0, min(MAX_SCREENED, room // s_cost))]
            if not groups:
                stop = "budget spent"
                break
            cands = []
            for g in groups:
                nd = apply_edits(data, [e for c in g for e in c.edits])
                nb, problem = board_of(nd, source)
                if nb is None:
                    tried.add(gkey(g))
                    steps.append(Step(g, 0, False, f"the changed board would not validate: {problem}", {}, {},
                                      round=rnd, stage="invalid"))
                else:
                    cands.append((g, nd, version(nd, nb)))
            if not cands:
                continue
            screened = play([v for _, _, v in cands], screen_games, -1)
            spent["screening"] += sum(e.games for e in screened)
            # on the few screening games a ticket is held a handful of times: judge every subject
            # seen at all there (the ranking only needs a direction, the decision comes later)
            loose = replace(aims, min_holdings=SCREEN_MIN, min_claims=SCREEN_MIN)
            m_before = analyse(ev_s, loose, w_s)[0]
            ranked, direct = [], []
            for (g, nd, v), ev in zip(cands, screened):
                z, drop = screen_score(m_before, analyse(ev, loose, w_s)[0], g, aims, len(w_s), n_subj)
                cand = {"g": g, "nd": nd, "v": v, "ev_s": ev, "z": z, "key": gkey(g), "games": ev.games, "evs": []}
                if len(g) > 1:
                    # several tickets repriced together: too many moving parts for the screening
                    # games to judge (their sign is noise there), so they are confirmed directly
                    direct.append(cand)
                elif drop:
                    screened_out.add(gkey(g))
                    steps.append(Step(g, ev.games, False, drop, {}, {}, round=rnd, screen_z=z))
                else:
                    ranked.append((-z, len(ranked), cand))
            ranked.sort(key=lambda x: x[:2])
            # the confirmation slots: the largest multi-ticket change (the most a confirmation can
            # buy), then the screened ones by rank
            order = direct[:1] + [c for _, _, c in ranked]
            note(f"round {rnd}: {len(cands)} screened, {len(order)} to confirm")
            if not order:
                continue
            block += 1
            ev_base = play([cur], step_games, block)[0]
            spent["baseline"] += ev_base.games
            # the board's games on the new block are part of the first test: its alpha pays for them
            carry = spend.spend(ev_base.games)
            kept_one, opened = False, []
            for k, cand in enumerate(order):
                if kept_one or opened or k >= CONFIRM or total() + m_cost > limit:
                    # not confirmed this round: proposed again later if the evidence still asks (an
                    # undecided one takes the budget first: it is extended next)
                    continue
                ev2 = play([cand["v"]], step_games, block)[0]
                spent["confirmation"] += ev2.games
                cand["evs"].append(ev2)
                cand["games"] += ev2.games
                level, carry = spend.spend(ev2.games) + carry, 0.0
                keep, open_ = test(cand, [ev_base], rnd, block, level, 1)
                if keep:
                    take(cand)
                    kept_one = True
                elif open_:
                    opened.append(cand)
                else:
                    tried.add(cand["key"])
            if kept_one:
                continue
            pending, pend_base = opened, [ev_base]
            if not pending:
                # the board's fresh games are the latest evidence to propose from
                ev_m = ev_base
                subjects = analyse(ev_m, aims, weights(ev_m.games, seed, 0, block=1))[1]
    for cand in pending:
        steps.append(Step(cand["g"], 0, False, "still undecided when the budget ran out", {}, {}, round=rnd,
                          stage="undecided"))
    return TuneResult(data=data, patches=patches, steps=steps, before=before, after=aim_table(subjects, aims),
                      subjects_before=subjects_before, subjects_after=subjects, games=total(), budget=budget,
                      stop=stop, settings=settings,
                      spending={"games": dict(spent), "alpha_spent": round(spend.spent, 6),
                                "alpha_games": spend.games})
