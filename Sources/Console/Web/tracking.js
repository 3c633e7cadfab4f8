// A customer's tracking page: its one trip, polled every few seconds from /api/track/<token>.
"use strict";
const token = location.pathname.split("/").pop();
const map = new CanvasMap(document.getElementById("map"));
const $ = (id) => document.getElementById(id);
let trip = null;
window.trackingState = () => trip;
map.layers.push((ctx, m) => {
  if (!trip) return;
  if (trip.destination.shape) drawGeofence(ctx, m, trip.destination.shape, "#7b61ff", "#7b61ff22");
  if (trip.destination.point) {
    const [x, y] = m.screen(...Geo.world(...trip.destination.point));
    ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI); ctx.fillStyle = "#7b61ff"; ctx.fill();
  }
  if (trip.track.length > 1) {
    ctx.beginPath();
    trip.track.forEach(([lon, lat], i) => {
      const [x, y] = m.screen(...Geo.world(lon, lat));
      if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
    });
    ctx.strokeStyle = "#2f80ed"; ctx.lineWidth = 3; ctx.stroke();
  }
  if (trip.position) {
    const [x, y] = m.screen(...Geo.world(trip.position[0], trip.position[1]));
    ctx.beginPath(); ctx.arc(x, y, 8, 0, 2 * Math.PI);
    ctx.fillStyle = "#1f9d55"; ctx.fill(); ctx.strokeStyle = "#fff"; ctx.lineWidth = 2; ctx.stroke();
  }
});
function show() {
  $("title").textContent = "Trip " + trip.trip;
  const status = $("status");
  if (trip.arrived) {
    status.className = "arrived";
    status.textContent = trip.arrivedAt ? "Arrived at " + new Date(trip.arrivedAt).toLocaleTimeString() : "Arrived";
  } else if (trip.ended) {
    status.className = "note";
    status.textContent = "This trip has ended (" + trip.status + ").";
  } else if (trip.eta != null) {
    status.className = "eta";
    status.textContent = "Arriving in " + Format.eta(trip);
  } else {
    status.className = "note";
    status.textContent = "On the way (" + trip.status + ")";
  }
  const notes = [];
  if (trip.destination.description) notes.push("To " + trip.destination.description);
  if (trip.meters != null) notes.push((trip.meters / 1000).toFixed(1) + " km away");
  if (trip.delayed) notes.push("running " + trip.late + " min late");
  $("details").textContent = notes.join(" · ");
  if (!map.userMoved) {
    const points = trip.track.slice();
    if (trip.destination.point) points.push(trip.destination.point);
    else if (trip.destination.shape) points.push(Geo.fenceCenter(trip.destination.shape));
    if (points.length) map.fit(points, 60);
  }
  map.request();
}
async function poll() {
  let response;
  try { response = await fetch("/api/track/" + token, { credentials: "omit" }); } catch { setTimeout(poll, 5000); return; }
  if (response.ok) { trip = await response.json(); show(); setTimeout(poll, trip.ended ? 30000 : 3000); return; }
  const message = (await response.text()).trim();
  $("status").className = "note";
  $("status").textContent = message;
  if (response.status === 404) setTimeout(poll, 5000);
}
// The base map, when the console serves one (public: tiles name no one).
fetch("/api/map", { credentials: "omit" }).then((r) => (r.ok ? r.json() : null)).then((c) => showBaseMap(map, c)).catch(() => {});
poll();
