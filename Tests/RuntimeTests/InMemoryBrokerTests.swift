import BrokerSimulation
import Foundation
import KafkaIO
import Testing

@testable import Runtime

/// The fake broker itself: transactions enforced, fencing, generations, pause, injected failures.
@Suite struct InMemoryBrokerTests {
    static let input = "in"
    static let output = "out"
    static let group = "g"

    /// A broker with `in` (2 partitions) holding three records in partition 0, and `out` (1 partition).
    static func broker() throws -> InMemoryBroker {
        let broker = InMemoryBroker()
        broker.createTopic(input, partitions: 2)
        broker.createTopic(output, partitions: 1)
        for index in 0..<3 {
            try broker.append(topic: input, partition: 0, key: [UInt8(index)], value: Array("v\(index)".utf8))
        }
        return broker
    }

    static func consumer(_ broker: InMemoryBroker) throws -> any InputLog {
        let consumer = try broker.inputLog(configuration: KafkaConfiguration(["group.id": group]))
        try consumer.subscribe([input])
        return consumer
    }

    static func sink(_ broker: InMemoryBroker, id: String = "tx") throws -> any TransactionalSink {
        let sink = try broker.sink(configuration: KafkaConfiguration(), transactionalId: id)
        try sink.initTransactions(timeout: .seconds(1))
        return sink
    }

    static func values(_ records: [ConsumedRecord]) -> [String] {
        records.map { String(decoding: $0.value ?? [], as: UTF8.self) }
    }

    static let p0 = TopicPartition(topic: input, partition: 0)
    static let p1 = TopicPartition(topic: input, partition: 1)
    static let out0 = TopicPartition(topic: output, partition: 0)

    @Test func subscribeAssignsEveryPartitionOnTheNextPollAndFetchesFromTheBeginning() throws {
        let broker = try Self.broker()
        let consumer = try Self.consumer(broker)
        #expect(consumer.takeRebalanceEvents().isEmpty)
        let records = try consumer.poll(maxRecords: 10, timeout: .zero)
        #expect(consumer.takeRebalanceEvents() == [.assigned([Self.p0, Self.p1])])
        #expect(Self.values(records) == ["v0", "v1", "v2"])
        #expect(try consumer.positions([Self.p0, Self.p1]) == [Self.p0: 3, Self.p1: 0])
        #expect(try consumer.watermarks(topic: Self.input, partition: 0, timeout: .zero) == (0, 3))
    }

    @Test func abortHidesRecordsAndOffsets() throws {
        let broker = try Self.broker()
        let consumer = try Self.consumer(broker)
        _ = try consumer.poll(maxRecords: 10, timeout: .zero)
        let sink = try Self.sink(broker)
        try sink.begin()
        try sink.produce(topic: Self.output, key: nil, value: Array("x".utf8))
        #expect(try sink.flush(timeout: .seconds(1)) == DeliveryReport(delivered: 1))
        try sink.sendOffsets([TopicPartitionOffset(Self.p0, offset: 3)], membership: try consumer.membership(),
                             timeout: .seconds(1))
        // Open: written (the log end moved) but not readable (the LSO holds at the record).
        #expect(broker.logEndOffset(Self.out0) == 1)
        #expect(broker.lastStableOffset(Self.out0) == 0)
        #expect(broker.committedRecords(topic: Self.output).isEmpty)
        try sink.abort(timeout: .seconds(1))
        #expect(broker.committedRecords(topic: Self.output).isEmpty)
        #expect(broker.groupOffsets(group: Self.group).isEmpty)
        #expect(broker.lastStableOffset(Self.out0) == 2)  // the record and the abort marker
        #expect(try consumer.committed([Self.p0], timeout: .zero).isEmpty)
    }

    @Test func commitPublishesRecordsAndOffsetsTogether() throws {
        let broker = try Self.broker()
        let consumer = try Self.consumer(broker)
        _ = try consumer.poll(maxRecords: 10, timeout: .zero)
        let sink = try Self.sink(broker)
        let reader = try broker.reader(configuration: KafkaConfiguration())
        try reader.assign([(Self.out0, .beginning)])
        for round in 0..<2 {
            try sink.begin()
            try sink.produce(topic: Self.output, key: Array("k".utf8), value: Array("r\(round)".utf8))
            _ = try sink.flush(timeout: .seconds(1))
            try sink.sendOffsets([TopicPartitionOffset(Self.p0, offset: Int64(round + 1))],
                                 membership: try consumer.membership(), timeout: .seconds(1))
            // Only what earlier transactions committed is readable.
            #expect(Self.values(try reader.poll(maxRecords: 10, timeout: .zero)) == (round == 0 ? [] : ["r0"]))
            try sink.commit(timeout: .seconds(1))
        }
        #expect(Self.values(broker.committedRecords(topic: Self.output)) == ["r0", "r1"])
        // Markers take offsets: the second record is at 2, after the first transaction's marker.
        #expect(broker.committedRecords(topic: Self.output).map(\.offset) == [0, 2])
        #expect(Self.values(try reader.poll(maxRecords: 10, timeout: .zero)) == ["r1"])
        #expect(try reader.positions([Self.out0]) == [Self.out0: 4])
        #expect(try reader.endOffsets([Self.out0], timeout: .zero) == [Self.out0: 4])
        #expect(broker.groupOffsets(group: Self.group) == [Self.p0: 2])
        #expect(try consumer.committed([Self.p0, Self.p1], timeout: .zero) == [Self.p0: 2])
    }

    @Test func aNewConsumerStartsAtTheCommittedOffset() throws {
        let broker = try Self.broker()
        let first = try Self.consumer(broker)
        _ = try first.poll(maxRecords: 10, timeout: .zero)
        let sink = try Self.sink(broker)
        try sink.begin()
        try sink.sendOffsets([TopicPartitionOffset(Self.p0, offset: 2)], membership: try first.membership(),
                             timeout: .seconds(1))
        try sink.commit(timeout: .seconds(1))
        try first.close()
        let second = try Self.consumer(broker)
        #expect(Self.values(try second.poll(maxRecords: 10, timeout: .zero)) == ["v2"])
    }

    @Test func initTransactionsFencesTheOlderSinkAndAbortsItsTransaction() throws {
        let broker = try Self.broker()
        let old = try Self.sink(broker, id: "same")
        try old.begin()
        try old.produce(topic: Self.output, key: nil, value: Array("zombie".utf8))
        _ = try old.flush(timeout: .seconds(1))
        let new = try Self.sink(broker, id: "same")
        let error = #expect(throws: KafkaError.self) { try old.commit(timeout: .seconds(1)) }
        #expect(error?.code == .producerFenced)
        #expect(error?.isFatal == true)
        // Fatal: every later call throws too.
        #expect(throws: KafkaError.self) { try old.begin() }
        #expect(broker.committedRecords(topic: Self.output).isEmpty)
        try new.begin()
        try new.produce(topic: Self.output, key: nil, value: Array("live".utf8))
        try new.commit(timeout: .seconds(1))
        #expect(Self.values(broker.committedRecords(topic: Self.output)) == ["live"])
    }

    @Test func fenceMakesTheSinksNextCallThrowFatal() throws {
        let broker = try Self.broker()
        let sink = try Self.sink(broker)
        try sink.begin()
        try sink.produce(topic: Self.output, key: nil, value: Array("x".utf8))
        _ = try sink.flush(timeout: .seconds(1))
        broker.fence(transactionalId: "tx")
        #expect(broker.lastStableOffset(Self.out0) == 2)  // aborted by the fence
        let error = #expect(throws: KafkaError.self) { try sink.produce(topic: Self.output, key: nil, value: nil) }
        #expect(error?.code == .producerFenced && error?.isFatal == true)
    }

    @Test func offsetsWithAStaleGenerationAreRefusedAndTheTransactionMustAbort() throws {
        let broker = try Self.broker()
        let consumer = try Self.consumer(broker)
        _ = try consumer.poll(maxRecords: 10, timeout: .zero)
        _ = consumer.takeRebalanceEvents()
        let stale = try consumer.membership()
        broker.revoke([Self.p1])
        let sink = try Self.sink(broker)
        try sink.begin()
        let error = #expect(throws: KafkaError.self) {
            try sink.sendOffsets([TopicPartitionOffset(Self.p0, offset: 3)], membership: stale, timeout: .seconds(1))
        }
        #expect(error?.code == .illegalGeneration)
        #expect(error?.isTxnRequiresAbort == true && error?.isRetriable == false && error?.isFatal == false)
        #expect(throws: KafkaError.self) { try sink.commit(timeout: .seconds(1)) }
        try sink.abort(timeout: .seconds(1))

        // The member learns the new generation at its next poll, with the revocation.
        _ = try consumer.poll(maxRecords: 10, timeout: .zero)
        #expect(consumer.takeRebalanceEvents() == [.revoked([Self.p1])])
        try sink.begin()
        try sink.sendOffsets([TopicPartitionOffset(Self.p0, offset: 3)], membership: try consumer.membership(),
                             timeout: .seconds(1))
        try sink.commit(timeout: .seconds(1))
        #expect(broker.groupOffsets(group: Self.group) == [Self.p0: 3])
    }

    @Test func loseAndAssignAgain() throws {
        let broker = try Self.broker()
        let consumer = try Self.consumer(broker)
        _ = try consumer.poll(maxRecords: 10, timeout: .zero)
        _ = consumer.takeRebalanceEvents()
        broker.lose([Self.p0])
        _ = try consumer.poll(maxRecords: 10, timeout: .zero)
        #expect(consumer.takeRebalanceEvents() == [.lost([Self.p0])])
        broker.assignAgain([Self.p0])
        // Nothing committed: fetching starts over from the beginning.
        #expect(Self.values(try consumer.poll(maxRecords: 10, timeout: .zero)) == ["v0", "v1", "v2"])
        #expect(consumer.takeRebalanceEvents() == [.assigned([Self.p0])])
    }

    @Test func aSecondMemberGetsItsShareOnlyAfterTheFirstReleasedIt() throws {
        let broker = try Self.broker()
        let first = try Self.consumer(broker) as! InMemoryInputLog
        _ = try first.poll(maxRecords: 10, timeout: .zero)
        #expect(first.takeRebalanceEvents() == [.assigned([Self.p0, Self.p1])])
        let second = try Self.consumer(broker)
        _ = try second.poll(maxRecords: 10, timeout: .zero)
        #expect(second.takeRebalanceEvents().isEmpty)
        let beforeHandOver = try second.membership()
        _ = try first.poll(maxRecords: 10, timeout: .zero)
        #expect(first.takeRebalanceEvents() == [.revoked([Self.p1])])
        // Seen, not released: the first member is still committing what it folded from it.
        _ = try second.poll(maxRecords: 10, timeout: .zero)
        #expect(second.takeRebalanceEvents().isEmpty)
        try first.release([Self.p1])
        // The hand-over was a second rebalance: the second member's generation is stale until it polls.
        #expect(beforeHandOver.generation != broker.generation(group: Self.group))
        _ = try first.poll(maxRecords: 10, timeout: .zero)
        #expect(try first.membership().generation == broker.generation(group: Self.group))
        _ = try second.poll(maxRecords: 10, timeout: .zero)
        #expect(second.takeRebalanceEvents() == [.assigned([Self.p1])])
        #expect(first.assignment() == [Self.p0])
        #expect((second as! InMemoryInputLog).assignment() == [Self.p1])
    }

    @Test func pausedPartitionsDeliverNothingUntilResumed() throws {
        let broker = try Self.broker()
        let consumer = try Self.consumer(broker)
        _ = try consumer.poll(maxRecords: 0, timeout: .zero)  // joins; delivers at most one record
        try consumer.seek([TopicPartitionOffset(Self.p0, offset: 0)])
        try consumer.pause([Self.p0])
        #expect(try consumer.poll(maxRecords: 10, timeout: .milliseconds(20)).isEmpty)
        try consumer.resume([Self.p0])
        #expect(Self.values(try consumer.poll(maxRecords: 10, timeout: .zero)) == ["v0", "v1", "v2"])
    }

    @Test func aWaitingPollWakesUpOnACommit() throws {
        let broker = try Self.broker()
        let reader = try broker.reader(configuration: KafkaConfiguration())
        try reader.assign([(Self.out0, .end)])
        let sink = try Self.sink(broker) as! InMemoryTransactionalSink
        let writer = OnThread {
            Thread.sleep(forTimeInterval: 0.05)
            try sink.begin()
            try sink.produce(topic: Self.output, key: nil, value: Array("late".utf8))
            try sink.commit(timeout: .seconds(1))
        }
        let records = try reader.poll(maxRecords: 10, timeout: .seconds(10))
        try writer.join()
        #expect(Self.values(records) == ["late"])
    }

    @Test func injectedFailuresFireTheGivenNumberOfTimes() throws {
        let broker = try Self.broker()
        let sink = try Self.sink(broker)
        broker.coordinatorUnavailable(for: [.commit], times: 2)
        try sink.begin()
        try sink.produce(topic: Self.output, key: nil, value: Array("x".utf8))
        for _ in 0..<2 {
            let error = #expect(throws: KafkaError.self) { try sink.commit(timeout: .seconds(1)) }
            #expect(error?.code == .coordinatorNotAvailable && error?.isRetriable == true)
        }
        try sink.commit(timeout: .seconds(1))  // retriable: committing again succeeds
        #expect(Self.values(broker.committedRecords(topic: Self.output)) == ["x"])
        #expect(broker.callCount(.commit) == 3)

        let consumer = try Self.consumer(broker)
        broker.failNext(.poll, with: KafkaError(code: .fatal, message: "injected", isFatal: true))
        #expect(throws: KafkaError.self) { try consumer.poll(maxRecords: 10, timeout: .zero) }
        #expect(try consumer.poll(maxRecords: 10, timeout: .zero).count == 3)
    }

    @Test func aFailedFlushReportsTheRecordsAndLeavesTheTransactionAbortable() throws {
        let broker = try Self.broker()
        let sink = try Self.sink(broker)
        try sink.begin()
        try sink.produce(topic: Self.output, key: nil, value: Array("x".utf8))
        try sink.produce(topic: Self.output, key: nil, value: Array("y".utf8))
        broker.failNext(.flush, with: KafkaError(code: .messageTimedOut, message: "injected"))
        #expect(try sink.flush(timeout: .seconds(1)) == DeliveryReport(failed: 2, firstError: .messageTimedOut))
        let error = #expect(throws: KafkaError.self) { try sink.commit(timeout: .seconds(1)) }
        #expect(error?.isTxnRequiresAbort == true)
        try sink.abort(timeout: .seconds(1))
        try sink.begin()
        try sink.produce(topic: Self.output, key: nil, value: Array("z".utf8))
        try sink.commit(timeout: .seconds(1))
        #expect(try sink.flush(timeout: .zero) == DeliveryReport(delivered: 1))
        #expect(Self.values(broker.committedRecords(topic: Self.output)) == ["z"])
    }

    @Test func aHookRunsDuringTheCallAndMayRebalance() throws {
        let broker = try Self.broker()
        let consumer = try Self.consumer(broker)
        _ = try consumer.poll(maxRecords: 10, timeout: .zero)
        let sink = try Self.sink(broker)
        try sink.begin()
        broker.onNext(.sendOffsets) { broker.lose([Self.p0]) }
        let error = #expect(throws: KafkaError.self) {
            try sink.sendOffsets([TopicPartitionOffset(Self.p0, offset: 3)], membership: try consumer.membership(),
                                 timeout: .seconds(1))
        }
        #expect(error?.code == .illegalGeneration)
        _ = try consumer.poll(maxRecords: 10, timeout: .zero)
        #expect(consumer.takeRebalanceEvents() == [.assigned([Self.p0, Self.p1]), .lost([Self.p0])])
    }

    @Test func pendingOffsetsHoldBackANewOwnersFetch() throws {
        let broker = try Self.broker()
        let old = try Self.consumer(broker)
        _ = try old.poll(maxRecords: 10, timeout: .zero)
        let sink = try Self.sink(broker)
        try sink.begin()
        try sink.sendOffsets([TopicPartitionOffset(Self.p0, offset: 3)], membership: try old.membership(),
                             timeout: .seconds(1))
        try old.close()
        let new = try Self.consumer(broker)
        #expect(try new.poll(maxRecords: 10, timeout: .zero).isEmpty)
        #expect(throws: KafkaError.self) { try new.committed([Self.p0], timeout: .milliseconds(10)) }
        try sink.commit(timeout: .seconds(1))
        #expect(try new.committed([Self.p0], timeout: .zero) == [Self.p0: 3])
        #expect(try new.positions([Self.p0]).isEmpty)
        _ = try new.poll(maxRecords: 10, timeout: .zero)
        #expect(try new.positions([Self.p0]) == [Self.p0: 3])
    }

    @Test func unknownTopicsAndKeyedPartitions() throws {
        let broker = try Self.broker()
        let admin = try broker.admin(configuration: KafkaConfiguration())
        #expect(try admin.partitionCounts([Self.input, "missing"], timeout: .zero) == [Self.input: 2])
        #expect(try admin.createTopics([TopicSpec(name: Self.input), TopicSpec(name: "new", partitions: 4)],
                                       timeout: .zero) == ["new"])
        let sink = try Self.sink(broker)
        try sink.begin()
        let error = #expect(throws: KafkaError.self) { try sink.produce(topic: "missing", key: nil, value: nil) }
        #expect(error?.code == .unknownTopicOrPartition)
        #expect(throws: KafkaError.self) {
            try broker.reader(configuration: KafkaConfiguration()).watermarks(topic: "missing", partition: 0,
                                                                             timeout: .zero)
        }
        // CRC-32("a") = 0xE8B7BE43: partition 3 of 4, whoever produces it.
        #expect(CRC32KeyPartitioner.crc32(Array("a".utf8)) == 0xE8B7_BE43)
        #expect(try broker.append(topic: "new", key: Array("a".utf8), value: nil).partition == 3)
        try sink.produce(topic: "new", key: Array("a".utf8), value: nil)
        try sink.commit(timeout: .seconds(1))
        #expect(broker.committedRecords(topic: "new").map(\.partition) == [3, 3])
    }

    /// A committer thread and a reading thread at once: the reader sees exactly the committed
    /// transactions' records, in order, never an aborted one (the lock keeps the views whole).
    @Test func concurrentCommitsAndReadsSeeExactlyTheCommittedRecords() throws {
        let broker = try Self.broker()
        let sink = try Self.sink(broker) as! InMemoryTransactionalSink
        let committed = (0..<60).filter { $0 % 3 != 0 }.map { "c\($0)" }
        let committer = OnThread {
            for index in 0..<60 {
                try sink.begin()
                try sink.produce(topic: Self.output, key: nil, value: Array("c\(index)".utf8))
                _ = try sink.flush(timeout: .seconds(1))
                if index % 3 == 0 { try sink.abort(timeout: .seconds(1)) } else { try sink.commit(timeout: .seconds(1)) }
            }
        }
        let reader = try broker.reader(configuration: KafkaConfiguration())
        try reader.assign([(Self.out0, .beginning)])
        var seen: [String] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while seen.count < committed.count, ContinuousClock.now < deadline {
            seen += Self.values(try reader.poll(maxRecords: 7, timeout: .milliseconds(100)))
        }
        try committer.join()
        #expect(seen == committed)
    }
}

/// Runs `body` on its own thread, not the cooperative pool: the fake's polls block their thread,
/// as librdkafka's do.
private final class OnThread: @unchecked Sendable {
    // Unchecked: `error` is written by the thread before `done` is signalled and read after.
    private let done = DispatchSemaphore(value: 0)
    private var error: (any Error)?

    init(_ body: @escaping @Sendable () throws -> Void) {
        Thread {
            do { try body() } catch { self.error = error }
            self.done.signal()
        }.start()
    }

    func join() throws {
        done.wait()
        if let error { throw error }
    }
}
