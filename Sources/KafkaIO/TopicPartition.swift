/// A topic name and partition number.
public struct TopicPartition: Hashable, Sendable, CustomStringConvertible {
    /// The topic name.
    public var topic: String
    /// The partition number.
    public var partition: Int32

    /// Creates a topic-partition.
    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public var description: String { "\(topic)[\(partition)]" }
}

extension TopicPartition: Comparable {
    /// Orders by topic, then partition, so lists are stable in logs and tests.
    public static func < (lhs: TopicPartition, rhs: TopicPartition) -> Bool {
        (lhs.topic, lhs.partition) < (rhs.topic, rhs.partition)
    }
}
