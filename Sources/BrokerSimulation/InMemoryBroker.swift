import Foundation
import KafkaIO
import Runtime

/// A broker in memory that tests can tell to fail: the runtime's ``Broker`` without Kafka.
///
/// What it models, faithful to Kafka where the runtime's correctness depends on it:
/// - Topics of N partitions, each an append-only log whose offsets count data records *and*
///   transaction markers (so, as on Kafka, the offsets a read_committed consumer sees have gaps).
/// - Transactions, enforced: records of an open transaction occupy offsets but stay invisible to
///   readers (every client reads read_committed) until commit; abort hides them for good. A
///   partition's readable end is its *last stable offset* (LSO): the first offset of the earliest
///   still-open transaction there, else the log end. `watermarks` answer `(0, LSO)` and
///   `endOffsets` the LSO, as librdkafka's queries do under read_committed. Offsets sent to a
///   transaction become the group's committed offsets only on commit; while such offsets are
///   pending, `committed` waits and a newly assigned partition does not start fetching (KIP-447's
///   require_stable). `initTransactions` fences the previous producer of the same transactional id
///   (its next call throws a fatal `.producerFenced`) and aborts its open transaction.
/// - Consumer groups: members subscribe and get a range assignment per topic; a rebalance bumps
///   the group's generation and queues `.revoked`/`.assigned` events that a member sees at its next
///   poll. Cooperative hand-over: a partition moved between members is given to the new owner only
///   after the old one released it (`InputLog.release`, once it committed its work, as a Java consumer
///   commits in `onPartitionsRevoked` before the rebalance goes on), and that second step bumps the
///   generation again. Offsets sent with a generation that is no longer the group's are refused
///   (`ILLEGAL_GENERATION`, abortable): that is how zombies are fenced. Generations are drawn from
///   one broker-wide counter so that ``GroupMembership/generation`` alone names its group.
/// - Failure injection (``failNext(_:with:times:)``, ``coordinatorUnavailable(for:times:)``,
///   ``fence(transactionalId:)``, ``revoke(_:group:)``, ``lose(_:group:)``,
///   ``assignAgain(_:group:)``) and hooks (``onNext(_:perform:)``).
///
/// What it does not model: replication, leaders and metadata; retention, compaction and
/// `deleteRecords` (the low watermark is always 0); headers; timeouts by themselves: a session
/// expires when told (``expireSession(instanceID:group:)``), a transaction times out when told
/// (``fence(transactionalId:)``; until then an open transaction of a dead producer stays open,
/// holding the LSO back, as on Kafka until `transaction.timeout.ms`); non-transactional producers
/// (tests seed topics with ``append(topic:partition:key:value:timestamp:)``); read_uncommitted.
/// Static membership (`group.instance.id`): a member rejoining with the id of one still in the
/// group takes its place and its partitions, without moving anyone else's, and the one replaced is
/// fenced (its calls fail with a fatal `.fenced`).
/// Timestamps come from the given clock (CreateTime).
///
/// Thread-safe: all state sits behind one lock (an `NSCondition`, so polls can wait for records).
/// Hooks run on the calling thread without the lock held, so they may call the broker.
package final class InMemoryBroker: Broker, @unchecked Sendable {
    // Unchecked: `state` is only read or written with `condition` locked (see `withState`); the
    // other stored properties are immutable and Sendable.
    private let condition = NSCondition()
    private var state = State()
    package let clock: any Runtime.Clock
    /// Whether polls and `committed` wait for changes (threads share the broker). The simulation runs
    /// everything on one thread: nothing can change while a call waits, so calls answer at once.
    package let blocking: Bool

    package init(clock: any Runtime.Clock = SystemClock(), blocking: Bool = true) {
        self.clock = clock
        self.blocking = blocking
    }

    // MARK: - Broker

    package func inputLog(configuration: KafkaConfiguration) throws -> any InputLog {
        guard let group = configuration["group.id"], !group.isEmpty else {
            throw KafkaError(code: .invalidArgument, message: "group.id is required for a group consumer")
        }
        let startAtEnd = configuration["auto.offset.reset"].map { ["latest", "end", "largest"].contains($0) } ?? false
        let instanceID = configuration["group.instance.id"].flatMap { $0.isEmpty ? nil : $0 }
        let id = withState { $0.addMember(group: group, startAtEnd: startAtEnd, instanceID: instanceID) }
        return InMemoryInputLog(broker: self, memberID: id, group: group)
    }

    package func reader(configuration: KafkaConfiguration) throws -> any PartitionReader {
        InMemoryPartitionReader(broker: self, readerID: withState { $0.addReader() })
    }

    package func sink(configuration: KafkaConfiguration, transactionalId: String) throws -> any TransactionalSink {
        InMemoryTransactionalSink(broker: self, sinkID: withState { $0.addSink(transactionalID: transactionalId) })
    }

    package func admin(configuration: KafkaConfiguration) throws -> any TopicAdmin {
        InMemoryTopicAdmin(broker: self)
    }

    // MARK: - Topics and what is visible (test-facing)

    /// Creates a topic unless it exists (then nothing changes). Groups subscribed to it rebalance.
    package func createTopic(_ name: String, partitions: Int) {
        withState { _ = $0.createTopic(name, partitions: partitions) }
    }

    /// Appends a record outside any transaction (visible at once), as a plain producer would.
    /// `partition` nil: chosen from the key (``CRC32KeyPartitioner``). `timestamp` nil: the clock's now.
    /// - Returns: the record's offset.
    @discardableResult
    package func append(topic: String, partition: Int32? = nil, key: [UInt8]?, value: [UInt8]?,
                timestamp: Int64? = nil) throws -> TopicPartitionOffset {
        let timestamp = timestamp ?? clock.now()
        return try withState { state in
            let target = try state.resolvePartition(topic: topic, partition: partition, key: key)
            let offset = state.topics[topic]![Int(target.partition)].append(
                .record(key: key, value: value, timestamp: timestamp, transaction: nil))
            return TopicPartitionOffset(target, offset: offset)
        }
    }

    /// The records of `topic` a read_committed consumer can read now, by partition then offset.
    package func committedRecords(topic: String) -> [ConsumedRecord] {
        withState { state in
            guard let logs = state.topics[topic] else { return [] }
            return logs.indices.flatMap { index in
                let partition = TopicPartition(topic: topic, partition: Int32(index))
                return state.readCommitted(partition, from: 0, maxRecords: .max).records
            }
        }
    }

    /// The committed offsets of `group` (next offset to consume per partition).
    package func groupOffsets(group: String) -> [TopicPartition: Int64] {
        withState { $0.groups[group]?.committed ?? [:] }
    }

    /// The first offset a read_committed consumer cannot read yet.
    package func lastStableOffset(_ partition: TopicPartition) -> Int64? {
        withState { state in state.log(partition) == nil ? nil : state.lastStableOffset(partition) }
    }

    /// The offset the next entry of the partition will get (counting markers and open transactions).
    package func logEndOffset(_ partition: TopicPartition) -> Int64? {
        withState { $0.log(partition)?.endOffset }
    }

    /// The group's current generation, nil for a group nobody joined.
    package func generation(group: String) -> Int? {
        withState { $0.groups[group]?.generation }
    }

    /// How many times `operation` was called (failed calls included).
    package func callCount(_ operation: Operation) -> Int {
        withState { $0.callCounts[operation, default: 0] }
    }

    // MARK: - The lock

    /// Runs `body` with the state locked, then wakes waiting polls (any change may concern them).
    package func withState<R>(_ body: (inout State) throws -> R) rethrows -> R {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Runs `attempt` with the state locked until it says it is done or `timeout` passes, waiting
    /// for changes in between; the last attempt's result is returned either way.
    package func waiting<R>(timeout: Duration, _ attempt: (inout State) throws -> (result: R, done: Bool)) rethrows -> R {
        guard blocking else { return try withState { try attempt(&$0).result } }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) * 1e-18
        let deadline = Date().addingTimeInterval(max(0, seconds))
        condition.lock()
        defer { condition.unlock() }
        while true {
            let (result, done) = try attempt(&state)
            if done || Date() >= deadline { return result }
            _ = condition.wait(until: deadline)
        }
    }

    /// Counts a call and runs its hook, if one is set, without the lock held.
    package func enter(_ operation: Operation) {
        let hook = withState { state in
            state.callCounts[operation, default: 0] += 1
            return state.hooks[operation]?.isEmpty == false ? state.hooks[operation]!.removeFirst() : nil
        }
        hook?()
    }
}

// MARK: - State

extension InMemoryBroker {
    /// Everything the broker knows, plus the client-side state of its clients (positions, paused
    /// partitions, queued records), so that one lock covers all of it.
    package struct State {
        package var topics: [String: [InMemoryPartitionLog]] = [:]
        package var groups: [String: ConsumerGroup] = [:]
        package var members: [Int: GroupMember] = [:]
        package var readers: [Int: ReaderState] = [:]
        package var sinks: [Int: SinkState] = [:]
        package var transactions: [Int: Transaction] = [:]
        /// The open transaction of each transactional id.
        package var openTransactions: [String: Int] = [:]
        /// The current producer epoch of each transactional id; older epochs are fenced.
        package var producerEpochs: [String: Int] = [:]
        /// Which group a generation number belongs to (generations are unique broker-wide).
        package var generationGroups: [Int: String] = [:]
        package var failures: [Operation: [KafkaError]] = [:]
        package var hooks: [Operation: [@Sendable () -> Void]] = [:]
        package var callCounts: [Operation: Int] = [:]
        private var lastID = 0

        package mutating func nextID() -> Int {
            lastID += 1
            return lastID
        }

        package func log(_ partition: TopicPartition) -> InMemoryPartitionLog? {
            guard let logs = topics[partition.topic], partition.partition >= 0,
                  Int(partition.partition) < logs.count else { return nil }
            return logs[Int(partition.partition)]
        }

        /// Throws as a broker does for a topic or partition it does not have.
        package func requireLog(_ partition: TopicPartition) throws -> InMemoryPartitionLog {
            guard let log = log(partition) else {
                throw KafkaError(code: .unknownTopicOrPartition, message: "unknown topic or partition \(partition)")
            }
            return log
        }

        package func resolvePartition(topic: String, partition: Int32?, key: [UInt8]?) throws -> TopicPartition {
            guard let logs = topics[topic] else {
                throw KafkaError(code: .unknownTopicOrPartition, message: "unknown topic \(topic)")
            }
            let chosen = partition ?? CRC32KeyPartitioner.partition(forKey: key, partitionCount: logs.count)
            guard chosen >= 0, Int(chosen) < logs.count else {
                throw KafkaError(code: .unknownPartition, message: "\(topic) has no partition \(chosen)")
            }
            return TopicPartition(topic: topic, partition: chosen)
        }

        /// - Returns: whether the topic was created.
        package mutating func createTopic(_ name: String, partitions: Int) -> Bool {
            guard topics[name] == nil else { return false }
            topics[name] = Array(repeating: InMemoryPartitionLog(), count: max(1, partitions))
            for (group, state) in groups where state.memberIDs.contains(where: { members[$0]?.topics.contains(name) == true }) {
                rebalance(group)
            }
            return true
        }

        // MARK: Read committed

        /// The first offset of the earliest open transaction in the partition, else the log end.
        package func lastStableOffset(_ partition: TopicPartition) -> Int64 {
            var stable = log(partition)?.endOffset ?? 0
            for serial in openTransactions.values {
                if let first = transactions[serial]?.firstOffsets[partition] { stable = min(stable, first) }
            }
            return stable
        }

        package func isVisible(_ entry: InMemoryPartitionLog.Entry) -> Bool {
            switch entry {
            case .marker: false
            case .record(_, _, _, nil): true
            case .record(_, _, _, let serial?): transactions[serial]?.status == .committed
            }
        }

        /// Up to `maxRecords` visible records from `offset` below the LSO; `next` is the position
        /// after them, past any invisible entries that follow when the LSO was reached (as a
        /// consumer's position moves past control records).
        package func readCommitted(_ partition: TopicPartition, from offset: Int64, maxRecords: Int)
            -> (records: [ConsumedRecord], next: Int64)
        {
            guard let log = log(partition) else { return ([], offset) }
            let stable = lastStableOffset(partition)
            var records: [ConsumedRecord] = []
            var next = max(0, offset)
            while next < stable, records.count < maxRecords {
                let entry = log.entry(at: next)
                if isVisible(entry), case .record(let key, let value, let timestamp, _) = entry {
                    records.append(ConsumedRecord(topic: partition.topic, partition: partition.partition, offset: next,
                                                  key: key, value: value, timestamp: timestamp))
                }
                next += 1
            }
            return (records, next)
        }

        /// Resolves a logical offset (beginning, end, stored) of a partition to a real one.
        package func resolve(_ offset: Int64, of partition: TopicPartition, group: String?) -> Int64 {
            switch offset {
            case TopicPartitionOffset.beginning: 0
            case TopicPartitionOffset.end: lastStableOffset(partition)
            case TopicPartitionOffset.stored: group.flatMap { groups[$0]?.committed[partition] } ?? 0
            default: offset
            }
        }

        // MARK: Injection

        package mutating func takeInjectedFailure(_ operation: Operation) -> KafkaError? {
            guard failures[operation]?.isEmpty == false else { return nil }
            return failures[operation]!.removeFirst()
        }
    }
}
