// The console's live connection as a state machine, with no DOM: a snapshot, then numbered deltas over
// Server-Sent Events; what to do on a gap, a reset, a dropped or a closed stream. Also the lag and rate figures
// the header shows. The global `Live` in the page, a CommonJS module under `node --test`.
"use strict";
const Live = (() => {
  function initial() { return { last: null, failures: 0, status: "connecting" }; }

  // The stream of deltas after `last`. EventSource sends `Last-Event-ID` itself when it reconnects, which the
  // server prefers over `since`.
  function streamUrl(last) { return `/api/live?since=${last}`; }

  // Wait before the n-th retry in a row: 1 s, 2 s, 4 s, … at most 15 s.
  function retryDelay(failures) { return Math.min(15000, 1000 * Math.pow(2, Math.max(0, failures - 1))); }

  // The next state and the page's action for an input:
  // - {type: "snapshot", sequence}: applied; action {connect: url}.
  // - {type: "snapshot-failed"}: action {load: ms}, a retry after that wait.
  // - {type: "delta", sequence}: {apply: true} for the one after the last applied; anything else means the
  //   stream lost its place (a console restarted numbers from 1; a gap): {load: 0}, a fresh snapshot.
  // - {type: "reset"}: the server dropped this page's queue: {load: 0}.
  // - {type: "error", closed}: EventSource reconnects by itself unless closed ({}); closed: {load: ms}.
  function next(state, input) {
    switch (input.type) {
      case "snapshot":
        return [{ last: input.sequence, failures: 0, status: state.status === "live" ? "live" : "connecting" },
                { connect: streamUrl(input.sequence) }];
      case "snapshot-failed": {
        const failures = state.failures + 1;
        return [{ ...state, failures, status: "offline, retrying" }, { load: retryDelay(failures) }];
      }
      case "delta":
        if (state.last !== null && input.sequence === state.last + 1) {
          return [{ last: input.sequence, failures: 0, status: "live" }, { apply: true }];
        }
        return [{ ...state, status: "reloading" }, { load: 0 }];
      case "reset":
        return [{ ...state, status: "reloading" }, { load: 0 }];
      case "error":
        if (input.closed) {
          const failures = state.failures + 1;
          return [{ ...state, failures, status: "offline, retrying" }, { load: retryDelay(failures) }];
        }
        return [{ ...state, status: "reconnecting" }, {}];
      default:
        return [state, {}];
    }
  }

  // The server's clock minus the page's, from a response stamped `serverNow` to a request sent at `sentAt` and
  // answered at `receivedAt` (page clock): the page and the console may run on machines whose clocks differ.
  function clockOffset(serverNow, sentAt, receivedAt) {
    if (![serverNow, sentAt, receivedAt].every(Number.isFinite)) return 0;
    return serverNow - (sentAt + receivedAt) / 2;
  }

  // How far behind the users topic the map draws: from the newest drawn record's Kafka timestamp to `now` (page
  // clock, corrected by `offset`). Never negative: clocks that still disagree, or records stamped by a producer
  // whose clock runs ahead, give 0. Null when no record was drawn.
  function behind(recordAt, now, offset = 0) {
    if (!Number.isFinite(recordAt) || recordAt <= 0 || !Number.isFinite(now)) return null;
    return Math.max(0, now + offset - recordAt);
  }

  // Events per second over the last `windowMs`, from [time, count] samples; also the samples still inside it.
  function rate(samples, now, windowMs = 10000) {
    const kept = samples.filter(([time]) => now - time < windowMs);
    const total = kept.reduce((sum, [, count]) => sum + count, 0);
    return { rate: total * 1000 / windowMs, kept };
  }

  return { initial, streamUrl, retryDelay, next, clockOffset, behind, rate };
})();
if (typeof module === "object" && module.exports) module.exports = Live;
