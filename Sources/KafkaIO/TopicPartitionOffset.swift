/// A topic-partition with an offset.
///
/// When committing or sending offsets to a transaction, `offset` is the *next* offset to consume (last processed + 1),
/// as Kafka expects. Negative values are librdkafka's logical offsets (``beginning``, ``end``, ``stored``).
public struct TopicPartitionOffset: Hashable, Sendable, CustomStringConvertible {
    /// The topic name.
    public var topic: String
    /// The partition number.
    public var partition: Int32
    /// The offset, or a logical offset.
    public var offset: Int64

    /// Creates a topic-partition-offset.
    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    /// Creates a topic-partition-offset from a ``TopicPartition``.
    public init(_ topicPartition: TopicPartition, offset: Int64) {
        self.init(topic: topicPartition.topic, partition: topicPartition.partition, offset: offset)
    }

    /// The topic-partition without the offset.
    public var topicPartition: TopicPartition { TopicPartition(topic: topic, partition: partition) }

    /// Logical offset: the earliest retained record (`RD_KAFKA_OFFSET_BEGINNING`).
    public static let beginning: Int64 = -2
    /// Logical offset: the next record to be written (`RD_KAFKA_OFFSET_END`).
    public static let end: Int64 = -1
    /// Logical offset: the group's committed offset (`RD_KAFKA_OFFSET_STORED`).
    public static let stored: Int64 = -1000
    /// Logical offset: no offset (`RD_KAFKA_OFFSET_INVALID`), e.g. nothing committed yet.
    public static let invalid: Int64 = -1001

    public var description: String { "\(topic)[\(partition)]@\(offset)" }
}
