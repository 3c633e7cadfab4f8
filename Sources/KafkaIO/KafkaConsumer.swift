import CRdKafka

/// A group consumer: subscribes to topics and gets partitions from Kafka's consumer-group protocol.
///
/// Synchronous and single-threaded: call it from one dedicated thread. Offsets are never committed automatically;
/// commit them with ``commit(_:synchronous:)`` or inside a producer transaction.
///
/// Rebalances are applied by librdkafka's rebalance callback while ``poll(maxRecords:timeout:)`` runs; drain
/// ``takeRebalanceEvents()`` after each poll to learn about them.
public final class KafkaConsumer {
    private let consumer: ConsumerClient

    /// Creates a consumer; it joins the group on ``subscribe(_:)``.
    ///
    /// KafkaIO's defaults, overridable by `configuration`:
    /// `partition.assignment.strategy=cooperative-sticky`, `enable.auto.commit=false`,
    /// `isolation.level=read_committed`, `auto.offset.reset=earliest`.
    ///
    /// A `group.instance.id` makes this a static member (KIP-345): restarted with the same id within
    /// `session.timeout.ms`, it gets its partitions back without a rebalance (brokers ≥ 2.3; librdkafka's mock
    /// ignores the id). As librdkafka implements KIP-345, a static member's ``close()`` does not leave the group:
    /// its partitions move to the others only once its session times out. An empty `group.instance.id` means
    /// dynamic membership (the key is dropped), so a properties file can turn static membership off.
    ///
    /// - Parameters:
    ///   - configuration: Client properties; must contain `group.id` and `bootstrap.servers`.
    ///   - enablePartitionEOF: Report reaching the end of a partition (see ``takeEndOfPartitions()``). Default: false.
    ///   - releasesRevokedPartitions: Partitions revoked in an orderly rebalance stay assigned (the rebalance
    ///     waits) until ``release(_:)``: the application commits what it did with them first, so no other member
    ///     resumes them before that commit (as a Java consumer commits in `onPartitionsRevoked`). Lost partitions
    ///     and those revoked by ``close()`` go at once. Default: false (they go at once, as the event is recorded).
    /// - Throws: ``KafkaError`` if `group.id` is missing or a property is rejected.
    public init(configuration: KafkaConfiguration, enablePartitionEOF: Bool = false,
                releasesRevokedPartitions: Bool = false) throws(KafkaError)
    {
        guard configuration["group.id"] != nil else {
            throw KafkaError(code: .invalidArgument, message: "KafkaConsumer needs group.id")
        }
        var effective =
            configuration
            .settingDefault("partition.assignment.strategy", "cooperative-sticky")
            .settingDefault("enable.auto.commit", "false")
            .settingDefault("isolation.level", "read_committed")
            .settingDefault("auto.offset.reset", "earliest")
            .merging(KafkaConfiguration(properties: [("enable.partition.eof", enablePartitionEOF ? "true" : "false")]))
        if effective["group.instance.id"]?.isEmpty == true { effective["group.instance.id"] = nil }
        consumer = try ConsumerClient(configuration: effective, rebalanceCallback: true,
                                      releasesRevokedPartitions: releasesRevokedPartitions)
    }

    /// The value librdkafka holds for a property of this client (its default when not set; `nil` for an unset
    /// string or an unknown key). May be a secret: never log it.
    func property(_ key: String) -> String? {
        consumer.client.property(key)
    }

    // MARK: - Subscription and polling

    /// Subscribes to `topics` (replacing any previous subscription); the group join happens during later polls.
    public func subscribe(_ topics: [String]) throws(KafkaError) {
        // Partition -1 (RD_KAFKA_PARTITION_UA): subscriptions name topics only.
        let list = TopicPartitionList(topics.map { TopicPartition(topic: $0, partition: -1) })
        try KafkaError.check(list.withPointer { rd_kafka_subscribe(consumer.handle, $0) })
    }

    /// Returns up to `maxRecords` records: waits up to `timeout` for the first one, then returns only what is already
    /// fetched. Also serves rebalances, so call it regularly (well within `max.poll.interval.ms`).
    ///
    /// - Throws: ``KafkaError`` only for fatal errors; transient ones are logged and retried by librdkafka.
    public func poll(maxRecords: Int, timeout: Duration) throws(KafkaError) -> [ConsumedRecord] {
        try consumer.poll(maxRecords: maxRecords, timeout: timeout)
    }

    /// Hands partitions revoked in an orderly rebalance over to the group (with `releasesRevokedPartitions`): the
    /// rebalance goes on, and another member may resume them. Releasing none does nothing.
    public func release(_ partitions: [TopicPartition]) throws(KafkaError) {
        try consumer.release(partitions)
    }

    /// Assignment changes recorded since the last call, oldest first.
    public func takeRebalanceEvents() -> [RebalanceEvent] {
        consumer.context.takeRebalanceEvents()
    }

    /// Partitions that reached their end since the last call, with the end offset (needs `enablePartitionEOF`).
    public func takeEndOfPartitions() -> [TopicPartitionOffset] {
        consumer.takeEndOfPartitions()
    }

    // MARK: - Positions

    /// The partitions currently assigned to this member, sorted.
    public func assignment() throws(KafkaError) -> [TopicPartition] {
        try consumer.assignment()
    }

    /// Moves the fetch positions of assigned partitions (e.g. to rewind after a failed transaction).
    public func seek(_ offsets: [TopicPartitionOffset], timeout: Duration = .seconds(5)) throws(KafkaError) {
        try consumer.seek(offsets, timeout: timeout)
    }

    /// Stops fetching from `partitions` (backpressure) without giving them up.
    public func pause(_ partitions: [TopicPartition]) throws(KafkaError) {
        try consumer.pause(partitions)
    }

    /// Resumes fetching from paused `partitions`.
    public func resume(_ partitions: [TopicPartition]) throws(KafkaError) {
        try consumer.resume(partitions)
    }

    /// The next offsets this consumer will return for `partitions`; absent when not yet known.
    public func positions(_ partitions: [TopicPartition]) throws(KafkaError) -> [TopicPartition: Int64] {
        try consumer.positions(partitions)
    }

    // MARK: - Group offsets

    /// Commits offsets (next offset to consume, i.e. last processed + 1) to the group.
    ///
    /// - Parameters:
    ///   - offsets: The offsets; `nil` commits the current positions of all assigned partitions.
    ///   - synchronous: Wait for the broker's answer. Default: true. Asynchronous failures are only logged.
    public func commit(_ offsets: [TopicPartitionOffset]?, synchronous: Bool = true) throws(KafkaError) {
        try consumer.commit(offsets, synchronous: synchronous)
    }

    /// The group's committed offsets for `partitions`; partitions without a commit are absent.
    public func committed(_ partitions: [TopicPartition], timeout: Duration) throws(KafkaError)
        -> [TopicPartition: Int64]
    {
        try consumer.committed(partitions, timeout: timeout)
    }

    /// The group metadata to pass to ``KafkaProducer/sendOffsetsToTransaction(_:groupMetadata:timeout:)``.
    public func groupMetadata() throws(KafkaError) -> ConsumerGroupMetadata {
        guard let pointer = rd_kafka_consumer_group_metadata(consumer.handle) else {
            throw KafkaError(code: .state, message: "consumer has no group metadata")
        }
        return ConsumerGroupMetadata(owning: pointer)
    }

    // MARK: - Metadata

    /// Low and high watermarks of a partition (the high one is the offset the next record will get).
    public func watermarks(topic: String, partition: Int32, timeout: Duration) throws(KafkaError)
        -> (low: Int64, high: Int64)
    {
        try consumer.client.watermarks(topic: topic, partition: partition, timeout: timeout)
    }

    /// The partition count of `topic`, or `nil` if it does not exist. Never auto-creates the topic.
    public func partitionCount(topic: String, timeout: Duration) throws(KafkaError) -> Int? {
        try consumer.client.partitionCounts(topics: [topic], timeout: timeout)[topic]
    }

    // MARK: - Lifecycle

    /// Leaves the group: revokes the assignment (recorded as a rebalance event) and stops fetching. Idempotent;
    /// `deinit` calls it too, but calling it explicitly lets the group rebalance at once and surfaces errors.
    /// A static member (`group.instance.id`) stops without sending LeaveGroup: the group keeps its partitions
    /// for it until `session.timeout.ms` passes, so that a restart gets them back without a rebalance.
    public func close() throws(KafkaError) {
        try consumer.close()
    }
}
