import Codec
import Domain
import Foundation
import KafkaIO
import LZ4IO
import Runtime
import Simulation
import Synchronization

/// An in-process mock cluster with TripStream's topics, a simulated fleet published to it, and
/// helpers to run `StreamRuntime` instances on threads and read what they published.
final class KafkaRuntimeHarness: @unchecked Sendable {
    // Safe: used from the test's thread only; runtimes get their own copies of what they need.
    static let partitions: Int32 = 4
    let cluster: MockCluster
    let topics = Topics()
    let stateRoot: String
    let settings: SimulationSettings
    private(set) var fixes: [Int32: [SimulatedRecord]] = [:]
    private(set) var geofences: [Geofence] = []
    private(set) var inputCount = 0

    init(users: Int = 40, geofences: Int = 60, minutes: Int64 = 12, seed: UInt64 = 5) throws {
        cluster = try MockCluster(brokerCount: 3)
        for topic in topics.all {
            try cluster.createTopic(topic, partitions: topic == topics.geofences ? 2 : Self.partitions, replicationFactor: 3)
        }
        var s = SimulationSettings()
        s.users = users
        s.geofences = geofences
        s.duration = minutes * 60
        s.offlineChance = 0.01
        s.duplicateChance = 0.01
        s.seed = seed
        s.start = WallClock.now() - minutes * 60_000 - 600_000
        settings = s
        stateRoot = NSTemporaryDirectory() + "tripstream-test-\(UUID().uuidString)"
    }

    deinit { try? FileManager.default.removeItem(atPath: stateRoot) }

    static func partition(of userId: String) -> Int32 {
        var hasher = StableHasher()
        hasher.combine(userId)
        return Int32(hasher.value % UInt64(partitions))
    }

    /// Publishes the whole fleet in arrival order; `part` selects the first or second half of the
    /// time steps (geofences go with the first).
    func publish(fraction: ClosedRange<Double> = 0...1) throws {
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        var simulator = FleetSimulator(settings: settings)
        var steps: [[SimulatedRecord]] = []
        var step: [SimulatedRecord] = []
        while simulator.nextStep(into: &step) {
            steps.append(step)
            step.removeAll()
        }
        let lower = Int(Double(steps.count) * fraction.lowerBound)
        let upper = Int(Double(steps.count) * fraction.upperBound)
        var records = lower == 0 ? simulator.geofenceRecords : []
        for index in lower..<upper { records.append(contentsOf: steps[index]) }
        var key: [UInt8] = [], value: [UInt8] = []
        var lastTopic = ""
        for record in records {
            InputRecordEncoder.encode(record, key: &key, value: &value)
            // The expected fold takes the inputs in this order, so each topic's records are written
            // before the other topic's next ones: a batch retried after an injected error or a broker
            // outage must not land behind records published after it.
            let topic = switch record {
            case .geofence: topics.geofences
            case .command: topics.tripCommands
            case .fix: topics.locations
            }
            if topic != lastTopic, !lastTopic.isEmpty {
                let report = try producer.flush(timeout: .seconds(30))
                precondition(report.allDelivered, "publishing failed")
            }
            lastTopic = topic
            switch record {
            case let .geofence(g):
                geofences.append(g)
                try producer.produce(topic: topics.geofences, key: key, value: value)
            case let .command(c):
                let p = Self.partition(of: c.userId)
                fixes[p, default: []].append(record)
                inputCount += 1
                try producer.produce(topic: topics.tripCommands, partition: p, key: key, value: value)
            case let .fix(f):
                let p = Self.partition(of: f.userId)
                fixes[p, default: []].append(record)
                inputCount += 1
                try producer.produce(topic: topics.locations, partition: p, key: key, value: value)
            }
        }
        let report = try producer.flush(timeout: .seconds(30))
        precondition(report.allDelivered, "publishing failed")
    }

    /// The events the fold yields over the same inputs, partition by partition: what a consumer
    /// upserting by `_id` must end with. Keyed by `_id`, encoded without `live`/`actualCreatedAt`.
    func expectedEvents() -> [String: String] {
        Self.expectedEvents(inputs: fixes, geofences: geofences)
    }

    /// The fold of `inputs` (by partition, in arrival order), upserted by `_id`.
    static func expectedEvents(inputs: [Int32: [SimulatedRecord]], geofences: [Geofence]) -> [String: String] {
        let table = GeofenceTable(geofences)
        var published: [Event] = []
        for partition in inputs.keys.sorted() {
            var fold = PartitionFold()
            for record in inputs[partition]! {
                switch record {
                case let .fix(f): _ = fold.process(f, geofences: table, processingTime: f.createdAt, events: &published)
                case let .command(c):
                    _ = fold.process(c, geofences: table, processingTime: c.createdAt, events: &published)
                case .geofence: break
                }
            }
            fold.settle(geofences: table, processingTime: fold.streamTime, events: &published)
        }
        return Self.upserted(published)
    }

    /// The events `tripstream replay` writes for the same records, partition by partition: each
    /// partition's fixes and commands as files in the order they were published.
    func replayedEvents() throws -> [Event] {
        let directory = stateRoot + "/replay"
        try ReplayJob.makeDirectory(directory)
        func write(_ path: String, _ lines: [[UInt8]]) throws { try NDJSONFile.write(lines, to: path) }
        try write(directory + "/geofences.ndjson", geofences.map { g in
            var line: [UInt8] = []
            InputRecordEncoder.encode(g, into: &line)
            return line
        })
        var events: [Event] = []
        for partition in fixes.keys.sorted() {
            var fixLines: [[UInt8]] = [], commandLines: [[UInt8]] = []
            for record in fixes[partition]! {
                var line: [UInt8] = []
                switch record {
                case let .fix(f):
                    InputRecordEncoder.encode(f, into: &line)
                    fixLines.append(line)
                case let .command(c):
                    InputRecordEncoder.encode(c, into: &line)
                    commandLines.append(line)
                case .geofence: break
                }
            }
            try write(directory + "/fixes-\(partition).ndjson", fixLines)
            try write(directory + "/commands-\(partition).ndjson", commandLines)
            let out = directory + "/out-\(partition)"
            var options = ReplayOptions(
                geofencesPath: directory + "/geofences.ndjson", commandsPath: directory + "/commands-\(partition).ndjson",
                fixesPath: directory + "/fixes-\(partition).ndjson", outputDirectory: out, settings: FoldSettings())
            options.partitions = 1  // the file is one partition of the topics: one stream time, as `run` has
            _ = try ReplayJob.run(options)
            let text = try String(contentsOfFile: out + "/events.ndjson", encoding: .utf8)
            for line in text.split(separator: "\n") { events.append(try EventDecoder.decode(Array(line.utf8)).event) }
        }
        return events
    }

    static func comparable(_ event: Event) -> String { EventDiff.comparable(event) }

    static func upserted(_ events: [Event]) -> [String: String] {
        var byID: [String: Event] = [:]
        for event in events { byID[event.id.hexString] = event }
        return byID.filter { $0.value.revision != .retracted }.mapValues(comparable)
    }

    // MARK: - Runtimes

    final class RunningRuntime: @unchecked Sendable {
        // Safe: `stop` is atomic; `finished` and `failure` are written by the runtime thread before
        // `done` is signalled and read after waiting for it.
        let stop = Atomic<Bool>(false)
        let metrics = RuntimeMetrics()
        let done = DispatchSemaphore(value: 0)
        var failure: (any Error)?
        var logs: [String] = []
        let logLock = NSLock()

        /// Runs a `StreamRuntime` on a thread of its own.
        static func launch(options: RuntimeOptions, broker: any Broker) -> RunningRuntime {
            let running = RunningRuntime()
            let thread = Thread {
                do {
                    let runtime = StreamRuntime(
                        options: options, metrics: running.metrics,
                        log: { line in running.logLock.lock(); running.logs.append(line); running.logLock.unlock() },
                        shouldStop: { running.stop.load(ordering: .relaxed) }, broker: broker)
                    try runtime.run()
                } catch {
                    running.failure = error
                }
                running.done.signal()
            }
            thread.start()
            return running
        }

        func halt(timeout: Double = 60) -> Bool {
            stop.store(true, ordering: .relaxed)
            return done.wait(timeout: .now() + timeout) == .success
        }
    }

    func options(instance: String) -> RuntimeOptions {
        var kafka = cluster.clientConfiguration
        kafka["session.timeout.ms"] = "6000"  // the mock's rebalances, quick enough for tests
        kafka["heartbeat.interval.ms"] = "500"
        var options = RuntimeOptions(kafka: kafka, stateDirectory: stateRoot + "/" + instance, instanceId: instance)
        options.group = "tripstream-test"
        options.snapshotInterval = 2_000
        // The reference fold has no wall clock: timers fire only on the inputs' own time here.
        options.idleAdvance = 0
        return options
    }

    func start(instance: String, configure: (inout RuntimeOptions) -> Void = { _ in }) -> RunningRuntime {
        var options = options(instance: instance)
        configure(&options)
        return RunningRuntime.launch(options: options, broker: KafkaBroker())
    }

    /// Waits until `condition` holds, or times out.
    func wait(timeout: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return condition()
    }

    /// Waits until the runtimes together committed `count` inputs, or times out. (Committed, not
    /// folded: an input folded again after an abort or a rebuild counts once.)
    func waitUntilConsumed(_ runtimes: [RunningRuntime], atLeast count: Int, timeout: Double = 90) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let consumed = runtimes.reduce(0) { $0 + $1.metrics.snapshot.inputsCommitted }
            if consumed >= count { return true }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return false
    }

    // MARK: - Reading outputs

    /// Every event on the events topic (read_committed), in offset order per partition.
    func readEvents(settle: Double = 3) throws -> [Event] {
        var configuration = cluster.clientConfiguration
        configuration["group.id"] = "reader-\(UUID().uuidString)"
        let reader = try KafkaReader(configuration: configuration)
        let partitions = (0..<Self.partitions).map { TopicPartition(topic: topics.events, partition: $0) }
        try reader.assign(partitions.map { ($0, .beginning) })
        var events: [Event] = []
        var quietSince = Date()
        while Date().timeIntervalSince(quietSince) < settle {
            let records = try reader.poll(maxRecords: 10_000, timeout: .milliseconds(200))
            if !records.isEmpty { quietSince = Date() }
            for record in records {
                guard let value = record.value else { continue }
                events.append(try EventDecoder.decode(value).event)
            }
        }
        try reader.close()
        return events
    }

    /// `_id`s republished without `corrected`/`retracted` but with content different from their
    /// latest publication: a consumer upserting by `_id` must only ever see identical repeats
    /// unless an event says it changed. On a broker that cannot abort (`brokerAborts` false: the
    /// mock cluster), a killed or rebuilt instance's flushed outputs stay visible while its state
    /// rolls back, and folding the same inputs again repeats that sequence (an event, then its
    /// correction) after it: a repeat must then equal an earlier publication, not the latest.
    static func divergentRepeats(_ events: [Event], brokerAborts: Bool) -> [String] {
        var published: [String: [String]] = [:]
        var divergent: [String] = []
        for event in events {
            let id = event.id.hexString
            let content = comparable(event)
            let earlier = published[id, default: []]
            if event.revision == .original, let latest = earlier.last,
                brokerAborts ? latest != content : !earlier.contains(content)
            {
                divergent.append(id)
            }
            if !earlier.contains(content) { published[id, default: []].append(content) }
        }
        return divergent
    }
}
