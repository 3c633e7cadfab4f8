import Domain
import KafkaIO

/// The geofence topic as a global table: every partition read from the beginning, then followed
/// live. Every instance holds the whole table; a null value deletes.
final class GeofenceFeed {
    let topic: String
    private let reader: any PartitionReader
    private let clock: any Clock
    private(set) var table = GeofenceTable()
    var processor = InputProcessor(settings: FoldSettings())
    private let log: (String) -> Void
    private var partitions: [Int32] = []

    init(reader: any PartitionReader, topic: String, clock: any Clock, log: @escaping (String) -> Void) throws {
        self.topic = topic
        self.log = log
        self.reader = reader
        self.clock = clock
        let count = try reader.partitionCount(topic: topic, timeout: .seconds(10)) ?? 0
        partitions = (0..<Int32(count)).map { $0 }
        if !partitions.isEmpty {
            try reader.assign(partitions.map { (TopicPartition(topic: topic, partition: $0), .beginning) })
        }
    }

    /// Reads until every partition is at the end it had when this started (the table is complete
    /// before any fix is folded). The records it rejects become dead letters in `output`, as live
    /// ones do: a bad geofence published while no instance ran is reported, not only counted. Each
    /// start reads the whole topic, so a restart reports them again, under the same topic,
    /// partition and offset.
    func loadAll(timeout seconds: Double, into output: inout OutputBatch) throws {
        guard !partitions.isEmpty else { return }
        var ends: [TopicPartition: Int64] = [:]
        for partition in partitions {
            let marks = try reader.watermarks(topic: topic, partition: partition, timeout: .seconds(10))
            ends[TopicPartition(topic: topic, partition: partition)] = marks.high
        }
        let deadline = clock.monotonic() + seconds
        while clock.monotonic() < deadline {
            _ = try poll(into: &output)
            let positions = try reader.positions(Array(ends.keys))
            if ends.allSatisfy({ (positions[$0.key] ?? -1) >= $0.value || $0.value == 0 }) { return }
        }
        throw RuntimeError.geofencesNotLoaded(topic: topic, seconds: Int(seconds))
    }

    /// Applies newly arrived geofence records. Bad records become dead letters in `output`.
    /// - Returns: whether the table changed.
    func poll(into output: inout OutputBatch) throws -> Bool {
        guard !partitions.isEmpty else { return false }
        let records = try reader.poll(maxRecords: 10_000, timeout: .zero)
        guard !records.isEmpty else { return false }
        let now = clock.now()
        table.loadingInBulk { table in
            for record in records {
                let source = RecordSource(topic: record.topic, partition: record.partition, offset: record.offset)
                if let value = record.value, !value.isEmpty {
                    value.withUnsafeBytes { bytes in
                        processor.processGeofence(key: record.key, value: bytes, source: source, geofences: &table,
                                                  processingTime: now, into: &output)
                    }
                } else {
                    processor.processGeofence(key: record.key, value: nil, source: source, geofences: &table,
                                              processingTime: now, into: &output)
                }
            }
        }
        return true
    }

    func close() { try? reader.close() }
}
