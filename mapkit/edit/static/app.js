// mapkit edit: the board page. Plain JavaScript, no framework, nothing from the network but this server.
// The server draws the board (SVG from mapkit's own geometry); this page shows it, follows the file
// (a long poll), draws problems and overlays on top, and sends moves back with the file's hash.
"use strict";

const NS = "http://www.w3.org/2000/svg";
const TOKEN = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);

let state = null;          // /api/state
let rev = -1;              // the server revision shown
let svg = null;            // the board's <svg> element
let layers = {};           // overlay groups drawn over the board
let view = null;           // the viewBox {x, y, w, h}
let selected = null;       // index of the selected problem
let drag = null;           // a station or waypoint being dragged
let preview = null;        // a layout preview on show
let overlayData = null;  // the overlay on show (overlays.js)
let busy = false;
let shownNote = "";        // the history note last shown in the banner
let notice = null;         // {text, kind}: why the last write was refused, kept until the next one is written
let hovered = null;        // the element under the pointer, shown again after each redraw

// what tests and the status bar read: how long each reload and redraw took (ms)
window.mapkit = { ready: false, loads: 0, timings: [], last: null };

async function api(path, options = {}) {
  const headers = { "X-Mapkit-Token": TOKEN };
  if (options.body) headers["Content-Type"] = "application/json";
  const r = await fetch(path, { ...options, headers, cache: "no-store" });
  const type = r.headers.get("Content-Type") || "";
  const body = type.includes("json") ? await r.json() : await r.text();
  if (!r.ok) {
    const e = new Error((body && body.error) || r.statusText);
    e.status = r.status;
    e.body = body;
    throw e;
  }
  return body;
}
const post = (path, body) => api(path, { method: "POST", body: JSON.stringify(body) });
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
const el = (name, attrs = {}, parent = null) => {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
};
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
const pct = (v) => (v === null || v === undefined ? "–" : `${(100 * v).toFixed(1)} %`);

function banner(text, kind = "", closable = false) {
  const b = $("banner");
  b.hidden = !text;
  b.className = kind;
  b.textContent = text || "";
  if (closable && text) {
    const x = document.createElement("button");
    x.textContent = "×";
    x.title = "Close";
    x.className = "close";
    x.onclick = () => { notice = null; banner(""); };
    b.appendChild(x);
  }
}
function status(text) { $("status").textContent = text; }

// ---------------------------------------------------------------- loading and drawing

async function load(reason) {
  const t0 = performance.now();
  const pending = api("/api/svg");
  pending.catch(() => {});  // (awaited below: a failure is thrown there)
  const st = await api("/api/state");
  state = st;
  rev = st.rev;
  // the problems first, listed and marked on the drawing on show, while the new drawing comes
  renderHeader();
  renderProblems();
  drawProblems();
  window.mapkit.problems = { version: st.version, ms: performance.now() - t0 };
  const text = await pending;
  if (!preview) drawBoard(text);
  renderHeader();
  renderProblems();
  drawProblems();
  renderMake();
  drawPicked();
  if (hovered && !preview) showInfo(hovered);
  if ($("overlay").value !== "none") await showOverlay(true);
  const ms = performance.now() - t0;
  window.mapkit.loads += 1;
  window.mapkit.last = { reason, ms, rev: st.rev, version: st.version, labels: st.drawing && st.drawing.labels };
  window.mapkit.timings.push(window.mapkit.last);
  window.mapkit.ready = true;
  const d = st.drawing;
  status(`${reason}: drawn in ${ms.toFixed(0)} ms (server ${d ? d.quick_ms : "–"} ms)` +
         (d ? ` · labels: ${d.labels === "print" ? "placed as printed" : d.print_error ? `quick: ${d.print_error}` :
           d.labels === "carried" ? "the last print's, those the change touched placed again (the print drawing follows)" :
           d.print_labels ? "quick (the print's placement follows)" : "quick"}` : "") +
         ` · version ${st.version}`);
}

function drawBoard(text) {
  const map = $("map");
  if (!text) {
    map.innerHTML = state && state.empty ? '<p class="empty">The file is empty: give the board a name and a size on the right and press “Start the board”.</p>'
      : '<p class="empty">No drawing: the board has never loaded. Fix the problems listed on the right.</p>';
    svg = null;
    return;
  }
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const fresh = document.importNode(doc.documentElement, true);
  const w = +fresh.getAttribute("data-width"), h = +fresh.getAttribute("data-height");
  const keep = view && svg && +svg.getAttribute("data-width") === w && +svg.getAttribute("data-height") === h;
  map.innerHTML = "";
  map.appendChild(fresh);
  svg = fresh;
  svg.classList.toggle("readonly", !!(state && state.read_only));
  if (!keep) view = { x: 0, y: 0, w, h };
  setView();
  layers = {};
  for (const name of ["overlay", "problems", "picked", "hover", "handles", "drag"]) layers[name] = el("g", { id: `layer-${name}` }, svg);
  layers.picked.setAttribute("pointer-events", "none");
  layers.overlay.setAttribute("pointer-events", "none");
  layers.problems.setAttribute("pointer-events", "none");
  drawHandles();
}

function setView() {
  if (svg && view) svg.setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
  scaleLabels();
}

// names stay readable when the board is zoomed out: each station label is drawn at least
// MIN_LABEL_PX tall on screen (scaled about its own centre), and at its print size once zoomed in
const MIN_LABEL_PX = 11;
let labelFrame = 0;
function scaleLabels() {
  if (labelFrame) return;
  labelFrame = requestAnimationFrame(() => {
    labelFrame = 0;
    if (!svg || !svg.clientWidth) return;
    const pxPerMm = Math.min(svg.clientWidth / view.w, svg.clientHeight / view.h);
    for (const t of svg.querySelectorAll("text[data-label]")) {
      if (t.dataset.base === undefined) {
        // about the text's anchor (its lines' x, the middle of their y): read from the attributes,
        // not measured, so a redraw costs no layout; a name then grows away from its station
        const spans = t.querySelectorAll("tspan");
        if (!spans.length) continue;
        t.dataset.base = t.getAttribute("transform") || "";
        t.dataset.cx = +spans[0].getAttribute("x");
        t.dataset.cy = (+spans[0].getAttribute("y") + +spans[spans.length - 1].getAttribute("y")) / 2;
      }
      const k = Math.max(1, MIN_LABEL_PX / (+t.getAttribute("font-size") * pxPerMm));
      const cx = +t.dataset.cx, cy = +t.dataset.cy;
      t.setAttribute("transform", k > 1.01 ? `${t.dataset.base} translate(${cx} ${cy}) scale(${k.toFixed(3)}) translate(${-cx} ${-cy})`
        : t.dataset.base);
      if (!t.dataset.base && k <= 1.01) t.removeAttribute("transform");
    }
  });
}

function toBoard(evt) {
  const p = svg.createSVGPoint();
  p.x = evt.clientX;
  p.y = evt.clientY;
  return p.matrixTransform(svg.getScreenCTM().inverse());
}

function renderHeader() {
  $("file").textContent = state.file.split(/[\\/]/).pop();
  $("file").title = state.file;
  const v = $("verdict");
  v.textContent = state.empty ? "empty" : !state.loads ? "does not load" : state.draft ? `in the making, ${state.errors} error${state.errors > 1 ? "s" : ""}` : state.errors ? `${state.errors} error${state.errors > 1 ? "s" : ""}` +
    (state.warnings ? `, ${state.warnings} warning${state.warnings > 1 ? "s" : ""}` : "") :
    state.warnings ? `valid, ${state.warnings} warning${state.warnings > 1 ? "s" : ""}` : "valid";
  v.className = "verdict" + (!state.loads || state.errors ? " bad" : state.warnings ? " warn" : "");
  if (state.drawing) document.title = `${state.drawing.board.name} — mapkit edit`;
  $("undo").disabled = !state.undo || !!state.read_only;
  $("redo").disabled = !state.redo || !!state.read_only;
  // the buttons say what they would do; the history lives in the server, so a reload keeps it
  $("undo").textContent = state.undo ? `Undo ${state.undo_what}` : "Undo";
  $("redo").textContent = state.redo ? `Redo ${state.redo_what}` : "Redo";
  $("undo").title = state.undo ? `Undo ${state.undo_what} (Ctrl+Z; ${state.undo} step${state.undo > 1 ? "s" : ""} kept)`
    : state.history_note || "Nothing to undo";
  $("redo").title = state.redo ? `Redo ${state.redo_what} (Ctrl+Shift+Z or Ctrl+Y)` : state.history_note || "Nothing to redo";
  $("layout-preview").disabled = !!state.layout || !!state.read_only || !state.loads;
  $("layout-preview").title = state.layout || "Lay the board out with mapkit layout and show the result before writing it";
  const rep = state.report;
  const players = $("players");
  const old = players.value;
  players.innerHTML = "";
  for (const n of (rep && rep.available ? rep.players : [])) players.add(new Option(`${n}`, `${n}`));
  if (old) players.value = old;
  $("overlay").disabled = !(rep && rep.available);
  $("overlay").title = rep && !rep.available ? rep.message : (rep && rep.message) || "";
  // one banner, worked out from the state each time: a refused write's reason (kept until the next
  // write goes through or it is closed), then a file that does not load, read-only, a cleared history
  const fresh = state.history_note && state.history_note !== shownNote;
  shownNote = state.history_note;
  if (notice) banner(notice.text, notice.kind, true);
  else if (!state.loads && state.empty) banner(`${state.file} is empty: start a board in the panel on the right.`);
  else if (!state.loads && state.drawing) banner(`${state.file} does not load: the problems are listed; the drawing is the last good one (version ${state.drawing.version}).`, "error");
  else if (!state.loads) banner(`${state.file} does not load: the problems are listed on the right.`, "error");
  else if (state.read_only) banner(state.read_only);
  else if (fresh) banner(`Reloaded: ${state.history_note}.`);
  else if (preview) banner("Layout preview: nothing is written until you press “Write it to the file”.");
  else if ($("banner").className === "error" || !state.history_note) banner("");
}

// ---------------------------------------------------------------- problems

function renderProblems() {
  const list = $("problems");
  list.innerHTML = "";
  $("problem-count").textContent = state.problem_count > state.problems.length
    ? `(the first ${state.problems.length} of ${state.problem_count})` : `(${state.problems.length})`;
  if (selected !== null && selected >= state.problems.length) selected = null;
  state.problems.forEach((p, i) => {
    const li = document.createElement("li");
    li.className = p.severity + (i === selected ? " selected" : "");
    li.dataset.index = i;
    li.innerHTML = `<span class="sev">${esc(p.severity)}</span>${p.new ? ' <span class="new">new</span>' : ""} [${esc(p.code)}] ${p.subject ? `<b>${esc(p.subject)}</b>: ` : ""}` +
      `${esc(p.message)}<br><span class="where">${esc(p.json_path)}</span>`;
    li.addEventListener("click", () => selectProblem(i));
    list.appendChild(li);
  });
  if (!state.problems.length) list.innerHTML = state.loads ? '<li class="none">No problems: the board passes every check.</li>' : "";
}

function stationById(id) { return state.stations.find((s) => s.id === id); }
function routeById(id) { return state.routes.find((r) => r.id === id); }

function drawProblems() {
  if (!svg) return;
  const g = layers.problems;
  g.innerHTML = "";
  const radius = state.drawing.station_radius, width = state.drawing.space_width;
  state.problems.forEach((p, i) => {
    const cls = `hl-${p.severity}` + (i === selected ? " hl-selected" : "");
    for (const rid of p.targets.routes) {
      const r = routeById(rid);
      if (r && r.centerline.length) el("polyline", { points: r.centerline.map((q) => q.join(",")).join(" "),
        class: `hl-route ${cls}`, "stroke-width": width * (i === selected ? 2 : 1.5), "data-problem": i }, g);
    }
    for (const sid of p.targets.stations) {
      const s = stationById(sid);
      if (s) el("circle", { cx: s.x, cy: s.y, r: radius * 1.8, class: `hl-station ${cls}`, "data-problem": i }, g);
    }
    if (p.targets.point) el("circle", { cx: p.targets.point[0], cy: p.targets.point[1], r: radius, class: `hl-station ${cls}` }, g);
  });
}

function selectProblem(i) {
  selected = selected === i ? null : i;
  renderProblems();
  drawProblems();
  if (selected === null || !svg) return;
  const t = state.problems[i].targets;
  const pts = [];
  for (const sid of t.stations) { const s = stationById(sid); if (s) pts.push([s.x, s.y]); }
  for (const rid of t.routes) { const r = routeById(rid); if (r) pts.push(...r.centerline); }
  if (t.point) pts.push(t.point);
  if (!pts.length) return;
  const xs = pts.map((q) => q[0]), ys = pts.map((q) => q[1]);
  const pad = 40;
  const w = Math.max(...xs) - Math.min(...xs) + 2 * pad, h = Math.max(...ys) - Math.min(...ys) + 2 * pad;
  const aspect = svg.clientWidth / Math.max(1, svg.clientHeight);
  const vw = Math.max(w, h * aspect), vh = vw / aspect;
  view = { x: (Math.max(...xs) + Math.min(...xs)) / 2 - vw / 2, y: (Math.max(...ys) + Math.min(...ys)) / 2 - vh / 2, w: vw, h: vh };
  setView();
}

// ---------------------------------------------------------------- hover

function showInfo(target) {
  const hover = layers.hover;
  if (hover) hover.innerHTML = "";
  if (typeof target === "string") target = svg && svg.querySelector(target);  // after a redraw: the same item, its new position
  if (!target) return;
  const sid = target.getAttribute("data-station"), rid = target.getAttribute("data-route");
  let html = "";
  if (sid) {
    const s = stationById(sid);
    if (!s) return;
    html = `<dl><dt>station</dt><dd><b>${esc(s.name)}</b></dd><dt>id</dt><dd>${esc(s.id)}</dd>` +
      `<dt>position</dt><dd>${s.x.toFixed(1)}, ${s.y.toFixed(1)} mm${s.placed ? "" : " (from lat/lon)"}${s.pinned ? ", pinned" : ""}</dd>` +
      `<dt>routes</dt><dd>${s.routes.length}</dd><dt>tickets</dt><dd>${s.tickets.map(esc).join("<br>") || "none"}</dd></dl>`;
  } else if (rid) {
    const r = routeById(rid);
    if (!r) return;
    html = `<dl><dt>route</dt><dd><b>${esc(r.id)}</b></dd><dt>joins</dt><dd>${esc(r.from)} – ${esc(r.to)}</dd>` +
      `<dt>color</dt><dd><span class="swatch" style="background:${esc(r.hex)}"></span> ${esc(r.color_name)} (${esc(r.color)})</dd>` +
      `<dt>length</dt><dd>${r.length}</dd><dt>kind</dt><dd>${esc(r.kind)}</dd>` +
      (r.double.length ? `<dt>double</dt><dd>with ${r.double.map(esc).join(", ")}</dd>` : "") +
      (r.bonus ? `<dt>bonus</dt><dd>${esc(r.bonus)}</dd>` : "") +
      `<dt>tickets</dt><dd>${r.tickets.length ? r.tickets.map(esc).join(", ") + "<br><span class=note>(their shortest connection uses it)</span>" : "none use it on a shortest connection"}</dd></dl>`;
    if (r.centerline.length && hover) el("polyline", { points: r.centerline.map((q) => q.join(",")).join(" "),
      class: "hover-route", "stroke-width": state.drawing.space_width * 1.6 }, hover);
  }
  const extra = overlayTip(sid, rid);
  $("info").innerHTML = html + extra;
}

// ---------------------------------------------------------------- dragging stations and waypoints

function drawHandles() {
  if (!svg || !layers.handles) return;
  layers.handles.innerHTML = "";
  if (!$("show-waypoints").checked || !state || state.read_only || preview) return;
  const size = state.drawing.station_radius * 0.9;
  for (const r of state.routes) {
    r.waypoints.forEach((w, j) => {
      el("rect", { x: w[0] - size / 2, y: w[1] - size / 2, width: size, height: size, class: "handle",
        "data-waypoint": j, "data-waypoint-route": r.id }, layers.handles);
    });
  }
}

function startDrag(evt) {
  if (!state || state.read_only || preview || !state.loads || busy) return false;
  const t = evt.target.closest ? evt.target.closest("[data-station],[data-waypoint-route]") : null;
  if (!t) return false;
  const sid = t.getAttribute("data-station");
  const wroute = t.getAttribute("data-waypoint-route");
  if (!sid && !wroute) return false;
  const p = toBoard(evt);
  let origin;
  if (sid) {
    const s = stationById(sid);
    if (!s) return false;
    origin = [s.x, s.y];
    drag = { kind: "station", id: sid, origin, start: [p.x, p.y], moved: [...svg.querySelectorAll(`[data-station="${CSS.escape(sid)}"]`)] };
  } else {
    const j = +t.getAttribute("data-waypoint");
    origin = routeById(wroute).waypoints[j];
    drag = { kind: "waypoint", id: wroute, waypoint: j, origin, start: [p.x, p.y], moved: [t] };
  }
  window.mapkit.pointer = evt.pointerType;  // mouse, pen or touch: one code path for all three
  drag.ghost = el("circle", { cx: origin[0], cy: origin[1], r: state.drawing.station_radius * 1.3, class: "ghost" }, layers.drag);
  svg.setPointerCapture && svg.setPointerCapture(evt.pointerId);
  return true;
}

function moveDrag(evt) {
  const p = toBoard(evt);
  const dx = p.x - drag.start[0], dy = p.y - drag.start[1];
  for (const e of drag.moved) e.setAttribute("transform", `translate(${dx} ${dy})`);
  drag.ghost.setAttribute("cx", drag.origin[0] + dx);
  drag.ghost.setAttribute("cy", drag.origin[1] + dy);
  drag.to = [drag.origin[0] + dx, drag.origin[1] + dy];
  $("info").innerHTML = `<dl><dt>${drag.kind}</dt><dd>${esc(drag.id)}</dd><dt>to</dt><dd>${drag.to[0].toFixed(1)}, ${drag.to[1].toFixed(1)} mm</dd></dl>`;
}

async function endDrag() {
  const d = drag;
  drag = null;
  if (!d.to || Math.hypot(d.to[0] - d.origin[0], d.to[1] - d.origin[1]) < 0.2) {
    for (const e of d.moved) e.removeAttribute("transform");
    d.ghost.remove();
    return;
  }
  const body = { kind: d.kind, id: d.id, x: d.to[0], y: d.to[1], hash: state.hash };
  if (d.kind === "waypoint") body.waypoint = d.waypoint;
  await write("/api/move", body, "redraw after move");
}

async function write(path, body, reason) {
  const t0 = performance.now();
  busy = true;
  try {
    const r = await post(path, body);
    notice = null;
    await load(reason);
    const ms = performance.now() - t0;
    window.mapkit.last.total_ms = ms;
    status(`${r.done}: written, checked and redrawn in ${ms.toFixed(0)} ms · ` + $("status").textContent);
  } catch (e) {
    notice = { text: `Not written: ${e.message.replace(/^not written: /i, "")}`, kind: "error" };
    window.mapkit.refused = (window.mapkit.refused || 0) + 1;
    await load("reload after refused write");
  } finally {
    busy = false;
  }
}

// ---------------------------------------------------------------- zoom and pan

function setupMap() {
  const map = $("map");
  let pan = null;
  let down = null;
  map.addEventListener("pointerdown", (evt) => {
    if (!svg || evt.button !== 0) return;
    down = { x: evt.clientX, y: evt.clientY, evt };
    if (mode === "select" && startDrag(evt)) { evt.preventDefault(); return; }
    pan = { x: evt.clientX, y: evt.clientY, view: { ...view } };
    map.classList.add("panning");
  });
  window.addEventListener("pointermove", (evt) => {
    if (drag) { moveDrag(evt); return; }
    if (pan && svg) {
      const k = view.w / svg.clientWidth;
      const kk = Math.max(k, view.h / svg.clientHeight);
      view = { ...pan.view, x: pan.view.x - (evt.clientX - pan.x) * kk, y: pan.view.y - (evt.clientY - pan.y) * kk };
      setView();
    }
  });
  window.addEventListener("pointerup", (evt) => {
    const click = down && Math.hypot(evt.clientX - down.x, evt.clientY - down.y) < 4;
    const first = down && down.evt;
    down = null;
    if (drag) {
      if (click) { drag.to = null; endDrag(); mapClick(first); } else endDrag();
    } else if (click && first) {
      if (pan) { view = pan.view; setView(); }
      mapClick(first);
    }
    pan = null;
    map.classList.remove("panning");
  });
  map.addEventListener("wheel", (evt) => {
    if (!svg) return;
    evt.preventDefault();
    const p = toBoard(evt);
    const k = Math.exp(evt.deltaY * 0.0015);
    view = { x: p.x - (p.x - view.x) * k, y: p.y - (p.y - view.y) * k, w: view.w * k, h: view.h * k };
    setView();
  }, { passive: false });
  map.addEventListener("pointerover", (evt) => {
    if (drag) return;
    const t = evt.target.closest ? evt.target.closest("[data-station],[data-route],[data-waypoint-route]") : null;
    if (t && t.getAttribute("data-waypoint-route")) {
      $("info").textContent = `waypoint ${+t.getAttribute("data-waypoint") + 1} of route ${t.getAttribute("data-waypoint-route")} (drag it)`;
      return;
    }
    if (t) { hovered = t.getAttribute("data-station") ? `[data-station="${CSS.escape(t.getAttribute("data-station"))}"]`
      : `[data-route="${CSS.escape(t.getAttribute("data-route"))}"]`; showInfo(t); }
  });
}

// ---------------------------------------------------------------- layout preview

let layoutJob = null;       // the layout job running (its id), if any

function showRun(st) {
  $("layout-run").hidden = st.state !== "running";
  const bar = $("layout-progress");
  if (st.expected) bar.value = Math.min(0.99, st.elapsed / st.expected); else bar.removeAttribute("value");
  $("layout-elapsed").textContent = `${st.elapsed.toFixed(1)} s` + (st.expected
    ? ` of about ${st.expected} s (${st.estimated ? "the last layout's time a station, times this board's stations" : "the last layout of this file"})`
    : " (no estimate yet: mapkit layout reports no stages)");
}

async function layoutPreview() {
  $("layout-preview").disabled = true;
  status("laying the board out…");
  try {
    // "refine this drawing": the geographic layout from the board as drawn (mapkit layout --refine)
    const mode = $("layout-style").value;
    let st = await post("/api/layout/preview", mode === "refine"
      ? { hash: state.hash, style: "geographic", refine: true } : { hash: state.hash, style: mode });
    layoutJob = st.job;
    showRun(st);
    while (st.state === "running") {
      await sleep(250);
      st = await api(`/api/layout/status?job=${encodeURIComponent(st.job)}`);
      showRun(st);
    }
    layoutJob = null;
    $("layout-run").hidden = true;
    if (st.state === "cancelled") {
      banner(`Layout cancelled after ${st.elapsed.toFixed(1)} s: its process was stopped and nothing was written.`);
      return;
    }
    if (st.state !== "done") throw new Error(st.error || st.state);
    const r = st.preview;
    preview = r;
    drawBoard(r.svg);
    const errs = r.problems_after.filter((p) => p.severity === "error").length;
    const warns = r.problems_after.length - errs;
    const codes = {};
    for (const p of r.problems_after) codes[p.code] = (codes[p.code] || 0) + 1;
    const figs = figureRows(r.figures || {});
    $("layout-info").innerHTML = `<p>${r.style} layout: ${r.stations_moved} station positions, ${r.changes} values in all.` +
      ` After it: ${errs} error(s), ${warns} warning(s)` +
      (r.problems_after.length ? ` (${Object.entries(codes).map(([c, n]) => `${esc(c)} ${n}`).join(", ")})` : "") + ".</p>" +
      (r.layout_problems.length ? `<p>Could not fit:</p><ul>${r.layout_problems.map((p) => `<li>${esc(p)}</li>`).join("")}</ul>` : "") +
      `<table class="figures">${figs}</table>`;
    $("layout-box").hidden = false;
    renderHeader();
    renderMake();
  } catch (e) {
    banner(`Layout: ${e.message}`, "error");
  } finally {
    layoutJob = null;
    $("layout-run").hidden = true;
    $("layout-preview").disabled = false;
    status("");
  }
}

// the layout's figures as a table a person reads: the main ones by name, the rest folded away
const pctOf = (v) => `${(100 * v).toFixed(0)} %`;
const FIGURES = [
  ["board_mm", "board", (v) => `${v[0]} × ${v[1]} mm`],
  ["errors", "errors left"], ["warnings", "warnings left"], ["crossings", "crossings"],
  ["stretched_routes", "routes stretched"], ["routes_over_gap", "routes with a gap over the rule"],
  ["largest_gap_mm", "largest gap between spaces", (v) => `${v} mm`],
  ["direction_error_deg_mean", "mean direction error", (v) => `${v}°`],
  ["direction_error_deg_max", "largest direction error", (v) => `${v}°`],
  ["within_45deg", "routes within 45° of their direction", pctOf],
  ["empty_share", "board left empty", pctOf],
  ["fill_w", "stations fill, across", pctOf], ["fill_h", "stations fill, down", pctOf],
  ["labels_without_room_10pt", "names without room at 10 pt", (v) => (v.length ? v.join(", ") : "none")],
  ["refined", "refined by"], ["fill_note", "fill"],
];
function figureCell(v) {
  if (typeof v === "number") return Number.isInteger(v) ? `${v}` : v.toFixed(Math.abs(v) < 10 ? 2 : 1);
  if (Array.isArray(v)) return v.map(figureCell).join(" → ");
  if (v && typeof v === "object") return Object.entries(v).map(([k, x]) => `${k.replace(/_/g, " ")} ${figureCell(x)}`).join(", ");
  return `${v}`;
}
function figureRows(figs) {
  const known = new Set();
  const main = FIGURES.filter(([k]) => k in figs).map(([k, name, fmt]) => {
    known.add(k);
    return `<tr><th>${esc(name)}</th><td>${esc(fmt ? fmt(figs[k]) : figureCell(figs[k]))}</td></tr>`;
  }).join("");
  const rest = Object.entries(figs).filter(([k]) => !known.has(k))
    .map(([k, v]) => `<tr><th>${esc(k.replace(/_mm$/, " (mm)").replace(/_/g, " "))}</th><td>${esc(figureCell(v))}</td></tr>`).join("");
  return main + (rest ? `<tr><td colspan="2"><details><summary>more figures</summary><table class="figures">${rest}</table></details></td></tr>` : "");
}

async function layoutCancel() {
  if (!layoutJob) return;
  $("layout-cancel").disabled = true;
  try { await post("/api/layout/cancel", { job: layoutJob }); } catch (e) { banner(`Cancel: ${e.message}`, "error"); }
  $("layout-cancel").disabled = false;
}

async function layoutDone(apply) {
  const p = preview;
  preview = null;
  $("layout-box").hidden = true;
  banner("");
  if (apply) await write("/api/layout/apply", { hash: state.hash, preview: p.preview }, "redraw after layout");
  else await load("layout preview discarded");
}

// ---------------------------------------------------------------- following the file

async function follow() {
  for (;;) {
    try {
      const r = await api(`/api/wait?since=${rev}&timeout=10`);
      if (r.rev !== rev && !drag && !busy) {
        const version = state ? state.version : null;
        await load("…");
        // the same version redrawn means the print's label placement arrived
        window.mapkit.last.reason = version === state.version ? "labels placed as printed" : "reloaded: the file changed";
        status($("status").textContent.replace(/^…/, window.mapkit.last.reason));
      }
    } catch (e) {
      status(`the editor's server does not answer (${e.message}); retrying`);
      await sleep(1000);
    }
  }
}

async function main() {
  setupMap();
  $("undo").addEventListener("click", () => write("/api/undo", { hash: state.hash }, "redraw after undo"));
  $("redo").addEventListener("click", () => write("/api/redo", { hash: state.hash }, "redraw after redo"));
  $("fit").addEventListener("click", () => { if (svg) { view = { x: 0, y: 0, w: +svg.getAttribute("data-width"), h: +svg.getAttribute("data-height") }; setView(); } });
  $("layout-preview").addEventListener("click", layoutPreview);
  $("layout-cancel").addEventListener("click", layoutCancel);
  $("layout-apply").addEventListener("click", () => layoutDone(true));
  $("layout-discard").addEventListener("click", () => layoutDone(false));
  $("overlay").addEventListener("change", () => showOverlay());
  $("players").addEventListener("change", () => showOverlay());
  $("show-waypoints").addEventListener("change", drawHandles);
  setupMake();
  window.addEventListener("resize", scaleLabels);
  document.addEventListener("keydown", (evt) => {
    if (!(evt.ctrlKey || evt.metaKey) || !state || state.read_only) return;
    if (evt.target.closest && evt.target.closest("input,textarea")) return;
    const k = evt.key.toLowerCase();
    if (k === "z" && !evt.shiftKey && state.undo) { evt.preventDefault(); write("/api/undo", { hash: state.hash }, "redraw after undo"); }
    if ((k === "y" || (k === "z" && evt.shiftKey)) && state.redo) { evt.preventDefault(); write("/api/redo", { hash: state.hash }, "redraw after redo"); }
  });
  if (!TOKEN) { banner("This address has no token: open the address `mapkit edit` printed.", "error"); return; }
  try {
    await load("loaded");
  } catch (e) {
    banner(`Cannot load the board: ${e.message}`, "error");
  }
  follow();
}

main();
