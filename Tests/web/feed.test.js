// The event feed's keeping and ordering (Sources/Console/Web/feed.js).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const Feed = require("../../Sources/Console/Web/feed.js");

const at = (clock) => Date.parse(`2026-05-12T${clock}Z`);
const event = (seq, clock, type = "user.entered_geofence") => ({ seq, at: at(clock), type, user: "u" + seq });

test("rows are newest event time first, whatever order the partitions delivered them in", () => {
  // The order of the report: 04:28:53, 04:28:38, 04:29:43 as read.
  const events = [event(1, "04:28:53"), event(2, "04:28:38"), event(3, "04:29:43")];
  assert.deepEqual(Feed.rows(events).map((e) => e.seq), [3, 1, 2]);
});

test("events at the same time: the one read later first", () => {
  const events = [event(1, "04:28:53"), event(2, "04:28:53"), event(3, "04:28:52")];
  assert.deepEqual(Feed.rows(events).map((e) => e.seq), [2, 1, 3]);
});

test("trip updates only when asked for, and at most the limit", () => {
  const events = [event(1, "04:00:01"), event(2, "04:00:02", "user.updated_trip"), event(3, "04:00:03")];
  assert.deepEqual(Feed.rows(events).map((e) => e.seq), [3, 1]);
  assert.deepEqual(Feed.rows(events, { updates: true }).map((e) => e.seq), [3, 2, 1]);
  assert.deepEqual(Feed.rows(events, { updates: true, limit: 2 }).map((e) => e.seq), [3, 2]);
});

test("rows leave the kept events as they were", () => {
  const events = [event(1, "04:00:01"), event(2, "04:00:03")];
  Feed.rows(events);
  assert.deepEqual(events.map((e) => e.seq), [1, 2]);
});

test("merge keeps each event once: a snapshot and the delta after it may both carry it", () => {
  const snapshot = [event(1, "04:00:01"), event(2, "04:00:02")];
  const delta = [event(2, "04:00:02"), event(3, "04:00:03")];
  assert.deepEqual(Feed.merge(Feed.merge([], snapshot), delta).map((e) => e.seq), [1, 2, 3]);
});

test("merge keeps the events read last, up to the limit", () => {
  let events = [];
  for (let seq = 1; seq <= 10; seq++) events = Feed.merge(events, [event(seq, "04:00:00")], 4);
  assert.deepEqual(events.map((e) => e.seq), [7, 8, 9, 10]);
  assert.deepEqual(Feed.merge([], [event(5, "04:00:00"), event(4, "04:00:00")]).map((e) => e.seq), [4, 5]);
});
