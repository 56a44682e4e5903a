// mapkit edit: quick balance — a short balance report played by the server in a child process, with
// progress and cancel, whose findings (the report's causes and the verdicts behind them) are listed and
// drawn on the map. Loaded before app.js, whose globals (state, svg, layers, el, esc, $, api, post,
// banner, routeById, stationById) these use when called; make.js's drawPicked calls drawFindings.
"use strict";

let balanceJob = null;     // the run on show: its last status ({job, state, done, total, findings, digest...})
let balanceFocus = null;   // the finding shown alone on the map: {list: "causes"|"disputed", i}
let balanceHover = null;   // the finding under the pointer in the list, shown alone while there

const FINDING_COLOR = {
  "unclaimed-corridor": "#d32f2f", "route-rarely-claimed": "#d32f2f",
  "ticket-not-worth-it": "#ef6c00", "ticket-too-hard": "#ef6c00", "ticket-holders-lose": "#ef6c00",
  "ticket-too-easy": "#1565c0", "color-short": "#6a1b9a", "color-starved": "#6a1b9a",
};

const secs = (s) => (s < 90 ? `${s.toFixed(s < 10 ? 1 : 0)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`);

async function balanceRun() {
  const body = { hash: state.hash, seed: +$("qb-seed").value || 0 };
  if ($("qb-games").value) body.games = +$("qb-games").value;
  if ($("qb-players").value.trim()) body.players = $("qb-players").value.trim();
  balanceFocus = null;
  let st;
  try {
    st = await post("/api/balance/run", body);
  } catch (e) {
    banner(`Quick balance: ${e.message}`, "error", true);
    return;
  }
  await balanceFollow(st);
}

async function balanceFollow(st) {
  // the run's status four times a second until it ends
  $("qb-run").disabled = true;
  try {
    balanceJob = st;
    renderBalance();
    while (st.state === "running") {
      await sleep(250);
      if (!balanceJob || balanceJob.job !== st.job) return;   // another run replaced this one
      st = await api(`/api/balance/status?job=${encodeURIComponent(st.job)}`);
      balanceJob = st;
      renderBalance();
    }
    if (st.state === "failed") banner(`Quick balance: ${st.error}`, "error", true);
  } catch (e) {
    banner(`Quick balance: ${e.message}`, "error", true);
    balanceJob = null;
    renderBalance();
  } finally {
    $("qb-run").disabled = false;
    drawFindings();
  }
}

async function balanceCancel() {
  if (!balanceJob || balanceJob.state !== "running") return;
  $("qb-cancel").disabled = true;
  try {
    balanceJob = await post("/api/balance/cancel", { job: balanceJob.job });
  } catch (e) {
    banner(`Cancel: ${e.message}`, "error", true);
  }
  $("qb-cancel").disabled = false;
  renderBalance();
}

function balanceProgress(st) {
  if (st.state !== "running") return "";
  const bar = `<progress id="qb-progress" max="${st.total}" value="${st.done}"></progress>`;
  const left = st.left !== null ? ` · about ${secs(st.left)} left` : st.done ? "" : " · starting the players";
  return `<p>${bar} <span id="qb-count">${st.done} of ${st.total} games</span> · ${secs(st.elapsed)}${left}</p>` +
    '<p><button id="qb-cancel" title="Stop the games (their process is ended at once)">Cancel</button></p>';
}

function isStale() {
  return !!(balanceJob && state && balanceJob.digest !== state.hash);
}

function findingItem(f, list, i) {
  const on = balanceFocus && balanceFocus.list === list && balanceFocus.i === i;
  const who = f.subjects ? f.subjects.slice(0, 4).map(esc).join(", ") + (f.subjects.length > 4 ? ` and ${f.subjects.length - 4} more` : "")
    : esc(f.subject);
  const ps = f.players.length > 1 ? `${f.players.join(", ")} players` : `${f.players[0]} players`;
  const where = f.routes.length || f.stations.length ? "" : ' <span class="note">(the whole board: not on one place)</span>';
  const sw = `<span class="swatch" style="background:${FINDING_COLOR[f.kind] || "#555"}"></span>`;
  if (list === "disputed") {
    return `<li data-list="${list}" data-i="${i}"${on ? ' class="selected"' : ""}>${sw} <span class="note">${esc(f.text)}</span>${where}</li>`;
  }
  const tag = f.agent_dependent ? '<span class="tag dep" title="Some AI players do not show it: it depends on how the board is played">depends on the AI players</span>'
    : f.robust ? '<span class="tag ok" title="Every AI player of the panel shows it">every AI player</span>' : "";
  return `<li data-list="${list}" data-i="${i}"${on ? ' class="selected"' : ""}>${sw} <b>${esc(f.title)}</b>: ${who} (${ps}) ${tag}${where}` +
    `<div class="note">${esc(f.why)}.</div>` +
    `<div>${f.change ? `What to do: <b>${esc(f.change)}</b>` : "No map change proposed (the rules' seat order is not the map's)."}</div>` +
    (f.verdicts.length ? `<details><summary class="note">the evidence (${f.verdicts.length})</summary><ul class="evidence">` +
      f.verdicts.map((v) => `<li>${esc(v)}</li>`).join("") + "</ul></details>" : "") + "</li>";
}

function renderBalance() {
  const box = $("qb-out");
  if (!box) return;
  const st = balanceJob;
  $("qb-run").textContent = st && st.state === "done" ? "Run again" : "Run quick balance";
  if (!st) { box.innerHTML = ""; drawFindings(); return; }
  if (st.state === "running") {
    box.innerHTML = balanceProgress(st);
    $("qb-cancel").onclick = balanceCancel;
    return;
  }
  if (st.state === "cancelled") {
    box.innerHTML = `<p class="note">Cancelled after ${secs(st.elapsed)} (${st.done} of ${st.total} games): its process was stopped.</p>`;
    drawFindings();
    return;
  }
  if (st.state === "failed") { box.innerHTML = `<p class="error-text">${esc(st.error)}</p>`; return; }
  const f = st.findings;
  const stale = isStale();
  balanceHover = null;   // the list is made again: the pointer is over none of its new items yet
  box.innerHTML = (stale ? '<p class="stale">The board changed since this run: these findings are of the board as it was. ' +
      '<button id="qb-again">Run again</button></p>' : "") +
    `<p class="note">${f.games} games (${f.runs.map((r) => `${r.players} players: ${r.games}`).join(", ")}; seed ${f.seed}) in ${secs(st.elapsed)}, ` +
    `between AI players (${f.panel.map(esc).join(", ")}), judged against the published North America map played by the same players ` +
    `(${esc(f.reference || "")}). Intervals are at the level each verdict was decided at; mapkit report plays more games and tries the changes.</p>` +
    (f.causes.length ? `<ol class="findings">${f.causes.map((c, i) => findingItem(c, "causes", i)).join("")}</ol>`
      : "<p>Nothing decided to change at this many games.</p>") +
    (f.disputed.length ? `<details><summary>The AI players disagree (${f.disputed.length})</summary><p class="note">These depend on how the board is played: more games would not settle them.</p>` +
      `<ol class="findings">${f.disputed.map((v, i) => findingItem(v, "disputed", i)).join("")}</ol></details>` : "") +
    (f.undecided ? `<p class="note">${f.undecided} other verdict(s) not yet decided: more games would decide them.</p>` : "") +
    (f.deck_warnings.length ? `<p class="note">Train cards: ${f.deck_warnings.map(esc).join("; ")}</p>` : "");
  if (stale) $("qb-again").onclick = balanceRun;
  for (const li of box.querySelectorAll("li[data-list]")) {
    li.addEventListener("click", (evt) => {
      if (evt.target.closest("details")) return;
      const key = { list: li.dataset.list, i: +li.dataset.i };
      balanceFocus = balanceFocus && balanceFocus.list === key.list && balanceFocus.i === key.i ? null : key;
      renderBalance();
      drawFindings();
    });
    li.addEventListener("mouseenter", () => { balanceHover = { list: li.dataset.list, i: +li.dataset.i }; drawFindings(); });
    li.addEventListener("mouseleave", () => { balanceHover = null; drawFindings(); });
  }
  drawFindings();
}

function drawFindings() {
  // a layer of its own under the problems' highlights, made again after each redraw of the board
  if (!svg || !layers.problems) return;
  let g = svg.querySelector("#layer-balance");
  if (!g) {
    g = el("g", { id: "layer-balance", "pointer-events": "none" });
    svg.insertBefore(g, layers.problems);
  }
  g.innerHTML = "";
  const st = balanceJob;
  if (!st || st.state !== "done" || !$("qb-show").checked) return;
  const f = st.findings;
  const stale = isStale();
  const focus = balanceHover || balanceFocus;
  if (focus) {   // one finding: its routes (a ticket's whole path) and stations
    const item = f[focus.list][focus.i];
    if (item) drawFinding(g, item, item.routes, 1.6, 0.75, stale);
    return;
  }
  // all of them: the routes rarely claimed and the starved colors' track; a ticket by its two stations
  for (const item of f.causes) {
    const ticket = item.kind.startsWith("ticket");
    const color = item.kind === "color-short";
    drawFinding(g, item, ticket ? [] : item.routes, color ? 0.45 : 1.15, color ? 0.8 : 0.5, stale);
  }
}

function drawFinding(g, item, routes, width, opacity, stale) {
  const color = FINDING_COLOR[item.kind] || "#555";
  const w = state.drawing ? state.drawing.space_width : 10;
  const r0 = state.drawing ? state.drawing.station_radius : 7;
  for (const rid of routes) {
    const r = routeById(rid);
    if (!r || !r.centerline.length) continue;
    // a stale finding is dashed (in dashes as long as the stroke is wide, or they would merge)
    el("polyline", { points: r.centerline.map((q) => q.join(",")).join(" "), class: "finding" + (stale ? " stale" : ""),
      stroke: color, "stroke-width": w * width, opacity, "data-finding": item.kind,
      ...(stale ? { "stroke-dasharray": `${w * width} ${w * width}` } : {}) }, g);
  }
  for (const sid of item.stations) {
    const s = stationById(sid);
    if (s) el("circle", { cx: s.x, cy: s.y, r: r0 * 1.9, class: "finding-station", stroke: color, "data-finding-station": sid }, g);
  }
}

function setupBalance() {
  $("qb-run").addEventListener("click", balanceRun);
  $("qb-show").addEventListener("change", drawFindings);
  // a page opened again shows the server's last run (and follows it when it still plays)
  api("/api/balance/status").then((st) => (st.state === "running" ? balanceFollow(st) : (balanceJob = st, renderBalance())),
    () => {});
}
