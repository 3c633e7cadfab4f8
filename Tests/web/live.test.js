// The live connection's decisions, lag and rates (Sources/Console/Web/live.js).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const Live = require("../../Sources/Console/Web/live.js");

// Feeds inputs through the state machine; returns the last state and every action.
function run(inputs, state = Live.initial()) {
  const actions = [];
  for (const input of inputs) {
    let action;
    [state, action] = Live.next(state, input);
    actions.push(action);
  }
  return { state, actions };
}

test("a snapshot connects after its sequence, and the deltas after it apply in order", () => {
  const { state, actions } = run([
    { type: "snapshot", sequence: 40 }, { type: "delta", sequence: 41 }, { type: "delta", sequence: 42 },
  ]);
  assert.deepEqual(actions, [{ connect: "/api/live?since=40" }, { apply: true }, { apply: true }]);
  assert.equal(state.last, 42);
  assert.equal(state.status, "live");
});

test("a dropped stream: EventSource reconnects with Last-Event-ID, and the next delta applies", () => {
  const { state, actions } = run([
    { type: "snapshot", sequence: 40 }, { type: "delta", sequence: 41 },
    { type: "error", closed: false }, { type: "delta", sequence: 42 },
  ]);
  assert.deepEqual(actions.slice(2), [{}, { apply: true }]);
  assert.equal(state.last, 42, "Last-Event-ID 41 brought 42 next");
  assert.equal(state.status, "live");
});

test("a delta past a gap is not applied: a fresh snapshot is loaded", () => {
  const { state, actions } = run([{ type: "snapshot", sequence: 40 }, { type: "delta", sequence: 43 }]);
  assert.deepEqual(actions[1], { load: 0 });
  assert.equal(state.last, 40);
});

test("a console that restarted numbers from 1 again: the page reloads instead of waiting for 41 forever", () => {
  const { state, actions } = run([
    { type: "snapshot", sequence: 5000 }, { type: "error", closed: false }, { type: "delta", sequence: 1 },
    { type: "snapshot", sequence: 3 }, { type: "delta", sequence: 4 },
  ]);
  assert.deepEqual(actions.slice(2), [{ load: 0 }, { connect: "/api/live?since=3" }, { apply: true }]);
  assert.equal(state.last, 4);
});

test("a repeated delta is not applied twice", () => {
  const { actions } = run([{ type: "snapshot", sequence: 7 }, { type: "delta", sequence: 8 }, { type: "delta", sequence: 8 }]);
  assert.deepEqual(actions[2], { load: 0 });
});

test("a reset reloads the snapshot at once", () => {
  const { actions } = run([{ type: "snapshot", sequence: 7 }, { type: "reset" }]);
  assert.deepEqual(actions[1], { load: 0 });
});

test("a closed stream or a failed snapshot retries later, backing off, and success starts over", () => {
  const { state, actions } = run([
    { type: "snapshot", sequence: 7 }, { type: "error", closed: true }, { type: "snapshot-failed" },
    { type: "snapshot-failed" }, { type: "snapshot-failed" }, { type: "snapshot-failed" }, { type: "snapshot-failed" },
  ]);
  assert.deepEqual(actions.slice(1).map((a) => a.load), [1000, 2000, 4000, 8000, 15000, 15000]);
  assert.equal(state.status, "offline, retrying");
  const after = run([{ type: "snapshot", sequence: 9 }, { type: "delta", sequence: 10 }], state).state;
  assert.equal(after.failures, 0);
  assert.equal(after.status, "live");
});

test("the lag is never negative, also when the page's clock runs behind the producer's", () => {
  assert.equal(Live.behind(10_000, 14_300), 4300);
  assert.equal(Live.behind(10_000, 9_000), 0, "a record stamped ahead of the page's clock");
  assert.equal(Live.behind(10_000, 9_000, 2_000), 1000, "the server's clock is 2 s ahead of the page's");
  assert.equal(Live.behind(0, 9_000), null, "no record drawn yet");
  assert.equal(Live.behind(undefined, 9_000), null);
});

test("the clock offset is the server's time minus the request's midpoint", () => {
  assert.equal(Live.clockOffset(10_500, 8_000, 9_000), 2_000);
  assert.equal(Live.clockOffset(undefined, 8_000, 9_000), 0);
});

test("a reconnect does not make the lag negative: a snapshot's offset applies to the deltas after it", () => {
  // The page's clock is 3 s behind the console's, whose producer stamped the records.
  const offset = Live.clockOffset(103_000 + 50, 100_000, 100_100);
  for (const recordAt of [102_900, 103_000, 103_040]) {
    assert.ok(Live.behind(recordAt, 100_100, offset) >= 0);
  }
});

test("events per second over the window, and only the samples still in it are kept", () => {
  const samples = [[0, 50], [5_000, 30], [5_001, 20], [10_000, 10]];
  const { rate, kept } = Live.rate(samples, 15_000, 10_000);
  assert.equal(rate, (20 + 10) / 10, "a sample exactly the window old is out");
  assert.deepEqual(kept, [[5_001, 20], [10_000, 10]]);
  assert.equal(Live.rate([], 15_000).rate, 0);
});
