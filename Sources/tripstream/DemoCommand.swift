import Codec
import CommandLineKit
import CommandSupport
import Domain
import Foundation
import KafkaIO
import Runtime
import Simulation

/// `tripstream demo`: the embedded broker, a simulated fleet, the service, and a live view of the
/// events as a notification service sees them (read_committed), in one process.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Everything in one process on the embedded broker: fleet, service, live events.",
        discussion: """
            Starts librdkafka's mock cluster, creates the topics, publishes a simulated fleet (with GPS noise, \
            offline gaps replayed late and duplicates), runs the service on it and prints the events a \
            notification service would receive. Stops after --duration of simulated time or on Ctrl-C, then \
            prints a summary.
            """,
        options: [
            .value("users", short: "u", valueName: "count", help: "Drivers.", default: "200"),
            .value("geofences", valueName: "count", help: "Geofences.", default: "300"),
            .value("duration", valueName: "duration", help: "Simulated time to run.", default: "30m"),
            .value("speedup", valueName: "factor", help: "Simulated seconds per real second.", default: "60"),
            .value("show", valueName: "kinds",
                   help: "Event kinds to print: all, or a list of trip, geofence, updates (arrivals at a wrong "
                       + "destination only with all).", default: "trip,geofence"),
            .value("seed", valueName: "n", help: "Random seed of the fleet.", default: "7"),
            .flag("console", help: "Serve the console on loopback (its URL is printed); events become a summary line.",
                  default: true, inversion: true),
        ] + TripDefaultOptions.specs(environment: false) + EtaModelOptions.specs(environment: false))

    static func run(_ parsed: ParsedArguments) throws {
        ShutdownSignal.install()
        var settings = SimulationSettings()
        settings.users = try parsed.int("users", in: 1...10_000_000)
        settings.geofences = try parsed.int("geofences", in: 0...10_000_000)
        settings.duration = try parsed.duration("duration") / 1000
        settings.seed = UInt64(try parsed.int("seed", in: 0...Int.max))
        settings.offlineChance = 0.004
        settings.start = WallClock.now()  // the fleet starts now, so live events are live, not late
        let speedup = max(try parsed.double("speedup"), 1)
        let show = Set(parsed.list("show"))
        if let unknown = show.subtracting(showChoices).sorted().first {
            throw CommandFailure("--show \(unknown): no such kind of event; choose from \(showChoices.sorted().joined(separator: ", "))")
        }
        var foldSettings = FoldSettings()
        try TripDefaultOptions.read(parsed, into: &foldSettings)
        // Simulated time runs --speedup times faster than the wall clock: the service takes fixes that far ahead.
        foldSettings.maxClockSkew = max(foldSettings.maxClockSkew, settings.duration * 1000 + 15 * 60_000)
        try EtaModelOptions.read(parsed, into: &foldSettings)

        let topics = Topics()
        let cluster = try DevBrokerCluster.start(brokerCount: 1, partitions: 4, topics: topics)
        let kafka = cluster.clientConfiguration
        Terminal.error("embedded broker at \(cluster.bootstrapServers)")

        // The embedded broker goes with the process, and the state with it: nothing to resume from.
        let state = NSTemporaryDirectory() + "tripstream-demo-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var options = RuntimeOptions(kafka: kafka, stateDirectory: state, instanceId: "demo")
        options.group = "tripstream-demo"
        options.settings = foldSettings
        let metrics = RuntimeMetrics()
        let done = DemoFlag()
        let runtimeOptions = options
        let fleet = settings
        let runtimeThread = Thread {
            do {
                // Scoped, so the service's clients are gone before the broker is.
                let runtime = StreamRuntime(options: runtimeOptions, metrics: metrics,
                                            log: { Terminal.error("service: \($0)") },
                                            shouldStop: { done.isSet || ShutdownSignal.isRequested })
                try runtime.run()
            } catch {
                Terminal.error("service failed: \(error)")
            }
            done.runtimeStopped()
        }
        runtimeThread.start()

        let publisherThread = Thread {
            do {
                // Scoped like the service's clients.
                let producer = try KafkaProducer(configuration: kafka)
                let check = try PublishedRecordsCheck(configuration: kafka, topics: [topics.locations, topics.tripCommands])
                let interval = Double(fleet.fixInterval) / speedup
                var last = WallClock.monotonic()
                let counts = try SimulatePublisher.publish(fleet, producer: producer, topics: topics, rate: 0) { _ in
                    let next = last + interval
                    let now = WallClock.monotonic()
                    if next > now { Terminal.sleep(seconds: next - now) }
                    last = max(next, now)
                    return !done.isSet && !ShutdownSignal.isRequested
                }
                done.published(counts.fixes + counts.commands)
                try check.warnIfDropped(published: [topics.locations: counts.fixes, topics.tripCommands: counts.commands]) {
                    Terminal.error($0)
                }
                Terminal.error("fleet: published \(counts.fixes + counts.commands) inputs, \(fleet.duration / 60) simulated minutes")
            } catch {
                Terminal.error("fleet failed: \(error)")
            }
            done.publisherStopped()
        }
        publisherThread.start()

        let console = try parsed.bool("console") ? DemoConsole.start(kafka: kafka, topics: topics, metrics: metrics) : nil
        // The service and the fleet are stopped whatever became of the watcher, before their state is removed.
        let watched = Result {
            try watchEvents(kafka: kafka, topic: topics.events, show: show, done: done, metrics: metrics,
                            summary: console.map { _ in DemoFeedSummary() })
        }
        console?.stop()
        done.set()
        done.waitForRuntime()
        done.waitForPublisher()
        try watched.get()
        let values = metrics.snapshot
        Terminal.output("")
        var letters = values.processor.deadLetters
        for (reason, count) in values.fold.rejected { letters[reason, default: 0] += count }
        let reasons = letters.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }
        Terminal.output("summary: \(values.consumed.values.reduce(0, +)) inputs consumed, \(values.fold.events) events, \(values.fold.lateInputs) late fixes placed in event time (\(values.fold.rewinds) refolds), \(values.fold.duplicates) duplicates dropped, \(values.transactionsCommitted) transactions")
        Terminal.output("dead letters: \(reasons.isEmpty ? "none" : reasons.joined(separator: ", "))")
        withExtendedLifetime(cluster) {}
    }

    /// Reads the events topic as a notification service would (read_committed) and prints them.
    /// Stops once the fleet finished, the service committed every input it published (or, should the
    /// service be stuck, after 30 s without an event) and the watcher stood for a second at the end of
    /// every partition it was given. (Counting quiet seconds before that, a short demo ended while the
    /// watcher's group was still joining, having printed nothing.)
    static func watchEvents(kafka: KafkaConfiguration, topic: String, show: Set<String>, done: DemoFlag,
                            metrics: RuntimeMetrics, summary: DemoFeedSummary? = nil) throws
    {
        var configuration = kafka
        configuration = configuration.inGroup("demo-notifications")
            .startingAtTheBeginning()  // events published before the group joined count too
        let consumer = try KafkaConsumer(configuration: configuration, enablePartitionEOF: true)
        try consumer.subscribe([topic])
        var idle = 0.0, silent = 0.0
        var atEnd: Set<Int32> = []
        while !ShutdownSignal.isRequested {
            summary?.printIfDue()
            let records = try consumer.poll(maxRecords: 1000, timeout: .milliseconds(200))
            for end in consumer.takeEndOfPartitions() { atEnd.insert(end.partition) }
            if records.isEmpty {
                silent += 0.2
                let assigned = (try? consumer.assignment()) ?? []
                if !assigned.isEmpty, assigned.allSatisfy({ atEnd.contains($0.partition) }) { idle += 0.2 }
                if let published = done.publishedInputs,
                    idle > 1 && metrics.snapshot.inputsCommitted >= published || silent > 30
                {
                    break
                }
                if done.publisherFinished, done.publishedInputs == nil { break }  // the fleet failed
                continue
            }
            idle = 0
            silent = 0
            for record in records {
                atEnd.remove(record.partition)
                guard let value = record.value, let decoded = try? EventDecoder.decode(value) else { continue }
                if let summary {
                    summary.add(decoded.event.type)
                } else if wants(decoded.event.type, show) {
                    Terminal.output(EventLine.render(decoded.event))
                }
            }
        }
        try? consumer.close()
    }

    static let showChoices: Set = ["all", "trip", "geofence", "updates"]

    static func wants(_ type: EventType, _ show: Set<String>) -> Bool {
        if show.contains("all") { return true }
        switch type {
        // A driver passing other stores of the destination's chain: most of a dense city's feed, so only with all.
        case .arrivedAtWrongTripDestination: return false
        case .updatedTrip: return show.contains("updates")
        case .enteredGeofence, .exitedGeofence, .dwelledInGeofence: return show.contains("geofence")
        default: return show.contains("trip")
        }
    }
}

/// Coordination between the demo's threads.
final class DemoFlag: @unchecked Sendable {
    // Safe: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var stop = false
    private var publisherDone = false
    private var runtimeDone = false

    var isSet: Bool { condition.lock(); defer { condition.unlock() }; return stop }
    private var publishedCount: Int?
    var publisherFinished: Bool { condition.lock(); defer { condition.unlock() }; return publisherDone }
    /// Fixes and trip commands the fleet published, once it finished.
    var publishedInputs: Int? { condition.lock(); defer { condition.unlock() }; return publishedCount }

    func published(_ inputs: Int) { condition.lock(); publishedCount = inputs; condition.unlock() }

    func set() { condition.lock(); stop = true; condition.broadcast(); condition.unlock() }
    func publisherStopped() { condition.lock(); publisherDone = true; condition.broadcast(); condition.unlock() }
    func runtimeStopped() { condition.lock(); runtimeDone = true; condition.broadcast(); condition.unlock() }

    func waitForPublisher() {
        condition.lock()
        while !publisherDone { condition.wait() }
        condition.unlock()
    }

    func waitForRuntime() {
        condition.lock()
        while !runtimeDone { condition.wait() }
        condition.unlock()
    }
}
