"""From evidence to verdicts: robust, agent-dependent or undecided.

Each verdict is one comparison (a quantity against a cut-off) judged on the pooled games of every
table at a player count, and separately on each panel agent's self-play table:

- `robust`: the pooled comparison is decided (its adjusted p-value clears the cut-off one way) and
  every agent's own estimate lies on the same side; `agents` lists them all;
- `agent-dependent`: at least one agent's table decides one way and another's the other way;
  `agents` names the agents that disagree with the pooled finding (or, when the pooled games do
  not decide, the smaller side);
- `undecided`: anything else; `agents` names the agents whose estimate contradicts a decided
  pooled finding (more games at their tables would settle it), else is empty.

`finding` says which way a decided verdict went: True when the flagged thing holds (e.g. the first
seat has an advantage), False when the evidence says it does not, None when undecided.
"""

from __future__ import annotations

from mapkit.balance.stats import CLEAR, FLAG, UNDECIDED

ROBUST, AGENT_DEPENDENT = "robust", "agent-dependent"
# verdict kinds, in the order a designer should look at them
KIND_ORDER = ("seat-advantage", "color-starved", "ticket-too-hard", "route-rarely-claimed", "ticket-too-easy")
UNDECIDED_VERDICT = "undecided"


def judge(pooled: str, agents: dict[str, tuple[str, bool]]) -> dict:
    """pooled: FLAG / CLEAR / UNDECIDED; agents: name -> (its decision, its estimate is on the
    flagged side of the cut-off)."""
    flags = sorted(a for a, (d, _) in agents.items() if d == FLAG)
    clears = sorted(a for a, (d, _) in agents.items() if d == CLEAR)
    if flags and clears:
        if pooled == FLAG:
            disagree = clears
        elif pooled == CLEAR:
            disagree = flags
        else:
            disagree = clears if len(clears) <= len(flags) else flags
        finding = None if pooled == UNDECIDED else pooled == FLAG
        return {"verdict": AGENT_DEPENDENT, "agents": disagree, "finding": finding}
    if pooled in (FLAG, CLEAR):
        side = pooled == FLAG
        against = sorted(a for a, (_, s) in agents.items() if s != side)
        if not against:
            return {"verdict": ROBUST, "agents": sorted(agents), "finding": side}
        return {"verdict": UNDECIDED_VERDICT, "agents": against, "finding": None}
    return {"verdict": UNDECIDED_VERDICT, "agents": [], "finding": None}


def decided(v: dict) -> bool:
    return v["verdict"] != UNDECIDED_VERDICT
