"""Quick balance: a short balance report played in a child process, followed and cancelled from the page.

The child (`python -m mapkit.edit.balance_job`, framed as `edit.worker`) reads one request
{"data", "players", "games", "seed"} and plays `balance.report.balance_report` on it: the report's
panel, tables, seats and seeds, judged against the shipped published-map reference, with no change
played (tested=0) and no strategy tables. Its verdicts and causes are those of `mapkit report BOARD
--games G --players P --seed S` (whatever --jobs), on the games the page asked for. It writes
{"progress": [games done, games in all]} as games finish, then {"report": ...} or {"error": ...};
it exits when its stdin closes (the server gone), even mid-run.

`BalanceJob` (an `edit.child_job.ChildJob`) follows it and estimates the time left from the games
done; `cancel` kills its process group at once and waits for it.

`findings(report, board, ticket_paths)` is what the page lists and draws: each cause of the report
with its change, its verdicts in the report's words (their intervals, and whether they depend on
the AI players), and where it is on the map (routes, stations); then the verdicts on which the AI
players disagree (the report's "agents-disagree"), and how many are not yet decided.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from mapkit.edit.child_job import ChildJob
from mapkit.edit.worker import receive, send

DEFAULT_GAMES = 100     # per player count: a few hundred games in all (400 on Portland), seconds of CPU
PROGRESS_BATCH = 40     # games between two progress calls of the report


def run(request: dict, emit) -> dict:
    """In the child: the report of the request's board (see the module's docstring)."""
    from mapkit.balance.panel import default_panel
    from mapkit.balance.reference import reference_for
    from mapkit.balance.report import balance_report
    from mapkit.boardfile import build_board, whole_numbers
    from mapkit.errors import MapkitError

    players, games, seed = request["players"], request["games"], request["seed"]
    try:
        board = build_board(whole_numbers(request["data"]), request.get("source", ""))
        panel = default_panel()
        ref = reference_for(panel, players, games, seed)
        k = {"last": 0.0}

        def progress(n: int, done: int, total: int) -> None:
            now = time.monotonic()
            if done == total or now - k["last"] > 0.2:
                k["last"] = now
                emit({"progress": [players.index(n) * total + done, len(players) * total]})

        # batch only paces the progress calls (every game of the budget is played, on its own seed)
        report = balance_report(board, players, games, panel, seed, 1, reference=ref, tested=0, batch=PROGRESS_BATCH,
                                progress=progress)
    except MapkitError as exc:
        return {"error": f"the balance report could not run: {exc}"}
    except Exception as exc:  # noqa: BLE001 - reported on the page, the server carries on
        return {"error": f"the balance report failed: {type(exc).__name__}: {exc}"}
    # what `findings` reads of it
    return {"report": {key: report[key] for key in ("seed", "panel", "verdicts", "causes", "deck_warnings")}
            | {"reference": {"source": (report.get("reference") or {}).get("source")},
               "runs": [{"players": r["players"], "games": r["games"]} for r in report["runs"]]}}


def _watch_stdin(fd: int) -> None:
    """Stop at once when the parent closes our stdin (it stopped, or was killed). It reads the
    file descriptor itself: a thread blocked in the buffered stdin would hold its lock when the
    interpreter shuts down after a finished run."""
    while os.read(fd, 65536):
        pass
    os._exit(0)


def main() -> None:
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # anything a library prints must not corrupt the replies
    request = receive(inp)
    if request is None:
        return
    threading.Thread(target=_watch_stdin, args=(inp.fileno(),), daemon=True).start()
    lock = threading.Lock()

    def emit(value: dict) -> None:
        with lock:
            send(out, value)

    emit(run(request, emit))


class BalanceJob(ChildJob):
    """One quick balance running in a child process. `finish(report)` (given by the caller) turns
    the child's report into what the page shows; it runs in the job's own thread."""

    module, what = "mapkit.edit.balance_job", "balance"

    def __init__(self, data: dict, digest: str, players: list[int], games: int, seed: int, finish, source: str = ""):
        self.digest, self.players, self.games, self.seed = digest, players, games, seed
        self.first_progress: float | None = None
        self.done, self.total = 0, 0
        self._finish = finish
        super().__init__({"data": data, "players": players, "games": games, "seed": seed, "source": source})

    def progress(self, frame: dict) -> None:
        self.done, self.total = frame["progress"]
        if self.first_progress is None:
            self.first_progress = time.monotonic() - self.started

    def finished(self, reply: dict) -> dict:
        return self._finish(reply["report"])

    def status(self, current_digest: str | None = None) -> dict:
        """State, games done of all, seconds run and (once games finish) about how many are left."""
        with self._lock:
            elapsed = self.elapsed()
            left = None
            if self.state == "running" and self.done and self.first_progress is not None:
                rate = (elapsed - self.first_progress) / self.done if elapsed > self.first_progress else 0
                left = max(0.0, rate * (self.total - self.done)) if rate else None
            out = {"job": self.id, "state": self.state, "elapsed": round(elapsed, 2), "done": self.done,
                   "total": self.total or self.games * len(self.players), "left": None if left is None else round(left, 1),
                   "first_progress": None if self.first_progress is None else round(self.first_progress, 2),
                   "players": self.players, "games": self.games, "seed": self.seed, "pid": self.pid,
                   "digest": self.digest, "stale": current_digest is not None and current_digest != self.digest}
            if self.state == "done":
                out["findings"] = self.result
            if self.error:
                out["error"] = self.error
            return out


# ---------------------------------------------------------------- what the page lists and draws

TITLES = {"color-short": "Color starved", "ticket-not-worth-it": "Ticket not worth its points",
          "ticket-too-easy": "Ticket too easy", "unclaimed-corridor": "Rarely claimed",
          "deck-runs-out": "The train-card deck runs out", "seat-advantage": "First-seat advantage"}
VERDICTS_OF = {"color-short": ("color-starved",), "ticket-not-worth-it": ("ticket-too-hard", "ticket-holders-lose"),
               "ticket-too-easy": ("ticket-too-easy",), "unclaimed-corridor": ("route-rarely-claimed",),
               "seat-advantage": ("seat-advantage",), "deck-runs-out": ()}


def findings(report: dict, board, ticket_paths: dict) -> dict:
    """The report's causes and open verdicts with their places on the board. ticket_paths:
    (deck, a, b) -> the route ids of the ticket's shortest connection (as the tickets panel draws it)."""
    from mapkit.balance.markdown import verdict_text
    from mapkit.balance.verdicts import AGENT_DEPENDENT, AGENTS_DISAGREE, NEEDS_GAMES, ROBUST

    place = _Places(board, ticket_paths)
    verdicts = report["verdicts"]
    causes = []
    for c in report["causes"]:
        kinds = VERDICTS_OF.get(c["kind"], ())
        behind = [v for v in verdicts if v["kind"] in kinds and v["subject"] in c["subjects"]
                  and v["verdict"] in (ROBUST, AGENT_DEPENDENT) and v["finding"] is True]
        routes, stations = place.of(c["kind"], c["subjects"])
        causes.append({"kind": c["kind"], "title": TITLES.get(c["kind"], c["kind"]), "subjects": c["subjects"],
                       "players": c["players"], "change": c["change"], "why": c["why"], "robust": c["robust"],
                       "agent_dependent": any(v["verdict"] == AGENT_DEPENDENT for v in behind),
                       "verdicts": [verdict_text(v) for v in behind], "routes": routes, "stations": stations})
    disputed = []
    for v in verdicts:
        if v["verdict"] == AGENTS_DISAGREE:
            routes, stations = place.of(v["kind"], [v["subject"]])
            disputed.append({"kind": v["kind"], "subject": v["subject"], "players": v["players"],
                             "text": verdict_text(v), "routes": routes, "stations": stations})
    return {"causes": causes, "disputed": disputed,
            "undecided": sum(v["verdict"] == NEEDS_GAMES for v in verdicts),
            "games": sum(r["games"] for r in report["runs"]),
            "runs": [{"players": r["players"], "games": r["games"]} for r in report["runs"]], "panel": report["panel"],
            "seed": report["seed"], "reference": (report.get("reference") or {}).get("source"),
            "deck_warnings": report["deck_warnings"]}


class _Places:
    """Where a verdict's or cause's subjects are: the routes to highlight and the stations to ring."""

    def __init__(self, board, ticket_paths: dict):
        self.routes = {r.id: r for r in board.routes}
        self.doubles: dict[str, list] = {}
        for r in board.routes:
            if r.double:
                self.doubles.setdefault(r.double, []).append(r.id)
        self.by_color: dict[str, list] = {}
        for r in board.routes:
            self.by_color.setdefault(r.color, []).append(r.id)
        # the report names a ticket "a-b", or "deck:a-b" when its rules play several decks
        self.tickets: dict[str, tuple] = {}
        for (deck, a, b), ids in ticket_paths.items():
            self.tickets.setdefault(f"{deck}:{a}-{b}", (a, b, ids))
            self.tickets.setdefault(f"{a}-{b}", (a, b, ids))

    def of(self, kind: str, subjects: list) -> tuple[list, list]:
        routes: list = []
        stations: list = []
        for s in subjects:
            if kind.startswith("ticket"):
                a, b, ids = self.tickets.get(s, (None, None, []))
                routes += ids
                stations += [x for x in (a, b) if x]
            elif kind in ("color-short", "color-starved"):
                routes += self.by_color.get(s, [])
            elif kind in ("unclaimed-corridor", "route-rarely-claimed"):
                ids = [s] if s in self.routes else self.doubles.get(s.removesuffix(" (either track)"), [])
                routes += ids
                stations += [x for rid in ids for x in (self.routes[rid].a, self.routes[rid].b)]
        return list(dict.fromkeys(routes)), list(dict.fromkeys(stations))


if __name__ == "__main__":
    main()
