import KafkaIO
import Simulation
import Synchronization
import Testing

import Glibc

import class Foundation.Thread

/// A chaos schedule run on a real mock cluster: the mock accepts every step, and librdkafka's transactional
/// producer and group consumer get through the faults as an exactly-once processor must.
@Suite("Chaos on a mock cluster", .serialized)
struct ChaosClusterTests {
    /// The chaos thread's side: the cluster it lends, and what it reports. Unchecked: the mock's calls post
    /// operations to its own thread or take its lock, and `outcome` is guarded by its mutex.
    final class ChaosThread: @unchecked Sendable {
        let cluster: MockCluster
        let stop = Atomic<Bool>(false)
        let outcome = Mutex<(applied: Set<ChaosFault.Kind>, refused: [String], finished: Bool)>(([], [], false))
        init(_ cluster: MockCluster) { self.cluster = cluster }

        func start(_ schedule: ChaosSchedule<SeededRandom>) {
            Thread { [self] in
                cluster.run(schedule, until: { stop.load(ordering: .relaxed) }) { step, error in
                    outcome.withLock {
                        if let error { $0.refused.append("\(step.line): \(error)") } else { $0.applied.insert(step.fault.kind) }
                    }
                }
                outcome.withLock { $0.finished = true }
            }.start()
        }

        /// The kinds of fault applied so far.
        var applied: Set<ChaosFault.Kind> { outcome.withLock { $0.applied } }

        /// Stops the schedule and waits for the thread to end.
        func finish() -> (applied: Set<ChaosFault.Kind>, refused: [String]) {
            stop.store(true, ordering: .relaxed)
            while !outcome.withLock({ $0.finished }) { usleep(10_000) }
            return outcome.withLock { ($0.applied, $0.refused) }
        }
    }

    /// What the transactions went through, for the test's expectations.
    struct Outcome: Sendable {
        var inputs = 0
        var committed = 0
        var aborted = 0
        var applied: Set<ChaosFault.Kind> = []
        var refused: [String] = []
        var producerFailed = false
        var missing = 0
    }

    @Test(.timeLimit(.minutes(5)))
    func transactionsCommitThroughTheFaults() async throws {
        // The clients block for a minute or so: on a thread of their own, not on the test runner's few.
        let outcome = try await withCheckedThrowingContinuation { (done: CheckedContinuation<Outcome, any Error>) in
            Thread { done.resume(with: Result { try Self.transactionsUnderChaos() }) }.start()
        }
        #expect(outcome.inputs == 20)
        #expect(outcome.applied == Set(ChaosFault.Kind.allCases), "every kind of fault came while transactions went on")
        #expect(outcome.refused.isEmpty, "the mock accepts every step: \(outcome.refused)")
        #expect(!outcome.producerFailed)
        #expect(outcome.committed > 10, "\(outcome.committed) transactions committed, \(outcome.aborted) aborted")
        #expect(outcome.missing == 0, "every committed record is there")
    }

    /// Transactions one after the other, each with five records and an offset, while the schedule runs, until every
    /// kind of fault has come (or two minutes passed); then the committed records read back.
    static func transactionsUnderChaos() throws -> Outcome {
        var outcome = Outcome()
        let cluster = try MockCluster(brokerCount: 3)
        try cluster.createTopic("input", partitions: 2, replicationFactor: 3)
        try cluster.createTopic("output", partitions: 2, replicationFactor: 3)
        let plain = try KafkaProducer(configuration: cluster.clientConfiguration)
        for index in 0..<20 {
            try plain.produce(topic: "input", partition: Int32(index % 2), key: nil, value: TestSupport.bytes("in-\(index)"))
        }
        try plain.flush(timeout: .seconds(10))

        // Clients reconnect to a broker back up within half a second (librdkafka's default backs off up to 10 s).
        let reconnect = KafkaConfiguration(properties: [("reconnect.backoff.max.ms", "500")])
        let consumer = try KafkaConsumer(
            configuration: TestSupport.consumerConfiguration(cluster, group: "chaos").merging(reconnect))
        try consumer.subscribe(["input"])
        outcome.inputs = try TestSupport.pollUntil({ try consumer.poll(maxRecords: 100, timeout: .milliseconds(100)) }) {
            $0.count >= 20
        }.count
        let producer = try KafkaProducer(
            configuration: cluster.clientConfiguration.merging(reconnect), transactionalId: "chaos-txn")
        try producer.initTransactions(timeout: .seconds(30))

        // The faults start once both clients are set up, one every 300 ms on average.
        let target = ChaosTarget(
            brokerCount: 3, topics: [TopicSpec(name: "input", partitions: 2), TopicSpec(name: "output", partitions: 2)],
            groups: ["chaos"], transactionalIds: ["chaos-txn"])
        let schedule = ChaosSchedule(
            target: target, settings: try ChaosSettings(seed: 5, meanInterval: 300), random: SeededRandom(seed: 5))
        let chaos = ChaosThread(cluster)
        chaos.start(schedule)
        let deadline = ContinuousClock.now + .seconds(120)
        while chaos.applied.count < ChaosFault.Kind.allCases.count, ContinuousClock.now < deadline {
            while try !commit(outcome.committed, producer: producer, consumer: consumer) { outcome.aborted += 1 }
            outcome.committed += 1
            _ = try consumer.poll(maxRecords: 10, timeout: .milliseconds(10))  // keeps the member alive
        }
        (outcome.applied, outcome.refused) = chaos.finish()
        outcome.producerFailed = producer.fatalError != nil
        try consumer.close()

        let reader = try KafkaReader(configuration: cluster.clientConfiguration)
        try reader.assign((0..<2).map { (TopicPartition(topic: "output", partition: $0), .beginning) })
        let wanted = Set((0..<outcome.committed).flatMap { transaction in (0..<5).map { "t\(transaction)-\($0)" } })
        let output = try TestSupport.pollUntil({ try reader.poll(maxRecords: 100, timeout: .milliseconds(100)) }) {
            wanted.isSubset(of: Set($0.compactMap { TestSupport.text($0.value) }))
        }
        outcome.missing = wanted.subtracting(output.compactMap { TestSupport.text($0.value) }).count
        return outcome
    }

    /// One try at a transaction of five records and an offset: true if it committed, false if it was aborted.
    private static func commit(_ transaction: Int, producer: KafkaProducer, consumer: KafkaConsumer) throws(KafkaError) -> Bool {
        try producer.beginTransaction()
        for index in 0..<5 {
            try producer.produce(topic: "output", partition: Int32(index % 2), key: nil,
                                 value: TestSupport.bytes("t\(transaction)-\(index)"))
        }
        do {
            try producer.sendOffsetsToTransaction(
                [TopicPartitionOffset(topic: "input", partition: 0, offset: Int64(transaction + 1))],
                consumer: consumer, timeout: .seconds(30))
            try commitRetrying(producer)
            return true
        } catch {
            guard error.isTxnRequiresAbort, !error.isFatal else { throw error }
            try producer.abortTransaction(timeout: .seconds(30))
            return false
        }
    }

    /// Commits, calling again (up to 20 times) while librdkafka says the commit may still succeed.
    private static func commitRetrying(_ producer: KafkaProducer) throws(KafkaError) {
        var attempts = 0
        while true {
            do {
                try producer.commitTransaction(timeout: .seconds(30))
                return
            } catch {
                attempts += 1
                guard error.isRetriable, !error.isTxnRequiresAbort, !error.isFatal, attempts < 20 else { throw error }
            }
        }
    }
}
