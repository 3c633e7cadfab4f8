/// A record read from Kafka; its bytes are copied out of librdkafka's buffers.
public struct ConsumedRecord: Hashable, Sendable {
    /// The topic name. Interned per consumer: records of the same topic share one string buffer.
    public var topic: String
    /// The partition number.
    public var partition: Int32
    /// The record's offset.
    public var offset: Int64
    /// The key; `nil` when the record has no key.
    public var key: [UInt8]?
    /// The value; `nil` for a tombstone.
    public var value: [UInt8]?
    /// The record timestamp in milliseconds since the epoch, or -1 when the broker gave none.
    public var timestamp: Int64
    /// The headers, in wire order; empty when there are none.
    public var headers: [KafkaHeader]

    /// Creates a record (for tests and fakes).
    public init(
        topic: String,
        partition: Int32,
        offset: Int64,
        key: [UInt8]?,
        value: [UInt8]?,
        timestamp: Int64,
        headers: [KafkaHeader] = []
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.timestamp = timestamp
        self.headers = headers
    }
}
