import BrokerSimulation
import Codec
import Domain
import Foundation
import KafkaIO
import Runtime
import Simulation
import Synchronization

/// A simulated fleet on an `InMemoryBroker`, and `StreamRuntime`s on threads against it: for the
/// failure paths librdkafka's mock cannot reach (real aborts, fencing, retriable coordinator
/// errors, rebalances at a chosen moment).
final class FakeBrokerHarness: @unchecked Sendable {
    // Safe: used from the test's thread; runtimes get their own copies of what they need.
    static let partitions: Int32 = 4
    let broker = InMemoryBroker()
    let topics = Topics()
    let stateRoot = NSTemporaryDirectory() + "tripstream-fake-\(UUID().uuidString)"
    private(set) var inputs: [Int32: [SimulatedRecord]] = [:]
    private(set) var geofences: [Geofence] = []
    /// Every input of the fleet, published or withheld.
    private(set) var inputCount = 0
    private(set) var commandCount = 0
    /// Inputs not published yet (`publishing`), in their order, for `publishWithheld`.
    private var withheld: [(topic: String, partition: Int32, key: [UInt8], value: [UInt8])] = []
    private var nextWithheld = 0

    /// Publishes a fleet of `users` for `minutes` (offline buffers and duplicates included);
    /// `commands` false leaves the trip-commands topic empty. Only its first `publishing` inputs
    /// are published now; a test paces the rest with `publishWithheld`.
    init(users: Int = 30, minutes: Int64 = 10, seed: UInt64 = 21, commands: Bool = true,
         publishing: Int = .max) throws
    {
        for topic in topics.all {
            broker.createTopic(topic, partitions: topic == topics.geofences ? 1 : Int(Self.partitions))
        }
        var settings = SimulationSettings()
        settings.users = users
        settings.geofences = 40
        settings.duration = minutes * 60
        settings.offlineChance = 0.01
        settings.duplicateChance = 0.01
        settings.seed = seed
        settings.start = 1_780_000_000_000
        var simulator = FleetSimulator(settings: settings)
        var records = simulator.geofenceRecords
        var step: [SimulatedRecord] = []
        while simulator.nextStep(into: &step) {
            records.append(contentsOf: step)
            step.removeAll()
        }
        var key: [UInt8] = [], value: [UInt8] = []
        func publish(_ topic: String, _ partition: Int32) throws {
            inputCount += 1
            guard inputCount > publishing else {
                try broker.append(topic: topic, partition: partition, key: key, value: value)
                return
            }
            withheld.append((topic, partition, key, value))
        }
        for record in records {
            InputRecordEncoder.encode(record, key: &key, value: &value)
            switch record {
            case let .geofence(geofence):
                geofences.append(geofence)
                try broker.append(topic: topics.geofences, key: key, value: value)
            case let .command(command):
                guard commands else { continue }
                let partition = KafkaRuntimeHarness.partition(of: command.userId)
                inputs[partition, default: []].append(record)
                commandCount += 1
                try publish(topics.tripCommands, partition)
            case let .fix(fix):
                let partition = KafkaRuntimeHarness.partition(of: fix.userId)
                inputs[partition, default: []].append(record)
                try publish(topics.locations, partition)
            }
        }
    }

    /// Inputs still withheld.
    var withheldCount: Int { withheld.count - nextWithheld }

    /// Publishes the next `count` withheld inputs (all of them by default), in their order.
    func publishWithheld(_ count: Int = .max) throws {
        let end = nextWithheld + max(0, min(count, withheldCount))
        for record in withheld[nextWithheld..<end] {
            try broker.append(topic: record.topic, partition: record.partition, key: record.key, value: record.value)
        }
        nextWithheld = end
    }

    deinit { try? FileManager.default.removeItem(atPath: stateRoot) }

    func partition(_ index: Int32) -> TopicPartition { TopicPartition(topic: topics.locations, partition: index) }

    /// The events the fold yields over the same inputs, upserted by `_id` (see `KafkaRuntimeHarness`).
    func expectedEvents() -> [String: String] {
        KafkaRuntimeHarness.expectedEvents(inputs: inputs, geofences: geofences)
    }

    /// The events a read_committed consumer of the events topic reads now.
    func committedEvents() throws -> [Event] {
        try broker.committedRecords(topic: topics.events).compactMap { record in
            try record.value.map { try EventDecoder.decode($0).event }
        }
    }

    // MARK: - Runtimes

    func options(instance: String) -> RuntimeOptions {
        var options = RuntimeOptions(kafka: KafkaConfiguration(), stateDirectory: stateRoot + "/" + instance,
                                     instanceId: instance)
        options.group = "tripstream-fake"
        options.idleAdvance = 0  // the reference fold has no wall clock
        options.commitInterval = 20
        options.maxPollRecords = 40  // many small rounds: the fold has work while a commit is in flight
        options.threads = 2
        return options
    }

    func start(instance: String, configure: (inout RuntimeOptions) -> Void = { _ in })
        -> KafkaRuntimeHarness.RunningRuntime
    {
        var options = options(instance: instance)
        configure(&options)
        return KafkaRuntimeHarness.RunningRuntime.launch(options: options, broker: broker)
    }

    /// Waits until `condition` holds, or times out.
    func wait(timeout: Double = 60, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }

    /// Waits until `runtimes` together committed every input.
    func waitUntilCommitted(_ runtimes: [KafkaRuntimeHarness.RunningRuntime], timeout: Double = 90) -> Bool {
        wait(timeout: timeout) { runtimes.reduce(0) { $0 + $1.metrics.snapshot.inputsCommitted } >= inputCount }
    }
}
