import KafkaIO
import Runtime

extension InMemoryBroker {
    /// An assign-only reader's client-side state.
    package struct ReaderState {
        /// Next offsets to fetch of the assigned partitions (the keys are the assignment).
        package var positions: [TopicPartition: Int64] = [:]
        package var paused: Set<TopicPartition> = []
        package var closed = false
        package var fetchRotation = 0
    }
}

extension InMemoryBroker.State {
    package mutating func addReader() -> Int {
        let id = nextID()
        readers[id] = InMemoryBroker.ReaderState()
        return id
    }

    package func reader(_ id: Int) throws -> InMemoryBroker.ReaderState {
        guard let reader = readers[id], !reader.closed else { throw KafkaError(code: .state, message: "reader closed") }
        return reader
    }

    package func startOffset(_ start: KafkaReader.StartOffset, of partition: TopicPartition) throws -> Int64 {
        _ = try requireLog(partition)
        switch start {
        case .beginning: return 0
        case .end: return lastStableOffset(partition)
        case .offset(let offset): return offset
        }
    }

    package mutating func fetch(reader id: Int, maxRecords: Int) -> [ConsumedRecord] {
        readers[id]!.fetchRotation &+= 1
        let reader = readers[id]!
        let fetchable = reader.positions.keys.filter { !reader.paused.contains($0) }.sorted()
        var records: [ConsumedRecord] = []
        for step in 0..<fetchable.count where records.count < maxRecords {
            let partition = fetchable[(reader.fetchRotation + step) % fetchable.count]
            var position = reader.positions[partition]!
            // Out of range: auto.offset.reset=earliest, KafkaReader's default.
            if position < 0 || position > (log(partition)?.endOffset ?? 0) { position = 0 }
            let read = readCommitted(partition, from: position, maxRecords: maxRecords - records.count)
            records += read.records
            readers[id]!.positions[partition] = read.next
        }
        return records
    }
}

/// An assign-only, read_committed reader of an ``InMemoryBroker``; its state lives in the broker.
package final class InMemoryPartitionReader: PartitionReader, Sendable {
    package let broker: InMemoryBroker
    package let readerID: Int

    package init(broker: InMemoryBroker, readerID: Int) {
        self.broker = broker
        self.readerID = readerID
    }

    package func assign(_ partitions: [(TopicPartition, KafkaReader.StartOffset)]) throws {
        try broker.withState { state in
            _ = try state.reader(readerID)
            var positions: [TopicPartition: Int64] = [:]
            for (partition, start) in partitions { positions[partition] = try state.startOffset(start, of: partition) }
            state.readers[readerID]!.positions = positions
            state.readers[readerID]!.paused = []
        }
    }

    package func add(_ partitions: [(TopicPartition, KafkaReader.StartOffset)]) throws {
        try broker.withState { state in
            _ = try state.reader(readerID)
            for (partition, start) in partitions {
                state.readers[readerID]!.positions[partition] = try state.startOffset(start, of: partition)
            }
        }
    }

    package func remove(_ partitions: [TopicPartition]) throws {
        try broker.withState { state in
            _ = try state.reader(readerID)
            for partition in partitions {
                state.readers[readerID]!.positions[partition] = nil
                state.readers[readerID]!.paused.remove(partition)
            }
        }
    }

    package func poll(maxRecords: Int, timeout: Duration) throws -> [ConsumedRecord] {
        broker.enter(.readerPoll)
        try broker.withState { state in
            _ = try state.reader(readerID)
            if let injected = state.takeInjectedFailure(.readerPoll) { throw injected }
        }
        return try broker.waiting(timeout: timeout) { state in
            _ = try state.reader(readerID)
            let records = state.fetch(reader: readerID, maxRecords: max(1, maxRecords))
            return (records, !records.isEmpty)
        }
    }

    package func seek(_ offsets: [TopicPartitionOffset]) throws {
        try broker.withState { state in
            let reader = try state.reader(readerID)
            for offset in offsets {
                guard reader.positions[offset.topicPartition] != nil else {
                    throw KafkaError(code: .state, message: "seek on unassigned partition \(offset.topicPartition)")
                }
                state.readers[readerID]!.positions[offset.topicPartition] =
                    state.resolve(offset.offset, of: offset.topicPartition, group: nil)
            }
        }
    }

    package func pause(_ partitions: [TopicPartition]) throws {
        try broker.withState { state in
            let reader = try state.reader(readerID)
            state.readers[readerID]!.paused.formUnion(partitions.filter { reader.positions[$0] != nil })
        }
    }

    package func resume(_ partitions: [TopicPartition]) throws {
        try broker.withState { state in
            _ = try state.reader(readerID)
            state.readers[readerID]!.paused.subtract(partitions)
        }
    }

    package func positions(_ partitions: [TopicPartition]) throws -> [TopicPartition: Int64] {
        try broker.withState { state in
            try state.reader(readerID).positions.filter { partitions.contains($0.key) }
        }
    }

    package func watermarks(topic: String, partition: Int32, timeout: Duration) throws -> (low: Int64, high: Int64) {
        try broker.withState { try $0.watermarks(TopicPartition(topic: topic, partition: partition)) }
    }

    /// The LSOs, asked now.
    package func endOffsets(_ partitions: [TopicPartition], timeout: Duration) throws -> [TopicPartition: Int64] {
        broker.enter(.endOffsets)
        try broker.withState { state in
            if let injected = state.takeInjectedFailure(.endOffsets) { throw injected }
        }
        return try broker.withState { state in
            var ends: [TopicPartition: Int64] = [:]
            for partition in partitions { ends[partition] = try state.watermarks(partition).high }
            return ends
        }
    }

    package func partitionCount(topic: String, timeout: Duration) throws -> Int? {
        broker.withState { $0.topics[topic]?.count }
    }

    package func close() throws {
        broker.withState { $0.readers[readerID]!.closed = true }
    }
}
