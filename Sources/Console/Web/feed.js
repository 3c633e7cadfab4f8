// The console's event feed, with no DOM: which events it keeps and the order it shows them in. Events are
// {seq, id, type, at, user, …}: `seq` numbers them as the console read them, `at` is the event's time.
"use strict";
const Feed = (() => {
  // The events kept: `events` and then `incoming`, each `seq` once (a snapshot and the delta after it can both
  // carry an event), the `limit` read last.
  function merge(events, incoming, limit = 300) {
    const seen = new Set(events.map((e) => e.seq));
    const merged = events.slice();
    for (const e of incoming) {
      if (seen.has(e.seq)) continue;
      seen.add(e.seq);
      merged.push(e);
    }
    merged.sort((a, b) => a.seq - b.seq);
    return merged.length > limit ? merged.slice(merged.length - limit) : merged;
  }

  // The rows to show: newest event time first, whatever order partitions delivered them in (ties: the one read
  // later first); trip updates only when asked for; at most `limit`.
  function rows(events, { updates = false, limit = 100 } = {}) {
    return events
      .filter((e) => updates || e.type !== "user.updated_trip")
      .sort((a, b) => (b.at - a.at) || (b.seq - a.seq))
      .slice(0, limit);
  }

  return { merge, rows };
})();
if (typeof module === "object" && module.exports) module.exports = Feed;
