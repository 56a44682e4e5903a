"""The tuning loop: propose, re-simulate on the same seeds, keep only what is proven to help.

    evidence of the board (the panel's games)
    repeat:
        propose changes from the evidence (propose.py), the least disruptive kind first
        play the same games on the changed board (same seeds, same lineups: common random numbers)
        keep the change when, in a paired bootstrap over games,
            - the miss of the subjects it is for (their distance outside their bands) shrinks, and
            - no aim's total miss grows,
          each judged one-sided at level alpha / (aims + 1) (Bonferroni across the aims, so the
          promise "no other aim got worse" holds for all of them at once);
        a group of changes that fails is split in halves and each half tried on its own
    until every subject of every aim is in its band, nothing untried is left, or the budget of
    games is spent (a step that would pass it is not started).

Deterministic: the games come from SeedSequence([seed, players, table]) (panel.py), the bootstrap
weights from SeedSequence([seed, 0x7475, step]), chunks merge in submission order; so a seed gives
the same log and the same board whatever --jobs or the Dask scheduler.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from mapkit.boardfile import build_board, whole_numbers
from mapkit.errors import MapkitError, UsageError
from mapkit.sim.batch import GameRunner
from mapkit.sim.rules import rules_for_board
from mapkit.sim.tables import build_tables
from mapkit.tune.aims import Aims
from mapkit.tune.evidence import ALPHA, MET, aim_table, analyse, gather, weights
from mapkit.tune.propose import KINDS, apply_edits, propose
from mapkit.tune.writeback import Patches, validate_text

DEFAULT_BUDGET = 20000
DEFAULT_STEP_GAMES = 400


@dataclass
class Step:
    changes: list
    games: int
    kept: bool
    reason: str
    aims: dict                  # aim -> {"change", "low", "high"} (miss before minus after, 95 %)
    target: dict                # {"change", "low", "high"} at the corrected level
    figures: list = field(default_factory=list)   # target subjects before / after with intervals

    def as_dict(self) -> dict:
        return {"changes": [c.as_dict() for c in self.changes], "games": self.games, "kept": self.kept,
                "reason": self.reason, "target": self.target, "aims": self.aims, "figures": self.figures}


@dataclass
class TuneResult:
    data: dict                  # the tuned board's data
    patches: Patches
    steps: list
    before: dict                # aim table of the board as given
    after: dict                 # ... and as tuned
    subjects_before: list
    subjects_after: list
    games: int                  # games played (the budget spent)
    budget: int
    stop: str
    settings: dict

    @property
    def kept(self) -> list:
        return [c for s in self.steps if s.kept for c in s.changes]


def board_of(data: dict, source: str):
    """The model of board data, or None when it would not validate (with the first problem)."""
    report = validate_text(json.dumps(data), source)
    if not report.valid:
        return None, report.errors[0].format() if report.errors else "invalid"
    return build_board(whole_numbers(data), source), None


def _q(x: np.ndarray, level: float) -> float:
    return float(np.quantile(x, level))


def compare(m_before: dict, m_after: dict, changes: list, aims: Aims, rows: int) -> tuple[bool, str, dict, dict]:
    """The paired decision for one step: (keep, why, per-aim differences, the target's). Misses
    are arrays over the bootstrap rows (row 0: the data itself)."""
    tests = len(aims.active) + 1
    level = ALPHA / tests
    zero = np.zeros(rows)
    targets = frozenset().union(*(c.targets for c in changes))
    after_names = frozenset().union(*(c.targets_after for c in changes))
    before_t = zero + sum((m_before.get(a, {}).get(k, zero) for a, k in targets), zero)
    after_t = zero + sum((m_after.get(a, {}).get(k, zero) for a, k in after_names), zero)
    # a target that keeps its name but is no longer judged after the change (a ticket nobody
    # holds any more) keeps its old miss: going unmeasured is no improvement
    for a, k in targets & after_names:
        if k not in m_after.get(a, {}):
            after_t = after_t + m_before[a][k]
    d = before_t - after_t
    target = {"change": round(float(d[0]), 4), "low": round(_q(d[1:], level), 4),
              "high": round(_q(d[1:], 1 - level), 4), "level": round(1 - 2 * level, 4)}
    per_aim, worse = {}, []
    for aim in aims.active:
        b = zero + sum(m_before.get(aim, {}).values(), zero)
        a = zero + sum(m_after.get(aim, {}).values(), zero)
        diff = b - a
        per_aim[aim] = {"change": round(float(diff[0]), 4), "low": round(_q(diff[1:], 0.025), 4),
                        "high": round(_q(diff[1:], 0.975), 4)}
        if _q(diff[1:], 1 - level) < 0:
            worse.append(aim)
    if worse:
        return False, "made worse: " + ", ".join(worse), per_aim, target
    if not (target["change"] > 0 and target["low"] > 0):
        return False, "no improvement beyond the interval", per_aim, target
    return True, "improved", per_aim, target


def _figures(subjects_before, subjects_after, changes) -> list:
    keys = frozenset().union(*(c.targets for c in changes)) | frozenset().union(*(c.targets_after for c in changes))
    out = []
    for when, subjects in (("before", subjects_before), ("after", subjects_after)):
        for s in subjects:
            if (s.aim, (s.subject, s.players)) in keys:
                out.append({"when": when, **s.as_dict()})
    return out


def tune(data: dict, source: str, aims: Aims, counts: list, panel: list, *, allowed=KINDS,
         budget: int = DEFAULT_BUDGET, step_games: int = DEFAULT_STEP_GAMES, seed: int = 0, jobs: int = 1,
         scheduler=None, preset: Optional[str] = None, variants: tuple = (),
         progress: Optional[Callable[[str, int, int], None]] = None) -> TuneResult:
    """Tune the board data (see the module docstring); `progress(what, games so far, budget)`."""
    bad = [k for k in allowed if k not in KINDS]
    if bad:
        raise UsageError(f"--change: unknown kind '{bad[0]}'; kinds: {', '.join(KINDS)}")
    board, problem = board_of(data, source)
    if board is None:
        raise MapkitError(f"{source}: the board does not validate ({problem}); run mapkit validate first")
    spent = 0
    settings = {"seed": seed, "panel": list(panel), "players": list(counts), "step_games": step_games,
                "budget": budget, "change": list(allowed), "aims": aims.as_dict()}

    def note(what):
        if progress:
            progress(what, spent, budget)

    with GameRunner(jobs, scheduler) as runner:
        def evidence_of(bd):
            rules = rules_for_board(bd, preset, variants)
            t = build_tables(bd)
            return gather(bd, rules, t, counts, panel, step_games, seed, runner, aims), rules, t

        ev, rules, t = evidence_of(board)
        spent += ev.games
        note("the board as given")
        w0 = weights(ev.games, seed, 0)
        misses, subjects = analyse(ev, aims, w0)
        before, subjects_before = aim_table(subjects, aims), subjects
        patches = Patches(data)
        steps, tried, queue = [], set(), []
        step_no, stop = 0, ""
        while True:
            if all(s.status == MET for s in subjects):
                stop = "every aim is met"
                break
            if not queue:
                queue = propose(ev, subjects, aims, data, board, rules, t, allowed, tried, seed)
                if not queue:
                    stop = "nothing more to try"
                    break
            if spent + ev.games > budget:
                stop = "budget spent"
                break
            group = queue.pop(0)
            edits = [e for c in group for e in c.edits]
            new_data = apply_edits(data, edits)
            new_board, problem = board_of(new_data, source)
            if new_board is None:
                for c in group:
                    tried.add(c.key)
                steps.append(Step(group, 0, False, f"the changed board would not validate: {problem}", {}, {}))
                continue
            step_no += 1
            ev2, rules2, t2 = evidence_of(new_board)
            spent += ev2.games
            w = weights(ev.games, seed, step_no)
            m1, s1 = analyse(ev, aims, w)
            m2, s2 = analyse(ev2, aims, w)
            keep, why, per_aim, target = compare(m1, m2, group, aims, len(w))
            steps.append(Step(group, ev2.games, keep, why, per_aim, target, _figures(s1, s2, group)))
            note(f"step {step_no}: {'kept' if keep else 'not kept'}")
            for c in group:
                tried.add(c.key)
            if keep:
                patches.add(edits)
                data, board, rules, t, ev = new_data, new_board, rules2, t2, ev2
                subjects = analyse(ev, aims, weights(ev.games, seed, 0))[1]
                queue = []
            elif len(group) > 1:
                half = len(group) // 2
                queue[:0] = [group[:half], group[half:]]
    return TuneResult(data=data, patches=patches, steps=steps, before=before, after=aim_table(subjects, aims),
                      subjects_before=subjects_before, subjects_after=subjects, games=spent, budget=budget,
                      stop=stop, settings=settings)
