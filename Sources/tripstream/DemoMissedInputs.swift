import KafkaIO
import Runtime

/// Inputs the service never read. The embedded broker (librdkafka's mock) keeps about 5 MiB per partition
/// and drops the oldest records beyond that without an error, so a demo that runs for hours loses old
/// records all the time: records the service had already committed are no loss, records dropped before it
/// committed them are missed. Every `check` compares each input partition's first kept offset with the
/// offset the service committed last (`RuntimeMetrics`; the mock keeps no transactional group offsets to
/// ask it for) and counts the records between them once.
///
/// Read in the open transaction but not yet committed, a dropped record still counts as missed: that
/// happens only to a service about 5 MiB behind, which is worth the warning.
final class DemoMissedInputs {
    private let reader: KafkaReader
    private let topics: Topics
    private let metrics: RuntimeMetrics
    private var partitions: [TopicPartition] = []
    /// Per partition, the offset up to which dropped records were counted.
    private var countedUpTo: [TopicPartition: Int64] = [:]
    /// Records dropped before the service committed them, per topic.
    private(set) var missed: [String: Int] = [:]

    init(configuration: KafkaConfiguration, topics: Topics, metrics: RuntimeMetrics) throws {
        reader = try KafkaReader(configuration: configuration.inGroupByDefault("tripstream-demo-retention"))
        self.topics = topics
        self.metrics = metrics
    }

    /// Leaves the broker; before the embedded broker goes.
    func close() { try? reader.close() }

    deinit { close() }

    /// Counts the records dropped since the last check that the service had not committed.
    func check() throws {
        if partitions.isEmpty {
            for topic in [topics.locations, topics.tripCommands] {
                let count = try reader.partitionCount(topic: topic, timeout: .seconds(10)) ?? 0
                partitions += (0..<Int32(count)).map { TopicPartition(topic: topic, partition: $0) }
            }
        }
        let committed = metrics.snapshot.committedOffsets
        for partition in partitions {
            let firstKept = try reader.watermarks(topic: partition.topic, partition: partition.partition,
                                                  timeout: .seconds(10)).low
            // Nothing committed yet: the service starts at the beginning.
            let offsets = committed[partition.partition]
            let read = (partition.topic == topics.locations ? offsets?.locations : offsets?.commands) ?? 0
            let from = max(read, countedUpTo[partition] ?? 0)
            if firstKept > from { missed[partition.topic, default: 0] += Int(firstKept - from) }
            countedUpTo[partition] = max(countedUpTo[partition] ?? 0, firstKept)
        }
    }

    /// One warning per topic that missed records.
    func warnIfMissed(published: [String: Int], warn: (String) -> Void) {
        for topic in [topics.locations, topics.tripCommands] {
            guard let count = missed[topic], count > 0 else { continue }
            warn("warning: the broker dropped \(count.grouped) of the \((published[topic] ?? 0).grouped) records "
                + "published to \(topic) before the service read them: the embedded broker keeps about 5 MiB per "
                + "partition. Run fewer drivers (--users) or a lower --speedup.")
        }
    }
}
