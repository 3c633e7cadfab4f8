import Codec
import Domain
import KafkaIO
import RocksDBIO

#if canImport(Glibc)
import Glibc
#endif

/// The fold over history read from the topics or an archive of them (`tripstream replay --brokers` or
/// `--archive`): one fold per Kafka partition, as
/// `tripstream run` has, with the geofence table in force at each moment (``GeofenceTimeline``).
///
/// Each partition is folded exactly as `tripstream replay --partitions 1` folds a file holding that partition's
/// records in offset order: the same ``ReplayPartition`` (commands in event-time order before the first fix not
/// older, the clock guard, late inputs placed after each block), and blocks cut where a plain file of the records'
/// lines would be cut by its reader (``LineBlockCutter``). Record keys are checked against userIds as `run` checks
/// them (a file has none). The partitions are folded one after the other, in
/// ascending order, so the outputs are each partition's in turn, whatever the fetch timing.
public enum HistoryReplayJob {
    public static func run(_ options: HistoryReplayOptions, log: @escaping (String) -> Void = { _ in },
                           progress: (Double) -> Void = { _ in }) throws -> HistoryReplaySummary
    {
        let source: any ReplayRecordSource
        switch options.source {
        case let .brokers(configuration):
            source = try KafkaReplaySource(configuration: configuration, topics: options.topics, since: options.since,
                                           until: options.until, partitions: options.partitions)
        case let .archive(directory):
            source = try ArchiveReplaySource(directory: directory, since: options.since, until: options.until, log: log)
        }
        return try run(options, source: source, partitions: options.partitions ?? source.partitions, log: log,
                       progress: progress)
    }

    static func run(_ options: HistoryReplayOptions, source: any ReplayRecordSource, partitions: [Int32],
                    log: (String) -> Void, progress: (Double) -> Void) throws -> HistoryReplaySummary
    {
        let started = ReplayJob.monotonicSeconds()
        let sink: any ReplayOutputSink
        switch options.destination {
        case let .files(directory, compressed): sink = try ReplayFileSink(directory: directory, compressed: compressed)
        case let .topics(prefix, kafka):
            sink = try ReplayTopicSink(configuration: kafka, topics: options.topics, prefix: prefix,
                                       partitions: Int32((source.partitions.last ?? 0) + 1), log: log)
        }
        func write(_ output: inout OutputBatch) throws { try sink.write(&output) }

        var loader = InputProcessor(settings: options.settings)
        var loaderOutput = OutputBatch(newlineSeparated: true)
        let timeline = GeofenceTimeline(records: try source.geofenceRecords(), start: options.since,
                                        topic: options.topics.geofences, processor: &loader, output: &loaderOutput)
        try write(&loaderOutput)

        let historyDirectory = options.historyDirectory
        try ReplayJob.makeDirectory(historyDirectory)
        defer { rmdir(historyDirectory) }
        var summary = HistoryReplaySummary()
        summary.partitions = partitions
        summary.geofencesUnknownBefore = timeline.unknownBefore
        let total = partitions.reduce(Int64(0)) { $0 + source.recordEstimate(.fixes, partition: $1) }
        var done: Int64 = 0
        var geofenceCount = 0
        for partition in partitions {
            let history = try RocksHistoryStore(directory: historyDirectory + "/partition-\(partition)", fresh: true,
                                                recordsChanges: false)
            defer {
                history.close()
                try? RocksDatabase.destroy(path: history.database.path)
            }
            let fold = ReplayPartition(index: 0, settings: options.settings, history: history,
                                       geofences: GeofenceTable(), sourcePartition: partition,
                                       timeline: GeofenceTimeline.Cursor(timeline))
            fold.commands = try commands(of: partition, source: source, topic: options.topics.tripCommands,
                                         processor: &loader, output: &loaderOutput)
            try write(&loaderOutput)
            let cutter = LineBlockCutter()
            func foldBlock() throws {
                fold.fold(cutter.lines())
                cutter.removeAll()
                if let failure = fold.failure { throw ReplayError("history store: \(failure)") }
                try write(&fold.output)
            }
            try source.forEachRecord(.fixes, partition: partition) { offset, timestamp, key, value in
                if cutter.endsBlock(before: value.count) { try foldBlock() }
                cutter.append(value, key: key, offset: offset, timestamp: timestamp)
                done += 1
                if done % 10_000 == 0, total > 0 { progress(Double(done) / Double(total)) }
            }
            if !cutter.isEmpty { try foldBlock() }
            fold.finish()
            if let failure = fold.failure { throw ReplayError("history store: \(failure)") }
            try write(&fold.output)
            summary.replay.processor.add(fold.processor.counters)
            summary.replay.fold.add(fold.processor.fold.counters)
            geofenceCount = max(geofenceCount, fold.geofenceCount)
        }
        try sink.finish()
        summary.replay.processor.add(loader.counters)
        summary.replay.geofences = geofenceCount
        summary.replay.seconds = ReplayJob.monotonicSeconds() - started
        return summary
    }

    /// A partition's trip commands of the range, decoded (bad ones dead-lettered), in event-time order (the
    /// offsets' order among equal times), as a file replay orders a commands file.
    private static func commands(of partition: Int32, source: any ReplayRecordSource, topic: String,
                                 processor: inout InputProcessor, output: inout OutputBatch) throws
        -> [ReplayJob.PendingCommand]
    {
        var commands: [ReplayJob.PendingCommand] = []
        try source.forEachRecord(.commands, partition: partition) { offset, timestamp, key, value in
            let origin = RecordSource(topic: topic, partition: partition, offset: offset)
            if let command = processor.decodeCommand(key: key, value: value, source: origin, processingTime: nil,
                                                     into: &output)
            {
                commands.append(ReplayJob.PendingCommand(command: command, bytes: Array(value), line: Int(offset),
                                                         timestamp: timestamp, key: key))
            }
        }
        return commands.enumerated().sorted {
            ($0.element.command.createdAt, $0.offset) < ($1.element.command.createdAt, $1.offset)
        }.map(\.element)
    }
}
