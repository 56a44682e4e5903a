// mapkit edit: the report overlays (claim heatmap, ticket paths, color use), drawn over the board.
// Loaded before app.js, whose globals (state, layers, overlayData, el, esc, pct, $) these use when called.
"use strict";


const HEAT = [[255, 255, 204], [254, 178, 76], [240, 59, 32], [128, 0, 38]];
function heat(t) {
  t = Math.min(1, Math.max(0, t)) * (HEAT.length - 1);
  const i = Math.min(HEAT.length - 2, Math.floor(t)), f = t - i;
  const c = HEAT[i].map((v, k) => Math.round(v + (HEAT[i + 1][k] - v) * f));
  return `rgb(${c.join(",")})`;
}
function completionColor(t) { // red (never completed) to green (always)
  t = Math.min(1, Math.max(0, t ?? 0));
  return `hsl(${Math.round(120 * t)}, 75%, 40%)`;
}

function polylineOf(ids, attrs, parent) {
  for (const rid of ids) {
    const r = routeById(rid);
    if (r && r.centerline.length) el("polyline", { points: r.centerline.map((q) => q.join(",")).join(" "), class: "ov-route", ...attrs }, parent);
  }
}

async function showOverlay(keep = false) {
  const kind = $("overlay").value;
  const box = $("overlay-box");
  if (layers.overlay) layers.overlay.innerHTML = "";
  if (kind === "none" || !state.report || !state.report.available) {
    box.hidden = true;
    overlayData = null;
    return;
  }
  if (!keep || !overlayData || overlayData.kind !== kind || `${overlayData.players}` !== $("players").value) {
    const n = $("players").value;
    try {
      overlayData = await api(`/api/overlay?kind=${kind}` + (n ? `&players=${n}` : ""));
    } catch (e) {
      banner(`Overlay: ${e.message}`, "error");
      return;
    }
  }
  const o = overlayData;
  box.hidden = false;
  const who = `${o.players} players, ${o.games} games between AI agents (${o.agents.map(esc).join(", ")}): the rates depend on how these agents play.`;
  const w = state.drawing ? state.drawing.space_width : 10;
  if (kind === "heatmap") {
    const shares = Object.values(o.routes);
    const max = Math.max(0.0001, ...shares);
    for (const [rid, s] of Object.entries(o.routes)) polylineOf([rid], { stroke: heat(s / max), "stroke-width": w * 1.3, opacity: 0.85 }, layers.overlay);
    $("overlay-title").textContent = "Claim heatmap";
    $("overlay-info").innerHTML = `<p class="note">How often each route was claimed. ${who}</p>` +
      `<div class="legend-bar" style="background:linear-gradient(to right,${[0, 0.33, 0.66, 1].map(heat).join(",")})"></div>` +
      `<div class="note">0 % … ${pct(max)} of games</div>` +
      `<p>Least claimed:</p><ol class="tickets">${Object.entries(o.routes).sort((a, b) => a[1] - b[1]).slice(0, 8)
        .map(([rid, s]) => `<li>${esc(rid)}: ${pct(s)}</li>`).join("")}</ol>`;
  } else if (kind === "tickets") {
    $("overlay-title").textContent = "Ticket paths";
    const rows = [...o.tickets].sort((a, b) => (a.completion ?? 2) - (b.completion ?? 2));
    const draw = (only) => {
      layers.overlay.innerHTML = "";
      for (const t of rows) {
        if (only && t.ticket !== only) continue;
        polylineOf(t.routes, { stroke: completionColor(t.completion), "stroke-width": only ? w * 1.2 : w * 0.45, opacity: only ? 0.9 : 0.55 }, layers.overlay);
      }
    };
    draw(null);
    $("overlay-info").innerHTML = `<p class="note">Each ticket's shortest connection, colored by how often its holders completed it (red never, green always; 95 % intervals). ${who} Click a ticket to show it alone.</p>` +
      `<ol class="tickets">${rows.map((t) => `<li data-ticket="${esc(t.ticket)}"><span class="swatch" style="background:${completionColor(t.completion)}"></span> ` +
        `${esc(t.ticket)} (${t.points}): ${pct(t.completion)} [${pct(t.low)}–${pct(t.high)}], held ${t.held}</li>`).join("")}</ol>`;
    for (const li of $("overlay-info").querySelectorAll("li[data-ticket]")) {
      li.addEventListener("click", () => {
        const on = li.classList.toggle("selected");
        for (const other of li.parentNode.children) if (other !== li) other.classList.remove("selected");
        draw(on ? li.dataset.ticket : null);
      });
    }
  } else if (kind === "colors") {
    $("overlay-title").textContent = "Color use";
    const colors = Object.entries(o.colors);
    const hexOf = (c) => { const r = state.routes.find((x) => x.color === c); return r ? r.hex : "#a0a0a0"; };
    $("overlay-info").innerHTML = `<p class="note">Share of each color's routes claimed, with its 95 % interval, and wild cards spent per claim. ${who} Hover a row to see its routes.</p>` +
      `<table class="colors"><tr><th>color</th><th>claimed</th><th>wilds/claim</th><th>claims</th></tr>` +
      colors.map(([c, u]) => `<tr data-color="${esc(c)}"><td><span class="swatch" style="background:${esc(hexOf(c))}"></span> ${esc(c)}</td>` +
        `<td>${pct(u.claimed_share)} [${pct(u.low)}–${pct(u.high)}]</td><td>${u.wilds_per_claim ?? "–"}</td><td>${u.claims ?? "–"}</td></tr>`).join("") + "</table>";
    for (const tr of $("overlay-info").querySelectorAll("tr[data-color]")) {
      tr.addEventListener("mouseenter", () => {
        layers.overlay.innerHTML = "";
        polylineOf(state.routes.filter((r) => r.color === tr.dataset.color).map((r) => r.id),
          { stroke: "#1e88e5", "stroke-width": w * 1.5, opacity: 0.6 }, layers.overlay);
      });
    }
  }
}

function overlayTip(sid, rid) {
  if (!overlayData || !rid) return "";
  if (overlayData.kind === "heatmap" && rid in overlayData.routes) return `<p>claimed in ${pct(overlayData.routes[rid])} of games (${overlayData.players} players)</p>`;
  if (overlayData.kind === "tickets") {
    const on = overlayData.tickets.filter((t) => t.routes.includes(rid));
    return on.length ? `<p>on the path of ${on.map((t) => `${esc(t.ticket)} (${pct(t.completion)})`).join(", ")}</p>` : "";
  }
  return "";
}

