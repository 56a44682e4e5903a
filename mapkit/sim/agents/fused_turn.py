"""The plain planner's turn in one pass (docs/design/speed.md).

`PlannerAgent.act` is a dozen overridable steps (plan, plan_claim, spend, block_claim, draw,
wanted_colors, ...), each reading the view again; at 4 players their Python calls were most of a
turn. `FusedTurn._fused_act` makes the same decision reading the state once: the plan's fast case,
the plan's claim, spending and drawing written out in one function. A seat uses it only when its
class overrides none of the steps it writes out (`fused_ok`, checked once at reset), so a
playstyle that changes a step keeps the step-by-step turn. Anything off the common turn (choosing
tickets, the final turn, no plan, a replan, open tickets, transit) calls the steps themselves.
tests/test_sim_speed.py plays games comparing it with `PlannerAgent.act` turn by turn. Fifth
round: the plan check reads the claim log, the draw is picked off the state (not listed), and the
colors wanted come from per-plan totals when the plan has no gray route.
"""

from __future__ import annotations

from mapkit.sim.engine import BLIND, DRAW2, EMPTY, FACE_UP, KEEP_PHASE, SETUP
from mapkit.sim.legal import BLIND_DRAW, face_up_draws
from mapkit.sim.tables import GRAY

# the steps `_fused_act` writes out: a class overriding any of them plays the step-by-step turn
FUSED_STEPS = ("act", "plan", "plan_claim", "best_claim", "_claim_key", "_keep_colors", "_reach",
               "_may_pay", "_read_table", "transit_move", "wants_tickets", "spend_or_draw", "spend",
               "block_claim", "draw", "wanted_colors", "_danger")


def fused_ok(cls, base) -> bool:
    """Does `cls` keep every step of `base` the fused turn writes out?"""
    return all(getattr(cls, m) is getattr(base, m) for m in FUSED_STEPS)


class FusedTurn:
    """A mixin of `planner.PlannerAgent`: its turn in one pass (see the module docstring)."""

    def _fused_act(self, view, legal):
        s = view._s
        phase = s.phase
        if phase == SETUP or phase == KEEP_PHASE:
            return self.choose_keep(view, legal)
        seat = self.seat
        # plan(): its first cases written out (no ticket taken, no route claimed since the check or
        # none that still_open reads)
        claimed = s.claimed
        at = self._plan_claimed
        if claimed != at and len(s.claim_log) == claimed and self._plan_reads.isdisjoint(s.claim_log[at:]):
            at = self._plan_claimed = claimed  # `_plan_touched` is False: the plan stands as it was
        if self._plan_key == len(s.tickets[seat]) and claimed == at:
            routes, cost = self._plan
        else:
            routes, cost = self.plan(view)
        rules = s.rules
        if phase != DRAW2:
            if s.final_turns_left is not None:
                return self.last_turn(view, legal, routes)
            if not routes:
                return self.transit_move(view, legal) or self.fallback(view, legal)
            if rules.open_tickets or rules.team_open_hands or rules.transit or rules.double_either_color:
                return self.act_steps(view, legal, routes, cost)
            # plan_claim (no visible needs: open tickets are handled above)
            t = self.t
            hand = s.hands[seat]
            trains = s.trains[seat]
            held = self._want
            if held[0] == routes:
                want, keep, reach = held[1], held[2], held[3]
            else:
                # the planned routes and their doubles' other tracks and `_keep_colors` in one pass,
                # then `_reach` (double_either_color is handled above, so it is never None here)
                want = set(routes)
                partner, colors, lens = t.route_partner, t.route_color, t.route_len
                keep = {}
                for r in routes:
                    q = partner[r]
                    if q >= 0:
                        want.add(q)
                    c = colors[r]
                    if c != GRAY:
                        keep[c] = keep.get(c, 0) + lens[r]
                reach = self._reach(view, want)
                self._want = (routes, want, keep, reach)
            # _may_pay (reach is not None: double_either_color is handled above)
            wild = t.wild
            hw = hand[wild]
            most = None
            for c, L in reach:
                if L <= trains:
                    if c == GRAY:
                        if most is None:
                            most = max(hand[:wild])
                        h = most
                    else:
                        h = hand[c]
                    if L <= h + hw:
                        claim = self.best_claim(legal, want, keep, hand)
                        if claim is not None:
                            return claim
                        break
            if self.hunger and self.wants_tickets(view, legal, cost):
                return legal.tickets()[0]
            # spend (block_claim needs open tickets: none here)
            need = None
            if cost > trains:
                claim = self.scoring_claim(view, legal)
                if claim is not None:
                    return claim
            else:
                spend = None
                # _danger
                trig = rules.end_trigger
                cap = self.maxlen
                strains = s.trains
                danger = False
                if min(strains) - trig <= cap:
                    hands = s.hands
                    for q in range(s.players):
                        room = strains[q] - trig
                        if q != seat and room <= cap and room <= sum(hands[q]):
                            danger = True
                            break
                if danger:
                    need = self._need(hand, routes)
                    if sum(need.values()) > self.give_up_missing:
                        spend = self.scoring_claim(view, legal)
                        if spend is not None:
                            return spend
                        spend = False
                if spend is None and trains <= self.hoard_trains and sum(hand) - cost >= self.hoard:
                    claim = self.spare_claim(view, legal, routes, cost, 7 if trains - cost > 12 else 4)
                    if claim is not None:
                        return claim
            draw = self._draw_now(s, self._need(hand, routes) if need is None else need, phase)
            if draw is not None:
                return draw
            return self.scoring_claim(view, legal) or legal[0]
        draw = self._draw_now(s, self._need(s.hands[seat], routes), phase)
        return draw if draw is not None else self.draw(view, legal, {})

    def _fused_second(self, view):
        """`Agent.second_draw`: `_fused_act`'s second card of a draw turn without a `Legal`, when
        the plan stands as checked for the turn's first card (nothing is claimed or kept between a
        turn's two cards, so `_fused_act` would take it as it is); None, to be asked through
        `act`, otherwise or when no draw is open (`_draw_now` None: act's `draw` decides)."""
        s = view._s
        seat = self.seat
        if self._plan_key != len(s.tickets[seat]) or self._plan_claimed != s.claimed:
            return None
        return self._draw_now(s, self._need(s.hands[seat], self._plan[0]), DRAW2)

    def act_steps(self, view, legal, routes, cost):
        """The rest of `PlannerAgent.act`'s turn with a plan, step by step (open tickets, transit)."""
        claim = self.plan_claim(view, legal, routes)
        if claim is not None:
            return claim
        station = self.transit_move(view, legal)
        if station is not None:
            return station
        if self.hunger and self.wants_tickets(view, legal, cost):
            return legal.tickets()[0]
        return self.spend_or_draw(view, legal, routes, cost)

    def _need(self, hand, routes) -> dict:
        """`wanted_colors` on the seat's hand (a list, not changed)."""
        held = self._need_of
        if held[0] != routes:  # read once per plan: each planned route's (color, length), and
            t = self.t         # without gray routes each color's total length (one pass)
            colors, lens = t.route_color, t.route_len
            pairs = []
            totals = {}
            for r in routes:
                c, L = colors[r], lens[r]
                pairs.append((c, L))
                if totals is not None:
                    if c == GRAY:
                        totals = None
                    else:
                        totals[c] = totals.get(c, 0) + L
            held = self._need_of = (routes, pairs, None if totals is None else tuple(totals.items()))
        if held[2] is not None:
            # one color's routes taken in turn from its cards miss their total less the cards
            # (once a route takes every card, each later one misses its whole length)
            need = {}
            for c, total in held[2]:
                h = hand[c]
                if total > h:
                    need[c] = total - h
            return need
        hand = list(hand)
        need = {}
        wild = self.t.wild
        for c, L in held[1]:
            if c == GRAY:
                c = hand.index(max(hand[:wild]))
            h = hand[c]
            if L > h:
                need[c] = need.get(c, 0) + L - h
                hand[c] = 0
            else:
                hand[c] = h - L
        return need

    def _draw_now(self, s, need, phase):
        """`_draw_for` on the turn's draws read off the state, not listed (None: no draw is open).

        The same loop over the same face-up slots in the same order (`legal.draw_actions` lists
        the open ones, then the blind draw last), returning the same shared action tuples, which
        the referee's `in legal` checks directly (`Legal.__contains__`).

        `need` holds the cards missing per color (each positive, as `_need`
        returns them), so a needed color's slot scores 3 + min(need, 3), at least 4, a face-up
        wild 2.5 at most and any other card 0: the best slot is the first one of the best needed
        color in the row (looked up in the row, not rated slot by slot), else the first wild
        where one scores, else the blind draw; only without a blind draw are the slots rated."""
        blind = s.deck or s.discard
        if not need and blind:
            return BLIND_DRAW
        wild = self.t.wild
        fu = s.face_up
        top, at = 0, -1
        for c, n in need.items():
            if c != wild and c in fu:
                score = 3 + (n if n < 3 else 3)
                i = fu.index(c)
                if score > top or (score == top and i < at):
                    top, at = score, i
        if at < 0 and phase != DRAW2 and wild in fu and sum(need.values()) >= 4:
            at = fu.index(wild)  # (a first card: a wild is open)
        if at >= 0:
            return face_up_draws(len(fu))[at]
        if blind:
            return BLIND_DRAW
        face = face_up_draws(len(fu))
        closed = wild if phase == DRAW2 and s.rules.face_up_wild_takes_turn else EMPTY  # no wild second
        best, key = None, None
        wild_score = None
        i = -1
        for c in fu:
            i += 1
            if c == EMPTY or c == closed:
                continue
            if c == wild:
                if wild_score is None:
                    wild_score = 2.5 if phase != DRAW2 and sum(need.values()) >= 4 else -1
                score = wild_score
            else:
                n = need.get(c, 0)
                score = n and 3 + (n if n < 3 else 3)
            if key is None or score > key:
                best, key = face[i], score
        if best is not None and key > 0:
            return best
        if blind:
            return BLIND_DRAW
        return best

    def _draw_for(self, s, draws, need, phase):
        """`draw(view, legal, need)` on the turn's non-empty draws."""
        if not need and draws[-1][0] == BLIND:
            return draws[-1]
        wild = self.t.wild
        fu = s.face_up
        best, key = None, None
        wild_score = None
        for a in draws:
            if a[0] == FACE_UP:
                c = fu[a[1]]
                if c == wild:
                    if wild_score is None:
                        wild_score = 2.5 if phase != DRAW2 and sum(need.values()) >= 4 else -1
                    score = wild_score
                else:
                    n = need.get(c, 0)
                    score = n and 3 + (n if n < 3 else 3)
                if key is None or score > key:
                    best, key = a, score
        if best is not None and key > 0:
            return best
        if draws[-1][0] == BLIND:
            return draws[-1]
        return best
