import Codec
import Domain
import LZ4IO

/// One partition of a replay: the users whose userId hashes to it, folded by the ``PartitionEngine`` every
/// partition of `tripstream run` has too (fold, stream time, timers, clock guard, trip commands), with its
/// history store and the outputs of the current block. This driver adds what is a replay's own: blocks of
/// lines folded with a look-ahead (prefetch), and the history committed after each block.
///
/// Its geofence table is either fixed (a file replay: every geofence before any fix) or follows a
/// ``GeofenceTimeline`` as the inputs' record timestamps pass its changes (a replay of topics or archives).
final class ReplayPartition: @unchecked Sendable {
    // Safe: during a fork only the one thread that took this partition from the fork's
    // `PartitionQueue` touches it; the calling thread reads and clears `output` and reads the
    // rest only between forks, after the join (which orders one fork's thread before the next's).
    // The same ownership makes the run-time exclusivity checks of the state touched per line
    // (`@exclusivity(unchecked)`) redundant: they cost ~1.5% of a sparse replay, in swift_beginAccess.
    let index: Int
    /// The Kafka partition named in dead letters (0 for files, whose offsets are line numbers).
    let sourcePartition: Int32
    @exclusivity(unchecked) var engine: PartitionEngine
    @exclusivity(unchecked) var output = OutputBatch(newlineSeparated: true)
    /// Where each section of the fixes file starts in `output`, when the files are written in sections
    /// (a file replay's `OutputSections`); nil: the driver writes `output` as it is.
    @exclusivity(unchecked) var sections: OutputSections?
    let history: RocksHistoryStore
    /// The first failure of the history store, reported by the calling thread after the join.
    private(set) var failure: String?

    /// Moved out while this partition folds (`withGeofences`).
    @exclusivity(unchecked) private var geofences: GeofenceTable?

    /// - Parameter fragments: the fixed table's geofence JSON, shared by the partitions (nil: encoded
    ///   by this partition as events need them).
    init(index: Int, settings: FoldSettings, history: RocksHistoryStore, geofences: GeofenceTable,
         sourcePartition: Int32 = 0, timeline: GeofenceTimeline.Cursor? = nil, fragments: GeofenceFragments? = nil)
    {
        self.index = index
        self.sourcePartition = sourcePartition
        self.history = history
        self.geofences = geofences
        engine = PartitionEngine(
            processor: InputProcessor(settings: settings, history: history,
                                      geofenceFragments: fragments ?? GeofenceFragments()),
            timeline: timeline)
    }

    /// The partition's processor (its fold and counters).
    var processor: InputProcessor {
        _read { yield engine.processor }
        _modify { yield &engine.processor }
    }

    /// Folds this partition's lines of a block, in file order (each chunk's, chunk after chunk),
    /// then commits the history.
    func fold(_ chunks: [DecodedChunk]) {
        withGeofences { geofences in
            // The look-ahead runs on into the next chunk's lines: a chunk holds a hundred or so of
            // a partition's lines, and its first ones would otherwise be folded cold.
            let lists = chunks.map { $0.byPartition[index] }.filter { !$0.isEmpty }
            for (position, lines) in lists.enumerated() {
                fold(lines, following: position + 1 < lists.count ? lists[position + 1] : [], geofences: &geofences)
            }
            endBlock()
        }
    }

    /// Folds one block of this partition's lines, in order.
    func fold(_ lines: [ReplayLine]) {
        withGeofences { geofences in
            fold(lines, following: [], geofences: &geofences)
            endBlock()
        }
    }

    /// Folds `lines` in order, each fix's state and geofences asked for a few lines ahead
    /// (`PartitionFold.prefetch`), so that their cache misses overlap the lines folded before; the
    /// last lines look ahead into `following`, the lines folded next.
    private func fold(_ lines: [ReplayLine], following: [ReplayLine], geofences: inout GeofenceTable) {
        // Each line read in place: as `lines[position]`, the whole line (its fix, strings and key) was
        // copied first, at every stage of the look-ahead and for the fold.
        lines.withUnsafeBufferPointer { lines in
            following.withUnsafeBufferPointer { following in
                for position in lines.indices {
                    // Each stage named: a loop over `PrefetchStage.allCases` made that array again per line.
                    prefetch(lines, following, at: position, stage: .slotAndCellIndex, geofences: geofences)
                    prefetch(lines, following, at: position, stage: .timelineAndCell, geofences: geofences)
                    prefetch(lines, following, at: position, stage: .heldObjectsAndLists, geofences: geofences)
                    prefetch(lines, following, at: position, stage: .tripDestination, geofences: geofences)
                    fold(lines.baseAddress! + position, geofences: &geofences)
                }
            }
        }
    }

    /// Asks the fold to load ahead what the fix `stage.distance` lines after `folding` will need
    /// (`PartitionFold.prefetch`), that line in `lines` or, past their end, in `following`.
    @inline(__always)
    private func prefetch(_ lines: UnsafeBufferPointer<ReplayLine>, _ following: UnsafeBufferPointer<ReplayLine>,
                          at folding: Int, stage: PartitionFold.PrefetchStage, geofences: GeofenceTable)
    {
        let position = folding + stage.distance
        let ahead: ReplayLine.LookAhead?
        if position < lines.count {
            ahead = lines[position].lookAhead
        } else if position - lines.count < following.count {
            ahead = following[position - lines.count].lookAhead
        } else {
            return
        }
        guard let ahead else { return }
        engine.processor.prefetch(userHash: ahead.userHash, location: ahead.location, geofences: geofences,
                                  stage: stage)
    }

    /// Folds the line at `line` (an element of the block's lines, read in place).
    private func fold(_ line: UnsafePointer<ReplayLine>, geofences: inout GeofenceTable) {
        sections?.enter(line: line.pointee.number, at: output.mark)
        let record = PartitionEngine.Record(
            key: line.pointee.key, value: line.pointee.bytes,
            source: RecordSource(topic: ReplayJob.fixesTopic, partition: sourcePartition,
                                 offset: Int64(line.pointee.number)),
            timestamp: line.pointee.timestamp)
        switch line.pointee.content {
        case let .tooLong(long):
            ReplayJob.rejectLong(long, topic: ReplayJob.fixesTopic, processor: &engine.processor, output: &output)
        case let .invalid(error):
            engine.fold(.invalid(error), record, geofences: &geofences, processingTime: nil, into: &output)
        case let .fix(fix):
            engine.fold(fix, record, geofences: &geofences, processingTime: nil, into: &output)
        }
    }

    /// The end of the input: the engine decides what its clock guard holds, folds the commands left and
    /// places the late inputs.
    func finish() {
        withGeofences { geofences in
            sections?.enter(section: OutputSections.end, at: output.mark)
            engine.finish(geofences: &geofences, processingTime: nil, into: &output)
            commitHistory()
        }
    }

    /// Runs `body` with the table moved out of this object into a local: passed on from a property
    /// of a class, the table was retained and released per line, and its reference count is a
    /// cache line every partition's thread writes.
    private func withGeofences(_ body: (inout GeofenceTable) -> Void) {
        var table = geofences.take()!
        body(&table)
        geofences = consume table
    }

    /// Commands not folded yet (the work `finish` has left).
    var commandsLeft: Int { engine.scheduledLeft }

    /// Geofences in the table now.
    var geofenceCount: Int { geofences?.count ?? 0 }

    /// The end of a block: late inputs stay queued (where they are placed is the fold's policy,
    /// `FoldSettings.latePlacementInputs`, whatever the blocks), and the history is committed.
    private func endBlock() {
        engine.endBatch()
        commitHistory()
    }

    private func commitHistory() {
        do {
            try history.commit()
        } catch {
            failure = failure ?? "\(error)"
        }
        if let problem = history.takeFailure() { failure = failure ?? problem }
    }
}
