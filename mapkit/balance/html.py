"""report.html: the balance report as one self-contained page a designer opens in any browser.

Everything is in the one file: the figures as base64 PNG data URIs, the CSS inline, no script and no
web font, so it reads the same offline, without JavaScript, and when mailed on its own. The order is
what a designer needs first: what to change (the causes, each with its change and what it did in
simulation), the verdicts (robust, agent-dependent, the agents disagreeing, needing games, each
marked by color and by word), the restricted-play and skill tables, then the figures with a caption saying what to look for, then the tables with their
intervals. Every string that comes from the board or the report is HTML-escaped.
"""

from __future__ import annotations

import base64
import re
from html import escape
from pathlib import Path

from mapkit.model import Board

from mapkit.balance import figures as figs
from mapkit.balance.markdown import CAUSES_SHOWN

VERDICT_ORDER = {"robust": 0, "agent-dependent": 1, "agents-disagree": 2, "needs-games": 2}
# a mark beside the word, so the kinds differ without color too; a robust problem is not "✔"
VERDICT_MARK = {"robust": "● robust", "agent-dependent": "◐ agent-dependent", "agents-disagree": "⇄ agents disagree",
                "needs-games": "? needs games"}
HEX = re.compile(r"^#[0-9a-fA-F]{3,8}$")

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #222;
       max-width: 1180px; margin: 1.5em auto; padding: 0 1em; line-height: 1.45; box-sizing: border-box; }
.wide { overflow-x: auto; }
h1 { font-size: 1.7em; margin-bottom: .2em; } h2 { margin-top: 1.8em; border-bottom: 1px solid #ddd; }
.meta { color: #555; } .note { color: #555; font-size: .92em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: .92em; }
th, td { padding: .28em .6em; border-bottom: 1px solid #e5e5e5; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.n, th.n { text-align: right; white-space: nowrap; } td.k, .nw { white-space: nowrap; }
tbody tr:nth-child(even) { background: #fafafa; }
.ci { color: #666; font-size: .88em; white-space: nowrap; }
tr.verdict td:first-child { font-weight: 600; white-space: nowrap; border-left: 5px solid; }
tr.robust { background: #e6f4e4 !important; } tr.robust td:first-child { border-left-color: #2e7d32; color: #1b5e20; }
tr.robust.fine { background: #f3faf2 !important; } tr.robust.fine td:first-child { font-weight: normal; }
tr.agent-dependent { background: #fff2d9 !important; }
tr.agent-dependent td:first-child { border-left-color: #c77700; color: #8a5300; }
tr.needs-games, tr.agents-disagree { background: #f0f0f0 !important; color: #555; }
tr.needs-games td:first-child, tr.agents-disagree td:first-child { border-left-color: #9e9e9e; font-style: italic; }
ol.causes li { margin-bottom: .5em; }
figure { margin: 1.2em 0 2em; } figure img { max-width: 100%; height: auto; border: 1px solid #e3e3e3; }
figcaption, .caption { color: #444; margin-top: .4em; max-width: 60em; }
.multiples { display: grid; grid-template-columns: repeat(auto-fit, minmax(540px, 1fr)); gap: 0 1.2em; }
.multiples figure { margin: .6em 0; }
.swatch { display: inline-block; width: .9em; height: .9em; border: 1px solid #888; vertical-align: -.1em;
          margin-right: .35em; }
.badge { font-size: .78em; background: #fde2c8; color: #7a3e00; border-radius: .6em; padding: 0 .45em; }
pre { background: #f7f7f7; padding: 1em; overflow-x: auto; font-size: .85em; }
"""


# ------------------------------------------------------------------ small formatters


def _num(x):
    return figs._num(x)


def pct(x, digits: int = 0) -> str:
    v = _num(x)
    return "—" if v is None else f"{100 * v:.{digits}f} %"


def ci_pct(low, high) -> str:
    lo, hi = _num(low), _num(high)
    return "" if lo is None or hi is None else f'<span class="ci">{100 * lo:.0f} – {100 * hi:.0f} %</span>'


def pp(x) -> str:
    v = _num(x)
    return "—" if v is None else f"{100 * v:+.1f} pp"


def ci_pp(low, high) -> str:
    lo, hi = _num(low), _num(high)
    return "" if lo is None or hi is None else f'<span class="ci">{100 * lo:+.1f} to {100 * hi:+.1f}</span>'


def num(x, fmt: str = "{:.1f}") -> str:
    v = _num(x)
    return "—" if v is None else fmt.format(v)


def ci_num(low, high, fmt: str = "{:.1f}") -> str:
    lo, hi = _num(low), _num(high)
    return "" if lo is None or hi is None else f'<span class="ci">{fmt.format(lo)} to {fmt.format(hi)}</span>'


def agents_html(agents) -> str:
    """A verdict's agents, whatever shape they come in (a list, a mapping agent → finding, a
    string), escaped, each kept on one line (a name like route-focus must not break at its
    hyphen) while the list may wrap between names."""
    if isinstance(agents, dict):
        parts = [f"{k}: {v}" for k, v in agents.items()]
    elif isinstance(agents, (list, tuple)):
        parts = [str(a) for a in agents]
    else:
        parts = [str(agents)] if agents else []
    return ", ".join(f'<span class="nw">{_e(p)}</span>' for p in parts)


def _e(x) -> str:
    return escape("" if x is None else str(x), quote=True)


def _cell(value: str, ci: str = "", cls: str = "n", sep: str = " ") -> str:
    return f'<td class="{cls}">{value}{sep + ci if ci else ""}</td>'


# ------------------------------------------------------------------ sections


DIFFERENCE_KINDS = ("seat-advantage", "color-starved")   # estimates that are differences of shares


def _verdict_rank(v: dict) -> int:
    """Problems every agent agrees on first, then what depends on the agents, then the undecided,
    then what was checked and found fine."""
    kind = v.get("verdict")
    if kind == "robust":
        return 3 if v.get("finding") is False else 0
    return VERDICT_ORDER.get(kind, 2)


def _subject(board: Board, v: dict) -> str:
    subject = str(v.get("subject", ""))
    kind = str(v.get("kind", ""))
    if kind.startswith("ticket"):
        return figs.ticket_title(board, subject)   # the id is in the row's tooltip and the tickets table
    colors = {c.id: c.name for c in board.palette}
    return colors[subject] if kind.startswith("color") and subject in colors else subject


def _estimate(v: dict) -> tuple[str, str]:
    """(estimate with its interval under it, cut-off), as percent or, for differences, points."""
    est, cut = _num(v.get("estimate")), _num(v.get("cutoff"))
    diff = str(v.get("kind")) in DIFFERENCE_KINDS
    cut_text = "—" if cut is None else pp(cut) if diff else pct(cut)
    if est is None:
        return "—", cut_text
    if diff:
        return f"{pp(est)}<br>{ci_pp(v.get('low'), v.get('high'))}", cut_text
    return f"{pct(est, 1 if abs(est) < 0.1 else 0)}<br>{ci_pct(v.get('low'), v.get('high'))}", cut_text


def _games(v: dict) -> str:
    games = v.get("games")
    text = f"{games:,}" if isinstance(games, int) else _e(games or "")
    need = v.get("games_needed")
    if v.get("verdict") == "needs-games" and isinstance(need, int):
        text += f'<br><span class="ci">about {need:,} more needed</span>'
    return text


def causes_section(report: dict) -> list[str]:
    """What to change: one item per cause, its change, and what the change did where it was played."""
    causes = [c for c in report.get("causes") or [] if isinstance(c, dict)]
    out = ['<h2 id="causes">What to change</h2>']
    if not causes:
        return out + ["<p>Nothing: no decided finding falls outside what the published map does.</p>"]
    out.append('<ol class="causes">')
    for k, c in enumerate(causes):
        if k == CAUSES_SHOWN:
            out.append(f'</ol><details><summary>{len(causes) - CAUSES_SHOWN} more causes, smaller or depending on '
                       f'the AI players</summary><ol class="causes" start="{CAUSES_SHOWN + 1}">')
        subjects = ", ".join(str(x) for x in c.get("subjects") or [])
        players = ", ".join(str(x) for x in c.get("players") or [])
        item = f"<b>{_e(subjects)}</b> ({_e(players)} players): {_e(c.get('why', ''))}."
        item += f" <b>Change:</b> {_e(c['change'])}." if c.get("change") else " No map change proposed."
        t = c.get("tested")
        if isinstance(t, dict):
            item += (f' <span class="ci">Tried on {_e(t.get("games"))} games at {_e(t.get("players"))} players: '
                     f'{_e(t.get("figure"))} {pct(t.get("before"))} → {pct(t.get("after"))} '
                     f'({ci_pct(t.get("low"), t.get("high"))})</span>')
        if not c.get("robust", True):
            item += ' <span class="badge">depends on the AI players</span>'
        out.append(f"<li>{item}</li>")
    return out + ["</ol></details>" if len(causes) > CAUSES_SHOWN else "</ol>"]


def strategies_section(report: dict) -> list[str]:
    s = report.get("strategies")
    if not isinstance(s, dict):
        return []
    pub = ((report.get("reference") or {}).get("strategies")) or {}
    pub_r = {x["agent"]: x for x in pub.get("restricted", [])}
    pub_s = {(x["better"], x["worse"]): x for x in pub.get("skill", [])}

    def share(x):
        if not x or x.get("share") is None:
            return "<td class=\"n\">—</td>"
        return _cell(pct(x["share"]), ci_pct(x.get("low"), x.get("high")))

    out = ['<h2 id="strategies">Does one simple strategy dominate? Does skill pay?</h2>',
           f'<p class="note">A restricted player at a table with the panel ({_e(s.get("players"))} players, every '
           'agent in every seat in turn): its win share per seat played, beside the unrestricted expert at the same '
           'table and the same strategy on the published map.</p>',
           '<table><thead><tr><th>strategy</th><th class="n">here</th><th class="n">the expert at that table</th>'
           '<th class="n">published map</th></tr></thead><tbody>']
    for x in s.get("restricted", []):
        out.append(f"<tr><td>{_e(x.get('what'))}</td>{share(x)}{share(x.get('expert'))}"
                   f"{share(pub_r.get(x.get('agent')))}</tr>")
    out.append("</tbody></table>")
    if s.get("skill"):
        out += ['<p class="note">Head to head at two players, seats alternating: the stronger agent\'s win share.</p>',
                '<table><thead><tr><th>match</th><th class="n">here</th><th class="n">published map</th></tr></thead>'
                "<tbody>"]
        for x in s["skill"]:
            out.append(f"<tr><td>{_e(x.get('better'))} against {_e(x.get('worse'))}</td>{share(x)}"
                       f"{share(pub_s.get((x.get('better'), x.get('worse'))))}</tr>")
        out.append("</tbody></table>")
    return out


def verdicts_section(report: dict, board: Board) -> list[str]:
    out = ["<h2 id=\"verdicts\">Verdicts</h2>",
           '<p class="note"><b>robust</b>: the pooled games decide it and every agent of the panel agrees — act on '
           'the problems, trust the "fine". <b>agent-dependent</b>: decided, but some agents play it the other way '
           '(the agents column names them), so it depends on how people play. <b>agents disagree</b>: not decided, '
           'the agents fall on both sides; more games would not settle it. <b>needs games</b>: more games would '
           "decide it. Each interval is printed at the level its verdict was decided at, and each cut-off comes "
           "from the published map where the report has it; pp = percentage points.</p>"]
    verdicts = [v for v in report.get("verdicts") or [] if isinstance(v, dict)]
    if not verdicts:
        return out + ["<p>No verdicts in this report.</p>"]
    verdicts = sorted(verdicts, key=_verdict_rank)   # stable: keeps the report's order within a rank
    out.append('<div class="wide"><table><thead><tr><th>verdict</th><th class="n">players</th><th>finding</th>'
               '<th>subject</th><th class="n">estimate</th><th class="n">cut-off</th><th>agents</th><th class="n">games</th>'
               "</tr></thead><tbody>")
    for v in verdicts:
        kind = str(v.get("verdict") or "needs-games")
        cls = kind if kind in VERDICT_ORDER else "needs-games"
        mark = VERDICT_MARK.get(kind, kind)
        if kind == "robust" and v.get("finding") is not None:
            mark = "▲ robust: act" if v["finding"] else "✔ robust: fine"
            cls += "" if v["finding"] else " fine"
        title = f' title="{_e(v.get("text") or v.get("subject", ""))}"'
        estimate, cutoff = _estimate(v)
        out.append(f'<tr class="verdict {_e(cls)}"{title}><td>{_e(mark)}</td><td class="n">{_e(v.get("players", ""))}</td>'
                   f'<td class="k">{_e(str(v.get("kind", "")).replace("-", " "))}</td><td>{_e(_subject(board, v))}</td>'
                   f'<td class="n">{estimate}</td><td class="n">{cutoff}</td>'
                   f'<td>{agents_html(v.get("agents"))}</td><td class="n">{_games(v)}</td></tr>')
    out.append("</tbody></table></div>")
    return out


CAPTIONS = {
    "completion-vs-points.png": (
        "Each dot is a ticket; its bar is the 95 % interval of how often its holder completed it, and bigger dots "
        "were held more often. Look for tickets far below the others of their value (too hard for their points, "
        "named in the panel) and for high-value tickets near 100 % (too easy). A wide bar means the ticket was "
        "rarely held: do not act on it yet."),
    "seat-shares.png": (
        "Top: each seat's share of wins with its 95 % interval; the dashed line is the fair share 1/n. A seat whose "
        "whole bar sits away from the line has a real edge; under each title, the first seat's excess win share in "
        "percentage points. Bottom: the mean score by seat, and how many points more the first seat scores than "
        "the others on average (paired within games)."),
    "margins.png": (
        "How far the winner finished ahead of the runner-up. Many games decided by a few points means routes and "
        "bonuses late in the game decide it; a long tail of blowouts means one plan dominates. Each title says "
        "how often the longest-path bonus changed who won."),
}


HEATMAP_CAPTION = (
    "The board, once per player count: every route's spaces are colored by the share of games in which it was "
    "claimed, and the number in the route is that percentage (light gray, dashed: no data). Look for dark routes "
    "nobody takes — a dead end, too long for its points, a color nobody collects — and bright clusters every "
    "game fights over, and for how that changes with the number of players. The two tracks of a double are drawn "
    "side by side; with fewer players than the double-route rule needs only one of them may be taken, so their "
    "shares add up. Open a picture's file for the station names and the numbers at full size.")


def _img(name: str, data: bytes, alt: str) -> str:
    src = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
    return f'<img src="{src}" alt="{_e(alt)}">'


def figures_section(board: Board, pngs: dict[str, bytes]) -> list[str]:
    out = ['<h2 id="figures">Figures</h2>']
    heat = [(n, d) for n, d in pngs.items() if n.startswith("heatmap-")]
    if heat:
        # small multiples: side by side on a wide screen, so the player counts can be compared
        out.append('<div class="multiples">')
        for name, data in heat:
            players = name[len("heatmap-"):-len("p.png")]
            label = figs.players_text(int(players)) if players.isdigit() else players
            out.append(f"<figure>{_img(name, data, f'claims heatmap, {label}')}"
                       f'<figcaption>{_e(label)} · full size: <a href="{_e(name)}">{_e(name)}</a>'
                       "</figcaption></figure>")
        out.append(f'</div><p class="caption">{_e(HEATMAP_CAPTION)}</p>')
    for name, data in pngs.items():
        if not name.startswith("heatmap-"):
            out.append(f"<figure>{_img(name, data, name[:-4].replace('-', ' '))}"
                       f"<figcaption>{_e(CAPTIONS.get(name, ''))}</figcaption></figure>")
    return out


def seats_table(runs: list[dict]) -> list[str]:
    if not runs:
        return []
    seats = max(r["players"] for r in runs)
    head = "".join(f'<th class="n">seat {i + 1}</th>' for i in range(seats))
    out = ["<h3>Seats</h3>", "<div class=\"wide\"><table><thead><tr><th class=\"n\">players</th><th class=\"n\">games</th>" + head
           + '<th class="n">first seat: win share</th><th class="n">first seat: score</th>'
           '<th class="n">longest path decides</th></tr></thead><tbody>']
    for r in runs:
        cells = [_cell(_e(r["players"])), _cell(_e(r.get("games", "—")))]
        shares = r.get("seat_win_share") or []
        for i in range(seats):
            s = shares[i] if i < len(shares) and isinstance(shares[i], dict) else None
            cells.append(_cell(pct(s.get("share")), ci_pct(s.get("low"), s.get("high")), sep="<br>") if s else "<td></td>")
        e = r.get("first_seat_edge") or {}
        cells.append(_cell(pp(e.get("win_share")), ci_pp(e.get("low"), e.get("high")), sep="<br>"))
        cells.append(_cell(num(e.get("score"), "{:+.1f}"), ci_num(e.get("score_low"), e.get("score_high"), "{:+.1f}"),
                           sep="<br>"))
        ld = r.get("longest_decides") or {}
        cells.append(_cell(pct(ld.get("share")), ci_pct(ld.get("low"), ld.get("high")), sep="<br>"))
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return out


def _keep_rate(t: dict):
    kept = t.get("keep_rate")
    if _num(kept) is None and _num(t.get("offered")) and _num(t.get("kept")) is not None:
        kept = t["kept"] / t["offered"]
    return kept


def tickets_tables(board: Board, runs: list[dict]) -> list[str]:
    out = ["<h3>Tickets</h3>", '<p class="note">Hardest first. Keep rate (of the offers that included the ticket), '
           "completion and holder win share with 95 % intervals; net points per holding is the mean of +points when completed and −points when not. A column the "
           "report has no figures for is left out.</p>"]
    every = [t for r in runs for t in r.get("tickets") or [] if isinstance(t, dict)]
    # a deck column only when the report's tickets come from more than one deck
    many_decks = len({figs.ticket_deck(board, str(t.get("ticket", ""))) for t in every}) > 1
    columns = [("points", lambda t: _cell(_e(t.get("points", "—"))), True),
               ("offered", lambda t: _cell(_e(t.get("offered", "—"))), any(_num(t.get("offered")) for t in every)),
               ("kept", lambda t: _cell(pct(_keep_rate(t)), ci_pct(t.get("keep_low"), t.get("keep_high"))),
                any(_num(_keep_rate(t)) is not None for t in every)),
               ("held", lambda t: _cell(_e(t.get("held", "—"))), True),
               ("completion", lambda t: _cell(pct(t.get("completion")), ci_pct(t.get("low"), t.get("high"))), True),
               ("net points per holding", lambda t: _cell(num(t.get("net_points_per_holding"), "{:+.1f}")),
                any(_num(t.get("net_points_per_holding")) is not None for t in every)),
               ("holder win share", lambda t: _cell(pct(t.get("holder_win_share")),
                                                    ci_pct(t.get("holder_low"), t.get("holder_high"))),
                any(_num(t.get("holder_win_share")) is not None for t in every))]
    columns = [(name, fn) for name, fn, shown in columns if shown]
    for r in runs:
        rows = [t for t in r.get("tickets") or [] if isinstance(t, dict)]
        out.append(f"<details open><summary>{_e(figs.players_text(r['players']))} — {len(rows)} tickets</summary>")
        if not rows:
            out.append("<p>No tickets in this run.</p></details>")
            continue
        out.append('<div class="wide"><table><thead><tr><th>ticket</th>' + ("<th>deck</th>" if many_decks else "")
                   + "".join(f'<th class="n">{name}</th>' for name, _ in columns) + "</tr></thead><tbody>")
        rows.sort(key=lambda t: (_num(t.get("completion")) if _num(t.get("completion")) is not None else 2.0,
                                 str(t.get("ticket"))))
        rare = set(r.get("rarely_kept") or [])
        for t in rows:
            label = str(t.get("ticket", ""))
            badge = ' <span class="badge">rarely kept</span>' if label in rare else ""
            out.append(f'<tr><td title="{_e(label)}">{_e(figs.ticket_title(board, label))}{badge}</td>'
                       + (f"<td>{_e(figs.ticket_deck(board, label))}</td>" if many_decks else "")
                       + "".join(fn(t) for _, fn in columns) + "</tr>")
        out.append("</tbody></table></div></details>")
    return out


def colors_table(board: Board, runs: list[dict]) -> list[str]:
    colors: list[str] = []
    for r in runs:
        for c in r.get("color_use") or {}:
            if c not in colors:
                colors.append(c)
    if not colors:
        return []
    palette = {c.id: c for c in board.palette}
    order = [c.id for c in board.palette if c.id in colors] + [c for c in colors if c not in palette]
    head = "".join(f'<th class="n">{_e(figs.players_text(r["players"]))}: claimed</th><th class="n">wilds per claim</th>' for r in runs)
    out = ["<h3>Color use</h3>", '<p class="note">Share of each color\'s track claimed (each double counted once '
           "where only one track may be taken), and the wild cards spent per claim of that color: high demand with "
           "many wilds means the deck is short of it.</p>",
           f"<div class=\"wide\"><table><thead><tr><th>color</th>{head}</tr></thead><tbody>"]
    for c in order:
        if c in palette:
            hex_ = palette[c].hex if HEX.match(palette[c].hex or "") else "#ffffff"
            name = f'<span class="swatch" style="background:{hex_}"></span>{_e(palette[c].name)}'
        elif c == "gray":
            name = f'<span class="swatch" style="background:#a0a0a0"></span>{_e(board.gray_name)}'
        else:
            name = _e(c)
        cells = [f"<td>{name}</td>"]
        for r in runs:
            u = (r.get("color_use") or {}).get(c) or {}
            cells.append(_cell(pct(u.get("claimed_share")), ci_pct(u.get("low"), u.get("high"))))
            cells.append(_cell(num(u.get("wilds_per_claim"), "{:.2f}")))
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return out


# ------------------------------------------------------------------ the page


def render_html(report: dict, board: Board, pngs: dict[str, bytes], markdown: str | None = None) -> str:
    name = report.get("name") or board.name
    runs = figs.runs_of(report)
    meta = [f"board <code>{_e(report.get('board', board.id))}</code>"]
    if report.get("rules"):
        meta.append(f"rules <code>{_e(report['rules'])}</code>")
    if report.get("panel"):
        meta.append("agent panel: " + _e(", ".join(str(a) for a in report["panel"])))
    if report.get("seed") is not None:
        meta.append(f"seed {_e(report['seed'])}")
    if runs:
        meta.append("games: " + _e(", ".join(f"{r.get('games', '?')} at {figs.players_text(r['players'])}" for r in runs)))
    if report.get("max_games") is not None:
        meta.append(f"budget {_e(report['max_games'])} games per player count")
    body = [f"<h1>{_e(name)}: balance report</h1>", f'<p class="meta">{" · ".join(meta)}</p>']
    warnings = [w for w in report.get("deck_warnings") or []]
    if warnings:
        body += ["<p><b>Deck:</b></p><ul>"] + [f"<li>{_e(w)}</li>" for w in warnings] + ["</ul>"]
    body += causes_section(report)
    body += verdicts_section(report, board)
    body += strategies_section(report)
    body += figures_section(board, pngs)
    body += ['<h2 id="tables">Tables</h2>']
    body += seats_table(runs) + tickets_tables(board, runs) + colors_table(board, runs)
    if markdown:
        body += ["<details><summary>The report as Markdown</summary>", f"<pre>{_e(markdown)}</pre>", "</details>"]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{_e(name)}: balance report</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def write_html(report: dict, board: Board, out_dir: Path, markdown: str | None = None,
               figures: list[Path] | None = None) -> Path:
    """Write report.html into out_dir with every figure embedded; returns its path.

    Without `figures`, the figures are drawn and written beside it as PNGs (write_figures' files);
    with them (paths write_figures returned), those files are embedded as they are.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if figures is None:
        pngs = figs.render_figures(report, board)
        for fname, data in pngs.items():
            figs.atomic_write(out_dir / fname, data)
    else:
        pngs = {Path(p).name: Path(p).read_bytes() for p in figures}
    path = out_dir / "report.html"
    figs.atomic_write(path, render_html(report, board, pngs, markdown).encode("utf-8"))
    return path
