import KafkaIO

/// Reads the output topics into a ``FleetStore``: every partition, without a consumer group. The compacted
/// tables (users, geofences) from the beginning; the streams (events, ETA, trip summaries) from
/// ``streamBacklog`` records before their end, enough for the feed and the trips panel without replaying
/// days of events. Topics that do not exist yet are looked for again every few seconds.
public final class ConsoleFeed {
    public static let streamBacklog: Int64 = 5_000
    private let reader: KafkaReader
    private let store: FleetStore
    private let log: (String) -> Void
    private var assigned: Set<String> = []
    private var reportedMissing: Set<String> = []

    public init(kafka: KafkaConfiguration, store: FleetStore, log: @escaping (String) -> Void) throws(KafkaError) {
        reader = try KafkaReader(configuration: kafka.inGroupByDefault("tripstream-console"))
        self.store = store
        self.log = log
    }

    /// Reads until `shouldStop` returns true (checked between polls).
    public func run(shouldStop: () -> Bool) throws(KafkaError) {
        var lastDiscovery = ContinuousClock.now - .seconds(60)
        while !shouldStop() {
            if assigned.count < store.topics.all.count, ContinuousClock.now - lastDiscovery > .seconds(5) {
                lastDiscovery = .now
                try discover()
            }
            let records = try reader.poll(maxRecords: 10_000, timeout: .milliseconds(100))
            if !records.isEmpty { store.apply(records) }
        }
    }

    private func discover() throws(KafkaError) {
        let topics = store.topics
        for topic in topics.all where !assigned.contains(topic) {
            guard let count = try reader.partitionCount(topic: topic, timeout: .seconds(5)), count > 0 else {
                if reportedMissing.insert(topic).inserted { log("console: topic \(topic) does not exist (yet)") }
                continue
            }
            var partitions: [(TopicPartition, KafkaReader.StartOffset)] = []
            for partition in 0..<Int32(count) {
                let topicPartition = TopicPartition(topic: topic, partition: partition)
                if topic == topics.users || topic == topics.geofences {
                    partitions.append((topicPartition, .beginning))
                } else {
                    let marks = try reader.watermarks(topic: topic, partition: partition, timeout: .seconds(5))
                    partitions.append((topicPartition, .offset(max(marks.low, marks.high - Self.streamBacklog))))
                }
            }
            try reader.add(partitions)
            assigned.insert(topic)
            log("console: reading \(topic) (\(count) partitions)")
        }
    }
}
