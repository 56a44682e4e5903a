"""From evidence to verdicts: robust, agent-dependent, needs-games or agents-disagree.

Each verdict is one comparison (a quantity against a cut-off) judged on the pooled games of every
table at a player count, and separately on each panel agent's self-play table:

- `robust`: the pooled comparison is decided (its interval at the decision level clears the
  cut-off one way) and every agent's own estimate lies on the same side; `agents` lists them all;
- `agent-dependent`: the pooled comparison is decided but at least one agent's own estimate lies
  on the other side; `agents` names those agents — the verdict depends on how the board is played;
- `agents-disagree`: the pooled comparison is not decided and the agents' own estimates lie on
  both sides of the cut-off; `agents` names the agents on the flagged side, `against` the others.
  More games would not settle it: the agents play the board differently;
- `needs-games`: not decided, every agent on one side (or one agent): more games would decide it
  (report.py says about how many, when that is within its budget cap).

`finding` says which way a decided verdict went: True when the flagged thing holds (e.g. the first
seat has an advantage), False when the evidence says it does not, None when undecided.
"""

from __future__ import annotations

from mapkit.balance.stats import CLEAR, FLAG

ROBUST, AGENT_DEPENDENT, AGENTS_DISAGREE, NEEDS_GAMES = "robust", "agent-dependent", "agents-disagree", "needs-games"
VERDICTS = (ROBUST, AGENT_DEPENDENT, AGENTS_DISAGREE, NEEDS_GAMES)
# verdict kinds, in the order a designer should look at them
KIND_ORDER = ("seat-advantage", "color-starved", "ticket-too-hard", "ticket-holders-lose", "route-rarely-claimed",
              "ticket-too-easy")


def judge(pooled: str, agents: dict[str, tuple[str, bool]]) -> dict:
    """pooled: FLAG / CLEAR / UNDECIDED; agents: name -> (its own decision, its estimate lies on
    the flagged side of the cut-off)."""
    if pooled in (FLAG, CLEAR):
        side = pooled == FLAG
        against = sorted(a for a, (_, s) in agents.items() if s != side)
        if not against:
            return {"verdict": ROBUST, "agents": sorted(agents), "against": [], "finding": side}
        return {"verdict": AGENT_DEPENDENT, "agents": against, "against": [], "finding": side}
    flags = sorted(a for a, (_, s) in agents.items() if s)
    clears = sorted(a for a, (_, s) in agents.items() if not s)
    if flags and clears:
        return {"verdict": AGENTS_DISAGREE, "agents": flags, "against": clears, "finding": None}
    return {"verdict": NEEDS_GAMES, "agents": [], "against": [], "finding": None}

