// Served as it is; edit here.
/// The operations console's script.
enum ConsoleScript {
    static let text = #"""
// The operations console: a snapshot, then deltas over Server-Sent Events (a reset reloads the snapshot).
"use strict";
const COLORS = { idle: "#5b7083", trip: "#1f9d55", late: "#e0463c", stale: "#b8c0c8" };
const state = {
  drivers: new Map(),   // id -> [lon, lat, lastFixSeconds, state, worldX, worldY]
  trips: new Map(),     // user + "\n" + trip -> trip
  tripByUser: new Map(),
  geofences: new Map(),
  events: [],
  streamTime: 0,
  staleMs: 5 * 60000,
  selected: null,
  eventTimes: [],
  lagMs: null,
  lagSamples: [],      // ms from a users-topic record's Kafka timestamp to the frame that draws it
  arrivalSamples: [],  // ms from that timestamp to the delta's arrival in the page
  firstDraw: null,
  fitted: false,
};
window.consoleState = state;
const map = new CanvasMap(document.getElementById("map"));
const $ = (id) => document.getElementById(id);
const text = (s) => document.createTextNode(s == null ? "" : String(s));

function driverClass(d) {
  if (state.streamTime && state.streamTime - d[2] * 1000 > state.staleMs) return "stale";
  return d[3] === 2 ? "late" : d[3] === 1 ? "trip" : "idle";
}
function putDriver(row) {
  const w = CanvasMap.world(row[1], row[2]);
  state.drivers.set(row[0], [row[1], row[2], row[3], row[4], w[0], w[1]]);
}
function putTrip(t) {
  const key = t.user + "\n" + t.trip;
  if (t.active) { state.trips.set(key, t); state.tripByUser.set(t.user, t); }
  else { state.trips.delete(key); if (state.tripByUser.get(t.user)?.trip === t.trip) state.tripByUser.delete(t.user); }
}
function putEvents(events) {
  for (const e of events) state.events.push(e);
  if (state.events.length > 300) state.events.splice(0, state.events.length - 300);
}

map.layers.push((ctx, m) => {
  for (const fence of state.geofences.values()) drawGeofence(ctx, m, fence, "#7b61ff88", "#7b61ff18");
});
map.layers.push((ctx, m) => {
  const [w, h] = m.size(), scale = Math.pow(2, m.zoom);
  const size = m.zoom > 14 ? 6 : m.zoom > 11 ? 4 : 3, half = size / 2;
  const paths = { idle: new Path2D(), trip: new Path2D(), late: new Path2D(), stale: new Path2D() };
  const cx = m.center[0], cy = m.center[1];
  for (const d of state.drivers.values()) {
    const x = (d[4] - cx) * scale + w / 2, y = (d[5] - cy) * scale + h / 2;
    if (x < -5 || y < -5 || x > w + 5 || y > h + 5) continue;
    paths[driverClass(d)].rect(x - half, y - half, size, size);
  }
  for (const kind of ["stale", "idle", "trip", "late"]) { ctx.fillStyle = COLORS[kind]; ctx.fill(paths[kind]); }
  const sel = state.selected && state.drivers.get(state.selected);
  if (sel) {
    const [x, y] = m.screen(sel[4], sel[5]);
    ctx.beginPath(); ctx.arc(x, y, 9, 0, 2 * Math.PI);
    ctx.strokeStyle = "#111"; ctx.lineWidth = 2; ctx.stroke();
  }
  if (state.drivers.size && state.firstDraw == null) state.firstDraw = performance.now();
  if (state.pendingRecordAt) {
    state.lagMs = Date.now() - state.pendingRecordAt;
    state.lagSamples.push(state.lagMs);
    if (state.lagSamples.length > 500) state.lagSamples.shift();
    state.pendingRecordAt = 0;
  }
});
map.onClick = (sx, sy) => {
  let best = null, bestDistance = 64;
  for (const [id, d] of state.drivers) {
    const [x, y] = map.screen(d[4], d[5]);
    const distance = (x - sx) ** 2 + (y - sy) ** 2;
    if (distance < bestDistance) { best = id; bestDistance = distance; }
  }
  select(best, false);
};
$("zoom-in").onclick = () => { const [w, h] = map.size(); map.zoomAt(w / 2, h / 2, 1); };
$("zoom-out").onclick = () => { const [w, h] = map.size(); map.zoomAt(w / 2, h / 2, -1); };

function select(id, focus) {
  state.selected = id;
  const box = $("selected");
  box.replaceChildren();
  const d = id && state.drivers.get(id);
  const playbackUser = $("playback-user");
  if (id && playbackUser && document.activeElement !== playbackUser) playbackUser.value = id;
  if (d) {
    const title = document.createElement("b"); title.append(text(id)); box.append(title);
    const age = state.streamTime ? Math.round((state.streamTime - d[2] * 1000) / 1000) : null;
    box.append(document.createElement("br"), text(`${driverClass(d)} · last fix ${age == null ? "?" : age + " s"} before the newest`));
    const trip = state.tripByUser.get(id);
    if (trip) box.append(document.createElement("br"), text(`trip ${trip.trip}: ${trip.status}${trip.eta != null ? ", ETA " + etaText(trip) : ""}`));
    if (focus) map.focus(d[0], d[1], 14);
  }
  map.request();
}
function etaText(t) {
  if (t.eta == null) return "";
  let s = `${Math.round(t.eta)} min`;
  if (t.etaLow != null && t.etaHigh != null) s += ` (${Math.round(t.etaLow)}–${Math.round(t.etaHigh)})`;
  return s;
}
function time(ms) { return new Date(ms).toISOString().slice(11, 19); }

let tripsDirty = true, feedDirty = true;
function renderTrips() {
  const status = $("status-filter").value, tag = $("tag-filter").value;
  const tags = new Set();
  const rows = [];
  for (const t of state.trips.values()) {
    if (t.tag) tags.add(t.tag);
    if (status === "delayed" ? !t.delayed : status && t.status !== status) continue;
    if (tag && t.tag !== tag) continue;
    rows.push(t);
  }
  const tagSelect = $("tag-filter");
  if (tagSelect.options.length - 1 !== tags.size) {
    const current = tagSelect.value;
    tagSelect.replaceChildren(new Option("all tags", ""), ...[...tags].sort().map((x) => new Option(x, x)));
    tagSelect.value = current;
  }
  const order = { approaching: 0, started: 1, pending: 2, arrived: 3 };
  rows.sort((a, b) => (b.delayed - a.delayed) || ((order[a.status] ?? 4) - (order[b.status] ?? 4)) || ((a.eta ?? 1e9) - (b.eta ?? 1e9)));
  $("trip-count").textContent = `${rows.length}`;
  const list = $("trips");
  list.replaceChildren(...rows.slice(0, 200).map((t) => {
    const row = document.createElement("div");
    row.className = "row trip";
    row.dataset.user = t.user;
    const id = document.createElement("b"); id.append(text(t.trip));
    const status = document.createElement("span"); status.className = "status"; status.append(text(` ${t.status} `));
    row.append(id, status, text(`${t.user}${t.dest ? " → " + t.dest : ""} `));
    if (t.eta != null && t.status !== "arrived") { const eta = document.createElement("span"); eta.className = "eta"; eta.append(text("ETA " + etaText(t))); row.append(eta); }
    for (const [flag, on] of [["approaching", t.status === "approaching"], ["arrived", t.status === "arrived"], ["delayed", t.delayed]]) {
      if (!on) continue;
      const badge = document.createElement("span"); badge.className = "badge " + flag;
      badge.append(text(flag === "delayed" ? `late ${t.late} min` : flag));
      row.append(badge);
    }
    row.onclick = () => select(t.user, true);
    return row;
  }));
}
function renderFeed() {
  const list = $("feed");
  const updates = $("updates-filter").checked;
  list.replaceChildren(...state.events.filter((e) => updates || e.type !== "user.updated_trip").slice(-100).reverse().map((e) => {
    const row = document.createElement("div");
    row.className = "row event";
    row.dataset.user = e.user;
    const t = document.createElement("span"); t.className = "t"; t.append(text(time(e.at)));
    const type = document.createElement("span"); type.className = "type"; type.append(text(e.type));
    row.append(t, type, text(e.user + (e.geofence ? " · " + e.geofence : "") + (e.trip ? " · trip " + e.trip : "")));
    row.onclick = () => select(e.user, true);
    return row;
  }));
}
function renderStats() {
  let counts = { idle: 0, trip: 0, late: 0, stale: 0 };
  for (const d of state.drivers.values()) counts[driverClass(d)]++;
  const now = Date.now();
  state.eventTimes = state.eventTimes.filter((x) => now - x[0] < 10000);
  const rate = state.eventTimes.reduce((s, x) => s + x[1], 0) / 10;
  $("stats").replaceChildren(...[
    ["drivers", state.drivers.size], ["on a trip", counts.trip], ["late", counts.late], ["stale", counts.stale],
    ["events/s", rate.toFixed(1)], ["positions behind topic", state.lagMs == null ? "–" : (state.lagMs / 1000).toFixed(1) + " s"],
  ].flatMap(([label, value]) => { const b = document.createElement("b"); b.append(text(value)); return [b, text(" " + label + "  ")]; }));
}
setInterval(() => {
  if (tripsDirty) { tripsDirty = false; renderTrips(); }
  if (feedDirty) { feedDirty = false; renderFeed(); }
  renderStats();
  if (state.selected) select(state.selected, false);
}, 1000);
$("status-filter").onchange = $("tag-filter").onchange = () => renderTrips();
$("updates-filter").onchange = () => renderFeed();

function applySnapshot(s) {
  state.drivers.clear(); state.trips.clear(); state.tripByUser.clear(); state.geofences.clear(); state.events = [];
  state.streamTime = s.streamTime;
  for (const row of s.drivers) putDriver(row);
  for (const t of s.trips) putTrip(t);
  for (const f of s.geofences) state.geofences.set(f.key, f);
  putEvents(s.events);
  state.pendingRecordAt = s.newestUserRecordAt;
  if (!state.fitted) {
    const points = [...state.geofences.values()].map(fenceCenter);
    if (points.length < 2) for (const d of state.drivers.values()) { points.push([d[0], d[1]]); if (points.length > 5000) break; }
    if (points.length) { map.fit(points); state.fitted = true; }
  }
  tripsDirty = feedDirty = true;
  map.request();
}
function applyDelta(d) {
  state.streamTime = Math.max(state.streamTime, d.streamTime);
  for (const row of d.drivers) putDriver(row);
  for (const id of d.removedDrivers) state.drivers.delete(id);
  for (const t of d.trips) putTrip(t);
  for (const f of d.geofences) state.geofences.set(f.key, f);
  for (const key of d.removedGeofences) state.geofences.delete(key);
  if (d.events.length) { putEvents(d.events); feedDirty = true; state.eventTimes.push([Date.now(), d.eventCount]); }
  if (d.trips.length) tripsDirty = true;
  if (d.drivers.length) {
    state.pendingRecordAt = d.newestUserRecordAt;
    state.arrivalSamples.push(Date.now() - d.newestUserRecordAt);
    if (state.arrivalSamples.length > 500) state.arrivalSamples.shift();
  }
  if (!state.fitted && (state.geofences.size || state.drivers.size)) {
    const points = [...state.geofences.values()].map(fenceCenter);
    for (const dr of state.drivers.values()) { points.push([dr[0], dr[1]]); if (points.length > 5000) break; }
    map.fit(points); state.fitted = true;
  }
  if (d.drivers.length || d.removedDrivers.length || d.geofences.length || d.removedGeofences.length) map.request();
}

let source = null;
async function load() {
  if (source) { source.close(); source = null; }
  try {
    const response = await fetch("/api/snapshot", { credentials: "same-origin" });
    if (!response.ok) throw new Error(response.status);
    const snapshot = await response.json();
    applySnapshot(snapshot);
    connect(snapshot.sequence);
  } catch (error) {
    $("connection").textContent = "offline, retrying";
    setTimeout(load, 2000);
  }
}
function connect(since) {
  source = new EventSource("/api/live?since=" + since);
  source.addEventListener("delta", (e) => { $("connection").textContent = "live"; applyDelta(JSON.parse(e.data)); });
  source.addEventListener("reset", () => load());
  source.onerror = () => { $("connection").textContent = "reconnecting"; };
}

async function config() {
  const c = await (await fetch("/api/config", { credentials: "same-origin" })).json();
  state.staleMs = c.staleMinutes * 60000;
  if (c.tiles) { map.tiles = c.tiles; map.request(); }
  if (c.metrics) { $("chart-section").hidden = false; setInterval(chart, 2000); chart(); }
}
async function chart() {
  let samples;
  try { samples = await (await fetch("/api/metrics", { credentials: "same-origin" })).json(); } catch { return; }
  const canvas = $("chart"), ctx = canvas.getContext("2d");
  const ratio = window.devicePixelRatio || 1, w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = w * ratio; canvas.height = h * ratio; ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  if (samples.length < 2) return;
  const t0 = samples[0][0], t1 = samples[samples.length - 1][0];
  for (const [index, color, label] of [[1, "#2f80ed", "lag"], [2, "#f2994a", "events/s"]]) {
    const max = Math.max(1, ...samples.map((s) => s[index]));
    ctx.beginPath();
    samples.forEach((s, i) => {
      const x = 4 + (w - 8) * (s[0] - t0) / Math.max(1, t1 - t0), y = h - 14 - (h - 24) * s[index] / max;
      if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
    });
    ctx.strokeStyle = color; ctx.lineWidth = 1.5; ctx.stroke();
    ctx.fillStyle = color; ctx.font = "11px system-ui";
    ctx.fillText(`${label} ${Math.round(samples[samples.length - 1][index])} (max ${Math.round(max)})`, index === 1 ? 4 : w / 2, h - 2);
  }
}
for (const [kind, color] of Object.entries(COLORS)) { const dot = document.querySelector(`#legend .${kind} i`); if (dot) dot.style.background = color; }
config();
load();
"""#
}
