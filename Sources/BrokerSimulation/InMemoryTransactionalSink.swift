import KafkaIO
import Runtime

/// A transactional producer of an ``InMemoryBroker``; its state lives in the broker. Records are
/// queued by `produce` and written (inside the open transaction) by `flush` or `commit`.
package final class InMemoryTransactionalSink: TransactionalSink, Sendable {
    package let broker: InMemoryBroker
    package let sinkID: Int

    package init(broker: InMemoryBroker, sinkID: Int) {
        self.broker = broker
        self.sinkID = sinkID
    }

    package func initTransactions(timeout: Duration) throws {
        broker.enter(.initTransactions)
        try broker.withState { try $0.initTransactions(sink: sinkID) }
    }

    package func begin() throws {
        broker.enter(.begin)
        try broker.withState { try $0.begin(sink: sinkID) }
    }

    /// `partition` nil: ``CRC32KeyPartitioner`` (CRC-32 of the key, as librdkafka's `consistent`).
    package func produce(topic: String, partition: Int32?, key: UnsafeRawBufferPointer?,
                 value: UnsafeRawBufferPointer?) throws
    {
        broker.enter(.produce)
        let key = key.map { Array($0) }
        let value = value.map { Array($0) }
        let timestamp = broker.clock.now()
        try broker.withState { state in
            try state.produce(sink: sinkID, topic: topic, partition: partition, key: key, value: value,
                              timestamp: timestamp)
        }
    }

    package func flush(timeout: Duration) throws -> DeliveryReport {
        broker.enter(.flush)
        return try broker.withState { try $0.flush(sink: sinkID) }
    }

    package func sendOffsets(_ offsets: [TopicPartitionOffset], membership: GroupMembership, timeout: Duration) throws {
        broker.enter(.sendOffsets)
        try broker.withState { try $0.sendOffsets(sink: sinkID, offsets, membership: membership) }
    }

    package func commit(timeout: Duration) throws {
        broker.enter(.commit)
        try broker.withState { try $0.commit(sink: sinkID) }
    }

    package func abort(timeout: Duration) throws {
        broker.enter(.abort)
        try broker.withState { try $0.abort(sink: sinkID) }
    }
}

/// Topic creation and description on an ``InMemoryBroker``.
package final class InMemoryTopicAdmin: TopicAdmin, Sendable {
    package let broker: InMemoryBroker

    package init(broker: InMemoryBroker) {
        self.broker = broker
    }

    /// Missing topics are absent.
    package func partitionCounts(_ topics: [String], timeout: Duration) throws -> [String: Int] {
        broker.withState { state in
            var counts: [String: Int] = [:]
            for topic in topics { counts[topic] = state.topics[topic]?.count }
            return counts
        }
    }

    /// A topic that exists counts as success (its partition count unchanged), as KafkaAdmin does.
    package func createTopics(_ topics: [TopicSpec], timeout: Duration) throws -> [String] {
        try broker.withState { state in
            for spec in topics where spec.partitions < 1 {
                throw KafkaError(code: .invalidPartitions, message: "\(spec.name): \(spec.partitions) partitions")
            }
            return topics.filter { state.createTopic($0.name, partitions: Int($0.partitions)) }.map(\.name)
        }
    }
}
