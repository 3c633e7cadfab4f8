import Codec
import Domain
import LZ4IO

#if canImport(Glibc)
import Glibc
#endif

/// The fold over files: geofences first, then trip commands and fixes merged by event time.
///
/// The fixes file's order is its arrival order. Each command is delivered before the first fix that
/// is not older than it, in event-time order whatever its place in the commands file, as the service
/// merges a partition's two streams: a command never waits behind another user's newer one. Late
/// inputs are placed where the fold's policy says (`FoldSettings.latePlacementInputs`), as in the
/// service. Processing time is the stream time, so two runs over the same files write byte-identical
/// outputs, whatever the read block's size or the number of threads.
///
/// Users are split over `ReplayOptions.partitions` partitions by Kafka's default partitioner, each
/// with its own fold and stream time as a partition of `tripstream run` has, and the partitions
/// are folded on `ReplayOptions.threads` threads, each taking the next partition as it is free
/// (`PartitionQueue`). Per block of fix lines the partitions' outputs are written in partition
/// order: the files depend neither on the number of threads nor on which thread folded what.
public enum ReplayJob {
    public static let fixesTopic = Topics().locations
    public static let commandsTopic = Topics().tripCommands
    public static let geofencesTopic = Topics().geofences

    /// - Parameter progress: called after each chunk of fixes with the fixes file's read progress.
    public static func run(_ options: ReplayOptions, progress: (ReadProgress) -> Void = { _ in }) throws -> ReplaySummary {
        let started = WallClock.monotonic()
        try makeDirectory(options.outputDirectory)
        // Listed before anything is written, so a signal at any moment finds what to remove.
        let historyDirectory = options.stateDirectory ?? options.outputDirectory + "/.history"
        UnfinishedOutputs.registerScratch(historyDirectory, entriesStartingWith: "history")
        defer { UnfinishedOutputs.unregisterScratch(historyDirectory) }
        // Written under temporary names, published together once all are complete (a failure keeps the last run's).
        let outputs = StagedOutputs(
            paths: ["events", "eta", "dead-letters", "trip-summaries"].map { options.outputDirectory + "/\($0).ndjson" })
        let writers = try outputs.temporaryPaths.map(openOutput)
        let (events, eta, deadLetters, tripSummaries) = (writers[0], writers[1], writers[2], writers[3])
        func write(_ output: inout OutputBatch) throws {
            try events.write(output.events.values)
            try eta.write(output.eta.values)
            try deadLetters.write(output.deadLetters.values)
            try tripSummaries.write(output.tripSummaries.values)
            output.removeAll()
        }

        // The reader keeps the batch being folded while the next is decoded and the one after is read.
        // It reads the first while the geofences and the commands load.
        let reader = try LineReadAhead(path: options.fixesPath, chunkSize: options.readBlockBytes, batchesKept: 1,
                                       readingAtOnce: true)
        defer { reader.stop() }

        // History beyond each user's newest inputs lives on disk, as in the service. Its database is
        // opened by a thread of its own, and the geofences file decoded and then the geofences' JSON
        // encoded by another, while the calling thread indexes the geofences and loads the commands.
        try makeDirectory(historyDirectory)
        let opener = SerialJobThread(name: "tripstream-replay-history")
        defer { opener.stop() }
        let setup = SerialJobThread(name: "tripstream-replay-setup")
        defer { setup.stop() }
        var openedHistories: ReplayHistoryStores?
        var encodedFragments: GeofenceFragments?
        try opener.submit {
            openedHistories = try ReplayHistoryStores(partitions: options.partitions, at: historyDirectory + "/history")
        }

        // Geofences and trip commands are read once, before any fix, by a processor of their own:
        // the geofence table is shared read-only by every partition.
        var loader = InputProcessor(settings: options.settings)
        loader.sourceFiles = options.sourceFiles
        let geofences: GeofenceTable
        var commands: [PartitionEngine.ScheduledCommand] = []
        do {
            var loaderOutput = OutputBatch(newlineSeparated: true)
            geofences = try GeofenceFileLoad.load(options.geofencesPath, processor: &loader, output: &loaderOutput,
                                                  decodingOn: setup)
            // The table never changes: its geofences' JSON is encoded once and shared by the partitions.
            try setup.submit { encodedFragments = GeofenceFragments(encodingAll: geofences) }
            if let commandsPath = options.commandsPath {
                try forEachRecord(commandsPath, topic: commandsTopic, processor: &loader, output: &loaderOutput) {
                    line, bytes, processor, output in
                    let source = RecordSource(topic: commandsTopic, partition: 0, offset: Int64(line))
                    if let command = processor.decodeCommand(key: nil, value: bytes, source: source,
                                                             processingTime: nil, into: &output)
                    {
                        commands.append(PartitionEngine.ScheduledCommand(command: command, bytes: Array(bytes),
                                                                         source: source))
                    }
                }
                commands = PartitionEngine.ScheduledCommand.inEventTimeOrder(commands)
            }
            try write(&loaderOutput)
            try setup.wait()
            try opener.wait()
        } catch {
            try? setup.wait()
            try? opener.wait()
            openedHistories?.remove()
            rmdir(historyDirectory)
            throw error
        }
        let histories = openedHistories!, fragments = encodedFragments!
        defer {
            histories.remove()
            rmdir(historyDirectory)
        }
        // Users split over partitions as the service's topics split them; partitions over threads.
        // The outputs are written section after section of the fixes file, each section's partition
        // after partition (`OutputSections`), so the files are the same whatever the number of threads
        // and the size of the blocks.
        let partitioner = KeyPartitioner(partitions: options.partitions)
        let partitions = histories.stores.enumerated().map { index, history in
            ReplayPartition(index: index, settings: options.settings, history: history, geofences: geofences,
                            fragments: fragments)
        }
        for partition in partitions { partition.processor.sourceFiles = options.sourceFiles }
        var commandsByPartition = Array(repeating: [PartitionEngine.ScheduledCommand](), count: partitions.count)
        for pending in commands { commandsByPartition[partitioner.partition(ofUser: pending.command.userId)].append(pending) }
        commands = []
        for (partition, scheduled) in zip(partitions, commandsByPartition) { partition.engine.schedule(scheduled) }
        for partition in partitions { partition.sections = OutputSections() }

        let threads = ForkJoinThreads(count: max(1, min(options.threads, options.partitions)))
        defer { threads.stop() }
        // Two blocks: the next one is decoded by the threads that have folded their share of this one.
        var folding = ReplayBlock(partitioner: partitioner, pieces: threads.count * piecesPerThread)
        var decoding = ReplayBlock(partitioner: partitioner, pieces: threads.count * piecesPerThread)
        // Each block's outputs are written by a thread of their own while the next block is folded.
        // A block's outputs are taken into `written`, each partition given an emptied batch to fill
        // again: the writer and the fold never share a buffer.
        let writer = SerialJobThread(name: "tripstream-replay-writer")
        defer { writer.stop() }
        let written = WrittenOutputs(count: partitions.count)
        /// Runs `body` on every partition, and once a thread finds none left, the pieces of `next` to decode;
        /// then writes the sections before `open` (those with no line left to fold).
        func foldInParallel(weights: [Int], decoding next: ReplayBlock? = nil, completeBefore open: Int,
                            _ body: @escaping @Sendable (ReplayPartition) -> Void) throws
        {
            let queue = PartitionQueue(weights: weights), pieces = next?.pieceQueue()
            threads.run { [partitions] _ in
                while let index = queue.take() { body(partitions[index]) }
                if let next, let pieces { next.decodePieces(from: pieces) }
            }
            for partition in partitions {
                if let failure = partition.failure { throw ReplayError.historyStore("\(failure)") }
            }
            try writer.wait()
            for partition in partitions {
                let pieces = partition.sections!.takePieces(end: partition.output.mark)
                written.take(&partition.output, pieces: pieces, of: partition.index, completeBefore: open)
            }
            try writer.submit {
                try written.writeComplete { batch, piece in
                    try writeRecords(of: batch.events, from: piece.from.events, to: piece.to.events, to: events)
                    try writeRecords(of: batch.eta, from: piece.from.eta, to: piece.to.eta, to: eta)
                    try writeRecords(of: batch.deadLetters, from: piece.from.deadLetters, to: piece.to.deadLetters,
                                     to: deadLetters)
                    try writeRecords(of: batch.tripSummaries, from: piece.from.tripSummaries,
                                     to: piece.to.tripSummaries, to: tripSummaries)
                }
            }
        }

        if try reader.nextBatch(into: &folding.batch) {
            let pieces = folding.pieceQueue()
            threads.run { [folding] _ in folding.decodePieces(from: pieces) }
            var more = try reader.nextBatch(into: &decoding.batch)
            while true {
                let open = (folding.lastLineNumber + 1) / OutputSections.linesPerSection
                try foldInParallel(weights: folding.linesByPartition, decoding: more ? decoding : nil,
                                   completeBefore: open) { [folding] in $0.fold(folding.chunks) }
                progress(reader.progress)
                guard more else { break }
                swap(&folding, &decoding)
                more = try reader.nextBatch(into: &decoding.batch)
            }
        }
        try foldInParallel(weights: partitions.map(\.commandsLeft), completeBefore: .max) { $0.finish() }
        try writer.wait()
        for writer in writers { try writer.close() }
        try outputs.publish()
        if let path = options.etaModelOutPath {
            let folds = partitions.map(\.engine.image)
            try writeEtaModel(EtaLearner.merged(base: options.settings.eta.fleetModel, folds.compactMap(\.etaLearner),
                                                expiringBefore: folds.map(\.streamTime).max() ?? .min),
                              to: path)
        }

        var summary = ReplaySummary()
        summary.processor = loader.counters
        for partition in partitions {
            summary.processor.add(partition.engine.processorCounters)
            summary.fold.add(partition.engine.foldCounters)
        }
        summary.geofences = geofences.count
        summary.seconds = WallClock.monotonic() - started
        return summary
    }

    /// Writes records `from..<to` of `buffer` (their values) to `writer`.
    static func writeRecords(of buffer: RecordBuffer, from: Int, to: Int, to writer: FileWriter) throws {
        guard from < to else { return }
        let start = buffer.valueOffset(ofRecord: from), end = buffer.valueOffset(ofRecord: to)
        try buffer.values.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }

    /// Opens a temporary output file (a `StagedOutputs` name). A leftover of a run killed before it could
    /// remove it is overwritten in place (`FileWriter`'s `reusingExistingPages`, cut to size at close); the
    /// previous run's published file is never touched until the new one replaces it whole.
    static func openOutput(_ temporaryPath: String) throws -> FileWriter {
        try FileWriter(path: temporaryPath, bufferSize: directWriteBytes, reusingExistingPages: true,
                       bypassingPageCacheAfter: bypassPageCacheAfterBytes)
    }

    /// Output beyond this many bytes per file is written around the page cache (`FileWriter`'s
    /// `bypassingPageCacheAfter`): a replay's gigabytes of events are written once, and copying them
    /// into the cache cost more than encoding them (dense city at 100,000 geofences, 4.4 GB of events:
    /// 7–14 s of kernel time against 2 s). Smaller outputs stay cached for whatever reads them next.
    static let bypassPageCacheAfterBytes: Int64 = 64 << 20

    /// Pieces of output of at least this many bytes go to `write(2)` as they are; smaller ones are
    /// gathered first. A block's outputs come as one buffer per partition, mostly larger than this
    /// (about 300 KB of events on the sparse bench): gathering them in a 1 MiB buffer first would
    /// copy every byte of output once more.
    static let directWriteBytes = 64 << 10

    /// Bytes of fix lines per block (about 1,600 fixes). A block's outputs are held until the block is
    /// folded, and where a fix yields tens of events (a dense city at 100,000 geofences, 35 a fix) 1 MiB
    /// blocks held over a gigabyte of them, ever in fresh pages: 256 KiB blocks halved the memory and
    /// the page faults and made that replay 23% faster, the sparse bench no slower; the dense city at
    /// 10,000 may lose a few percent on 2 threads (more joins, fewer fixes per partition and block).
    /// It decides nothing of the output (`ReplayOptions.readBlockBytes`).
    public static let fixesBlockBytes = 256 << 10

    /// Pieces of a block per fold thread: small enough that the threads done folding share the next
    /// block's decoding evenly.
    static let piecesPerThread = 4

    /// Writes a learned ETA model under a temporary name first, so a reader never sees half of one.
    static func writeEtaModel(_ model: FleetEtaModel, to path: String) throws {
        let partial = path + ".partial"
        do {
            let writer = try FileWriter(path: partial)
            try writer.write(EtaModelFile.encode(model))
            try writer.close()
        } catch {
            throw LocalFileError.cannotWrite(path, reason: "\(error)")
        }
        guard rename(partial, path) == 0 else {
            throw LocalFileError.cannotRename(partial, to: path, reason: LocalFileError.systemReason)
        }
    }

    /// The table of a geofences file, its lines applied in order (bad ones dead-lettered by `processor`),
    /// decoded on a thread of its own ahead of the indexing (`GeofenceFileLoad`).
    static func loadGeofences(_ path: String, processor: inout InputProcessor, output: inout OutputBatch) throws
        -> GeofenceTable
    {
        let decoder = SerialJobThread(name: "tripstream-geofence-decoder")
        defer { decoder.stop() }
        return try GeofenceFileLoad.load(path, processor: &processor, output: &output, decodingOn: decoder)
    }

    /// Reads every line of a small input file (geofences, commands) into `body`.
    static func forEachRecord(
        _ path: String, topic: String, processor: inout InputProcessor, output: inout OutputBatch,
        _ body: (Int, UnsafeRawBufferPointer, inout InputProcessor, inout OutputBatch) -> Void
    ) throws {
        let reader = try LineReader(path: path)
        var batch = LineBatch()
        while try reader.nextBatch(into: &batch) {
            forEachLine(of: batch, topic: topic, processor: &processor, output: &output, body)
        }
    }

    /// `body` for every line of `batch` in order, each line too long dead-lettered at its place.
    static func forEachLine(
        of batch: LineBatch, topic: String, processor: inout InputProcessor, output: inout OutputBatch,
        _ body: (Int, UnsafeRawBufferPointer, inout InputProcessor, inout OutputBatch) -> Void
    ) {
        var skipped = batch.linesTooLong[...]
        for line in batch {
            while let long = skipped.first, long.lineNumber < line.number {
                rejectLong(long, topic: topic, processor: &processor, output: &output)
                skipped = skipped.dropFirst()
            }
            body(line.number, line.bytes, &processor, &output)
        }
        for long in skipped { rejectLong(long, topic: topic, processor: &processor, output: &output) }
    }

    static func rejectLong(_ long: LineTooLong, topic: String, processor: inout InputProcessor,
                           output: inout OutputBatch)
    {
        processor.rejectUnreadable(
            .recordTooLarge, "line \(long.lineNumber) is \(long.byteCount) bytes, over the line limit",
            source: RecordSource(topic: topic, partition: 0, offset: Int64(long.lineNumber)), processingTime: nil,
            into: &output)
    }

    /// Creates `path` and its missing parents unless it is already a directory.
    public static func makeDirectory(_ path: String) throws {
        let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !parent.isEmpty, access(parent, F_OK) != 0 { try makeDirectory(parent) }
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw LocalFileError.notADirectory(path) }
            return
        }
        // Another thread (partitions restored side by side) may have just made it.
        guard mkdir(path, 0o755) == 0 || (errno == EEXIST && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR)
        else {
            throw LocalFileError.cannotCreateDirectory(path, reason: LocalFileError.systemReason)
        }
    }

}

