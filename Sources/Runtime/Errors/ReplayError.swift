/// A replay that cannot run or finish, naming the problem.
public enum ReplayError: Error, CustomStringConvertible, Equatable {
    case topicMissing(String)
    case partitionCountsDiffer(fixesTopic: String, fixes: Int, commandsTopic: String, commands: Int)
    case partitionNotInTopic(partition: Int32, topic: String, partitions: Int)
    case noOffsets(partition: String)
    case stalledSearchingTimestamps(partitions: [String])
    case stalled(seconds: Int, partitions: [String])
    /// `--partitions` names something that is not a partition or a range `low-high`.
    case badPartitionSelection(part: String, text: String)
    case partitionRangeTooLarge(String)
    case topicPrefixClash(prefix: String, topic: String)
    case outputsNotDelivered(count: Int, firstError: String?)
    case historyStore(String)
    case noArchive(directory: String)
    case spoolTruncated(path: String)

    public var description: String {
        switch self {
        case let .topicMissing(topic): "topic \(topic) does not exist"
        case let .partitionCountsDiffer(fixesTopic, fixes, commandsTopic, commands):
            "\(fixesTopic) has \(fixes) partitions but \(commandsTopic) has \(commands)"
        case let .partitionNotInTopic(partition, topic, partitions):
            "partition \(partition) selected, but \(topic) has \(partitions) partitions (0-\(partitions - 1))"
        case let .noOffsets(partition): "the brokers gave no offsets for \(partition)"
        case let .stalledSearchingTimestamps(partitions):
            "no records from \(partitions.joined(separator: ", ")) while searching timestamps"
        case let .stalled(seconds, partitions):
            "no records for \(seconds) s from \(partitions.joined(separator: ", ")) before their end"
        case let .badPartitionSelection(part, text):
            "--partitions: '\(part)' is not a partition or a range like 0-5 (in '\(text)')"
        case let .partitionRangeTooLarge(part): "--partitions: range '\(part)' is too large"
        case let .topicPrefixClash(prefix, topic):
            "--to-topic-prefix '\(prefix)' would write \(topic), a topic of the service; give a prefix such as sandbox."
        case let .outputsNotDelivered(count, firstError):
            "\(count) output records were not delivered (\(firstError ?? "?"))"
        case let .historyStore(reason): "history store: \(reason)"
        case let .noArchive(directory): "\(directory) holds no archive (no locations folder)"
        case let .spoolTruncated(path): "\(path) ends inside a record"
        }
    }
}
