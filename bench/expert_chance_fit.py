"""Refit the expert's completion chance per ticket (mapkit/sim/agents/expert/ticket_keeps.py, COEF).

    python bench/expert_chance_fit.py boards/north-america.json --players 4,2,3 --games 600,500,300 --seed 100 --own-keeps chance

(the fit in ticket_keeps.COEF; a few minutes of one core)

plays expert self-play in which each keep (at setup and after a ticket draw) is, with chance
`--random-share`, a legal keep chosen at random instead of the agent's own, records the features
of every ticket kept that way when it is kept (ticket_keeps.FEATURES) and whether its seat had
completed it when the game ended, and fits a logistic regression to those records (maximum
likelihood, scipy.optimize, a small ridge on the coefficients but the bias). Only the random keeps
are recorded: the agent's own keeps are the tickets it expected to complete, so fitting on them
makes long and risky tickets look better or worse than they are depending on what it chose.
The other keeps are the agent's own: by default by the plan's one curve (`ticket_chance = False`,
so a fit does not depend on a fit before it); with `--own-keeps chance` by a chance per ticket
with the first fit's coefficients (FIRST_FIT below, from the default keeps), 0.5 a planned
train and no trail credit, the games ticket_keeps.COEF was fitted on. It prints the
coefficients to paste into ticket_keeps.COEF, and the log-loss of the fit and of the plan's one
curve on the same records.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys

import numpy as np

from mapkit.sim import engine
from mapkit.sim.agents.expert import ExpertAgent
from mapkit.sim.agents.expert.ticket_keeps import FEATURES, chance, hand_clock
from mapkit.sim.legal import Legal
from mapkit.sim.scoring import final_scores
from mapkit.sim.view import SeatView


class CollectAgent(ExpertAgent):
    """The expert, with a share of its keeps chosen at random and their tickets' features noted."""

    name = "expert-collect"
    random_share = 0.5
    # its own keeps by the plan's one curve, so a refit does not depend on the fit it replaces
    ticket_chance = False

    def reset(self, seat, tables, players, rng):
        super().reset(seat, tables, players, rng)
        self.records = []  # (ticket, features, the plan's one-curve chance)

    def choose_keep(self, view, legal):
        if self.rng.random() >= self.random_share:
            return super().choose_keep(view, legal)
        a = legal[self.rng.randrange(len(legal))]
        offer = view.offer
        kept = tuple(offer[i] for i in range(len(offer)) if a[1] >> i & 1)
        tickets = view.tickets + kept
        trains = view.trains[self.seat]
        turns = self.turns_left(view) - (0 if view.phase == engine.SETUP else 1)
        costs = self._costs(view)
        budget = self._budget(view, turns)
        _, need, given_up, own = self.plan_detail(view, tickets, costs, budget)
        hturns = hand_clock(view, turns)
        p_curve = self._completion(need, trains, turns)
        for k in kept:
            if k in own and not view.connected(k[0], k[1]):
                x = self.ticket_features(view, k, own[k], need, trains, turns, hturns)
                self.records.append((k, x, p_curve))
        return a


# the fit from the default keeps (by the plan's one curve): the chance `--own-keeps chance` keeps by
FIRST_FIT = (2.2167, 0.1388, -0.062, -0.0578, 0.2416, 0.135, -0.3983)


class FirstFitCollectAgent(CollectAgent):
    """CollectAgent whose own keeps value each ticket by FIRST_FIT's chance, less 0.5 a planned
    train, with no trail credit (`--own-keeps chance`)."""

    ticket_chance = True
    keep_train_cost = 0.5
    keep_trail_credit = 0.0

    def keep_value_by_ticket(self, view, tickets, costs, budget, trains, turns):
        """ticket_keeps.TicketChanceMixin.keep_value_by_ticket with FIRST_FIT."""
        routes, need, given_up, own = self.plan_detail(view, tickets, costs, budget)
        factor = -view.rules.failed_ticket_factor
        hturns = hand_clock(view, turns)
        value = 0.0
        for k in tickets:
            if view.connected(k[0], k[1]):
                value += k[2]
            elif k in given_up or k not in own:
                value -= factor * k[2]
            else:
                p = chance(self.ticket_features(view, k, own[k], need, trains, turns, hturns), FIRST_FIT)
                value += k[2] * p - factor * k[2] * (1 - p)
        return value - self.keep_train_cost * need, routes, need, given_up


def collect(t, rules, players: int, seeds, share: float, own: str = "curve") -> list:
    """(features, completed, one-curve chance) of every ticket kept at random in games `seeds`."""
    rows = []
    for seed in seeds:
        s = engine.new_game(t, rules, players, seed)
        agent_rng = random.Random(seed ^ 0x5DEECE66D)
        agents = []
        for seat in range(players):
            ag = FirstFitCollectAgent() if own == "chance" else CollectAgent()
            ag.random_share = share
            ag.reset(seat, t, players, random.Random(agent_rng.getrandbits(64)))
            agents.append(ag)
        views = [SeatView(s, p) for p in range(players)]
        while s.phase != engine.OVER:
            legal = Legal(s)
            p = s.current
            a = agents[p].act(views[p], legal)
            if a not in legal:
                raise RuntimeError(f"expert-collect played an illegal action {a!r} (seed {seed})")
            engine.apply(s, a)
        scored = final_scores(s)
        pool = s.ticket_pool
        for seat, ag in enumerate(agents):
            done = {pool[i]: ok for i, ok in scored[seat]["results"]}
            for k, x, pc in ag.records:
                rows.append((x, bool(done.get(k, False)), pc))
    return rows


def fit(rows, ridge: float = 0.01) -> tuple[list[float], float]:
    """Logistic regression of completion on the features (bias first): (coefficients, log-loss)."""
    from scipy.optimize import minimize

    if len(rows) < len(FEATURES) + 1:
        raise ValueError(f"{len(rows)} records are too few to fit {len(FEATURES)} coefficients: play more games")
    X = np.array([(1.0, *x) for x, _, _ in rows])
    y = np.array([1.0 if ok else 0.0 for _, ok, _ in rows])
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0  # a constant feature (one player count): left as it is
    scale[0] = 1.0
    Z = X / scale  # standardized: the ridge and the solver treat every feature alike

    def loss(w):
        z = Z @ w
        # log(1 + e^z) − y z, computed stably
        nll = np.logaddexp(0.0, z) - y * z
        return nll.mean() + ridge * float(w[1:] @ w[1:])

    def grad(w):
        z = Z @ w
        g = Z.T @ (1.0 / (1.0 + np.exp(-z)) - y) / len(y)
        g[1:] += 2 * ridge * w[1:]
        return g

    res = minimize(loss, np.zeros(X.shape[1]), jac=grad, method="L-BFGS-B")
    w = res.x / scale
    z = X @ w
    return [float(v) for v in w], float(np.mean(np.logaddexp(0.0, z) - y * z))


def curve_loss(rows) -> float:
    """Log-loss of the plan's one curve (the chance the agent used before) on the same records."""
    total = 0.0
    for _, ok, p in rows:
        p = min(1 - 1e-6, max(1e-6, p))
        total -= math.log(p if ok else 1 - p)
    return total / max(1, len(rows))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python bench/expert_chance_fit.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("board", help="board file (boards/north-america.json)")
    ap.add_argument("--games", default="300", help="games per player count, or one number per count of --players (default 300)")
    ap.add_argument("--players", default="2,3,4", help="player counts, comma-separated (default 2,3,4)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--random-share", type=float, default=0.5, help="share of keeps chosen at random (default 0.5)")
    ap.add_argument("--own-keeps", choices=("curve", "chance"), default="curve",
                    help="the keeps not chosen at random: by the plan's one curve (default) "
                         "or by a chance per ticket with the first fit (the games of ticket_keeps.COEF)")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    args = ap.parse_args(argv)
    from pathlib import Path

    from mapkit.boardfile import source_name
    from mapkit.errors import BoardError
    from mapkit.sim.rules import rules_for_board
    from mapkit.sim.runner import game_seeds
    from mapkit.sim.tables import build_tables
    from mapkit.validate import load_valid_board

    try:
        counts = [int(x) for x in args.players.split(",")]
    except ValueError:
        print(f"error: --players {args.players!r}: give player counts like 2,3,4", file=sys.stderr)
        return 2
    try:
        games = [int(x) for x in args.games.split(",")]
    except ValueError:
        games = []
    if len(games) == 1:
        games *= len(counts)
    if len(games) != len(counts) or min(games) < 1 or not 0 < args.random_share <= 1:
        print(f"error: --games {args.games!r}: give a number of games of at least 1 (or one per player count) "
              "and --random-share in (0, 1]", file=sys.stderr)
        return 2
    try:
        board = load_valid_board(Path(args.board), source_name(Path(args.board)))
    except BoardError as e:
        for p in e.problems:
            print(p.format(), file=sys.stderr)
        return 1
    t, rules = build_tables(board), rules_for_board(board)
    rows = []
    for n in counts:
        if not rules.min_players <= n <= rules.max_players:
            print(f"error: --players {n}: the board plays {rules.min_players}-{rules.max_players}", file=sys.stderr)
            return 2
    for n, g in zip(counts, games):
        rows += collect(t, rules, n, game_seeds([args.seed, n], g), args.random_share, args.own_keeps)
    try:
        coef, ll = fit(rows)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    out = {"records": len(rows), "completed": sum(ok for _, ok, _ in rows) / len(rows),
           "features": list(FEATURES), "coef": [round(c, 4) for c in coef],
           "log_loss": round(ll, 4), "log_loss_one_curve": round(curve_loss(rows), 4)}
    if args.format == "json":
        print(json.dumps(out, indent=1))
    else:
        print(f"{out['records']} tickets kept at random, {out['completed']:.1%} completed")
        print(f"log-loss {out['log_loss']} (the plan's one curve: {out['log_loss_one_curve']})")
        print(f"COEF = {tuple(out['coef'])}  # {', '.join(FEATURES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
