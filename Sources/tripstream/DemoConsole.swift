import Console
import ConsoleHTTP
import Domain
import Foundation
import KafkaIO
import Runtime

/// The demo's console: served on loopback at a free port, with a tracking secret made for this run, and a
/// tracking link printed for the first trip it sees, so a newcomer can open both pages.
enum DemoConsole {
    /// The running console; `stop()` before the embedded broker goes.
    struct Running {
        let service: ConsoleService
        func stop() { service.stop() }
    }

    static func start(kafka: KafkaConfiguration, topics: Topics, metrics: RuntimeMetrics) throws -> Running {
        var settings = ConsoleSettings()
        var generator = SystemRandomNumberGenerator()
        settings.trackingSecret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var consoleTopics = ConsoleTopics()
        consoleTopics.users = topics.users
        consoleTopics.events = topics.events
        consoleTopics.eta = topics.eta
        consoleTopics.tripSummaries = topics.tripSummaries
        consoleTopics.geofences = topics.geofences
        consoleTopics.locations = topics.locations
        let console = try ConsoleService(
            kafka: kafka, topics: consoleTopics, address: ListenAddress(host: "127.0.0.1", port: 0), settings: settings,
            metricsSource: { metrics.render() }, log: { _ in })
        console.start()
        Terminal.error("console: open \(console.url)")
        let secret = settings.trackingSecret ?? []
        let linkThread = Thread {
            for _ in 0..<600 {
                Terminal.sleep(seconds: 0.5)
                let trip = console.store.read { model in
                    model.trips.values.first { $0.isActive && $0.etaMinutes != nil && $0.status == "started" }?.key
                }
                guard let trip else { continue }
                let token = TrackingToken(user: trip.user, trip: trip.trip, expiresAfterSeconds: 3600)
                Terminal.error("console: tracking page of trip \(trip.trip): \(console.url)track/\(token.encoded(secret: secret))")
                return
            }
        }
        linkThread.start()
        return Running(service: console)
    }
}

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
        let order = ["trips started", "approaching", "arrived", "delayed", "geofence entries", "exits", "trip updates", "other"]
        let parts = order.compactMap { kind in counts[kind].map { "\($0) \(kind)" } }
        Terminal.output("events: \(total) in \(Int(seconds.rounded())) s" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")))
        counts = [:]
        total = 0
    }
}
