import Codec
import Domain

/// The geofences topic as a history: every surviving record, decoded, in the order of its Kafka timestamp, so a
/// replay can apply the table that was in force at each moment.
///
/// The moment of an input is its record timestamp. A geofence record applies before the first input, in the
/// partition fold's order, whose record timestamp is not older than the geofence record's; the table only moves
/// forward (an input older than one already folded does not take a change back). Records with equal timestamps
/// apply in (partition, offset) order.
///
/// The topic is compacted, so history is partial: a key's older values and a deleted key's whole life may be gone.
/// ``unknownBefore`` lists the keys whose earliest surviving record is later than the replay's start while
/// offsets before it in its partition are missing (records compacted or expired away): what the table held for
/// them before that record may be lost, and is taken as absent. A key whose partition lost nothing before its
/// first record did not exist before it. Whole lives of deleted keys whose tombstones were compacted away leave no
/// trace at all; nothing can list them.
struct GeofenceTimeline {
    /// One geofence-topic record as read, with its Kafka coordinates.
    struct Record {
        var timestamp: Int64
        var partition: Int32
        var offset: Int64
        var key: [UInt8]?
        var value: [UInt8]?
    }

    struct Change {
        var timestamp: Int64
        var change: GeofenceChange
    }

    private(set) var changes: [Change] = []
    /// Keys (`tag/externalId`) whose earliest surviving record is later than the start with offsets missing before
    /// it, with that record's time.
    private(set) var unknownBefore: [(key: String, since: Int64)] = []

    /// Decodes `records` (bad ones become dead letters of `processor`, in timestamp order).
    init(records: [Record], start: Int64, topic: String, processor: inout InputProcessor, output: inout OutputBatch) {
        let ordered = records.sorted { ($0.timestamp, $0.partition, $0.offset) < ($1.timestamp, $1.partition, $1.offset) }
        // Per partition, how many offsets below each record are missing (offsets start at 0).
        var missingBefore: [Int32: [Int64: Int64]] = [:]
        for (partition, records) in Dictionary(grouping: records, by: \.partition) {
            let offsets = records.map(\.offset).sorted()
            missingBefore[partition] = Dictionary(uniqueKeysWithValues: offsets.enumerated().map { ($1, $1 - Int64($0)) })
        }
        var earliest: [String: (timestamp: Int64, missing: Int64)] = [:]
        for record in ordered {
            if let key = record.key {
                let name = String(decoding: key, as: UTF8.self)
                if earliest[name] == nil {
                    earliest[name] = (record.timestamp, missingBefore[record.partition]?[record.offset] ?? 0)
                }
            }
            let source = RecordSource(topic: topic, partition: record.partition, offset: record.offset)
            let change: GeofenceChange?
            if let value = record.value {
                change = value.withUnsafeBytes {
                    processor.decodeGeofence(key: record.key, value: $0, source: source, processingTime: nil,
                                             into: &output)
                }
            } else {
                change = processor.decodeGeofence(key: record.key, value: nil, source: source, processingTime: nil,
                                                  into: &output)
            }
            if let change { changes.append(Change(timestamp: record.timestamp, change: change)) }
        }
        unknownBefore = earliest.filter { $0.value.timestamp > start && $0.value.missing > 0 }
            .map { (key: $0.key, since: $0.value.timestamp) }
            .sorted { ($0.since, $0.key) < ($1.since, $1.key) }
    }

    /// A partition's position in the timeline.
    struct Cursor {
        private let changes: [Change]
        private var next = 0

        init(_ timeline: GeofenceTimeline) { changes = timeline.changes }

        /// Applies to `table` every change not later than `timestamp` not applied yet, in bulk: the first
        /// advance of a replay loads the whole table as it stood before its first input.
        mutating func advance(to timestamp: Int64, table: inout GeofenceTable) {
            guard next < changes.count, changes[next].timestamp <= timestamp else { return }  // per input
            table.loadingInBulk { table in
                while next < changes.count, changes[next].timestamp <= timestamp {
                    table.apply(changes[next].change)
                    next += 1
                }
            }
        }
    }
}
