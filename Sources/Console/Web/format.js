// How the pages write durations, ETAs and their ranges, clock times and rates, and which class a driver is
// drawn in. No DOM: the global `Format` in the pages, a CommonJS module under `node --test`.
"use strict";
const Format = (() => {
  const finite = (x) => typeof x === "number" && Number.isFinite(x);

  // Minutes as people read them: "<1 min", "7 min", "1 h 05"; "" when there is no number.
  function duration(minutes) {
    if (!finite(minutes)) return "";
    const whole = Math.round(Math.max(0, minutes));
    if (whole < 1) return "<1 min";
    if (whole < 60) return `${whole} min`;
    return `${Math.floor(whole / 60)} h ${String(whole % 60).padStart(2, "0")}`;
  }

  // A 10–90 % range: "6–10 min", "0–2 min", "50 min–1 h 20", "7 min" when both ends round alike; "" without
  // both ends. Ends given the wrong way round are put right.
  function range(low, high) {
    if (!finite(low) || !finite(high)) return "";
    const [a, b] = low <= high ? [low, high] : [high, low];
    const from = Math.round(Math.max(0, a)), to = Math.round(Math.max(0, b));
    if (from === to || duration(a) === duration(b)) return duration(b);
    if (to < 60) return `${from}–${to} min`;
    return `${duration(a)}–${duration(b)}`;
  }

  // A trip's ETA with its range: "7 min (6–10 min)"; "" without an ETA.
  function eta(trip) {
    const text = duration(trip.eta);
    if (!text) return "";
    const spread = range(trip.etaLow, trip.etaHigh);
    return spread ? `${text} (${spread})` : text;
  }

  // UTC clock time of ms since 1970, "14:30:05": event times are the fixes' times, which are UTC.
  function clock(ms) {
    if (!finite(ms)) return "--:--:--";
    return new Date(ms).toISOString().slice(11, 19);
  }

  // A per-second rate: one decimal below 100, whole above, thousands grouped: "3.5", "371", "2,988".
  function rate(perSecond) {
    if (!finite(perSecond)) return "–";
    return perSecond < 100 ? perSecond.toFixed(1) : Math.round(perSecond).toLocaleString("en-US");
  }

  // A whole count, thousands grouped: "12,480"; "–" when not known.
  function count(n) {
    if (!finite(n)) return "–";
    return Math.round(n).toLocaleString("en-US");
  }

  // Milliseconds as seconds, "4.3 s"; "–" when not known.
  function seconds(ms) {
    if (!finite(ms)) return "–";
    return `${(ms / 1000).toFixed(1)} s`;
  }

  // How the map draws a driver ([lon, lat, lastFixSeconds, state, …], state 0 idle, 1 on a trip, 2 on a late
  // trip): stale when its last fix is older than `staleMs` before stream time (whatever its trip), else late,
  // on a trip or idle.
  function driverClass(driver, streamTime, staleMs) {
    if (streamTime && streamTime - driver[2] * 1000 > staleMs) return "stale";
    return driver[3] === 2 ? "late" : driver[3] === 1 ? "trip" : "idle";
  }

  return { duration, range, eta, clock, rate, count, seconds, driverClass };
})();
if (typeof module === "object" && module.exports) module.exports = Format;
