import Domain
import Foundation
import KafkaIO
import Runtime
import Testing

/// The Kafka runtime against librdkafka's in-process mock cluster: what a consumer of the events
/// topic ends with (after upserting by `_id`) must equal the fold of the same inputs, whatever
/// happens in between.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct KafkaRuntimeTests {
    func assertMatchesFold(_ harness: KafkaRuntimeHarness, _ events: [Event], _ context: String) {
        let expected = harness.expectedEvents()
        let actual = KafkaRuntimeHarness.upserted(events)
        #expect(expected.count > 200, "\(context): the scenario should produce events")
        let missing = expected.keys.filter { actual[$0] == nil }
        let extra = actual.keys.filter { expected[$0] == nil }
        let different = expected.keys.filter { actual[$0] != nil && actual[$0] != expected[$0] }
        let missingCount = missing.count, extraCount = extra.count, differentCount = different.count
        let divergentCount = KafkaRuntimeHarness.divergentRepeats(events, brokerAborts: false).count
        #expect(missingCount == 0, "\(context): of \(expected.count) events, lost e.g. \(missing.prefix(2).map { expected[$0]! })")
        #expect(extraCount == 0, "\(context): unexpected e.g. \(extra.prefix(2).map { actual[$0]! })")
        #expect(differentCount == 0, "\(context): differ e.g. \(different.prefix(1).map { "\(expected[$0]!)\nvs \(actual[$0]!)" })")
        #expect(divergentCount == 0, "\(context): a repeated _id changed content")
    }

    @Test func eventsEqualTheFoldOfTheSameInputs() throws {
        let harness = try KafkaRuntimeHarness()
        try harness.publish()
        let runtime = harness.start(instance: "a")
        #expect(harness.waitUntilConsumed([runtime], atLeast: harness.inputCount), "inputs not consumed")
        #expect(runtime.halt())
        #expect(runtime.failure == nil)
        let values = runtime.metrics.snapshot
        #expect(values.transactionsCommitted > 0)
        #expect(values.fold.rewinds > 0, "the fleet replays offline buffers")
        let events = try harness.readEvents()
        assertMatchesFold(harness, events, "single instance")
        // `tripstream replay` over the same records gives the same upserted events as `run`.
        let replayed = KafkaRuntimeHarness.upserted(try harness.replayedEvents())
        let run = KafkaRuntimeHarness.upserted(events)
        #expect(replayed.count > 200)
        let mismatched = run.keys.filter { replayed[$0] != run[$0] }.count + replayed.keys.filter { run[$0] == nil }.count
        #expect(mismatched == 0, "run and replay differ on \(mismatched) of \(run.count) events")
    }

    @Test func restartRestoresStateAndResumesWithoutLossOrDivergentRepeats() throws {
        let harness = try KafkaRuntimeHarness(seed: 6)
        try harness.publish(fraction: 0...0.5)
        let first = harness.start(instance: "a")
        #expect(harness.waitUntilConsumed([first], atLeast: harness.inputCount))
        #expect(first.halt())
        #expect(first.failure == nil)
        let snapshot = PartitionSnapshot.path(directory: harness.stateRoot + "/a/tripstream-test", partition: 0)
        #expect(FileManager.default.fileExists(atPath: snapshot), "a snapshot is written on shutdown")

        try harness.publish(fraction: 0.5...1)
        let second = harness.start(instance: "a")
        #expect(harness.waitUntilConsumed([second], atLeast: harness.inputCount - first.metrics.snapshot.inputsCommitted))
        #expect(second.halt())
        #expect(second.failure == nil)
        #expect(second.logs.contains { $0.contains("from a snapshot") }, "restored from the local snapshot")
        assertMatchesFold(harness, try harness.readEvents(), "restart")
    }

    @Test func restoreFromTheChangelogAloneWhenTheLocalStateIsGone() throws {
        let harness = try KafkaRuntimeHarness(seed: 8)
        try harness.publish(fraction: 0...0.5)
        let first = harness.start(instance: "a")
        #expect(harness.waitUntilConsumed([first], atLeast: harness.inputCount))
        #expect(first.halt())
        try FileManager.default.removeItem(atPath: harness.stateRoot + "/a")  // a new machine
        try harness.publish(fraction: 0.5...1)
        let second = harness.start(instance: "a")
        #expect(harness.waitUntilConsumed([second], atLeast: harness.inputCount - first.metrics.snapshot.inputsCommitted))
        #expect(second.halt())
        let restored = second.metrics.snapshot
        #expect(restored.restoredRecords > 0)
        // What the restore alerts and the sizing guide read: bytes, and one restore time per partition.
        #expect(restored.restoredBytes > restored.restoredRecords * 10, "a changelog record holds a key and a state")
        #expect(restored.partitionRestoreSeconds.count >= Int(KafkaRuntimeHarness.partitions))
        #expect(abs(restored.partitionRestoreSeconds.sum - restored.restoreSeconds) < 1e-9)
        assertMatchesFold(harness, try harness.readEvents(), "changelog restore")
    }

    @Test func injectedRequestErrorsAndABrokerOutageLoseNothing() throws {
        let harness = try KafkaRuntimeHarness(seed: 9)
        try harness.publish(fraction: 0...0.4)
        let runtime = harness.start(instance: "a")
        Thread.sleep(forTimeInterval: 4)
        try harness.publish(fraction: 0.4...0.7)
        // After publishing, so the errors hit the runtime's produce requests: a publisher batch retried
        // later would append commands behind fixes written after them, changing the inputs' order itself.
        harness.cluster.pushRequestErrors(
            apiKey: .produce, errors: [.notLeaderForPartition, .requestTimedOut, .notEnoughReplicas, .leaderNotAvailable])
        try harness.cluster.setBrokerDown(2)
        Thread.sleep(forTimeInterval: 3)
        try harness.cluster.setBrokerUp(2)
        try harness.publish(fraction: 0.7...1)
        #expect(harness.waitUntilConsumed([runtime], atLeast: harness.inputCount, timeout: 150))
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        assertMatchesFold(harness, try harness.readEvents(settle: 5), "faults")
    }

    @Test func anAbortBeforeTheFirstCheckpointRewindsAndLosesNothing() throws {
        let harness = try KafkaRuntimeHarness(seed: 12)
        try harness.publish()
        // The first transaction cannot add its partitions (TOPIC_AUTHORIZATION_FAILED): it aborts
        // before any partition has a checkpoint in the changelog. Its purged records must not fail the
        // next transaction too, and what it had folded must be folded again.
        harness.cluster.pushRequestErrors(apiKey: .addPartitionsToTxn, errors: [KafkaError.Code(rawValue: 29)])
        let runtime = harness.start(instance: "a")
        #expect(harness.waitUntilConsumed([runtime], atLeast: harness.inputCount, timeout: 150))
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        #expect(runtime.metrics.snapshot.transactionsAborted >= 1, "the injected error aborted a transaction")
        assertMatchesFold(harness, try harness.readEvents(settle: 5), "abort before the first checkpoint")
    }

    @Test func lostPartitionsAreDroppedWithoutCommittingAndLoseNothing() throws {
        let harness = try KafkaRuntimeHarness(seed: 13)
        try harness.publish(fraction: 0...0.4)
        let runtime = harness.start(instance: "a")
        #expect(harness.wait(timeout: 30) { runtime.metrics.snapshot.transactionsCommitted > 0 })
        // The coordinator forgets the member: its assignment is lost, not revoked.
        harness.cluster.pushRequestErrors(apiKey: .heartbeat, errors: Array(repeating: KafkaError.Code(rawValue: 25), count: 3))
        try harness.publish(fraction: 0.4...1)
        #expect(harness.wait(timeout: 60) { runtime.metrics.snapshot.partitionsLost > 0 }, "the assignment was lost")
        #expect(harness.waitUntilConsumed([runtime], atLeast: harness.inputCount, timeout: 150))
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        #expect(runtime.logs.contains { $0.contains("dropped without committing") })
        assertMatchesFold(harness, try harness.readEvents(settle: 5), "lost partitions")
    }

    @Test func aCorruptSnapshotIsSkippedCountedAndTheChangelogRestoresThePartition() throws {
        let harness = try KafkaRuntimeHarness(seed: 14)
        try harness.publish(fraction: 0...0.5)
        let first = harness.start(instance: "a")
        #expect(harness.waitUntilConsumed([first], atLeast: harness.inputCount))
        #expect(first.halt())
        let directory = harness.stateRoot + "/a/tripstream-test"
        let snapshot = PartitionSnapshot.path(directory: directory, partition: 0)
        #expect(FileManager.default.fileExists(atPath: snapshot))
        try Data("not a snapshot at all".utf8).write(to: URL(fileURLWithPath: snapshot))
        try harness.publish(fraction: 0.5...1)
        let second = harness.start(instance: "a")
        #expect(harness.waitUntilConsumed([second], atLeast: harness.inputCount - first.metrics.snapshot.inputsCommitted))
        #expect(second.halt())
        #expect(second.failure == nil, "\(String(describing: second.failure))")
        #expect(second.metrics.snapshot.corruptSnapshots == 1)
        #expect(second.logs.contains { $0.contains("snapshot of partition 0 unreadable") })
        assertMatchesFold(harness, try harness.readEvents(), "corrupt snapshot")
    }

    @Test func twoInstancesSplitThePartitionsAndHandOver() throws {
        let harness = try KafkaRuntimeHarness(seed: 10)
        let partitions = Int(KafkaRuntimeHarness.partitions)
        try harness.publish(fraction: 0...0.3)
        let a = harness.start(instance: "a")
        #expect(harness.wait(timeout: 30) { a.metrics.snapshot.ownedPartitions == partitions })
        let b = harness.start(instance: "b")
        try harness.publish(fraction: 0.3...0.7)
        let split = harness.wait(timeout: 60) {
            let (ownedA, ownedB) = (a.metrics.snapshot.ownedPartitions, b.metrics.snapshot.ownedPartitions)
            return ownedA > 0 && ownedB > 0 && ownedA + ownedB == partitions
        }
        #expect(split, "the two instances split the partitions")
        #expect(a.halt())  // a leaves: b takes everything over
        try harness.publish(fraction: 0.7...1)
        #expect(harness.wait(timeout: 60) { b.metrics.snapshot.ownedPartitions == partitions }, "b took over")
        #expect(harness.wait(timeout: 60) { (try? harness.readEvents(settle: 1)).map(KafkaRuntimeHarness.upserted) == harness.expectedEvents() })
        #expect(b.halt())
        #expect(a.failure == nil && b.failure == nil)
        assertMatchesFold(harness, try harness.readEvents(), "rebalance")
    }

    @Test func geofenceUpdatesApplyWhileFixesFlow() throws {
        let harness = try KafkaRuntimeHarness(users: 10, geofences: 5, seed: 11)
        try harness.publish(fraction: 0...0.5)
        let runtime = harness.start(instance: "a")
        #expect(harness.waitUntilConsumed([runtime], atLeast: harness.inputCount))
        // A new geofence right where every driver will be next: the simulator's city center is
        // not special, so put a huge circle over the whole city.
        let producer = try KafkaProducer(configuration: harness.cluster.clientConfiguration)
        let everywhere = #"{"tag":"city","externalId":"all","description":"the whole city","type":"circle","coordinates":[-8.611,41.1496],"radius":50000}"#
        try producer.produce(topic: harness.topics.geofences, key: Array("city/all".utf8), value: Array(everywhere.utf8))
        try producer.produce(topic: harness.topics.geofences, key: Array("bad/one".utf8), value: Array("{not json".utf8))
        _ = try producer.flush(timeout: .seconds(10))
        Thread.sleep(forTimeInterval: 2)
        try harness.publish(fraction: 0.5...1)
        #expect(harness.waitUntilConsumed([runtime], atLeast: harness.inputCount))
        #expect(runtime.halt())
        let all = try harness.readEvents()
        let entered = all.filter { $0.type == .enteredGeofence && $0.geofence?.tag == "city" }
        #expect(Set(entered.map(\.userId)).count == 10, "every driver entered the new geofence")
        #expect(runtime.metrics.snapshot.geofences == 6)
        #expect(runtime.metrics.snapshot.processor.deadLetters[.invalidJSON] == 1)
    }
}

@Suite(.timeLimit(.minutes(5)))
struct TopicCheckTests {
    @Test func refusesToStartWhenCoPartitionedTopicsDisagree() throws {
        let cluster = try MockCluster(brokerCount: 1)
        let topics = Topics()
        for topic in topics.all {
            try cluster.createTopic(topic, partitions: topic == topics.tripCommands ? 3 : 4)
        }
        var options = RuntimeOptions(kafka: cluster.clientConfiguration,
                                     stateDirectory: NSTemporaryDirectory() + "tripstream-topics-\(UUID().uuidString)",
                                     instanceId: "check")
        options.group = "topic-check"
        let runtime = StreamRuntime(options: options, metrics: RuntimeMetrics(), log: { _ in }, shouldStop: { true })
        var message = ""
        do {
            try runtime.run()
        } catch {
            message = "\(error)"
        }
        #expect(message.contains("equal partition counts"), "got: \(message)")
        #expect(message.contains("tripstream.trip-commands has 3"))
    }
}
