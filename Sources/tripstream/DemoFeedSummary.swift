import Domain
import Runtime

/// The demo's terminal feed while the console shows the events: one line every few seconds.
final class DemoFeedSummary {
    private var counts: [String: Int] = [:]
    private var total = 0
    private var lastLine = WallClock.monotonic()
    static let intervalSeconds = 5.0

    func add(_ type: EventType) {
        total += 1
        let kind: String
        switch type {
        case .startedTrip: kind = "trips started"
        case .arrivedAtTripDestination: kind = "arrived"
        case .approachingTripDestination: kind = "approaching"
        case .delayedDuringTrip: kind = "delayed"
        case .arrivedAtWrongTripDestination: kind = "wrong stops"
        case .tripSignalLost: kind = "signals lost"
        case .enteredGeofence: kind = "geofence entries"
        case .exitedGeofence: kind = "exits"
        case .updatedTrip: kind = "trip updates"
        default: kind = "other"
        }
        counts[kind, default: 0] += 1
    }

    /// Prints the line once ``intervalSeconds`` passed since the last one.
    func printIfDue() {
        let now = WallClock.monotonic()
        guard now - lastLine >= Self.intervalSeconds else { return }
        let seconds = now - lastLine
        lastLine = now
        let order = ["trips started", "approaching", "arrived", "delayed", "wrong stops", "signals lost", "geofence entries", "exits", "trip updates", "other"]
        let parts = order.compactMap { kind in counts[kind].map { "\($0) \(kind)" } }
        Terminal.output("events: \(total) in \(Int(seconds.rounded())) s" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")))
        counts = [:]
        total = 0
    }
}
