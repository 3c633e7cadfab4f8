import CRdKafka
import Glibc

// MARK: - Cluster metadata and watermarks

extension RDKafkaClient {
    /// Partition counts of `topics` that exist; missing or erroring topics are absent.
    ///
    /// Asks for all topics rather than the named ones: a targeted Metadata request can auto-create topics on brokers
    /// with `auto.create.topics.enable` (the mock included), and merely looking must not create anything.
    func partitionCounts(topics: some Sequence<String>, timeout: Duration) throws(KafkaError) -> [String: Int] {
        let wanted = Set(topics)
        return try allTopicsMetadata(timeout: timeout) { metadata in
            var counts: [String: Int] = [:]
            for index in 0..<Int(metadata.topic_cnt) {
                let topic = metadata.topics[index]
                guard topic.err == RD_KAFKA_RESP_ERR_NO_ERROR, let name = topic.topic else { continue }
                let topicName = String(cString: name)
                if wanted.contains(topicName) { counts[topicName] = Int(topic.partition_cnt) }
            }
            return counts
        } ?? [:]
    }

    /// Reads the metadata of every topic (asking also updates librdkafka's cache of partition leaders); nil when
    /// the answer had none. The metadata is only valid inside `read`.
    private func allTopicsMetadata<Answer>(
        timeout: Duration, _ read: (rd_kafka_metadata) -> Answer
    ) throws(KafkaError) -> Answer? {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        try KafkaError.check(rd_kafka_metadata(handle, 1, nil, &metadata, timeout.kafkaMilliseconds))
        guard let metadata else { return nil }
        defer { rd_kafka_metadata_destroy(metadata) }
        return read(metadata.pointee)
    }

    /// Low and high watermarks of a partition, asked from its leader.
    func watermarks(topic: String, partition: Int32, timeout: Duration) throws(KafkaError) -> (low: Int64, high: Int64)
    {
        try retryingTransientErrors(for: timeout) { (left: Duration) throws(KafkaError) in
            var low: Int64 = -1
            var high: Int64 = -1
            try KafkaError.check(
                rd_kafka_query_watermark_offsets(handle, topic, partition, &low, &high, left.kafkaMilliseconds))
            return (low, high)
        }
    }

    /// The end offsets of partitions as their leaders have them now, asked in one ListOffsets request per leader;
    /// the last stable offset for a `read_committed` client. Partitions that answered with an error are absent.
    func endOffsets(_ partitions: [TopicPartition], timeout: Duration) throws(KafkaError) -> [TopicPartition: Int64] {
        // ListOffsets takes "timestamp -1" to mean the end.
        try offsets(forTimestamps: partitions.map { ($0, Int64(RD_KAFKA_OFFSET_END)) }, timeout: timeout)
    }

    /// Per partition, the earliest offset whose record timestamp is at or after the given one (ListOffsets by
    /// timestamp), in one request per leader. A partition with no such record answers its end offset; partitions
    /// that answered with an error are absent.
    func offsets(forTimestamps timestamps: [(TopicPartition, Int64)], timeout: Duration) throws(KafkaError)
        -> [TopicPartition: Int64]
    {
        let asked = timestamps.map { TopicPartitionOffset(topic: $0.0.topic, partition: $0.0.partition, offset: $0.1) }
        // The call overwrites the list's offsets with its answers: each attempt asks with a fresh one. A partition
        // whose leader answered a transient error is asked again; past the timeout the answer is what is known.
        let list = try retryingTransientErrors(for: timeout, incomplete: \.firstError) {
            (left: Duration) throws(KafkaError) in
            let list = TopicPartitionList(asked)
            try KafkaError.check(list.withPointer { rd_kafka_offsets_for_times(handle, $0, left.kafkaMilliseconds) })
            return list
        }
        var offsets: [TopicPartition: Int64] = [:]
        for entry in list.offsets where entry.offset >= 0 {
            offsets[TopicPartition(topic: entry.topic, partition: entry.partition)] = entry.offset
        }
        return offsets
    }

    /// Repeats `query`, given the time left, while it fails with an error that clears up by itself (a leader moving,
    /// a broker restarting, a request timing out), or answers with one for some of what it asked (`incomplete`),
    /// until `timeout` is spent; then throws its last error, or returns its last answer. librdkafka retries such
    /// errors for produce and fetch, but its offset queries hand them straight back.
    private func retryingTransientErrors<Answer>(
        for timeout: Duration, incomplete: (Answer) -> KafkaError? = { _ in nil },
        _ query: (Duration) throws(KafkaError) -> Answer
    ) throws(KafkaError) -> Answer {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(50)
        while true {
            let failure: KafkaError
            do {
                let answer = try query(max(deadline - ContinuousClock.now, .milliseconds(1)))
                guard let error = incomplete(answer), error.isRetriable, deadline - ContinuousClock.now > pause else {
                    return answer
                }
                failure = error
            } catch where error.isRetriable && !error.isFatal && deadline - ContinuousClock.now > pause {
                failure = error
            }
            usleep(UInt32(pause.kafkaMilliseconds) * 1_000)
            pause = min(pause * 2, .seconds(1))
            // The queries go to the leader librdkafka has cached, which a moved leader leaves stale until a metadata
            // answer replaces it (all topics: naming one could create it).
            if failure.code == .notLeaderForPartition || failure.code == .leaderNotAvailable {
                let left = max(min(deadline - ContinuousClock.now, .seconds(2)), .milliseconds(1))
                _ = try? allTopicsMetadata(timeout: left) { _ in }
            }
        }
    }
}
