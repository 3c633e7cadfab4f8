import Domain
import RocksDBIO

/// The geofences a replay of history folds with: the topic's table as of each record's timestamp, or a file's
/// table for the whole run (`--geofences FILE`, the what-if; the topic is then not read).
enum HistoryGeofences {
    case timeline(GeofenceTimeline)
    case fixed(GeofenceTable)
}

/// The fold of one Kafka partition of a replay of history, exactly as `tripstream replay --partitions 1` folds a
/// file holding the partition's records in offset order: the same ``ReplayPartition`` (commands in event-time
/// order before the first fix not older, the clock guard, late inputs placed by the fold's policy), fed in blocks
/// of ``RecordBlock`` whose size decides nothing. Record keys are checked against userIds as `run` checks them
/// (a file has none).
///
/// It holds nothing of a partition between calls (its properties are immutable, `progress` is locked), so threads
/// may fold different partitions with one value.
struct HistoryPartitionFold {
    /// What one partition's fold counted, summed into the summary.
    struct Totals {
        var processor: ProcessorCounters
        var fold: FoldCounters
        var geofenceCount: Int
    }

    let settings: FoldSettings
    let geofences: HistoryGeofences
    /// The trip-commands topic, named in dead letters.
    let commandsTopic: String
    /// Where each partition's history store goes while it is folded (`partition-N`, removed after).
    let historyDirectory: String
    /// Bytes of records per block folded (`RecordBlock`).
    var blockBytes = ReplayJob.fixesBlockBytes
    let progress: FoldProgress

    /// Folds `partition`'s records read from `source`, handing each block's outputs to `write` in order: the
    /// dead letters of its trip commands first, then the fold's.
    func fold(_ partition: Int32, from source: any ReplayRecordSource, write: (inout OutputBatch) throws -> Void)
        throws -> Totals
    {
        let history = try RocksHistoryStore(directory: historyDirectory + "/partition-\(partition)", fresh: true,
                                            recordsChanges: false)
        defer {
            history.close()
            try? RocksDatabase.destroy(path: history.database.path)
        }
        let fold: ReplayPartition
        switch geofences {
        case let .timeline(timeline):
            fold = ReplayPartition(index: 0, settings: settings, history: history, geofences: GeofenceTable(),
                                   sourcePartition: partition, timeline: GeofenceTimeline.Cursor(timeline))
        case let .fixed(table):
            fold = ReplayPartition(index: 0, settings: settings, history: history, geofences: table,
                                   sourcePartition: partition)
        }
        var decoder = InputProcessor(settings: settings)
        var decoderOutput = OutputBatch(newlineSeparated: true)
        fold.engine.schedule(try commands(of: partition, source: source, processor: &decoder, output: &decoderOutput))
        try write(&decoderOutput)
        let cutter = RecordBlock(blockBytes: blockBytes)
        func foldBlock() throws {
            fold.fold(cutter.lines())
            cutter.removeAll()
            if let failure = fold.failure { throw ReplayError.historyStore("\(failure)") }
            try write(&fold.output)
        }
        var unreported: Int64 = 0
        try source.forEachRecord(.fixes, partition: partition) { offset, timestamp, key, value in
            if cutter.endsBlock(before: value?.count ?? 0) { try foldBlock() }
            cutter.append(value, key: key, offset: offset, timestamp: timestamp)
            unreported += 1
            if unreported == 10_000 {
                progress.add(unreported)
                unreported = 0
            }
        }
        progress.add(unreported)
        if !cutter.isEmpty { try foldBlock() }
        fold.finish()
        if let failure = fold.failure { throw ReplayError.historyStore("\(failure)") }
        try write(&fold.output)
        var totals = Totals(processor: decoder.counters, fold: fold.engine.foldCounters, geofenceCount: fold.geofenceCount)
        totals.processor.add(fold.engine.processorCounters)
        return totals
    }

    /// A partition's trip commands of the range, decoded (bad ones dead-lettered), in event-time order (the
    /// offsets' order among equal times), as a file replay orders a commands file.
    private func commands(of partition: Int32, source: any ReplayRecordSource, processor: inout InputProcessor,
                          output: inout OutputBatch) throws -> [PartitionEngine.ScheduledCommand]
    {
        var commands: [PartitionEngine.ScheduledCommand] = []
        try source.forEachRecord(.commands, partition: partition) { offset, timestamp, key, value in
            let origin = RecordSource(topic: commandsTopic, partition: partition, offset: offset)
            if let command = processor.decodeCommand(key: key, value: value, source: origin, processingTime: nil,
                                                     into: &output)
            {
                // Decoded, so not a null value.
                commands.append(PartitionEngine.ScheduledCommand(command: command, bytes: Array(value!), source: origin,
                                                                 timestamp: timestamp, key: key))
            }
        }
        return PartitionEngine.ScheduledCommand.inEventTimeOrder(commands)
    }
}
