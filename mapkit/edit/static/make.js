// mapkit edit: making the board in the page — stations, routes, bends, palette, tickets, the board's
// size and trains. Loaded before app.js, whose globals (state, svg, layers, el, esc, $, post, write,
// toBoard, stationById, routeById) these use when called. Every edit is one request; the server
// patches the file, checks it and answers, and the page reloads as after a move.
"use strict";

let mode = "select";       // select (drag, click to edit), station, route, bend
let picked = null;         // {kind: "station"|"route", id} shown in the edit panel
let routeFrom = null;      // route mode: the first station clicked

const MODE_HELP = {
  select: "Drag stations and bends; click one to edit it; right-click a station to pin or unpin it, a bend to remove it.",
  station: "Click the board to place a station named as in the panel (or give lat/lon there).",
  route: "Click the first station, then the second: the panel suggests the length the drawn distance holds.",
  bend: "Click a route to add a bend there; drag bends in select mode; right-click a bend to remove it.",
};

function setMode(m) {
  mode = m;
  routeFrom = null;
  for (const b of document.querySelectorAll("[data-mode]")) b.classList.toggle("on", b.dataset.mode === m);
  $("map").dataset.mode = m;
  $("mode-help").textContent = MODE_HELP[m];
  if (m === "route") pick(null);
  drawPicked();
  if (m === "station") $("new-station-name").focus();
}

function edit(path, body, reason) {
  return write(path, { ...body, hash: state.hash }, reason || `redraw after ${path.split("/").slice(2).join(" ")}`);
}

const colorOptions = (sel, withGray = true) =>
  state.palette.map((c) => `<option value="${esc(c.id)}"${c.id === sel ? " selected" : ""}>${esc(c.name)} (${esc(c.id)})</option>`).join("") +
  (withGray ? `<option value="gray"${sel === "gray" ? " selected" : ""}>gray (any one color)</option>` : "");
const kindOptions = (sel, blank) => (blank ? `<option value="">${esc(blank)}</option>` : "") +
  state.kinds.map((k) => `<option${k === sel ? " selected" : ""}>${k}</option>`).join("");
const stationOptions = (sel) => state.stations.map((s) => `<option value="${esc(s.id)}"${s.id === sel ? " selected" : ""}>${esc(s.name)}</option>`).join("");

// ---------------------------------------------------------------- clicks on the map

function mapClick(evt) {
  // called by app.js for a click (no drag) on the board; true when it was used
  if (!state || state.read_only || !state.loads || preview) return false;
  const t = evt.target.closest ? evt.target.closest("[data-station],[data-route]") : null;
  const p = toBoard(evt);
  const sid = t && t.getAttribute("data-station");
  // a click between two spaces still finds its route: the nearest centreline within a space's width
  const rid = (t && !sid && t.getAttribute("data-route")) || (!sid && mode !== "station" ? nearestRoute(p) : null);
  if (mode === "station") {
    if (sid) { pick({ kind: "station", id: sid }); return true; }
    const name = $("new-station-name").value.trim() || `Station ${state.stations.length + 1}`;
    edit("/api/station/add", { name, x: p.x, y: p.y }, "redraw after adding a station").then(() => { $("new-station-name").value = ""; });
    return true;
  }
  if (mode === "route") {
    if (!sid) return false;
    if (!routeFrom || routeFrom === sid) { routeFrom = sid; drawPicked(); routeForm(); return true; }
    const from = routeFrom;
    routeFrom = null;
    routeForm(from, sid);
    return true;
  }
  if (mode === "bend") {
    if (!rid) return false;
    edit("/api/bend/add", { id: rid, x: p.x, y: p.y }, "redraw after adding a bend");
    return true;
  }
  if (sid) { pick({ kind: "station", id: sid }); return true; }
  if (rid) { pick({ kind: "route", id: rid }); return true; }
  pick(null);
  return false;
}

function nearestRoute(p) {
  let best = null, bestD = state.drawing ? state.drawing.space_width : 10;
  for (const r of state.routes) {
    const c = r.centerline;
    for (let i = 0; i + 1 < c.length; i++) {
      const [ax, ay] = c[i], [bx, by] = c[i + 1];
      const dx = bx - ax, dy = by - ay, L = dx * dx + dy * dy;
      const t = L ? Math.max(0, Math.min(1, ((p.x - ax) * dx + (p.y - ay) * dy) / L)) : 0;
      const d = Math.hypot(p.x - ax - t * dx, p.y - ay - t * dy);
      if (d < bestD) { bestD = d; best = r.id; }
    }
  }
  return best;
}

function mapContext(evt) {
  // right-click: a station pins or unpins, a bend goes
  if (!state || state.read_only || !state.loads || preview) return;
  const t = evt.target.closest ? evt.target.closest("[data-station],[data-waypoint-route]") : null;
  if (!t) return;
  evt.preventDefault();
  const sid = t.getAttribute("data-station");
  if (sid) {
    const s = stationById(sid);
    edit("/api/station/edit", { id: sid, pinned: !s.pinned }, s.pinned ? "redraw after unpinning" : "redraw after pinning");
  } else {
    edit("/api/bend/delete", { id: t.getAttribute("data-waypoint-route"), waypoint: +t.getAttribute("data-waypoint") }, "redraw after removing a bend");
  }
}

// ---------------------------------------------------------------- the edit panel

function pick(what) {
  picked = what;
  renderEdit();
  drawPicked();
}

function drawPicked() {
  if (!svg || !layers.picked) return;
  const g = layers.picked;
  g.innerHTML = "";
  const r0 = state.drawing ? state.drawing.station_radius : 7;
  for (const sid of state.pinned || []) {
    const s = stationById(sid);
    if (s) el("circle", { cx: s.x, cy: s.y - r0 * 1.35, r: r0 * 0.35, class: "pin", "data-pin": sid }, g);
  }
  drawFindings();
  const ring = (sid) => { const s = stationById(sid); if (s) el("circle", { cx: s.x, cy: s.y, r: r0 * 1.6, class: "picked" }, g); };
  if (routeFrom) ring(routeFrom);
  if (!picked) return;
  if (picked.kind === "station") ring(picked.id);
  if (picked.kind === "route") {
    const r = routeById(picked.id);
    if (r && r.centerline.length) el("polyline", { points: r.centerline.map((q) => q.join(",")).join(" "),
      class: "picked", "stroke-width": state.drawing.space_width * 1.4 }, g);
  }
  if (picked.kind === "ticket") {
    const t = state.tickets.find((x) => x.deck === picked.deck && x.index === picked.index);
    if (t) for (const rid of t.routes) {
      const r = routeById(rid);
      if (r && r.centerline.length) el("polyline", { points: r.centerline.map((q) => q.join(",")).join(" "),
        class: "picked ticket-path", "stroke-width": state.drawing.space_width * 1.2 }, g);
    }
  }
}

function renderEdit() {
  const box = $("edit");
  if (!state || !state.loads || state.read_only) { box.innerHTML = ""; return; }
  if (picked && picked.kind === "station" && stationById(picked.id)) return stationForm(stationById(picked.id));
  if (picked && picked.kind === "route" && routeById(picked.id)) return routeEditForm(routeById(picked.id));
  if (mode === "route") return routeForm(routeFrom);
  picked = null;
  box.innerHTML = "";
}

function stationForm(s) {
  $("edit").innerHTML = `<h3>Station ${esc(s.id)}</h3>
    <p><label>name <input id="st-name" value="${esc(s.name)}" maxlength="60"></label> <button id="st-rename">Rename</button></p>
    <p><label><input type="checkbox" id="st-pinned"${s.pinned ? " checked" : ""}> pinned (layout keeps it where it is)</label><br>
    <label><input type="checkbox" id="st-hub"${s.hub ? " checked" : ""}> hub</label>
    <label>label <select id="st-label"><option value="">chosen by mapkit</option>${["n", "ne", "e", "se", "s", "sw", "w", "nw"]
      .map((d) => `<option${d === s.label ? " selected" : ""}>${d}</option>`).join("")}</select></label></p>
    <p><label>lat <input id="st-lat" type="number" step="any" value="${s.lat}" size="9"></label>
    <label>lon <input id="st-lon" type="number" step="any" value="${s.lon}" size="9"></label> <button id="st-latlon">Set</button></p>
    <p><button id="st-delete" class="danger">Delete station</button> <span class="note">(with its ${s.routes.length} route(s) and ${s.tickets.length} ticket(s))</span></p>`;
  $("st-rename").onclick = () => edit("/api/station/edit", { id: s.id, name: $("st-name").value });
  $("st-name").onkeydown = (e) => { if (e.key === "Enter") $("st-rename").click(); };
  $("st-pinned").onchange = () => edit("/api/station/edit", { id: s.id, pinned: $("st-pinned").checked });
  $("st-hub").onchange = () => edit("/api/station/edit", { id: s.id, hub: $("st-hub").checked });
  $("st-label").onchange = () => edit("/api/station/edit", { id: s.id, label: $("st-label").value });
  $("st-latlon").onclick = () => edit("/api/station/edit", { id: s.id, lat: +$("st-lat").value, lon: +$("st-lon").value });
  $("st-delete").onclick = () => { picked = null; edit("/api/station/delete", { id: s.id }); };
}

async function routeForm(from = null, to = null) {
  const box = $("edit");
  if (!state.stations.length) { box.innerHTML = '<p class="note">Place two stations first.</p>'; return; }
  box.innerHTML = `<h3>New route</h3>
    <p><label>from <select id="rt-from">${stationOptions(from)}</select></label>
    <label>to <select id="rt-to">${stationOptions(to)}</select></label></p>
    <p><label>color <select id="rt-color">${colorOptions(state.palette.length ? state.palette[0].id : "gray")}</select></label>
    <label>length <input id="rt-length" type="number" min="1" max="20" value="1" size="3"></label></p>
    <p id="rt-suggest" class="note"></p>
    <p><label><input type="checkbox" id="rt-double"> double, second track <select id="rt-color2">${colorOptions(state.palette.length > 1 ? state.palette[1].id : "gray")}</select></label></p>
    <p><label>kind <select id="rt-kind">${kindOptions("", "its color's")}</select></label>
    <label><input type="checkbox" id="rt-overpass"> overpass</label>
    <label title="A flight: kind flight, drawn over other routes"><input type="checkbox" id="rt-flight"> flight</label></p>
    <p><button id="rt-add">Add route</button></p>`;
  if (!to) $("rt-to").selectedIndex = Math.min(1, state.stations.length - 1);
  const suggest = async () => {
    const a = $("rt-from").value, b = $("rt-to").value;
    if (!a || !b || a === b) { $("rt-suggest").textContent = "pick two different stations"; return; }
    try {
      const s = await api(`/api/suggest?from=${encodeURIComponent(a)}&to=${encodeURIComponent(b)}`);
      $("rt-length").value = s.suggest;
      $("rt-suggest").textContent = `drawn ${s.drawn_mm} mm: ` + (s.fit.length ? `length ${s.fit.join(", ")} fit${s.fit.length === 1 ? "s" : ""}; ${s.suggest} suggested` : s.note);
    } catch (e) { $("rt-suggest").textContent = e.message; }
  };
  $("rt-from").onchange = suggest;
  $("rt-to").onchange = suggest;
  $("rt-add").onclick = () => {
    const flight = $("rt-flight").checked;
    const body = { from: $("rt-from").value, to: $("rt-to").value, color: $("rt-color").value, length: +$("rt-length").value };
    if ($("rt-double").checked) { body.double = true; body.color2 = $("rt-color2").value; }
    if (flight) body.kind = "flight"; else if ($("rt-kind").value) body.kind = $("rt-kind").value;
    if ($("rt-overpass").checked) body.overpass = true;
    edit("/api/route/add", body, "redraw after adding a route");
  };
  await suggest();
}

function routeEditForm(r) {
  const bends = r.waypoints.map((w, j) => `<li>${w[0].toFixed(1)}, ${w[1].toFixed(1)} mm <button data-bend="${j}">remove</button></li>`).join("");
  $("edit").innerHTML = `<h3>Route ${esc(r.id)}</h3>
    <p>${esc(r.from)} – ${esc(r.to)}${r.double.length ? ` · double with ${r.double.map(esc).join(", ")}` : ""}</p>
    <p><label>color <select id="re-color">${colorOptions(r.color)}</select></label>
    <label>length <input id="re-length" type="number" min="1" max="20" value="${r.length}" size="3"></label></p>
    <p id="re-suggest" class="note"></p>
    <p><label>kind <select id="re-kind">${kindOptions(r.own_kind || "", "its color's")}</select></label>
    <label><input type="checkbox" id="re-overpass"${r.overpass ? " checked" : ""}> overpass</label></p>
    <p><button id="re-apply">Apply</button></p>
    <p>${r.double.length ? "" : `<button id="re-double">Make double</button> second track <select id="re-color2">${colorOptions(r.color)}</select><br>`}
    <button id="re-delete" class="danger">Delete ${r.double.length ? "this track" : "route"}</button>
    ${r.double.length ? '<button id="re-delete-both" class="danger">Delete both tracks</button>' : ""}</p>
    <p>Bends${r.double.length ? " (both tracks)" : ""}: ${bends ? `<ol class="bends">${bends}</ol>` : "none (bend mode: click the route to add one)"}</p>`;
  api(`/api/suggest?from=${encodeURIComponent(r.from)}&to=${encodeURIComponent(r.to)}`).then((s) => {
    $("re-suggest").textContent = s.fit.length ? `drawn straight: length ${s.fit.join(", ")} fit` : s.note;
  }).catch(() => {});
  $("re-apply").onclick = () => edit("/api/route/edit", { id: r.id, color: $("re-color").value, length: +$("re-length").value,
    kind: $("re-kind").value, overpass: $("re-overpass").checked });
  if ($("re-double")) $("re-double").onclick = () => edit("/api/route/double", { id: r.id, color: $("re-color2").value });
  $("re-delete").onclick = () => { picked = null; edit("/api/route/delete", { id: r.id }); };
  if ($("re-delete-both")) $("re-delete-both").onclick = () => { picked = null; edit("/api/route/delete", { id: r.id, whole: true }); };
  for (const b of $("edit").querySelectorAll("[data-bend]")) b.onclick = () => edit("/api/bend/delete", { id: r.id, waypoint: +b.dataset.bend });
}

// ---------------------------------------------------------------- board, palette, tickets

function renderMake() {
  const ok = state && state.loads && !state.read_only && !preview;
  $("make-box").hidden = !ok;
  $("balance-box").hidden = !(state && state.loads) || !!preview;
  renderBalance();
  $("new-box").hidden = !(state && state.empty && !state.read_only);
  if (!ok) return;
  renderEdit();
  const b = state.board_settings || {};
  $("board-form").innerHTML = `<label>name <input id="bd-name" value="${esc(state.drawing.board.name)}" maxlength="120"></label>
    <label>size <input id="bd-width" type="number" min="100" max="5000" value="${state.drawing.width}" size="4"> ×
    <input id="bd-height" type="number" min="100" max="5000" value="${state.drawing.height}" size="4"> mm</label>
    <label>trains <input id="bd-trains" type="number" min="1" max="500" value="${b.trains || ""}" size="3"></label>
    <label>players up to <input id="bd-players" type="number" min="1" max="5" value="${b.max_players || ""}" size="2"></label>
    <button id="bd-save">Save</button>`;
  $("bd-save").onclick = () => {
    const body = { name: $("bd-name").value, width: +$("bd-width").value, height: +$("bd-height").value };
    if ($("bd-trains").value) body.trains = +$("bd-trains").value;
    if ($("bd-players").value) body.max_players = +$("bd-players").value;
    edit("/api/board/edit", body, "redraw after board settings");
  };
  const pal = $("palette");
  pal.innerHTML = state.palette.map((c) => `<tr data-color="${esc(c.id)}"><td><input type="color" value="${esc(c.hex)}" class="pc-hex"></td>
    <td><input class="pc-name" value="${esc(c.name)}" maxlength="40" size="12"></td><td><select class="pc-kind">${kindOptions(c.kind)}</select></td>
    <td>${c.routes}</td><td><button class="pc-save">Save</button> <button class="pc-delete danger" title="${c.routes ? "recolor its routes first" : "delete"}"${c.routes ? " disabled" : ""}>×</button></td></tr>`).join("") +
    `<tr><td><input type="color" id="pc-new-hex" value="#1e88e5"></td><td><input id="pc-new-name" placeholder="new color" size="12"></td>
    <td><select id="pc-new-kind">${kindOptions("rail")}</select></td><td></td><td><button id="pc-add">Add</button></td></tr>`;
  for (const tr of pal.querySelectorAll("tr[data-color]")) {
    const id = tr.dataset.color;
    tr.querySelector(".pc-save").onclick = () => edit("/api/color/edit", { id, name: tr.querySelector(".pc-name").value,
      hex: tr.querySelector(".pc-hex").value, kind: tr.querySelector(".pc-kind").value });
    tr.querySelector(".pc-delete").onclick = () => edit("/api/color/delete", { id });
  }
  $("pc-add").onclick = () => edit("/api/color/add", { name: $("pc-new-name").value || "Color", hex: $("pc-new-hex").value, kind: $("pc-new-kind").value });
  renderTickets();
  renderCards();
}

function renderCards() {
  const c = state.cards;
  const box = $("cards");
  if (!c || c.error) { box.innerHTML = `<p class="note">${esc(c ? c.error : "")}</p>`; return; }
  const stored = c.colors.some((x) => x.stored !== null);
  box.innerHTML = `<p class="note">The deck mapkit cards derives from the map (${c.total} cards, ${c.wild} wild)` +
    `${stored ? "; the file's own deck beside it" : ""}.</p><table class="colors"><tr><th>color</th><th>spaces</th><th>cards</th>` +
    `${stored ? "<th>file</th>" : ""}</tr>` +
    c.colors.map((x) => `<tr><td>${esc(x.name)}</td><td>${x.spaces}</td><td>${x.cards}</td>${stored ? `<td>${x.stored ?? "–"}</td>` : ""}</tr>` +
      (x.note ? `<tr><td colspan="4" class="note">${esc(x.note)}</td></tr>` : "")).join("") + "</table>" +
    (c.warnings.length ? `<ul class="warnings">${c.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul>` : "");
}

function renderTickets() {
  const list = $("ticket-list");
  list.innerHTML = state.tickets.map((t, i) => `<li data-ticket="${i}"${picked && picked.kind === "ticket" && picked.deck === t.deck && picked.index === t.index ? ' class="selected"' : ""}>
    ${esc(t.from)} – ${esc(t.to)}: <b>${t.points}</b> points${t.length === null ? " (not connected)" : `, shortest connection ${t.length} spaces`}
    ${state.decks.length > 1 ? `<span class="note">[${esc(t.deck)}]</span>` : ""} <button class="tk-delete" title="delete">×</button></li>`).join("") ||
    '<li class="none">No tickets yet.</li>';
  for (const li of list.querySelectorAll("li[data-ticket]")) {
    const t = state.tickets[+li.dataset.ticket];
    li.onclick = (e) => {
      if (e.target.classList.contains("tk-delete")) { edit("/api/ticket/delete", { deck: t.deck, index: t.index }); return; }
      picked = picked && picked.kind === "ticket" && picked.index === t.index && picked.deck === t.deck ? null : { kind: "ticket", deck: t.deck, index: t.index };
      renderTickets();
      drawPicked();
    };
  }
  const keepFrom = $("tk-from") && $("tk-from").value, keepTo = $("tk-to") && $("tk-to").value;
  $("ticket-add").innerHTML = `<label>from <select id="tk-from">${stationOptions(keepFrom)}</select></label>
    <label>to <select id="tk-to">${stationOptions(keepTo)}</select></label>
    <label>points <input id="tk-points" type="number" min="1" max="200" placeholder="auto" size="4"></label>
    <label>deck <input id="tk-deck" value="${esc(state.decks[0] || "standard")}" size="8"></label> <button id="tk-add">Add ticket</button>`;
  $("tk-add").onclick = () => {
    const body = { from: $("tk-from").value, to: $("tk-to").value, deck: $("tk-deck").value };
    if ($("tk-points").value) body.points = +$("tk-points").value;
    edit("/api/ticket/add", body, "redraw after adding a ticket");
  };
}

function setupMake() {
  for (const b of document.querySelectorAll("[data-mode]")) b.addEventListener("click", () => setMode(b.dataset.mode));
  $("map").addEventListener("contextmenu", mapContext);
  $("ns-add").addEventListener("click", () => {
    const name = $("new-station-name").value.trim();
    if (!name) { banner("Give the new station a name.", "error"); return; }
    edit("/api/station/add", { name, lat: +$("ns-lat").value, lon: +$("ns-lon").value }, "redraw after adding a station");
  });
  $("nb-start").addEventListener("click", () => write("/api/new", { hash: state.hash, name: $("nb-name").value || "New board",
    width: +$("nb-width").value, height: +$("nb-height").value }, "redraw after starting the board"));
  document.addEventListener("keydown", (evt) => {
    if (evt.target.closest && evt.target.closest("input,select,textarea")) return;
    const keys = { Escape: "select", s: "station", r: "route", b: "bend" };
    if (!evt.ctrlKey && !evt.metaKey && !evt.altKey && keys[evt.key]) setMode(keys[evt.key]);
    if ((evt.key === "Delete" || evt.key === "Backspace") && picked && picked.kind !== "ticket") {
      const p = picked;
      picked = null;
      edit(p.kind === "station" ? "/api/station/delete" : "/api/route/delete", { id: p.id });
    }
  });
  setupGenerate();
  setupBalance();
  setMode("select");
}

// ---------------------------------------------------------------- generated ticket decks

async function generateTickets() {
  // one request: the server generates the deck (mapkit tickets generate), writes it as one undoable
  // step and answers with the deck's figures against its targets
  const body = { hash: state.hash, style: $("tg-style").value, seed: +$("tg-seed").value || 0 };
  if ($("tg-count").value) body.count = +$("tg-count").value;
  if ($("tg-deck").value.trim()) body.deck = $("tg-deck").value.trim();
  if ($("tg-require").value.trim()) body.require = $("tg-require").value.trim();
  const out = $("tg-result");
  $("tg-run").disabled = true;
  out.innerHTML = '<p class="note">Generating…</p>';
  busy = true;
  const t0 = performance.now();
  try {
    const r = await post("/api/tickets/generate", body);
    notice = null;
    out.innerHTML = generatedText(r);
    await load("redraw after generating tickets");
    status(`${r.done}: generated, written, checked and redrawn in ${(performance.now() - t0).toFixed(0)} ms`);
  } catch (e) {
    out.innerHTML = `<p class="error-text">Not generated: ${esc(e.message)}</p>`;
    if (e.status === 409 && e.body && e.body.stale) await load("reload after refused write");
  } finally {
    busy = false;
    $("tg-run").disabled = false;
  }
}

function generatedText(r) {
  const rows = r.targets.map((t) => {
    const off = typeof t.wanted === "number" ? t.got !== t.wanted : false;
    return `<tr${off ? ' class="off"' : ""}><th>${esc(t.what)}</th><td>${esc(t.got)}</td><td>${esc(t.wanted)}</td></tr>`;
  }).join("");
  return `<p>Wrote the <b>${esc(r.deck)}</b> deck: ${r.count} tickets (${esc(r.style)}, seed ${r.seed}), ${r.mean_points} points on average.</p>` +
    `<table class="figures"><tr><th></th><th>got</th><th>wanted</th></tr>${rows}</table>` +
    (r.uncovered.length ? `<p class="note">Stations on no ticket: ${r.uncovered.map(esc).join(", ")}.</p>` : "") +
    (r.misses.length ? `<p class="warn-text">It misses its length targets: ${r.misses.map(esc).join("; ")}. ` +
      "Try another seed, name the pairs it must hold, or a count the board's pairs allow.</p>" : "");
}

async function showTargets() {
  // what the deck will aim at, for this style and count on this board (ticket_deck.make_targets)
  if (!$("generate-box").open || !state || !state.loads) return;
  const q = `style=${encodeURIComponent($("tg-style").value)}` + ($("tg-count").value ? `&count=${+$("tg-count").value}` : "");
  try {
    const t = await api(`/api/tickets/targets?${q}`);
    $("tg-targets").textContent = `It aims at ${t.lengths.map((b, i) => `${b.tickets}${i ? "" : " tickets"} of ${b.low}–${b.high} spaces`).join(", ")}; ` +
      `the longest at least ${t.longest_at_least} (about half a player's ${t.trains} trains, at most the board's longest connection); ` +
      `at most ${t.max_station_uses} tickets at one station and ${t.max_route_load} through one connection.`;
  } catch (e) {
    $("tg-targets").textContent = e.message;
  }
}

function setupGenerate() {
  $("tg-run").addEventListener("click", generateTickets);
  $("tg-style").addEventListener("change", () => {
    const s = $("tg-style").value;
    $("tg-count").placeholder = s === "long" ? "6" : "30";
    $("tg-deck").placeholder = s;
    showTargets();
  });
  $("tg-count").addEventListener("change", showTargets);
  $("generate-box").addEventListener("toggle", showTargets);
}
