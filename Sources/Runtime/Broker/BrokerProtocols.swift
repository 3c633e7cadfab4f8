import Domain
#if canImport(Glibc)
import Glibc
#endif
import KafkaIO

// The runtime's view of the broker: a few small protocols, so the pipeline can run on Kafka
// (`KafkaBroker`) or on an in-memory broker that tests tell to fail where the mock cluster cannot.
// Errors are `KafkaError`s either way: the runtime decides by their flags (fatal, retriable).

/// The group-managed consumer of the fixes topic: partitions come and go by rebalance.
public protocol InputLog: AnyObject {
    func subscribe(_ topics: [String]) throws
    func poll(maxRecords: Int, timeout: Duration) throws -> [ConsumedRecord]
    /// Assignments, revocations and losses since the last call, in order.
    func takeRebalanceEvents() -> [RebalanceEvent]
    /// Hands partitions revoked in an orderly rebalance over to the group, once what was folded from them
    /// is committed: until then the group gives them to nobody else.
    func release(_ partitions: [TopicPartition]) throws
    func seek(_ offsets: [TopicPartitionOffset]) throws
    func pause(_ partitions: [TopicPartition]) throws
    func resume(_ partitions: [TopicPartition]) throws
    /// Next offsets to be fetched.
    func positions(_ partitions: [TopicPartition]) throws -> [TopicPartition: Int64]
    /// The group's committed offsets.
    func committed(_ partitions: [TopicPartition], timeout: Duration) throws -> [TopicPartition: Int64]
    /// The member's identity for offsets sent in a transaction; a stale one gets them refused.
    func membership() throws -> GroupMembership
    func watermarks(topic: String, partition: Int32, timeout: Duration) throws -> (low: Int64, high: Int64)
    /// Leaves the group.
    func close() throws
}

/// A consumer of explicitly assigned partitions (trip commands, the changelog, geofences).
public protocol PartitionReader: AnyObject {
    func assign(_ partitions: [(TopicPartition, KafkaReader.StartOffset)]) throws
    func add(_ partitions: [(TopicPartition, KafkaReader.StartOffset)]) throws
    func remove(_ partitions: [TopicPartition]) throws
    func poll(maxRecords: Int, timeout: Duration) throws -> [ConsumedRecord]
    func seek(_ offsets: [TopicPartitionOffset]) throws
    func pause(_ partitions: [TopicPartition]) throws
    func resume(_ partitions: [TopicPartition]) throws
    func positions(_ partitions: [TopicPartition]) throws -> [TopicPartition: Int64]
    func watermarks(topic: String, partition: Int32, timeout: Duration) throws -> (low: Int64, high: Int64)
    /// Ends (last stable offsets under read_committed) asked of the brokers now, never cached.
    func endOffsets(_ partitions: [TopicPartition], timeout: Duration) throws -> [TopicPartition: Int64]
    func partitionCount(topic: String, timeout: Duration) throws -> Int?
    func close() throws
}

/// A transactional producer: what is produced between `begin` and `commit` becomes visible to
/// read_committed consumers together with the offsets sent, or not at all.
public protocol TransactionalSink: AnyObject {
    func initTransactions(timeout: Duration) throws
    func begin() throws
    /// Queues a record (its bytes are copied); `partition` nil: chosen from the key as Kafka's
    /// default partitioner does.
    func produce(topic: String, partition: Int32?, key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?) throws
    /// Waits until every queued record is acknowledged or failed.
    func flush(timeout: Duration) throws -> DeliveryReport
    func sendOffsets(_ offsets: [TopicPartitionOffset], membership: GroupMembership, timeout: Duration) throws
    func commit(timeout: Duration) throws
    func abort(timeout: Duration) throws
}

extension TransactionalSink {
    func produce(topic: String, partition: Int32? = nil, key: [UInt8]?, value: [UInt8]?) throws {
        func withBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
            guard let bytes else { return try body(nil) }
            return try bytes.withUnsafeBytes { try body($0) }
        }
        try withBytes(key) { key in try withBytes(value) { value in
            try produce(topic: topic, partition: partition, key: key, value: value)
        } }
    }
}

/// Topic creation and description at start.
public protocol TopicAdmin: AnyObject {
    func partitionCounts(_ topics: [String], timeout: Duration) throws -> [String: Int]
    /// - Returns: the topics created.
    func createTopics(_ topics: [TopicSpec], timeout: Duration) throws -> [String]
}

/// Makes the clients; `configuration` holds client properties (librdkafka's names).
public protocol Broker: Sendable {
    func inputLog(configuration: KafkaConfiguration) throws -> any InputLog
    func reader(configuration: KafkaConfiguration) throws -> any PartitionReader
    func sink(configuration: KafkaConfiguration, transactionalId: String) throws -> any TransactionalSink
    func admin(configuration: KafkaConfiguration) throws -> any TopicAdmin
}

/// A consumer group member's identity at one generation (Kafka's group metadata, or the
/// in-memory broker's generation number).
public struct GroupMembership: @unchecked Sendable {
    // Unchecked: librdkafka's group metadata is an immutable copy, safe to read from any thread.
    public let kafka: ConsumerGroupMetadata?
    public let generation: Int

    public init(kafka: ConsumerGroupMetadata?, generation: Int) {
        self.kafka = kafka
        self.generation = generation
    }
}

/// Processing time and elapsed time (never used by the fold).
public protocol Clock: Sendable {
    /// Milliseconds since 1970.
    func now() -> UnixMillis
    /// Monotonic seconds.
    func monotonic() -> Double
    /// Lets `seconds` pass (a pause between retries).
    func sleep(seconds: Double)
}

/// The machine's clocks.
public struct SystemClock: Clock {
    public init() {}
    public func now() -> UnixMillis { WallClock.now() }
    public func monotonic() -> Double { WallClock.monotonic() }
    public func sleep(seconds: Double) { usleep(UInt32(max(0, seconds) * 1e6)) }
}
