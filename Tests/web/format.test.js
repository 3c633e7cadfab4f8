// How the pages write ETAs, ranges, times and rates (Sources/Console/Web/format.js).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const Format = require("../../Sources/Console/Web/format.js");

test("durations: under a minute, minutes, hours", () => {
  assert.equal(Format.duration(0), "<1 min");
  assert.equal(Format.duration(0.49), "<1 min");
  assert.equal(Format.duration(0.5), "1 min");
  assert.equal(Format.duration(7.4), "7 min");
  assert.equal(Format.duration(59.4), "59 min");
  assert.equal(Format.duration(59.6), "1 h 00");
  assert.equal(Format.duration(65), "1 h 05");
  assert.equal(Format.duration(600), "10 h 00");
});

test("durations of nothing, or of nonsense, are empty, and negative ones are none left", () => {
  for (const value of [null, undefined, NaN, Infinity, "7"]) assert.equal(Format.duration(value), "");
  assert.equal(Format.duration(-3), "<1 min");
});

test("ranges: one unit for minutes, each end whole", () => {
  assert.equal(Format.range(6, 10), "6–10 min");
  assert.equal(Format.range(5.6, 10.4), "6–10 min");
  assert.equal(Format.range(50, 80), "50 min–1 h 20");
  assert.equal(Format.range(0.2, 4), "0–4 min");
  assert.equal(Format.range(0.3, 1.2), "0–1 min");
  assert.equal(Format.range(70, 130), "1 h 10–2 h 10");
});

test("a range whose ends round alike is one figure, and one given backwards is put right", () => {
  assert.equal(Format.range(7.2, 7.4), "7 min");
  assert.equal(Format.range(0.1, 0.3), "<1 min");
  assert.equal(Format.range(10, 6), "6–10 min");
});

test("a range needs both ends", () => {
  assert.equal(Format.range(null, 10), "");
  assert.equal(Format.range(6, undefined), "");
  assert.equal(Format.range(NaN, 10), "");
});

test("an ETA with its range, without one, and no ETA", () => {
  assert.equal(Format.eta({ eta: 7.5, etaLow: 6, etaHigh: 10 }), "8 min (6–10 min)");
  assert.equal(Format.eta({ eta: 7.5, etaLow: null, etaHigh: null }), "8 min");
  assert.equal(Format.eta({ eta: 95, etaLow: 80, etaHigh: 125 }), "1 h 35 (1 h 20–2 h 05)");
  assert.equal(Format.eta({ eta: null, etaLow: 6, etaHigh: 10 }), "");
});

test("clock times are UTC, as the fixes' times", () => {
  assert.equal(Format.clock(Date.UTC(2026, 4, 12, 4, 28, 53)), "04:28:53");
  assert.equal(Format.clock(0), "00:00:00");
  assert.equal(Format.clock(undefined), "--:--:--");
});

test("rates and counts", () => {
  assert.equal(Format.rate(3.46), "3.5");
  assert.equal(Format.rate(371.2), "371");
  assert.equal(Format.rate(2988), "2,988");
  assert.equal(Format.rate(NaN), "–");
  assert.equal(Format.count(12480.4), "12,480");
  assert.equal(Format.count(null), "–");
  assert.equal(Format.seconds(4321), "4.3 s");
  assert.equal(Format.seconds(null), "–");
});

test("driver classes: stale wins over a late trip, then late, on a trip, idle", () => {
  const streamTime = 1_000_000_000, staleMs = 5 * 60000;
  const fresh = streamTime / 1000 - 10, old = streamTime / 1000 - 301;
  assert.equal(Format.driverClass([0, 0, fresh, 0], streamTime, staleMs), "idle");
  assert.equal(Format.driverClass([0, 0, fresh, 1], streamTime, staleMs), "trip");
  assert.equal(Format.driverClass([0, 0, fresh, 2], streamTime, staleMs), "late");
  assert.equal(Format.driverClass([0, 0, old, 2], streamTime, staleMs), "stale");
  assert.equal(Format.driverClass([0, 0, old, 0], 0, staleMs), "idle", "no stream time yet: nobody is stale");
});
