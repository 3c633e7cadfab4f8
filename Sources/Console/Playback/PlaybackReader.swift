import Codec
import Domain
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

    /// The user's fixes whose records were written in `from..<to` (ms), and whether the limit or the deadline cut
    /// them short.
    public func read(user: String, from: Int64, to: Int64) throws(KafkaError) -> (points: [PlaybackPoint], truncated: Bool) {
        let reader = try KafkaReader(configuration: kafka.inGroupByDefault("tripstream-console-playback"))
        defer { try? reader.close() }
        guard let count = try reader.partitionCount(topic: topic, timeout: .seconds(10)), count > 0 else { return ([], false) }
        let partitions = (0..<Int32(count)).map { TopicPartition(topic: topic, partition: $0) }
        // Where the broker gives no offset for a time (none that late, or librdkafka's mock cluster, which does not
        // index timestamps): the window starts at the partition's first record (records before `from` are skipped
        // below) and ends at its end.
        let lastOffsets = try reader.endOffsets(partitions, timeout: .seconds(10))
        var starts = try reader.offsets(at: from, of: partitions, timeout: .seconds(10)).filter { $0.value >= 0 }
        for partition in partitions where starts[partition] == nil {
            starts[partition] = max(0, try reader.watermarks(topic: topic, partition: partition.partition,
                                                             timeout: .seconds(10)).low)
        }
        var ends = try reader.offsets(at: to, of: partitions, timeout: .seconds(10)).filter { $0.value >= 0 }
        for partition in partitions where ends[partition] == nil { ends[partition] = lastOffsets[partition] }
        // A partition without a record at or after `from` has nothing in the window.
        let ranges = partitions.compactMap { partition -> (TopicPartition, Int64)? in
            guard let start = starts[partition], let end = ends[partition], start < end else { return nil }
            return (partition, start)
        }
        var remaining = Set(ranges.map(\.0))
        guard !remaining.isEmpty else { return ([], false) }
        try reader.assign(ranges.map { ($0.0, .offset($0.1)) })
        let key = Array(user.utf8)
        var points: [PlaybackPoint] = []
        let started = ContinuousClock.now
        while !remaining.isEmpty, ContinuousClock.now - started < Self.deadline {
            for record in try reader.poll(maxRecords: 10_000, timeout: .milliseconds(200)) {
                let partition = TopicPartition(topic: record.topic, partition: record.partition)
                guard let end = ends[partition], record.offset < end, record.timestamp >= from, record.timestamp < to
                else { continue }
                guard record.key == key, let value = record.value, let point = Self.decode(value)
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

    /// A fix's time, position and speed, read by Codec's `FixDecoder` as the service reads it: a fix the service
    /// would dead-letter is no point of a route either.
    static func decode(_ value: [UInt8]) -> PlaybackPoint? {
        guard let fix = try? FixDecoder.decode(value) else { return nil }
        return PlaybackPoint(time: fix.createdAt, longitude: fix.position.longitude, latitude: fix.position.latitude,
                             speed: fix.speed.isFinite ? Double(fix.speed) : nil)
    }
}
