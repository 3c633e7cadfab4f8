import Synchronization

/// What the server refused or cut short, for `/metrics`. Written by the event loop, read by anyone.
public final class ServerCounters: Sendable {
    let open = Atomic<Int>(0)
    let refused = Atomic<Int>(0)
    let turnedAway = Atomic<Int>(0)
    let evicted = Atomic<Int>(0)
    let headTimeouts = Atomic<Int>(0)
    let idleTimeouts = Atomic<Int>(0)
    let writeTimeouts = Atomic<Int>(0)

    init() {}

    /// Connections open now.
    public var openConnections: Int { open.load(ordering: .relaxed) }
    /// Request heads that did not parse (each answered with its 4xx/5xx).
    public var refusedRequests: Int { refused.load(ordering: .relaxed) }
    /// New connections answered 503 because every open one was being answered or streamed to.
    public var turnedAwayConnections: Int { turnedAway.load(ordering: .relaxed) }
    /// Slow or idle connections closed to make room for a new one.
    public var evictedConnections: Int { evicted.load(ordering: .relaxed) }
    /// Connections closed (408) because their request head did not arrive by the head deadline.
    public var headDeadlinesMissed: Int { headTimeouts.load(ordering: .relaxed) }
    /// Kept-alive connections closed after the idle timeout.
    public var idleConnectionsClosed: Int { idleTimeouts.load(ordering: .relaxed) }
    /// Connections closed because the client took no byte of a response or stream for the write timeout.
    public var stalledWritesClosed: Int { writeTimeouts.load(ordering: .relaxed) }

    /// The counters as Prometheus text, each name prefixed with `prefix` (`tripstream_console`).
    public func prometheusText(prefix: String) -> String {
        var text = "# TYPE \(prefix)_requests_refused_total counter\n\(prefix)_requests_refused_total \(refusedRequests)\n"
        text += "# TYPE \(prefix)_connections_turned_away_total counter\n"
        text += "\(prefix)_connections_turned_away_total \(turnedAwayConnections)\n"
        text += "# TYPE \(prefix)_connections gauge\n\(prefix)_connections \(openConnections)\n"
        text += "# TYPE \(prefix)_connections_closed_total counter\n"
        for (reason, count) in [("evicted", evictedConnections), ("head_deadline", headDeadlinesMissed),
                                ("idle", idleConnectionsClosed), ("write_stalled", stalledWritesClosed)] {
            text += "\(prefix)_connections_closed_total{reason=\"\(reason)\"} \(count)\n"
        }
        return text
    }
}
