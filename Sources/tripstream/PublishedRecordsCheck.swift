import CommandSupport
import KafkaIO

/// Whether the broker kept what a command published: the dev broker (librdkafka's mock) drops a partition's
/// oldest records beyond about 5 MiB without an error, so a fleet too large for it loses its start silently.
/// The end offsets before publishing against the start offsets after: a start moved past the old end means
/// records of this run were dropped.
struct PublishedRecordsCheck {
    private let configuration: KafkaConfiguration
    private let topics: [String]
    /// Per topic and partition, the end offset before publishing.
    private let endsBefore: [TopicPartition: Int64]

    init(configuration: KafkaConfiguration, topics: [String]) throws {
        self.configuration = configuration.inGroupByDefault("tripstream-published-check")
        self.topics = topics
        endsBefore = try Self.watermarks(self.configuration, topics).mapValues(\.high)
    }

    /// Prints a warning per topic that lost records of this run, with the count per partition.
    func warnIfDropped(published: [String: Int], warn: (String) -> Void) throws {
        let after = try Self.watermarks(configuration, topics)
        for topic in topics {
            let dropped = after.filter { $0.key.topic == topic }
                .map { ($0.key.partition, max(0, $0.value.low - (endsBefore[$0.key] ?? 0))) }
                .filter { $0.1 > 0 }.sorted { $0.0 < $1.0 }
            guard !dropped.isEmpty else { continue }
            let total = dropped.reduce(0) { $0 + Int($1.1) }
            let partitions = dropped.map { "partition \($0.0): \(Int($0.1).grouped)" }.joined(separator: ", ")
            warn("warning: the broker dropped \(total.grouped) of the \((published[topic] ?? 0).grouped) records "
                + "published to \(topic) (\(partitions)): the dev broker keeps about 5 MiB per partition. Publish "
                + "fewer (--users, --duration) or use a real Kafka.")
        }
    }

    private static func watermarks(_ configuration: KafkaConfiguration, _ topics: [String]) throws
        -> [TopicPartition: (low: Int64, high: Int64)]
    {
        let reader = try KafkaReader(configuration: configuration)
        defer { try? reader.close() }
        var marks: [TopicPartition: (low: Int64, high: Int64)] = [:]
        for topic in topics {
            let count = try reader.partitionCount(topic: topic, timeout: .seconds(10)) ?? 0
            for partition in 0..<Int32(count) {
                marks[TopicPartition(topic: topic, partition: partition)] =
                    try reader.watermarks(topic: topic, partition: partition, timeout: .seconds(10))
            }
        }
        return marks
    }
}
