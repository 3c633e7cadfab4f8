import CRdKafka
import Synchronization

/// The consumer machinery shared by ``KafkaConsumer`` (group mode) and ``KafkaReader`` (assign mode): one
/// consumer-type `rd_kafka_t`, its rebalance context, and record decoding.
final class ConsumerClient {
    let client: RDKafkaClient
    /// Kept alive here because librdkafka holds an unretained pointer to it.
    let context: ConsumerContext
    private var interner = TopicInterner()
    private var endOfPartitions: [TopicPartitionOffset] = []
    private var closed = false

    private let groupMember: Bool
    private let cooperative: Bool

    /// - Parameters:
    ///   - rebalanceCallback: Register the rebalance callback (group mode only).
    ///   - releasesRevokedPartitions: Leave revoked partitions assigned until `release` (see `KafkaConsumer`).
    init(configuration: KafkaConfiguration, rebalanceCallback: Bool, releasesRevokedPartitions: Bool = false)
        throws(KafkaError)
    {
        groupMember = rebalanceCallback
        cooperative = configuration["partition.assignment.strategy"]?.contains("cooperative-sticky") ?? false
        let context = ConsumerContext(releasesRevokedPartitions: releasesRevokedPartitions)
        self.context = context
        self.client = try RDKafkaClient(
            type: RD_KAFKA_CONSUMER,
            configuration: configuration,
            opaque: Unmanaged.passUnretained(context).toOpaque()
        ) { conf in
            if rebalanceCallback { rd_kafka_conf_set_rebalance_cb(conf, kafkaRebalanceCallback) }
        }
        // Route the main queue (errors, stats) into the consumer queue so consumer_poll serves everything.
        try KafkaError.check(rd_kafka_poll_set_consumer(client.handle))
    }

    deinit {
        // Without close, rd_kafka_destroy would leave the group only after session.timeout.ms.
        if !closed {
            context.closing.withLock { $0 = true }
            _ = rd_kafka_consumer_close(client.handle)
        }
        // librdkafka before 2.3 aborts in rd_kafka_sticky_assignor_state_destroy when a
        // cooperative-sticky member is destroyed before its first assignment (librdkafka #4312;
        // Debian 12 ships 2.0.2). Leaking that one handle is the lesser evil.
        if groupMember, cooperative, !context.everAssigned.withLock({ $0 }) { client.leaksHandle = true }
    }

    var handle: OpaquePointer { client.handle }

    // MARK: - Polling

    /// Up to `maxRecords` records: waits up to `timeout` for the first, then takes only what is already fetched.
    func poll(maxRecords: Int, timeout: Duration) throws(KafkaError) -> [ConsumedRecord] {
        var records: [ConsumedRecord] = []
        records.reserveCapacity(min(maxRecords, 4096))
        var wait = timeout.kafkaMilliseconds
        // rd_kafka_consume_batch_queue would be faster, but in 2.0.2 it can hand out stale records around
        // rebalances, seeks and pauses (fixed in 2.1), so single-message polling it is.
        while records.count < maxRecords, let message = rd_kafka_consumer_poll(handle, wait) {
            wait = 0
            defer { rd_kafka_message_destroy(message) }
            let err = message.pointee.err
            if err == RD_KAFKA_RESP_ERR_NO_ERROR {
                records.append(decode(message))
            } else if err == RD_KAFKA_RESP_ERR__PARTITION_EOF {
                if let rkt = message.pointee.rkt {
                    endOfPartitions.append(
                        TopicPartitionOffset(
                            topic: interner.intern(rd_kafka_topic_name(rkt)),
                            partition: message.pointee.partition,
                            offset: message.pointee.offset))
                }
            } else {
                if let fatal = client.fatalError() { throw fatal }
                // Other consumer errors (broker down, unknown topic) are informational: librdkafka keeps trying.
                let text = String(cString: rd_kafka_message_errstr(message))
                kafkaLogCallback(handle, 4, "CONSUMER", "\(KafkaError.Code(err)): \(text)")
            }
        }
        return records
    }

    func takeEndOfPartitions() -> [TopicPartitionOffset] {
        defer { endOfPartitions = [] }
        return endOfPartitions
    }

    /// Copies a message out of librdkafka's buffers.
    private func decode(_ message: UnsafeMutablePointer<rd_kafka_message_t>) -> ConsumedRecord {
        let m = message.pointee
        let topic = m.rkt.map { interner.intern(rd_kafka_topic_name($0)) } ?? ""
        let key = m.key.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: m.key_len)) }
        let value = m.payload.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: m.len)) }
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let timestamp = rd_kafka_message_timestamp(message, &timestampType)
        return ConsumedRecord(
            topic: topic, partition: m.partition, offset: m.offset, key: key, value: value,
            timestamp: timestamp, headers: Self.headers(of: message))
    }

    private static func headers(of message: UnsafeMutablePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var headers: OpaquePointer?
        // _NOENT (no headers) is the common case and costs nothing to detect.
        guard rd_kafka_message_headers(message, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR, let headers else { return [] }
        var result: [KafkaHeader] = []
        var index = 0
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        while rd_kafka_header_get_all(headers, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            let bytes = value.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: size)) }
            result.append(KafkaHeader(key: name.map { String(cString: $0) } ?? "", value: bytes))
            index += 1
        }
        return result
    }

    // MARK: - Assignment and positions

    func assign(_ offsets: [TopicPartitionOffset]) throws(KafkaError) {
        try KafkaError.check(TopicPartitionList(offsets).withPointer { rd_kafka_assign(handle, $0) })
    }

    func unassign() throws(KafkaError) {
        try KafkaError.check(rd_kafka_assign(handle, nil))
    }

    func incrementalAssign(_ offsets: [TopicPartitionOffset]) throws(KafkaError) {
        try KafkaError.check(TopicPartitionList(offsets).withPointer { rd_kafka_incremental_assign(handle, $0) })
    }

    func incrementalUnassign(_ partitions: [TopicPartition]) throws(KafkaError) {
        try KafkaError.check(TopicPartitionList(partitions).withPointer { rd_kafka_incremental_unassign(handle, $0) })
    }

    func assignment() throws(KafkaError) -> [TopicPartition] {
        // A closed consumer owns nothing; librdkafka would answer _DESTROY.
        guard !closed else { return [] }
        var list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        try KafkaError.check(rd_kafka_assignment(handle, &list))
        guard let list else { return [] }
        return TopicPartitionList(owning: list).partitions.sorted()
    }

    func seek(_ offsets: [TopicPartitionOffset], timeout: Duration) throws(KafkaError) {
        let list = TopicPartitionList(offsets)
        try KafkaError.check(list.withPointer { rd_kafka_seek_partitions(handle, $0, timeout.kafkaMilliseconds) })
        if let error = list.firstError { throw error }
    }

    func pause(_ partitions: [TopicPartition]) throws(KafkaError) {
        let list = TopicPartitionList(partitions)
        try KafkaError.check(list.withPointer { rd_kafka_pause_partitions(handle, $0) })
        if let error = list.firstError { throw error }
    }

    func resume(_ partitions: [TopicPartition]) throws(KafkaError) {
        let list = TopicPartitionList(partitions)
        try KafkaError.check(list.withPointer { rd_kafka_resume_partitions(handle, $0) })
        if let error = list.firstError { throw error }
    }

    /// Current fetch positions (next offset to be returned) of `partitions`; `nil` when unknown.
    func positions(_ partitions: [TopicPartition]) throws(KafkaError) -> [TopicPartition: Int64] {
        let list = TopicPartitionList(partitions)
        try KafkaError.check(list.withPointer { rd_kafka_position(handle, $0) })
        return Self.validOffsets(list)
    }

    // MARK: - Offsets in the group

    func commit(_ offsets: [TopicPartitionOffset]?, synchronous: Bool) throws(KafkaError) {
        let async: Int32 = synchronous ? 0 : 1
        guard let offsets else {
            // A NULL list commits the current positions of the whole assignment.
            try KafkaError.check(rd_kafka_commit(handle, nil, async))
            return
        }
        let list = TopicPartitionList(offsets)
        try KafkaError.check(list.withPointer { rd_kafka_commit(handle, $0, async) })
        if synchronous, let error = list.firstError { throw error }
    }

    func committed(_ partitions: [TopicPartition], timeout: Duration) throws(KafkaError) -> [TopicPartition: Int64] {
        let list = TopicPartitionList(partitions)
        try KafkaError.check(list.withPointer { rd_kafka_committed(handle, $0, timeout.kafkaMilliseconds) })
        return Self.validOffsets(list)
    }

    private static func validOffsets(_ list: TopicPartitionList) -> [TopicPartition: Int64] {
        var result: [TopicPartition: Int64] = [:]
        for entry in list.offsets where entry.offset >= 0 { result[entry.topicPartition] = entry.offset }
        return result
    }

    // MARK: - Lifecycle

    func close() throws(KafkaError) {
        guard !closed else { return }
        closed = true
        context.closing.withLock { $0 = true }
        try KafkaError.check(rd_kafka_consumer_close(handle))
    }

    /// Gives up revoked partitions the rebalance callback left assigned (those no longer assigned, lost
    /// meanwhile, are left alone).
    func release(_ partitions: [TopicPartition]) throws(KafkaError) {
        let assigned = Set(try assignment())
        let held = partitions.filter(assigned.contains)
        guard !held.isEmpty else { return }
        if cooperative {
            let list = TopicPartitionList(held)
            if let error = list.withPointer({ rd_kafka_incremental_unassign(handle, $0) }) {
                throw KafkaError(consuming: error)
            }
        } else {
            try KafkaError.check(rd_kafka_assign(handle, nil))
        }
    }
}
