import KafkaIO

/// Reads one user's fixes from the locations topic for a window of record timestamps (when the fixes
/// arrived), every partition, without a consumer group: the analysts' replay source, for the console's
/// playback. At most ``maximumPoints`` fixes; gives up after ``deadline``.
public struct PlaybackReader: Sendable {
    public static let maximumPoints = 100_000
    public static let deadline = Duration.seconds(20)
    let kafka: KafkaConfiguration
    let topic: String

    public init(kafka: KafkaConfiguration, topic: String) {
        self.kafka = kafka
        self.topic = topic
    }

    /// The user's fixes whose records were written in `from..<to` (ms), and whether the limit cut them short.
    public func read(user: String, from: Int64, to: Int64) throws(KafkaError) -> (points: [PlaybackPoint], truncated: Bool) {
        let reader = try KafkaReader(configuration: kafka.settingDefault("group.id", "tripstream-console-playback"))
        defer { try? reader.close() }
        guard let count = try reader.partitionCount(topic: topic, timeout: .seconds(10)), count > 0 else { return ([], false) }
        let partitions = (0..<Int32(count)).map { TopicPartition(topic: topic, partition: $0) }
        let starts = try reader.offsets(at: from, of: partitions, timeout: .seconds(10))
        let ends = try reader.offsets(at: to, of: partitions, timeout: .seconds(10))
        var remaining = Set(partitions.filter { (starts[$0] ?? 0) < (ends[$0] ?? 0) })
        guard !remaining.isEmpty else { return ([], false) }
        try reader.assign(remaining.map { ($0, .offset(starts[$0]!)) })
        let key = Array(user.utf8)
        var points: [PlaybackPoint] = []
        let started = ContinuousClock.now
        while !remaining.isEmpty, ContinuousClock.now - started < Self.deadline {
            for record in try reader.poll(maxRecords: 10_000, timeout: .milliseconds(200)) {
                let partition = TopicPartition(topic: record.topic, partition: record.partition)
                guard let end = ends[partition], record.offset < end else { continue }
                guard record.key == key, let value = record.value, let point = Self.decode(value, timestamp: record.timestamp)
                else { continue }
                points.append(point)
                if points.count >= Self.maximumPoints { return (points, true) }
            }
            // Under read_committed the last records of a range can be markers: compare positions, not offsets seen.
            for (partition, position) in try reader.positions(Array(remaining)) where position >= (ends[partition] ?? 0) {
                remaining.remove(partition)
            }
        }
        return (points, !remaining.isEmpty)
    }

    /// A fix's time and position (`latitude`/`longitude` or a GeoJSON `location`), nil when it has none.
    static func decode(_ value: [UInt8], timestamp: Int64) -> PlaybackPoint? {
        guard let fix = JSONFields(bytes: value) else { return nil }
        let position: (longitude: Double, latitude: Double)?
        if let latitude = fix.double("latitude"), let longitude = fix.double("longitude"),
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        {
            position = (longitude, latitude)
        } else {
            position = fix.point("location")
        }
        guard let position else { return nil }
        let speed = fix.double("speed").flatMap { $0 >= 0 ? $0 : nil }
        return PlaybackPoint(time: fix.time("createdAt") ?? timestamp, longitude: position.longitude,
                             latitude: position.latitude, speed: speed)
    }
}
