/// A topic to create with ``KafkaAdmin/createTopics(_:timeout:)``.
public struct TopicSpec: Hashable, Sendable {
    /// The topic name.
    public var name: String
    /// The number of partitions. Default: 1.
    public var partitions: Int32
    /// The replication factor. Default: 1 (fine for the mock; use 3 on a production cluster).
    public var replicationFactor: Int16
    /// Topic configs, e.g. `["cleanup.policy": "compact"]`. Default: none.
    public var config: [String: String]

    /// Creates a topic specification.
    public init(name: String, partitions: Int32 = 1, replicationFactor: Int16 = 1, config: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.config = config
    }
}
