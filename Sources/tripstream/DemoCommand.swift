import Codec
import Console
import CommandLineKit
import Domain
import Foundation
import KafkaIO
import Runtime
import Simulation

/// `tripstream demo`: the embedded broker, a live fleet, the service, the console, and a live view of the
/// events as a notification service sees them (read_committed), in one process, until Ctrl-C.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        abstract: "Everything in one process on the embedded broker: a live fleet, the service, the console, events.",
        discussion: """
            Starts librdkafka's mock cluster, creates the topics, publishes a live fleet, runs the service on it, \
            serves the console and prints the events a notification service would receive. The simulated fleet \
            never ends: trips start as others end, a few couriers stop at the wrong store, a few devices go quiet \
            (some replay their fixes once back), a few trips run late; GPS noise and duplicates throughout. \
            --fleet porto plays the bundled real Porto taxi rides again and again instead. Runs until Ctrl-C \
            (or for --duration of simulated time), then prints a summary. See docs/demo.md.
            """,
        options: [
            .value("fleet", valueName: "fleet",
                   help: "simulated (a city of --users drivers), porto (the bundled real Porto rides, played again "
                       + "and again), or a directory holding geofences.ndjson, commands.ndjson and fixes.ndjson[.lz4].",
                   default: "simulated"),
            .value("users", short: "u", valueName: "count", help: "Drivers of the simulated fleet.", default: "100"),
            .value("geofences", valueName: "count", help: "Geofences of the simulated fleet.", default: "200"),
            .value("duration", valueName: "duration",
                   help: "Simulated time to run, then stop once the service has read it all. Default: until Ctrl-C."),
            .value("speedup", valueName: "factor", help: "Simulated seconds per real second.", default: "5"),
            .value("show", valueName: "kinds",
                   help: "Event kinds to print: all, or a list of trip (wrong-destination stops included), "
                       + "geofence, updates.", default: "trip,geofence"),
            .value("seed", valueName: "n", help: "Random seed of the simulated fleet.", default: "7"),
            .value("secret-file", valueName: "file",
                   help: "The console's tracking-link secret (16 bytes or more), so `tripstream tracking-link "
                       + "--secret-file` mints links it accepts. Default: one made for this run."),
            .flag("console", help: "Serve the console on loopback (its URL is printed); events become a summary line.",
                  default: true, inversion: true),
        ] + MapTilesOptions.specs + TripDefaultOptions.specs(environment: false) + EtaModelOptions.specs(environment: false))

    /// The service's consumer group.
    static let group = "tripstream-demo"

    static func run(_ parsed: ParsedArguments) throws {
        // A graceful stop takes a few seconds; a stuck one must not keep a terminal.
        ShutdownSignal.install(deadline: 30)
        let start = WallClock.now()  // the fleet starts now, so live events are live, not late
        let duration = try parsed.optional("duration", parsed.duration).map { $0 / 1000 }
        if duration == 0 { throw CommandFailure("--duration must be positive") }
        let speedup = max(try parsed.double("speedup"), 1)
        let show = Set(parsed.list("show"))
        if let unknown = show.subtracting(DemoEventWatch.showChoices).sorted().first {
            throw CommandFailure("--show \(unknown): no such kind of event; choose from \(DemoEventWatch.showChoices.sorted().joined(separator: ", "))")
        }
        let secretFile = try parsed.optional("secret-file", parsed.string)
        let secret = try secretFile.map { try SecretFile.read($0, option: "secret-file", minimumBytes: 16) }
        var foldSettings = FoldSettings()
        try TripDefaultOptions.read(parsed, into: &foldSettings)
        // Simulated time runs --speedup times faster than the wall clock: the service takes fixes that far
        // ahead. Without an end, a year ahead (six days of a demo at 60x).
        foldSettings.maxClockSkew = max(foldSettings.maxClockSkew,
                                        duration.map { $0 * 1000 + 15 * 60_000 } ?? 366 * 86_400_000)
        try EtaModelOptions.read(parsed, into: &foldSettings)
        let tiles = try MapTilesOptions.read(parsed)  // before anything starts: a wrong file is one line, at once
        let fleetName = try parsed.string("fleet")
        if fleetName == "simulated" {
            var settings = SimulationSettings()
            settings.users = try parsed.int("users", in: 1...10_000_000)
            settings.geofences = try parsed.int("geofences", in: 0...10_000_000)
            settings.duration = duration ?? .max
            settings.seed = UInt64(try parsed.int("seed", in: 0...Int.max))
            settings.offlineChance = 0.004
            settings.start = start
            settings.liveliness = .demo
            Terminal.error("fleet: a simulated city, \(settings.users) drivers, \(settings.geofences) geofences, seed "
                + "\(settings.seed), at \(times(speedup)) the wall clock's pace")
            try run(FleetSimulator(settings: settings), speedup: speedup, show: show, settings: foldSettings,
                    secret: secret, secretFile: secretFile, tiles: tiles, console: try parsed.bool("console"))
        } else {
            for option in ["users", "geofences", "seed"] where parsed.source(of: option) != .defaultValue {
                throw CommandFailure("--\(option) is for the simulated fleet, not --fleet \(fleetName)")
            }
            let directory = fleetName == "porto" ? try DemoFleet.portoSample() : fleetName
            let fleet = try DemoFleet.recorded(directory: directory, start: start, duration: duration ?? .max)
            Terminal.error("fleet: the rides of \(directory), again and again, at \(times(speedup)) the wall clock's pace")
            try run(fleet, speedup: speedup, show: show, settings: foldSettings, secret: secret,
                    secretFile: secretFile, tiles: tiles, console: try parsed.bool("console"))
        }
    }

    /// `5x`, `2.5x`.
    private static func times(_ factor: Double) -> String {
        (factor == factor.rounded() && factor < 1e9 ? "\(Int(factor))" : "\(factor)") + "x"
    }

    private static func run<Fleet: LiveFleet>(_ fleet: Fleet, speedup: Double, show: Set<String>,
                                              settings: FoldSettings, secret: [UInt8]?, secretFile: String?,
                                              tiles: MapTiles?, console showConsole: Bool) throws
    {
        let topics = Topics()
        let cluster = try DevBrokerCommand.start(brokerCount: 1, partitions: 4, topics: topics)
        let kafka = cluster.clientConfiguration
        Terminal.error("embedded broker at \(cluster.bootstrapServers)")
        // The geofences first, so the service starts with its whole table.
        let geofences = try DemoPublisher.publishGeofences(fleet.geofenceRecords, configuration: kafka, topics: topics)
        Terminal.error("fleet: \(geofences) geofences published")

        // The embedded broker goes with the process, and the state with it: nothing to resume from.
        let state = NSTemporaryDirectory() + "tripstream-demo-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: state) }
        var options = RuntimeOptions(kafka: kafka, stateDirectory: state, instanceId: "demo")
        options.group = group
        options.settings = settings
        let metrics = RuntimeMetrics()
        let done = DemoFlag()
        let runtimeOptions = options
        let runtimeThread = Thread {
            do {
                // Scoped, so the service's clients are gone before the broker is.
                let runtime = StreamRuntime(options: runtimeOptions, metrics: metrics,
                                            log: { Terminal.error("service: \($0)") },
                                            shouldStop: { done.isSet || ShutdownSignal.isRequested })
                try runtime.run()
            } catch {
                Terminal.error("service failed: \(error)")
                done.fail("the service failed: \(error)")
            }
            done.runtimeStopped()
        }
        runtimeThread.start()
        SetupWarningWatch.start(metrics: metrics, geofencesTopic: topics.geofences) { Terminal.error("service: \($0)") }
        DemoPublisher.start(fleet, speedup: speedup, configuration: kafka, topics: topics, done: done)

        let console = showConsole
            ? try DemoConsole.start(kafka: kafka, topics: topics, metrics: metrics, secret: secret, secretFile: secretFile,
                                tiles: tiles)
            : nil
        // Its clients go with the call, before the broker does.
        try watchEvents(kafka: kafka, topics: topics, show: show, done: done, metrics: metrics, summary: console != nil) {
            // The service and the fleet are stopped whatever became of the watcher, before their state is removed.
            console?.stop()
            done.set()
            done.waitForRuntime()
            done.waitForPublisher()
        }
        let values = metrics.snapshot
        Terminal.output("")
        var letters = values.processor.deadLetters
        for (reason, count) in values.fold.rejected { letters[reason, default: 0] += count }
        let reasons = letters.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }
        Terminal.output("summary: \(values.consumed.values.reduce(0, +)) inputs consumed, \(values.fold.events) events, \(values.fold.lateInputs) late fixes placed in event time (\(values.fold.rewinds) refolds), \(values.fold.duplicates) duplicates dropped, \(values.transactionsCommitted) transactions")
        Terminal.output("dead letters: \(reasons.isEmpty ? "none" : reasons.joined(separator: ", "))")
        withExtendedLifetime(cluster) {}
        if let failure = done.failed { throw CommandFailure(failure) }
    }

    /// Watches the events until the end (see `DemoEventWatch.run`), calls `stop`, then warns of inputs the
    /// service missed.
    private static func watchEvents(kafka: KafkaConfiguration, topics: Topics, show: Set<String>, done: DemoFlag,
                                    metrics: RuntimeMetrics, summary: Bool, stop: () -> Void) throws
    {
        // Nothing may throw before `stop`: the service and the fleet must stop whatever happens here.
        let missed = try? DemoMissedInputs(configuration: kafka, topics: topics, metrics: metrics)
        defer { missed?.close() }
        var watch = DemoEventWatch(kafka: kafka, topic: topics.events, show: show, done: done, metrics: metrics)
        watch.summary = summary ? DemoFeedSummary() : nil
        watch.upkeep = { try? missed?.check() }
        let watched = Result { try watch.run() }
        stop()
        try watched.get()
        if let published = done.published, let missed {
            try? missed.check()
            missed.warnIfMissed(published: [topics.locations: published.fixes, topics.tripCommands: published.commands]) {
                Terminal.error($0)
            }
        }
    }
}
