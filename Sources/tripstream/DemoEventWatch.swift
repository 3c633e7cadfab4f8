import Codec
import Domain
import KafkaIO
import Runtime

/// The demo's notification service: reads the events topic as one would (read_committed) and prints the
/// events, or, while the console shows them, a summary line every few seconds.
struct DemoEventWatch {
    let kafka: KafkaConfiguration
    let topic: String
    let show: Set<String>
    let done: DemoFlag
    let metrics: RuntimeMetrics
    /// Set when the console shows the events: the terminal gets a summary line instead.
    var summary: DemoFeedSummary?
    /// Called about every few seconds while it watches.
    var upkeep: () -> Void = {}

    static let showChoices: Set = ["all", "trip", "geofence", "updates"]

    /// Watches until Ctrl-C, or until the service or the fleet failed. With a `--duration`, also stops once
    /// the fleet finished, the service committed every input it published (or, should the service be stuck,
    /// after 30 s without an event) and the watcher then stood for a second at the end of every partition it
    /// was given. (Counting quiet seconds before that, a short demo ended while the watcher's group was still
    /// joining, or before it fetched the last transaction, having printed nothing.)
    func run() throws {
        let configuration = kafka.inGroup("demo-notifications")
            .startingAtTheBeginning()  // events published before the group joined count too
        let consumer = try KafkaConsumer(configuration: configuration, enablePartitionEOF: true)
        defer { try? consumer.close() }
        try consumer.subscribe([topic])
        var idle = 0.0, silent = 0.0
        var atEnd: Set<Int32> = []
        var lastUpkeep = WallClock.monotonic()
        while !ShutdownSignal.isRequested && done.failed == nil {
            summary?.printIfDue()
            if WallClock.monotonic() - lastUpkeep >= 5 {
                upkeep()
                lastUpkeep = WallClock.monotonic()
            }
            let records = try consumer.poll(maxRecords: 1000, timeout: .milliseconds(200))
            for end in consumer.takeEndOfPartitions() { atEnd.insert(end.partition) }
            if records.isEmpty {
                silent += 0.2
                guard let published = done.publishedInputs else { continue }
                // Idle seconds count from the service's last commit: the end of a partition reached before
                // it is not the end of the events.
                let assigned = (try? consumer.assignment()) ?? []
                if metrics.snapshot.inputsCommitted < published {
                    idle = 0
                } else if !assigned.isEmpty, assigned.allSatisfy({ atEnd.contains($0.partition) }) {
                    idle += 0.2
                }
                if idle > 1 || silent > 30 { break }
                continue
            }
            idle = 0
            silent = 0
            for record in records {
                atEnd.remove(record.partition)
                guard let value = record.value, let decoded = try? EventDecoder.decode(value) else { continue }
                if let summary {
                    summary.add(decoded.event.type)
                } else if Self.wants(decoded.event.type, show) {
                    Terminal.output(EventLine.render(decoded.event))
                }
            }
        }
    }

    static func wants(_ type: EventType, _ show: Set<String>) -> Bool {
        if show.contains("all") { return true }
        switch type {
        case .updatedTrip: return show.contains("updates")
        case .enteredGeofence, .exitedGeofence, .dwelledInGeofence: return show.contains("geofence")
        // A wrong-destination arrival is a courier who stopped at another store of the chain: news.
        default: return show.contains("trip")
        }
    }
}
