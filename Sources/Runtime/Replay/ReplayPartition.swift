import Codec
import Domain
import LZ4IO

/// One partition of a replay: the users whose userId hashes to it, with everything one partition
/// of `tripstream run` has: its own processor (fold, stream time, timers), history store, clock
/// guard and trip commands, and the outputs of the current block.
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
    @exclusivity(unchecked) var processor: InputProcessor
    @exclusivity(unchecked) var output = OutputBatch(newlineSeparated: true)
    let history: RocksHistoryStore
    @exclusivity(unchecked) private var clock: ClockGuard
    /// This partition's trip commands, in event-time order.
    @exclusivity(unchecked) var commands: [ReplayJob.PendingCommand] = []
    @exclusivity(unchecked) private var nextCommand = 0
    /// The first failure of the history store, reported by the calling thread after the join.
    private(set) var failure: String?

    /// Moved out while this partition folds (`withGeofences`).
    @exclusivity(unchecked) private var geofences: GeofenceTable?
    @exclusivity(unchecked) private var timeline: GeofenceTimeline.Cursor?

    /// - Parameter fragments: the fixed table's geofence JSON, shared by the partitions (nil: encoded
    ///   by this partition as events need them).
    init(index: Int, settings: FoldSettings, history: RocksHistoryStore, geofences: GeofenceTable,
         sourcePartition: Int32 = 0, timeline: GeofenceTimeline.Cursor? = nil, fragments: GeofenceFragments? = nil)
    {
        self.index = index
        self.sourcePartition = sourcePartition
        self.history = history
        self.geofences = geofences
        self.timeline = timeline
        processor = InputProcessor(settings: settings, history: history,
                                   geofenceFragments: fragments ?? GeofenceFragments())
        clock = ClockGuard(skew: settings.maxClockSkew)
    }

    /// Folds this partition's lines of a block, in file order (each chunk's, chunk after chunk),
    /// then places the late inputs and commits the history, as the service does after each poll.
    func fold(_ chunks: [DecodedChunk]) {
        withGeofences { geofences in
            // The look-ahead runs on into the next chunk's lines: a chunk holds a hundred or so of
            // a partition's lines, and its first ones would otherwise be folded cold.
            let lists = chunks.map { $0.byPartition[index] }.filter { !$0.isEmpty }
            for (position, lines) in lists.enumerated() {
                fold(lines, following: position + 1 < lists.count ? lists[position + 1] : [], geofences: &geofences)
            }
            flush(geofences: geofences)
        }
    }

    /// Folds one block of this partition's lines, in order, then settles as after a block of a file.
    func fold(_ lines: [ReplayLine]) {
        withGeofences { geofences in
            fold(lines, following: [], geofences: &geofences)
            flush(geofences: geofences)
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
        processor.prefetch(userHash: ahead.userHash, location: ahead.location, geofences: geofences, stage: stage)
    }

    /// The end of the input: folds what the clock guard still holds and the commands left.
    func finish() {
        withGeofences { geofences in
            decideHeld(geofences: &geofences)
            deliverCommands(upTo: .max, geofences: &geofences)
            flush(geofences: geofences)
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

    /// When the next command is due, nil when none is left. Asked before every fix: read in place,
    /// as `commands[nextCommand].command.createdAt` would copy the whole command out first.
    private var nextCommandTime: UnixMillis? {
        commands.withUnsafeBufferPointer { $0.indices.contains(nextCommand) ? $0[nextCommand].command.createdAt : nil }
    }

    /// Commands not delivered yet (the work `finish` has left).
    var commandsLeft: Int { commands.count - nextCommand }

    /// Geofences in the table now.
    var geofenceCount: Int { geofences?.count ?? 0 }

    /// Moves the geofence table to the moment of an input with record timestamp `timestamp`.
    private func advanceGeofences(to timestamp: Int64, _ geofences: inout GeofenceTable) {
        timeline?.advance(to: timestamp, table: &geofences)
    }

    /// Folds the line at `line` (an element of the block's lines, read in place).
    private func fold(_ line: UnsafePointer<ReplayLine>, geofences: inout GeofenceTable) {
        let source = RecordSource(topic: ReplayJob.fixesTopic, partition: sourcePartition,
                                  offset: Int64(line.pointee.number))
        advanceGeofences(to: line.pointee.timestamp, &geofences)
        switch line.pointee.content {
        case let .tooLong(long):
            ReplayJob.rejectLong(long, topic: ReplayJob.fixesTopic, processor: &processor, output: &output)
        case let .invalid(error):
            processor.process(.invalid(error), key: line.pointee.key, value: line.pointee.bytes, source: source,
                              geofences: geofences, processingTime: nil, into: &output)
        case let .fix(fix):
            processor.counters.recordsIn += 1
            // A record with a Kafka timestamp (the topics, an archive) is judged by it, as `run` judges it;
            // a file line has none: the clock guard judges it against the stream.
            if processor.rejectIfAhead(fix.createdAt, of: line.pointee.timestamp, key: line.pointee.key,
                                       value: line.pointee.bytes, source: source, processingTime: nil, into: &output)
            {
                return
            }
            judging: while true {
                switch clock.judge(fix, streamTime: processor.fold.streamTime) {
                case .fold: break judging
                case .hold:
                    clock.hold(fix, bytes: line.pointee.bytes, source: source, key: line.pointee.key)
                    return
                case .confirm:
                    let confirmed = clock.takeHeld(caughtUpWith: fix.createdAt)
                    guard !confirmed.isEmpty else {
                        clock.hold(fix, bytes: line.pointee.bytes, source: source, key: line.pointee.key)
                        return
                    }
                    fold(confirmed, geofences: &geofences)
                    break judging
                case .refute: rejectHeld()
                }
            }
            deliverCommands(upTo: fix.createdAt, geofences: &geofences)
            processor.process(fix, key: line.pointee.key, value: line.pointee.bytes, source: source,
                              geofences: geofences, processingTime: nil, into: &output)
            if clock.isHolding {
                // The stream may have caught up with held fixes: within the skew they are ahead no more.
                fold(clock.takeHeld(caughtUpWith: processor.fold.streamTime), geofences: &geofences)
            }
        }
    }

    /// Delivers each command before the first fix of this partition that is not older than it.
    private func deliverCommands(upTo time: UnixMillis, geofences: inout GeofenceTable) {
        while let due = nextCommandTime, due <= time {
            let pending = commands[nextCommand]
            advanceGeofences(to: pending.timestamp, &geofences)
            let ahead = pending.bytes.withUnsafeBytes { bytes in
                processor.rejectIfAhead(pending.command.createdAt, of: pending.timestamp, key: pending.key, value: bytes,
                                        source: RecordSource(topic: ReplayJob.commandsTopic, partition: sourcePartition,
                                                             offset: Int64(pending.line)),
                                        processingTime: nil, into: &output)
            }
            if ahead {
                nextCommand += 1
                continue
            }
            pending.bytes.withUnsafeBytes { bytes in
                processor.process(pending.command, key: pending.key, value: bytes,
                                  source: RecordSource(topic: ReplayJob.commandsTopic, partition: sourcePartition,
                                                       offset: Int64(pending.line)),
                                  geofences: geofences, processingTime: nil, into: &output)
            }
            nextCommand += 1
        }
    }

    /// The end of the input: what is still held is a wrong clock if the stream went on without it,
    /// a lone user's gap otherwise.
    private func decideHeld(geofences: inout GeofenceTable) {
        if clock.contradicted {
            rejectHeld()
        } else {
            fold(clock.takeHeld(), geofences: &geofences)
        }
    }

    /// Folds fixes released from the clock guard, in the order they came.
    private func fold(_ released: [ClockGuard.Held], geofences: inout GeofenceTable) {
        for held in released {
            deliverCommands(upTo: held.fix.createdAt, geofences: &geofences)
            held.bytes.withUnsafeBytes { bytes in
                processor.process(held.fix, key: held.key, value: bytes, source: held.source, geofences: geofences,
                                  processingTime: nil, into: &output)
            }
        }
    }

    private func rejectHeld() {
        let streamTime = processor.fold.streamTime
        for held in clock.takeHeld() {
            let ahead = (held.fix.createdAt - streamTime) / 1000
            held.bytes.withUnsafeBytes { bytes in
                processor.reject(
                    .futureTimestamp,
                    "createdAt is \(ahead) s ahead of the stream, which other users' fixes did not follow (a wrong device clock)",
                    key: held.key, value: bytes, source: held.source, processingTime: nil, into: &output)
            }
        }
    }

    private func flush(geofences: GeofenceTable) {
        processor.settle(geofences: geofences, processingTime: nil, into: &output)
        do {
            try history.commit()
        } catch {
            failure = failure ?? "\(error)"
        }
        if let problem = history.takeFailure() { failure = failure ?? problem }
    }
}
