/// A consumer that reads explicitly assigned partitions and never joins a consumer group.
///
/// Used to read a compacted topic as a global table (all partitions from the beginning, then follow live) and to
/// restore a changelog partition up to its high watermark. It never commits; positions are the caller's business.
///
/// librdkafka requires a `group.id` even for assign-only consumers; without one in `configuration` the reader uses
/// `tripstream-reader`. The id is only used for (never performed) commits, so sharing one is harmless.
public final class KafkaReader {
    /// Where a partition's reading starts.
    public enum StartOffset: Hashable, Sendable {
        /// The earliest retained record.
        case beginning
        /// Only records written from now on.
        case end
        /// A specific offset.
        case offset(Int64)

        var rawValue: Int64 {
            switch self {
            case .beginning: TopicPartitionOffset.beginning
            case .end: TopicPartitionOffset.end
            case .offset(let offset): offset
            }
        }
    }

    private let consumer: ConsumerClient

    /// Creates a reader with nothing assigned.
    ///
    /// Forced: `enable.auto.commit=false`, `enable.auto.offset.store=false`, no `group.instance.id` (a reader never
    /// joins the group, so it is no static member either). Defaults, overridable:
    /// `isolation.level=read_committed`, `auto.offset.reset=earliest` (used when a start offset is out of range).
    ///
    /// - Parameters:
    ///   - configuration: Client properties; `bootstrap.servers` at least.
    ///   - enablePartitionEOF: Report reaching the end of a partition (see ``takeEndOfPartitions()``). Default: false.
    public init(configuration: KafkaConfiguration, enablePartitionEOF: Bool = false) throws(KafkaError) {
        var effective =
            configuration
            .settingDefault("group.id", "tripstream-reader")
            .settingDefault("isolation.level", "read_committed")
            .settingDefault("auto.offset.reset", "earliest")
            .merging(
                KafkaConfiguration(properties: [
                    ("enable.auto.commit", "false"),
                    ("enable.auto.offset.store", "false"),
                    ("enable.partition.eof", enablePartitionEOF ? "true" : "false"),
                ]))
        effective["group.instance.id"] = nil
        consumer = try ConsumerClient(configuration: effective, rebalanceCallback: false)
    }

    /// The value librdkafka holds for a property of this client. May be a secret: never log it.
    func property(_ key: String) -> String? {
        consumer.client.property(key)
    }

    // MARK: - Assignment

    /// Replaces the whole assignment.
    public func assign(_ partitions: [(TopicPartition, StartOffset)]) throws(KafkaError) {
        try consumer.assign(partitions.map { TopicPartitionOffset($0.0, offset: $0.1.rawValue) })
    }

    /// Adds partitions to the assignment, keeping the others' positions.
    public func add(_ partitions: [(TopicPartition, StartOffset)]) throws(KafkaError) {
        try consumer.incrementalAssign(partitions.map { TopicPartitionOffset($0.0, offset: $0.1.rawValue) })
    }

    /// Removes partitions from the assignment (e.g. once a changelog partition is restored).
    public func remove(_ partitions: [TopicPartition]) throws(KafkaError) {
        try consumer.incrementalUnassign(partitions)
    }

    /// Drops the whole assignment.
    public func unassign() throws(KafkaError) {
        try consumer.unassign()
    }

    /// The partitions currently assigned, sorted.
    public func assignment() throws(KafkaError) -> [TopicPartition] {
        try consumer.assignment()
    }

    // MARK: - Reading

    /// Returns up to `maxRecords` records: waits up to `timeout` for the first one, then returns only what is already
    /// fetched.
    ///
    /// - Throws: ``KafkaError`` only for fatal errors; transient ones are logged and retried by librdkafka.
    public func poll(maxRecords: Int, timeout: Duration) throws(KafkaError) -> [ConsumedRecord] {
        try consumer.poll(maxRecords: maxRecords, timeout: timeout)
    }

    /// Partitions that reached their end since the last call, with the end offset (needs `enablePartitionEOF`).
    public func takeEndOfPartitions() -> [TopicPartitionOffset] {
        consumer.takeEndOfPartitions()
    }

    /// Moves the read positions of assigned partitions.
    public func seek(_ offsets: [TopicPartitionOffset], timeout: Duration = .seconds(5)) throws(KafkaError) {
        try consumer.seek(offsets, timeout: timeout)
    }

    /// Stops fetching from `partitions` without unassigning them.
    public func pause(_ partitions: [TopicPartition]) throws(KafkaError) {
        try consumer.pause(partitions)
    }

    /// Resumes fetching from paused `partitions`.
    public func resume(_ partitions: [TopicPartition]) throws(KafkaError) {
        try consumer.resume(partitions)
    }

    /// The next offsets this reader will return for `partitions`; absent when not yet known.
    public func positions(_ partitions: [TopicPartition]) throws(KafkaError) -> [TopicPartition: Int64] {
        try consumer.positions(partitions)
    }

    // MARK: - Metadata

    /// Low and high watermarks of a partition; read until `offset + 1 == high` to have everything written so far.
    ///
    /// - Important: Under `read_committed`, the high watermark also counts transaction markers and aborted records,
    ///   so the last *returned* offset can be below `high - 1`; compare ``positions(_:)`` with `high` instead.
    public func watermarks(topic: String, partition: Int32, timeout: Duration) throws(KafkaError)
        -> (low: Int64, high: Int64)
    {
        try consumer.client.watermarks(topic: topic, partition: partition, timeout: timeout)
    }

    /// The end offsets of `partitions` as the brokers have them now (the last stable offsets under
    /// `read_committed`), in one request per leader. Use a reader that fetches nothing: a broker answers
    /// a connection's requests in order, so a waiting fetch would hold the answer back.
    public func endOffsets(_ partitions: [TopicPartition], timeout: Duration) throws(KafkaError)
        -> [TopicPartition: Int64]
    {
        try consumer.client.endOffsets(partitions, timeout: timeout)
    }

    /// Per partition, the earliest offset whose record timestamp (ms since 1970) is at or after `timestamp`, or the
    /// partition's end when there is none (offsetsForTimes). Same caveat as ``endOffsets(_:timeout:)``: ask with a
    /// reader that fetches nothing.
    public func offsets(at timestamp: Int64, of partitions: [TopicPartition], timeout: Duration) throws(KafkaError)
        -> [TopicPartition: Int64]
    {
        try consumer.client.offsets(forTimestamps: partitions.map { ($0, timestamp) }, timeout: timeout)
    }

    /// The partition count of `topic`, or `nil` if it does not exist. Never auto-creates the topic.
    public func partitionCount(topic: String, timeout: Duration) throws(KafkaError) -> Int? {
        try consumer.client.partitionCounts(topics: [topic], timeout: timeout)[topic]
    }

    /// Stops fetching. Idempotent; `deinit` calls it too.
    public func close() throws(KafkaError) {
        try consumer.close()
    }
}
