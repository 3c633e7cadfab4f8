import Codec
import Domain
import KafkaIO

#if canImport(Glibc)
import Glibc
#endif

/// The fold over history read from the topics or an archive of them (`tripstream replay --brokers` or
/// `--archive`): one fold per Kafka partition, as `tripstream run` has, with the geofence table in force at each
/// moment (``GeofenceTimeline``), or a file's table for the whole run (`--geofences FILE`, the what-if).
///
/// Each partition is folded as `tripstream replay --partitions 1` folds a file holding that partition's records in
/// offset order (``HistoryPartitionFold``). The partitions are folded on `threads` threads, each partition on one
/// (``SpooledPartitionFolds``), and their outputs written one partition after the other, in ascending order, so
/// the outputs are each partition's in turn, whatever the threads and the fetch timing.
public enum HistoryReplayJob {
    public static func run(_ options: HistoryReplayOptions, log: @escaping (String) -> Void = { _ in },
                           progress: @escaping (Double) -> Void = { _ in }) throws -> HistoryReplaySummary
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
                    log: (String) -> Void, progress: @escaping (Double) -> Void) throws -> HistoryReplaySummary
    {
        let started = WallClock.monotonic()
        var summary = HistoryReplaySummary()
        summary.partitions = partitions
        summary.cuts = source.cuts.filter { partitions.contains($0.partition) }

        var loader = InputProcessor(settings: options.settings)
        var loaderOutput = OutputBatch(newlineSeparated: true)
        let geofences: HistoryGeofences
        if let path = options.geofencesPath {
            loader.sourceFiles = [ReplayJob.geofencesTopic: path]
            geofences = .fixed(try ReplayJob.loadGeofences(path, processor: &loader, output: &loaderOutput))
        } else {
            let timeline = GeofenceTimeline(records: try source.geofenceRecords(), start: options.since,
                                            topic: options.topics.geofences, processor: &loader, output: &loaderOutput)
            summary.geofencesUnknownBefore = timeline.unknownBefore
            geofences = .timeline(timeline)
        }
        // Outputs are opened once the geofences are read: a missing file leaves nothing behind.
        let sink: any ReplayOutputSink
        switch options.destination {
        case let .files(directory, compressed): sink = try ReplayFileSink(directory: directory, compressed: compressed)
        case let .topics(prefix, kafka):
            sink = try ReplayTopicSink(configuration: kafka, topics: options.topics, prefix: prefix,
                                       partitions: Int32((source.partitions.last ?? 0) + 1), log: log)
        }
        try sink.write(&loaderOutput)

        let historyDirectory = options.historyDirectory
        try ReplayJob.makeDirectory(historyDirectory)
        UnfinishedOutputs.registerScratch(historyDirectory, entriesStartingWith: "partition-")
        defer {
            UnfinishedOutputs.unregisterScratch(historyDirectory)
            rmdir(historyDirectory)
        }
        let total = partitions.reduce(Int64(0)) { $0 + source.recordEstimate(.fixes, partition: $1) }
        let fold = HistoryPartitionFold(settings: options.settings, geofences: geofences,
                                        commandsTopic: options.topics.tripCommands, historyDirectory: historyDirectory,
                                        blockBytes: options.blockBytes,
                                        progress: FoldProgress(total: total, report: progress))
        let threads = max(1, min(options.threads, partitions.count))
        let totals = threads == 1
            ? try partitions.map { try fold.fold($0, from: source, write: sink.write) }
            : try SpooledPartitionFolds.run(partitions, threads: threads, source: source, fold: fold, sink: sink)
        try sink.finish()
        summary.replay.processor = loader.counters
        for partition in totals {
            summary.replay.processor.add(partition.processor)
            summary.replay.fold.add(partition.fold)
            summary.replay.geofences = max(summary.replay.geofences, partition.geofenceCount)
        }
        summary.replay.seconds = WallClock.monotonic() - started
        return summary
    }
}
