import CRdKafka

/// An idempotent (optionally transactional) producer.
///
/// Synchronous and single-threaded: call it from one dedicated thread. Records are copied into librdkafka
/// (`RD_KAFKA_MSG_F_COPY`) before ``produce(topic:partition:key:value:headers:)`` returns, so callers may reuse
/// their buffers at once. Delivery outcomes are counted and reported by ``flush(timeout:)``.
///
/// Transactional use: ``initTransactions(timeout:)`` once, then per batch ``beginTransaction()``, produce,
/// ``sendOffsetsToTransaction(_:groupMetadata:timeout:)``, ``commitTransaction(timeout:)`` (or
/// ``abortTransaction(timeout:)`` after an error whose `isTxnRequiresAbort` is set).
///
/// - Important: `deinit` does not flush: records still queued are dropped with the instance. Call
///   ``flush(timeout:)`` (or commit the transaction) first.
public final class KafkaProducer {
    private let client: RDKafkaClient
    /// Kept alive here because librdkafka holds an unretained pointer to it.
    private let deliveries: DeliveryContext
    private var topics: [String: TopicHandle] = [:]
    private var lastTopic: (name: String, handle: TopicHandle)?
    private var producedSincePoll = 0
    private let queueFullTimeout: Duration

    /// Creates a producer. `enable.idempotence=true` is forced (ordering and no duplicates across retries);
    /// `transactional.id` is set when given.
    ///
    /// - Parameters:
    ///   - configuration: Client properties; `bootstrap.servers` at least.
    ///   - transactionalId: Makes the producer transactional; must be stable per input partition set / instance so a
    ///     restarted instance fences its predecessor. Default: none.
    ///   - queueFullTimeout: How long ``produce(topic:partition:key:value:headers:)`` waits for room in librdkafka's
    ///     queue (`queue.buffering.max.messages/kbytes`) before failing with `queueFull`. Default: 30 s.
    public init(
        configuration: KafkaConfiguration,
        transactionalId: String? = nil,
        queueFullTimeout: Duration = .seconds(30)
    ) throws(KafkaError) {
        var effective = configuration.merging(KafkaConfiguration(properties: [("enable.idempotence", "true")]))
        if let transactionalId { effective["transactional.id"] = transactionalId }
        let deliveries = DeliveryContext()
        self.deliveries = deliveries
        self.queueFullTimeout = queueFullTimeout
        client = try RDKafkaClient(
            type: RD_KAFKA_PRODUCER,
            configuration: effective,
            opaque: Unmanaged.passUnretained(deliveries).toOpaque()
        ) { conf in
            rd_kafka_conf_set_dr_msg_cb(conf, kafkaDeliveryCallback)
        }
    }

    deinit {
        // Topic handles must go before the client; make that explicit rather than rely on property order.
        lastTopic = nil
        topics = [:]
    }

    // MARK: - Producing

    /// Produces one record.
    ///
    /// - Parameters:
    ///   - topic: The topic.
    ///   - partition: The partition; `nil` lets librdkafka's partitioner choose from the key (consistent_random:
    ///     murmur2-compatible with Java clients only if `partitioner=murmur2_random` is configured).
    ///   - key: The key bytes; `nil` for no key.
    ///   - value: The value bytes; `nil` produces a tombstone.
    ///   - headers: Headers; none by default (and then none are allocated).
    ///   - timestamp: The record's timestamp in milliseconds since 1970; `nil` (default): librdkafka's current time.
    /// - Throws: ``KafkaError``, e.g. `queueFull` after ``init(configuration:transactionalId:queueFullTimeout:)``'s
    ///   `queueFullTimeout`, `state` outside a transaction on a transactional producer, or a fatal error.
    public func produce(
        topic: String,
        partition: Int32? = nil,
        key: UnsafeRawBufferPointer?,
        value: UnsafeRawBufferPointer?,
        headers: [KafkaHeader] = [],
        timestamp: Int64? = nil
    ) throws(KafkaError) {
        let handle = try topicHandle(topic)
        var deadline: ContinuousClock.Instant?
        while true {
            guard let error = enqueue(handle, partition, key, value, headers, timestamp) else { break }
            let code = rd_kafka_error_code(error)
            guard code == RD_KAFKA_RESP_ERR__QUEUE_FULL else { throw KafkaError(consuming: error) }
            rd_kafka_error_destroy(error)
            // Backpressure: serve delivery reports (which frees queue room) and retry until the deadline.
            let now = ContinuousClock.now
            if deadline == nil { deadline = now + queueFullTimeout }
            if let deadline, now >= deadline {
                throw KafkaError(
                    code: .queueFull, message: "producer queue full for \(queueFullTimeout)", isRetriable: true)
            }
            rd_kafka_poll(client.handle, 10)
        }
        // Serve delivery reports now and then so they do not pile up between flushes.
        producedSincePoll += 1
        if producedSincePoll >= 1024 {
            producedSincePoll = 0
            rd_kafka_poll(client.handle, 0)
        }
    }

    /// Produces one record from byte arrays. See ``produce(topic:partition:key:value:headers:)``.
    public func produce(
        topic: String,
        partition: Int32? = nil,
        key: [UInt8]?,
        value: [UInt8]?,
        headers: [KafkaHeader] = [],
        timestamp: Int64? = nil
    ) throws(KafkaError) {
        // Nested closures return a Result because withUnsafeBytes cannot carry a typed throw.
        let result: Result<Void, KafkaError> = Self.withOptionalBytes(key) { keyBytes in
            Self.withOptionalBytes(value) { valueBytes in
                Result { () throws(KafkaError) in
                    try self.produce(
                        topic: topic, partition: partition, key: keyBytes, value: valueBytes, headers: headers,
                        timestamp: timestamp)
                }
            }
        }
        try result.get()
    }

    /// One `rd_kafka_produceva` call; returns librdkafka's error (owned by the caller) or `nil`.
    private func enqueue(
        _ topic: TopicHandle,
        _ partition: Int32?,
        _ key: UnsafeRawBufferPointer?,
        _ value: UnsafeRawBufferPointer?,
        _ headers: [KafkaHeader],
        _ timestamp: Int64?
    ) -> OpaquePointer? {
        withUnsafeTemporaryAllocation(of: rd_kafka_vu_t.self, capacity: 7) { args in
            var count = 0
            func add(_ type: rd_kafka_vtype_t, _ fill: (inout rd_kafka_vu_t) -> Void) {
                var arg = rd_kafka_vu_t()
                arg.vtype = type
                fill(&arg)
                args.initializeElement(at: count, to: arg)
                count += 1
            }
            add(RD_KAFKA_VTYPE_RKT) { $0.u.rkt = topic.pointer }
            add(RD_KAFKA_VTYPE_PARTITION) { $0.u.i32 = partition ?? -1 }  // -1: RD_KAFKA_PARTITION_UA
            add(RD_KAFKA_VTYPE_MSGFLAGS) { $0.u.i = RD_KAFKA_MSG_F_COPY }
            if let key {
                add(RD_KAFKA_VTYPE_KEY) {
                    $0.u.mem.ptr = Self.nonNull(key)
                    $0.u.mem.size = key.count
                }
            }
            // A NULL pointer is a tombstone, so an empty-but-present value needs a non-NULL pointer.
            add(RD_KAFKA_VTYPE_VALUE) {
                $0.u.mem.ptr = value.map(Self.nonNull)
                $0.u.mem.size = value?.count ?? 0
            }
            if let timestamp { add(RD_KAFKA_VTYPE_TIMESTAMP) { $0.u.i64 = timestamp } }
            var headerList: OpaquePointer?
            if !headers.isEmpty {
                let list = rd_kafka_headers_new(headers.count)!
                for header in headers {
                    if let bytes = header.value {
                        bytes.withUnsafeBytes {
                            _ = rd_kafka_header_add(list, header.key, -1, Self.nonNull($0), $0.count)
                        }
                    } else {
                        _ = rd_kafka_header_add(list, header.key, -1, nil, 0)
                    }
                }
                headerList = list
                add(RD_KAFKA_VTYPE_HEADERS) { $0.u.headers = list }
            }
            let error = rd_kafka_produceva(client.handle, args.baseAddress, count)
            // librdkafka owns the headers only if the record was accepted.
            if error != nil, let headerList { rd_kafka_headers_destroy(headerList) }
            args.baseAddress!.deinitialize(count: count)
            return error
        }
    }

    /// A non-NULL address for zero-length keys and values; never read (length 0) nor written, so sharing is safe.
    nonisolated(unsafe) private static let emptyByte = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

    private static func nonNull(_ buffer: UnsafeRawBufferPointer) -> UnsafeMutableRawPointer {
        buffer.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) } ?? emptyByte
    }

    private static func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let bytes else { return body(nil) }
        return bytes.withUnsafeBytes { body($0) }
    }

    private func topicHandle(_ name: String) throws(KafkaError) -> TopicHandle {
        if let lastTopic, lastTopic.name == name { return lastTopic.handle }
        let handle: TopicHandle
        if let cached = topics[name] {
            handle = cached
        } else {
            handle = try TopicHandle(client: client, name: name)
            topics[name] = handle
        }
        lastTopic = (name, handle)
        return handle
    }

    // MARK: - Delivery

    /// Serves pending delivery reports without waiting.
    public func poll() {
        rd_kafka_poll(client.handle, 0)
    }

    /// Waits until every produced record is delivered or failed, then reports the outcomes since the last flush.
    ///
    /// - Returns: The tallies of delivery reports received since the previous flush (including those served during
    ///   a transaction commit).
    /// - Throws: ``KafkaError`` `timedOut` if records are still in flight after `timeout`; their reports then count
    ///   towards the next flush.
    @discardableResult
    public func flush(timeout: Duration) throws(KafkaError) -> DeliveryReport {
        let err = rd_kafka_flush(client.handle, timeout.kafkaMilliseconds)
        if err == RD_KAFKA_RESP_ERR__TIMED_OUT {
            throw KafkaError(err, "\(rd_kafka_outq_len(client.handle)) records still in flight after \(timeout)")
        }
        try KafkaError.check(err)
        return deliveries.take()
    }

    /// Records and requests not yet acknowledged, plus delivery reports not yet served.
    public var inFlightCount: Int { Int(rd_kafka_outq_len(client.handle)) }

    /// The fatal error that made this producer unusable, if any (e.g. fenced by a newer instance).
    public var fatalError: KafkaError? { client.fatalError() }

    // MARK: - Transactions

    /// Registers the `transactional.id` with the coordinator and fences older producers using it. Call once.
    public func initTransactions(timeout: Duration) throws(KafkaError) {
        try KafkaError.check(rd_kafka_init_transactions(client.handle, timeout.kafkaMilliseconds))
    }

    /// Starts a transaction; produce and send offsets, then commit or abort.
    public func beginTransaction() throws(KafkaError) {
        try KafkaError.check(rd_kafka_begin_transaction(client.handle))
    }

    /// Adds consumer offsets (next offset to consume per partition) to the transaction, committed with it.
    public func sendOffsetsToTransaction(
        _ offsets: [TopicPartitionOffset],
        groupMetadata: ConsumerGroupMetadata,
        timeout: Duration
    ) throws(KafkaError) {
        let list = TopicPartitionList(offsets)
        let error = list.withPointer {
            rd_kafka_send_offsets_to_transaction(client.handle, $0, groupMetadata.pointer, timeout.kafkaMilliseconds)
        }
        try KafkaError.check(error)
    }

    /// Adds `consumer`'s offsets to the transaction, taking its current group metadata.
    public func sendOffsetsToTransaction(
        _ offsets: [TopicPartitionOffset],
        consumer: KafkaConsumer,
        timeout: Duration
    ) throws(KafkaError) {
        try sendOffsetsToTransaction(offsets, groupMetadata: consumer.groupMetadata(), timeout: timeout)
    }

    /// Flushes and commits the transaction. On an error with `isRetriable`, call again; with
    /// `isTxnRequiresAbort`, call ``abortTransaction(timeout:)``; with `isFatal`, recreate the producer.
    public func commitTransaction(timeout: Duration) throws(KafkaError) {
        try KafkaError.check(rd_kafka_commit_transaction(client.handle, timeout.kafkaMilliseconds))
    }

    /// Aborts the transaction, purging records not yet sent. Their delivery reports (purged) belong to
    /// the aborted transaction: they are served and dropped here, so the next flush reports only on
    /// the records of the next transaction.
    public func abortTransaction(timeout: Duration) throws(KafkaError) {
        try KafkaError.check(rd_kafka_abort_transaction(client.handle, timeout.kafkaMilliseconds))
        _ = rd_kafka_flush(client.handle, 1_000)
        _ = deliveries.take()
    }
}
