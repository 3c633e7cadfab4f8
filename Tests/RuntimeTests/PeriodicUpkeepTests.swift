import Foundation
import KafkaIO
import Runtime
import Testing

/// What the driver does beside folding while the service runs: periodic snapshots (written on the
/// fold threads, each claiming the changelog end its state covers) and the lag gauge (one request
/// for every owned partition).
@Suite(.serialized, .timeLimit(.minutes(3)))
struct PeriodicUpkeepTests {
    @Test func periodicSnapshotsClaimTheChangelogEndTheirStateCovers() throws {
        let harness = try FakeBrokerHarness(seed: 31)
        let runtime = harness.start(instance: "a") { $0.snapshotInterval = 100 }
        #expect(harness.waitUntilCommitted([runtime]), "inputs not committed")
        // Snapshots taken once everything is committed hold every input's state.
        let written = runtime.metrics.snapshot.snapshotSeconds.count
        #expect(harness.wait { runtime.metrics.snapshot.snapshotSeconds.count >= written + 2 }, "snapshots go on")
        let directory = harness.options(instance: "a").stateDirectory + "/tripstream-fake"
        // Partitions are snapshotted in turn: each one's next snapshot claims its changelog's end (a
        // quiet partition's stream time moved on by the wall clock adds records after a snapshot).
        func snapshot(_ partition: Int32) -> PartitionSnapshot? {
            try? PartitionSnapshot.read(directory: directory, partition: partition)
        }
        func stable(_ partition: Int32) -> Int64? {
            harness.broker.lastStableOffset(TopicPartition(topic: harness.topics.stateChangelog, partition: partition))
        }
        #expect(harness.wait {
            (0..<FakeBrokerHarness.partitions).allSatisfy { snapshot($0)?.changelogOffset == stable($0) }
        }, "every partition's snapshot covers its whole changelog: \((0..<FakeBrokerHarness.partitions).map { (snapshot($0)?.changelogOffset, stable($0)) })")
        for partition in 0..<FakeBrokerHarness.partitions {
            #expect(snapshot(partition).map { !$0.timelines.isEmpty } == true, "partition \(partition) holds users")
        }
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        #expect(!runtime.logs.contains { $0.contains("not written") || $0.contains("no snapshots") },
                "\(runtime.logs.filter { $0.contains("snapshot") })")
    }

    @Test func theLagGaugeCoversEveryOwnedPartition() throws {
        let harness = try FakeBrokerHarness(seed: 32)
        let runtime = harness.start(instance: "a")
        #expect(harness.waitUntilCommitted([runtime]), "inputs not committed")
        let everyPartition = Dictionary(uniqueKeysWithValues: (0..<FakeBrokerHarness.partitions).map { ($0, Int64(0)) })
        // The gauge is refreshed every 5 s: once caught up, each owned partition is 0 records behind.
        #expect(harness.wait(timeout: 15) { runtime.metrics.snapshot.lag == everyPartition },
                "lag \(runtime.metrics.snapshot.lag)")
        #expect(runtime.halt())
    }

    /// While running, snapshots are taken one partition at a time (the rotation: the partition is held
    /// until its last transaction committed, then written in place of a fold round) while the others
    /// fold on. An instance stopped abruptly after several of them resumes from them and publishes
    /// every event once.
    @Test func snapshotsRotatedWhileFoldingRestoreExactlyOnce() throws {
        let harness = try FakeBrokerHarness(seed: 33)
        let first = harness.start(instance: "a") { $0.snapshotInterval = 40 }
        let partitions = Int(FakeBrokerHarness.partitions)
        #expect(harness.wait { first.metrics.snapshot.snapshotSeconds.count >= partitions + 2 },
                "every partition snapshotted in turn")
        #expect(first.metrics.snapshot.inputsCommitted < harness.inputCount, "snapshots taken while inputs were folded")
        harness.broker.fence(transactionalId: harness.options(instance: "a").transactionalId)
        #expect(first.done.wait(timeout: .now() + 30) == .success, "the fenced instance stops without a last snapshot")
        #expect(!first.logs.contains { $0.contains("not written") }, "\(first.logs.filter { $0.contains("snapshot") })")
        let committedByFirst = first.metrics.snapshot.inputsCommitted

        let second = harness.start(instance: "a")
        #expect(harness.wait(timeout: 90) { committedByFirst + second.metrics.snapshot.inputsCommitted >= harness.inputCount })
        #expect(second.halt())
        #expect(second.failure == nil, "\(String(describing: second.failure))")
        try PipelineFailureTests().assertExactlyOnce(harness, "rotated snapshots")
    }

    /// A partition held for its snapshot whose changelog end cannot be learned folds on without one
    /// after half the interval (at least 1 s): a refused request never stalls a partition.
    @Test func aHeldPartitionFoldsOnWhenItsChangelogEndStaysUnknown() throws {
        let harness = try FakeBrokerHarness(seed: 34)
        let runtime = harness.start(instance: "a") { $0.snapshotInterval = 2_000 }
        // Held from 2 s on; every end-offsets request refused for a while after that.
        #expect(harness.wait { harness.broker.callCount(.commit) >= 1 })
        Thread.sleep(forTimeInterval: 1.9)
        harness.broker.failNext(.endOffsets, with: KafkaError(code: .requestTimedOut, message: "injected", isRetriable: true),
                                times: 100_000)
        #expect(harness.wait(timeout: 20) { runtime.logs.contains { $0.contains("was not known within 1 s") } },
                "\(runtime.logs.suffix(5))")
        harness.broker.clearFailures(.endOffsets)
        #expect(harness.waitUntilCommitted([runtime]), "the partition folded on")
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        try PipelineFailureTests().assertExactlyOnce(harness, "held partition released")
    }
}
