import KafkaIO
import Runtime

/// A member of a consumer group of an ``InMemoryBroker``; all its state lives in the broker.
package final class InMemoryInputLog: InputLog, Sendable {
    package let broker: InMemoryBroker
    package let memberID: Int
    package let group: String

    package init(broker: InMemoryBroker, memberID: Int, group: String) {
        self.broker = broker
        self.memberID = memberID
        self.group = group
    }

    package func subscribe(_ topics: [String]) throws {
        try broker.withState { try $0.subscribe(member: memberID, to: topics) }
    }

    /// Serves rebalances (events become visible to ``takeRebalanceEvents()``), then waits up to
    /// `timeout` for records or new events.
    package func poll(maxRecords: Int, timeout: Duration) throws -> [ConsumedRecord] {
        broker.enter(.poll)
        try broker.withState { state in
            _ = try state.member(memberID)
            if let injected = state.takeInjectedFailure(.poll) { throw injected }
        }
        return try broker.waiting(timeout: timeout) { state in
            _ = try state.member(memberID)
            let sawEvents = state.servePoll(member: memberID)
            let records = state.fetch(member: memberID, maxRecords: max(1, maxRecords))
            return (records, !records.isEmpty || sawEvents)
        }
    }

    package func release(_ partitions: [TopicPartition]) throws {
        try broker.withState { state in
            _ = try state.member(memberID)
            state.release(member: memberID, partitions)
        }
    }

    package func takeRebalanceEvents() -> [RebalanceEvent] {
        broker.withState { state in
            defer { state.members[memberID]!.polledEvents = [] }
            return state.members[memberID]!.polledEvents
        }
    }

    /// The partitions currently assigned, sorted (test-facing, as KafkaConsumer's).
    package func assignment() -> [TopicPartition] {
        broker.withState { $0.members[memberID]!.assigned.sorted() }
    }

    package func seek(_ offsets: [TopicPartitionOffset]) throws {
        try broker.withState { state in
            let member = try state.member(memberID)
            for offset in offsets {
                guard member.assigned.contains(offset.topicPartition) else {
                    throw KafkaError(code: .state, message: "seek on unassigned partition \(offset.topicPartition)")
                }
                state.members[memberID]!.positions[offset.topicPartition] =
                    state.resolve(offset.offset, of: offset.topicPartition, group: group)
            }
        }
    }

    /// Pausing or resuming a partition not assigned does nothing (its pause would not survive
    /// the assignment anyway, as in librdkafka).
    package func pause(_ partitions: [TopicPartition]) throws {
        try broker.withState { state in
            let member = try state.member(memberID)
            state.members[memberID]!.paused.formUnion(partitions.filter(member.assigned.contains))
        }
    }

    package func resume(_ partitions: [TopicPartition]) throws {
        try broker.withState { state in
            _ = try state.member(memberID)
            state.members[memberID]!.paused.subtract(partitions)
        }
    }

    package func positions(_ partitions: [TopicPartition]) throws -> [TopicPartition: Int64] {
        try broker.withState { state in
            let member = try state.member(memberID)
            return member.positions.filter { partitions.contains($0.key) }
        }
    }

    /// Waits while offsets for `partitions` are pending in an open transaction (require_stable),
    /// then answers; partitions without a commit are absent.
    package func committed(_ partitions: [TopicPartition], timeout: Duration) throws -> [TopicPartition: Int64] {
        let (offsets, stable) = try broker.waiting(timeout: timeout) { state in
            _ = try state.member(memberID)
            let stable = !state.hasPendingOffsets(group: group, for: partitions)
            let offsets = (state.groups[group]?.committed ?? [:]).filter { partitions.contains($0.key) }
            return ((offsets, stable), stable)
        }
        guard stable else {
            throw KafkaError(code: .timedOut, message: "offsets still pending in an open transaction",
                             isRetriable: true)
        }
        return offsets
    }

    package func membership() throws -> GroupMembership {
        try broker.withState { state in
            let member = try state.member(memberID)
            // An expired member still has its last generation (librdkafka keeps its group metadata).
            guard member.joined || member.expired else { throw KafkaError(code: .state, message: "not subscribed") }
            return GroupMembership(kafka: nil, generation: member.knownGeneration)
        }
    }

    package func watermarks(topic: String, partition: Int32, timeout: Duration) throws -> (low: Int64, high: Int64) {
        try broker.withState { try $0.watermarks(TopicPartition(topic: topic, partition: partition)) }
    }

    /// Leaves the group; idempotent. The revocation of what it owned is recorded as an event.
    package func close() throws {
        broker.withState { $0.leave(member: memberID) }
    }
}

extension InMemoryBroker.State {
    /// Read_committed watermarks: the low one is always 0 (no retention), the high one the LSO.
    package func watermarks(_ partition: TopicPartition) throws -> (low: Int64, high: Int64) {
        _ = try requireLog(partition)
        return (0, lastStableOffset(partition))
    }
}
