import Codec
import Domain
import KafkaIO

/// The reference a run is checked against: the fold of one partition's inputs by ``PartitionEngine``, as a
/// replay folds them (each record judged by its own Kafka timestamp, no wall clock), in the order given,
/// with history in memory. Upserted by `_id`, a run's committed events must equal its events whatever
/// the arrival order, crashes and rebalances in between.
package enum ReferenceFold {
    /// The outputs of `records` (fixes and trip commands of one partition, in the order given).
    package static func outputs(of records: [ConsumedRecord], topics: Topics, geofences: GeofenceTable,
                                settings: FoldSettings = FoldSettings()) -> OutputBatch
    {
        var engine = PartitionEngine(processor: InputProcessor(settings: settings))
        var table = geofences
        var output = OutputBatch(newlineSeparated: false)
        for record in records {
            let isCommand = record.topic == topics.tripCommands
            let decoded: DecodedInput = record.value.map { isCommand ? .command($0) : .fix($0) } ?? .invalid(.nullValue)
            (record.value ?? []).withUnsafeBytes { value in
                let input = PartitionEngine.Record(
                    key: record.key, value: value,
                    source: RecordSource(topic: record.topic, partition: record.partition, offset: record.offset),
                    timestamp: record.timestamp)
                engine.fold(decoded, input, geofences: &table, processingTime: nil, into: &output)
            }
            engine.endBatch()
        }
        engine.finish(geofences: &table, processingTime: nil, into: &output)
        return output
    }

    /// The geofence table the records of the geofence topic build, as every instance builds it, and the
    /// dead letters of the records it rejects.
    package static func geofenceTable(_ records: [ConsumedRecord]) -> (table: GeofenceTable, deadLetters: OutputBatch) {
        var processor = InputProcessor(settings: FoldSettings())
        var table = GeofenceTable()
        var deadLetters = OutputBatch(newlineSeparated: false)
        for record in records {
            let source = RecordSource(topic: record.topic, partition: record.partition, offset: record.offset)
            if let value = record.value, !value.isEmpty {
                value.withUnsafeBytes { bytes in
                    processor.processGeofence(key: record.key, value: bytes, source: source, geofences: &table,
                                              processingTime: record.timestamp, into: &deadLetters)
                }
            } else {
                processor.processGeofence(key: record.key, value: nil, source: source, geofences: &table,
                                          processingTime: record.timestamp, into: &deadLetters)
            }
        }
        return (table, deadLetters)
    }
}
