// The console's route playback: a user's fixes for a window, played at 1–20×, with stops and a speed chart.
"use strict";
const playback = { points: [], stops: [], time: 0, playing: false, last: 0 };
window.playbackState = playback;
function playbackIndex(t) {
  let lo = 0, hi = playback.points.length - 1;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (playback.points[mid][0] <= t) lo = mid; else hi = mid - 1; }
  return lo;
}
function playbackPosition() {
  const p = playback.points, i = playbackIndex(playback.time);
  if (i >= p.length - 1) return p[p.length - 1];
  const a = p[i], b = p[i + 1], f = Math.max(0, Math.min(1, (playback.time - a[0]) / Math.max(1, b[0] - a[0])));
  return [playback.time, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f, a[3]];
}
map.layers.push((ctx, m) => {
  if (!playback.points.length) return;
  ctx.beginPath();
  playback.points.forEach((p, i) => {
    const [x, y] = m.screen(...Geo.world(p[1], p[2]));
    if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
  });
  ctx.strokeStyle = "#2f80ed99"; ctx.lineWidth = 3; ctx.stroke();
  ctx.font = "11px system-ui";
  for (const [lon, lat, start, end] of playback.stops) {
    const [x, y] = m.screen(...Geo.world(lon, lat));
    ctx.beginPath(); ctx.arc(x, y, 7, 0, 2 * Math.PI); ctx.fillStyle = "#f2994a"; ctx.fill();
    ctx.fillStyle = "#1d2733"; ctx.fillText(`stop ${Math.round((end - start) / 60000)} min`, x + 9, y + 4);
  }
  const [, lon, lat] = playbackPosition();
  const [x, y] = m.screen(...Geo.world(lon, lat));
  ctx.beginPath(); ctx.arc(x, y, 8, 0, 2 * Math.PI);
  ctx.fillStyle = "#111"; ctx.fill(); ctx.strokeStyle = "#fff"; ctx.lineWidth = 2; ctx.stroke();
});
function drawSpeedChart() {
  const canvas = $("speed-chart"), ctx = canvas.getContext("2d");
  const ratio = window.devicePixelRatio || 1, w = canvas.clientWidth, h = canvas.clientHeight;
  canvas.width = w * ratio; canvas.height = h * ratio; ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const p = playback.points;
  if (p.length < 2) return;
  const t0 = p[0][0], t1 = p[p.length - 1][0], max = Math.max(1, ...p.map((q) => q[3] || 0));
  const x = (t) => 4 + (w - 8) * (t - t0) / Math.max(1, t1 - t0);
  ctx.fillStyle = "#f2994a33";
  for (const [, , start, end] of playback.stops) ctx.fillRect(x(start), 0, Math.max(1, x(end) - x(start)), h - 12);
  ctx.beginPath();
  p.forEach((q, i) => { const y = h - 14 - (h - 24) * (q[3] || 0) / max; if (i === 0) ctx.moveTo(x(q[0]), y); else ctx.lineTo(x(q[0]), y); });
  ctx.strokeStyle = "#2f80ed"; ctx.lineWidth = 1.5; ctx.stroke();
  ctx.beginPath(); ctx.moveTo(x(playback.time), 0); ctx.lineTo(x(playback.time), h - 12);
  ctx.strokeStyle = "#111"; ctx.lineWidth = 1; ctx.stroke();
  ctx.fillStyle = "#1d2733"; ctx.font = "11px system-ui";
  const now = playbackPosition();
  ctx.fillText(`${Format.clock(playback.time)} · ${((now[3] || 0) * 3.6).toFixed(0)} km/h (max ${(max * 3.6).toFixed(0)})`, 4, h - 1);
}
$("speed-chart").addEventListener("click", (e) => {
  const p = playback.points;
  if (p.length < 2) return;
  const r = e.target.getBoundingClientRect(), t0 = p[0][0], t1 = p[p.length - 1][0];
  playback.time = t0 + (t1 - t0) * Math.max(0, Math.min(1, (e.clientX - r.left - 4) / (r.width - 8)));
  map.request(); drawSpeedChart();
});
function playbackFrame(now) {
  if (!playback.playing) return;
  const p = playback.points;
  playback.time += (now - playback.last) * Number($("playback-speed").value);
  playback.last = now;
  if (playback.time >= p[p.length - 1][0]) { playback.time = p[p.length - 1][0]; playback.playing = false; $("playback-play").textContent = "Play"; }
  if ($("playback-follow").checked) { const [, lon, lat] = playbackPosition(); map.focus(lon, lat); }
  map.request(); drawSpeedChart();
  requestAnimationFrame(playbackFrame);
}
$("playback-play").onclick = () => {
  if (!playback.points.length) return;
  playback.playing = !playback.playing;
  $("playback-play").textContent = playback.playing ? "Pause" : "Play";
  if (playback.playing) {
    if (playback.time >= playback.points[playback.points.length - 1][0]) playback.time = playback.points[0][0];
    playback.last = performance.now(); requestAnimationFrame(playbackFrame);
  }
};
$("playback-load").onclick = async () => {
  const user = $("playback-user").value.trim() || state.selected;
  if (!user) { $("playback-status").textContent = "select a driver or type a user id"; return; }
  $("playback-user").value = user;
  const to = Date.now(), from = to - Number($("playback-window").value) * 60000;
  $("playback-status").textContent = "reading the locations topic…";
  const response = await fetch(`/api/playback?user=${encodeURIComponent(user)}&from=${from}&to=${to}`, { credentials: "same-origin" });
  if (!response.ok) { $("playback-status").textContent = (await response.text()).trim(); return; }
  const route = await response.json();
  playback.points = route.points; playback.stops = route.stops; playback.playing = false;
  $("speed-chart").hidden = route.points.length < 2;  // no empty chart under the panel
  $("playback-play").textContent = "Play";
  if (!route.points.length) { $("playback-status").textContent = "no fixes of " + user + " in that window"; drawSpeedChart(); map.request(); return; }
  playback.time = route.points[0][0];
  $("playback-status").textContent = `${route.points.length} fixes, ${route.stops.length} stops${route.truncated ? " (cut short)" : ""}`;
  map.fit(route.points.map((p) => [p[1], p[2]]));
  drawSpeedChart();
};
