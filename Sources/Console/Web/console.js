// The operations console: a snapshot, then numbered deltas over Server-Sent Events (live.js decides what a
// delta, a reset or a dropped stream means). Needs geo.js, format.js, feed.js, live.js and map.js first.
"use strict";
// Fill colours by driver class; late and stale drivers are also drawn in another shape (see `drawDrivers`).
const COLORS = { idle: "#5b7083", trip: "#1f9d55", late: "#e0463c", stale: "#8a949e" };
const state = {
  drivers: new Map(),   // id -> [lon, lat, lastFixSeconds, state, worldX, worldY]
  trips: new Map(),     // user + "\n" + trip -> trip
  tripByUser: new Map(),
  geofences: new Map(),
  events: [],
  streamTime: 0,
  staleMs: 5 * 60000,
  selected: null,
  eventSamples: [],    // [page time, events read] per delta, for the events/s figure
  eventsPerSecond: 0,
  clockOffset: 0,      // the console's clock minus the page's (Live.clockOffset)
  lagMs: null,
  lagSamples: [],      // ms from a users-topic record's Kafka timestamp to the frame that draws it
  arrivalSamples: [],  // ms from that timestamp to the delta's arrival in the page
  pendingRecordAt: 0,
  firstDraw: null,
  fitted: false,
  live: Live.initial(),
  connections: 0,      // streams opened (the browser check forces a reconnect and counts)
};
window.consoleState = state;
const map = new CanvasMap(document.getElementById("map"));
window.consoleMap = map;
const $ = (id) => document.getElementById(id);
const text = (s) => document.createTextNode(s == null ? "" : String(s));
const element = (tag, className, ...children) => {
  const e = document.createElement(tag);
  if (className) e.className = className;
  e.append(...children.map((c) => (typeof c === "string" ? text(c) : c)));
  return e;
};
const driverClass = (d) => Format.driverClass(d, state.streamTime, state.staleMs);

function putDriver(row) {
  const w = Geo.world(row[1], row[2]);
  state.drivers.set(row[0], [row[1], row[2], row[3], row[4], w[0], w[1]]);
}
function putTrip(t) {
  const key = t.user + "\n" + t.trip;
  if (t.active) { state.trips.set(key, t); state.tripByUser.set(t.user, t); }
  else { state.trips.delete(key); if (state.tripByUser.get(t.user)?.trip === t.trip) state.tripByUser.delete(t.user); }
}

map.layers.push((ctx, m) => {
  for (const fence of state.geofences.values()) drawGeofence(ctx, m, fence, "#7b61ff88", "#7b61ff18");
});
// Drivers as squares by class: idle and on a trip small and filled; late larger with a dark rim; stale hollow.
function drawDrivers(ctx, m) {
  const [w, h] = m.size(), scale = Math.pow(2, m.zoom);
  const size = m.zoom > 14 ? 6 : m.zoom > 11 ? 4 : 3;
  const paths = { idle: new Path2D(), trip: new Path2D(), late: new Path2D(), stale: new Path2D() };
  const cx = m.center[0], cy = m.center[1];
  for (const d of state.drivers.values()) {
    const x = (d[4] - cx) * scale + w / 2, y = (d[5] - cy) * scale + h / 2;
    if (x < -8 || y < -8 || x > w + 8 || y > h + 8) continue;
    const kind = driverClass(d), s = kind === "late" || kind === "stale" ? size + 3 : size;
    paths[kind].rect(x - s / 2, y - s / 2, s, s);
  }
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = COLORS.stale; ctx.stroke(paths.stale);
  for (const kind of ["idle", "trip", "late"]) { ctx.fillStyle = COLORS[kind]; ctx.fill(paths[kind]); }
  ctx.strokeStyle = "#7a1d17"; ctx.stroke(paths.late);
}
map.layers.push((ctx, m) => {
  drawDrivers(ctx, m);
  const sel = state.selected && state.drivers.get(state.selected);
  if (sel) {
    const [x, y] = m.screen(sel[4], sel[5]);
    ctx.beginPath(); ctx.arc(x, y, 9, 0, 2 * Math.PI);
    ctx.strokeStyle = "#111"; ctx.lineWidth = 2; ctx.stroke();
  }
  if (state.drivers.size && state.firstDraw == null) state.firstDraw = performance.now();
  if (state.pendingRecordAt) {
    state.lagMs = Live.behind(state.pendingRecordAt, Date.now(), state.clockOffset);
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
    const age = state.streamTime ? Math.round((state.streamTime - d[2] * 1000) / 1000) : null;
    box.append(element("b", null, id), element("br"),
               text(`${driverClass(d)} · last fix ${age == null ? "?" : age + " s"} before the newest`));
    const trip = state.tripByUser.get(id);
    if (trip) {
      const eta = Format.eta(trip);
      box.append(element("br"), text(`trip ${trip.trip}: ${trip.status}${eta ? ", ETA " + eta : ""}`));
    }
    if (focus) map.focus(d[0], d[1], 14);
  }
  map.request();
}

let tripsDirty = true, feedDirty = true;
// A trip is two lines: its name and status with the ETA beside them (never cut: the name gives way), then who
// goes where with its flags.
function tripRow(t) {
  const top = element("div", "line", element("b", "name", t.trip), element("span", "status", t.status));
  const eta = t.status !== "arrived" ? Format.eta(t) : "";
  if (eta) top.append(element("span", "eta", "ETA " + eta));
  const bottom = element("div", "line route", element("span", "who", `${t.user}${t.dest ? " → " + t.dest : ""}`));
  for (const [flag, on] of [["approaching", t.status === "approaching"], ["arrived", t.status === "arrived"], ["delayed", t.delayed]]) {
    if (on) bottom.append(element("span", "badge " + flag, flag === "delayed" ? `late ${t.late} min` : flag));
  }
  const row = element("div", "row trip", top, bottom);
  row.dataset.user = t.user;
  row.onclick = () => select(t.user, true);
  return row;
}
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
  $("trips").replaceChildren(...rows.slice(0, 200).map(tripRow));
}
// An event: its time and whole name on the first line; who and where after them, or below when they do not fit.
function renderFeed() {
  $("feed").replaceChildren(...Feed.rows(state.events, { updates: $("updates-filter").checked }).map((e) => {
    const detail = e.user + (e.geofence ? " · " + e.geofence : "") + (e.trip ? " · trip " + e.trip : "");
    const row = element("div", "row event", element("span", "t", Format.clock(e.at)), element("span", "type", e.type),
                        element("span", "detail", detail));
    row.dataset.user = e.user;
    row.dataset.at = e.at;
    row.onclick = () => select(e.user, true);
    return row;
  }));
}
function renderStats() {
  const counts = { idle: 0, trip: 0, late: 0, stale: 0 };
  for (const d of state.drivers.values()) counts[driverClass(d)]++;
  const { rate, kept } = Live.rate(state.eventSamples, Date.now());
  state.eventSamples = kept;
  state.eventsPerSecond = rate;
  // Each label names one figure; the service's own figures are in the chart, under other names.
  $("stats").replaceChildren(...[
    ["drivers", state.drivers.size], ["on a trip", counts.trip], ["late", counts.late], ["stale", counts.stale],
    ["events/s read by this console", Format.rate(rate)], ["positions behind the users topic", Format.seconds(state.lagMs)],
  ].map(([label, value]) => element("span", "stat", element("b", null, String(value)), " " + label)));
}
setInterval(() => {
  if (tripsDirty) { tripsDirty = false; renderTrips(); }
  if (feedDirty) { feedDirty = false; renderFeed(); }
  renderStats();
  if (state.selected) select(state.selected, false);
}, 1000);
$("status-filter").onchange = $("tag-filter").onchange = () => renderTrips();
$("updates-filter").onchange = () => renderFeed();

function fitOnce() {
  if (state.fitted || !(state.geofences.size || state.drivers.size)) return;
  const points = [...state.geofences.values()].map(Geo.fenceCenter);
  for (const d of state.drivers.values()) { points.push([d[0], d[1]]); if (points.length > 5000) break; }
  map.fit(points);
  state.fitted = true;
}
function applySnapshot(s) {
  state.drivers.clear(); state.trips.clear(); state.tripByUser.clear(); state.geofences.clear();
  state.streamTime = s.streamTime;
  for (const row of s.drivers) putDriver(row);
  for (const t of s.trips) putTrip(t);
  for (const f of s.geofences) state.geofences.set(f.key, f);
  state.events = Feed.merge([], s.events);
  state.pendingRecordAt = s.newestUserRecordAt;
  fitOnce();
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
  if (d.eventCount) state.eventSamples.push([Date.now(), d.eventCount]);
  if (d.events.length) { state.events = Feed.merge(state.events, d.events); feedDirty = true; }
  if (d.trips.length) tripsDirty = true;
  if (d.drivers.length) {
    state.pendingRecordAt = d.newestUserRecordAt;
    const arrival = Live.behind(d.newestUserRecordAt, Date.now(), state.clockOffset);
    if (arrival != null) state.arrivalSamples.push(arrival);
    if (state.arrivalSamples.length > 500) state.arrivalSamples.shift();
  }
  fitOnce();
  if (d.drivers.length || d.removedDrivers.length || d.geofences.length || d.removedGeofences.length) map.request();
}

// Carries out what live.js decides.
let source = null, retry = null;
function handle(input) {
  const [next, action] = Live.next(state.live, input);
  state.live = next;
  $("connection").textContent = next.status;
  if (action.load !== undefined) { closeStream(); clearTimeout(retry); retry = setTimeout(load, action.load); }
  if (action.connect) openStream(action.connect);
  return action;
}
function closeStream() { if (source) { source.close(); source = null; } }
function openStream(url) {
  closeStream();
  state.connections++;
  const stream = new EventSource(url);
  source = stream;
  stream.addEventListener("delta", (e) => {
    if (stream !== source) return;
    const delta = JSON.parse(e.data);
    if (handle({ type: "delta", sequence: delta.sequence }).apply) applyDelta(delta);
  });
  stream.addEventListener("reset", () => { if (stream === source) handle({ type: "reset" }); });
  stream.onerror = () => { if (stream === source) handle({ type: "error", closed: stream.readyState === EventSource.CLOSED }); };
}
async function load() {
  closeStream();
  try {
    const sentAt = Date.now();
    const response = await fetch("/api/snapshot", { credentials: "same-origin" });
    if (!response.ok) throw new Error(response.status);
    const snapshot = await response.json();
    state.clockOffset = Live.clockOffset(snapshot.now, sentAt, Date.now());
    applySnapshot(snapshot);
    handle({ type: "snapshot", sequence: snapshot.sequence });
  } catch (error) {
    handle({ type: "snapshot-failed" });
  }
}
// Drops the stream and connects again as after a network failure (the browser check uses it).
window.consoleReconnect = () => { closeStream(); handle({ type: "error", closed: true }); };

async function config() {
  const c = await (await fetch("/api/config", { credentials: "same-origin" })).json();
  state.staleMs = c.staleMinutes * 60000;
  showBaseMap(map, c.map);
  if (c.metrics) { $("chart-section").hidden = false; setInterval(chart, 2000); chart(); }
}
// The service's own figures, from its /metrics: records behind (consumer lag) and events it produced per second.
async function chart() {
  let samples;
  try { samples = await (await fetch("/api/metrics", { credentials: "same-origin" })).json(); } catch { return; }
  const canvas = $("chart"), ctx = canvas.getContext("2d");
  const ratio = window.devicePixelRatio || 1, w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = w * ratio; canvas.height = h * ratio; ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  if (samples.length < 2) return;
  const t0 = samples[0][0], t1 = samples[samples.length - 1][0];
  const legend = [];
  for (const [index, color, label] of [[1, "#2f80ed", "fixes behind (service lag)"], [2, "#f2994a", "events/s produced by the service"]]) {
    const max = Math.max(1, ...samples.map((s) => s[index]));
    ctx.beginPath();
    samples.forEach((s, i) => {
      const x = 4 + (w - 8) * (s[0] - t0) / Math.max(1, t1 - t0), y = h - 4 - (h - 8) * s[index] / max;
      if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
    });
    ctx.strokeStyle = color; ctx.lineWidth = 1.5; ctx.stroke();
    const now = samples[samples.length - 1][index], figure = index === 1 ? Format.count : Format.rate;
    const item = element("span", "stat", element("i", "swatch"), element("b", null, figure(now)), ` ${label} (max ${figure(max)})`);
    item.firstChild.style.background = color;
    legend.push(item);
  }
  $("chart-legend").replaceChildren(...legend);
}
for (const [kind, color] of Object.entries(COLORS)) {
  const dot = document.querySelector(`#legend .${kind} i`);
  if (dot) dot.style[kind === "stale" ? "borderColor" : "background"] = color;  // stale: hollow, as drawn
}
config();
load();
