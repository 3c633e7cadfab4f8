import Codec
import Domain
import KafkaIO

/// One owned input partition: its fold, and the fixes and commands fetched but not yet folded.
///
/// The fixes topic and the trip-commands topic arrive on separate streams, fetched by separate
/// clients at their own pace. They are merged by event time of their heads. A head whose other
/// stream has nothing pending waits until the broker confirms that stream is at its end, asked
/// after the head was taken: whatever was written to the other topic before the head was fetched
/// is then folded first, in event-time order. (An end-of-partition notice or a cached watermark
/// cannot say that: they may predate the head, and a stream that races ahead of the other one
/// turns the other's records into late arrivals.) A trip command also waits for the fixes to reach
/// its event time: fixes of the minutes before it may still be on their way from the devices,
/// while commands are sparse and never keep fixes waiting that way.
struct PartitionOwner {
    let partition: Int32
    var processor: InputProcessor
    var fixes: [PendingInput] = []
    var commands: [PendingInput] = []
    private var fixHead = 0
    private var commandHead = 0
    /// The latest poll round after which the broker confirmed each stream had nothing untaken:
    /// the other stream's heads taken up to that round may pass it.
    private(set) var fixesEndConfirmed: UInt64 = 0
    private(set) var commandsEndConfirmed: UInt64 = 0
    /// Whether each stream reported anything (a record or its end) since the partition was taken:
    /// until then a stream is still connecting, and the other must wait for it even when forced.
    private(set) var fixesHeard = false
    private(set) var commandsHeard = false
    /// The end the broker last gave for each stream while records below it were untaken (else 0):
    /// until they are taken the stream is behind, and the other one waits for them even when forced.
    private var fixesKnownEnd: Int64 = 0
    private var commandsKnownEnd: Int64 = 0
    var fixesBehind: Bool { nextFetchLocations < fixesKnownEnd }
    var commandsBehind: Bool { nextFetchCommands < commandsKnownEnd }
    /// The newest event time among the fixes taken since the partition was.
    private(set) var fixesEventTime: UnixMillis = .min
    /// Next offsets to read: what a restore resumes from.
    var locationsOffset: Int64
    var commandsOffset: Int64
    /// Whether anything changed since the last checkpoint record.
    var dirty = false
    /// Wall-clock time (ms) of the last input folded, or of when the partition was taken.
    var lastInputAt = WallClock.now()
    /// Inputs folded, by stream.
    var foldedFixes = 0
    var foldedCommands = 0
    /// Heads folded past the other stream without the broker's confirmation (`force`).
    var forcedMerges = 0
    /// Times stream time was moved on by the wall clock while the partition was quiet.
    var idleAdvances = 0
    /// Kafka timestamps of the inputs folded since the last commit (for the commit latency).
    var uncommittedTimestamps: [Int64] = []
    /// Offsets below these were already taken (re-deliveries after a seek are dropped).
    var nextFetchLocations: Int64 = 0
    var nextFetchCommands: Int64 = 0

    /// Whether the changelog had a checkpoint: then the inputs resume from its offsets.
    let hasCheckpoint: Bool
    /// The users' history segments (local RocksDB, mirrored in the changelog).
    let history: RocksHistoryStore

    init(partition: Int32, settings: FoldSettings, checkpoint: PartitionCheckpoint?, history: RocksHistoryStore) {
        self.partition = partition
        self.history = history
        hasCheckpoint = checkpoint != nil
        processor = InputProcessor(settings: settings, history: history)
        locationsOffset = checkpoint?.locationsOffset ?? 0
        commandsOffset = checkpoint?.commandsOffset ?? 0
        if let streamTime = checkpoint?.streamTime { processor.fold.restoreStreamTime(streamTime) }
        nextFetchLocations = locationsOffset
        nextFetchCommands = commandsOffset
    }

    var checkpoint: PartitionCheckpoint {
        PartitionCheckpoint(locationsOffset: locationsOffset, commandsOffset: commandsOffset,
                            streamTime: processor.fold.streamTime)
    }

    /// Whether any input was folded (or a checkpoint restored): its offsets mean something.
    var hasProgress: Bool { hasCheckpoint || locationsOffset > 0 || commandsOffset > 0 }

    var pendingCount: Int { (fixes.count - fixHead) + (commands.count - commandHead) }

    /// Queues a fix fetched in poll round `round`; a re-delivery (fetched again after a seek) is dropped.
    mutating func take(fix record: ConsumedRecord, round: UInt64) {
        guard record.offset >= nextFetchLocations else { return }
        nextFetchLocations = record.offset + 1
        fixesHeard = true
        fixes.append(.fix(key: record.key, value: record.value, offset: record.offset, timestamp: record.timestamp,
                          round: round))
        fixesEventTime = max(fixesEventTime, fixes[fixes.count - 1].createdAt)
    }

    /// Queues a trip command fetched in poll round `round`; a re-delivery is dropped.
    mutating func take(command record: ConsumedRecord, round: UInt64) {
        guard record.offset >= nextFetchCommands else { return }
        nextFetchCommands = record.offset + 1
        commandsHeard = true
        commands.append(.command(key: record.key, value: record.value, offset: record.offset,
                                 timestamp: record.timestamp, round: round))
    }

    /// Whether a head waits for the broker to confirm the end of the other stream, which has nothing
    /// pending and was last confirmed before the head was taken.
    var awaitsFixesEnd: Bool {
        fixHead == fixes.count && commandHead < commands.count && commands[commandHead].round > fixesEndConfirmed
    }
    var awaitsCommandsEnd: Bool {
        commandHead == commands.count && fixHead < fixes.count && fixes[fixHead].round > commandsEndConfirmed
    }

    /// Where a stream stands according to the broker, asked after poll round `round` took its records.
    struct StreamEnd {
        /// The partition's end (last stable offset under read_committed).
        var end: Int64
        /// The reader's position, which also moves past transaction markers that never reach `take`.
        var position: Int64?
    }

    /// A stream whose every record below its end was taken is confirmed at its end as of `round`;
    /// one with more is behind.
    mutating func confirmEnds(fixes: StreamEnd?, commands: StreamEnd?, round: UInt64) {
        if let fixes {
            let atEnd = max(nextFetchLocations, fixes.position ?? 0) >= fixes.end
            fixesKnownEnd = atEnd ? 0 : fixes.end
            if atEnd { fixesEndConfirmed = max(fixesEndConfirmed, round) }
            fixesHeard = true
        }
        if let commands {
            let atEnd = max(nextFetchCommands, commands.position ?? 0) >= commands.end
            commandsKnownEnd = atEnd ? 0 : commands.end
            if atEnd { commandsEndConfirmed = max(commandsEndConfirmed, round) }
            commandsHeard = true
        }
    }

    /// Folds every pending input whose turn has come.
    /// - Parameters:
    ///   - force: fold even if a stream might still deliver an older record (the broker has not said
    ///     where it ends for too long): liveness over a perfectly repeatable merge. A stream the
    ///     broker says holds untaken records is still waited for: they will come.
    ///   - drain: fold everything fetched (shutting down).
    mutating func foldReady(geofences: GeofenceTable, now: UnixMillis, force: Bool, drain: Bool = false,
                            source: Topics, into output: inout OutputBatch)
    {
        foldHeads(geofences: geofences, now: now, force: force, drain: drain, source: source, into: &output)
        compact()
        // Late inputs of this batch are placed together: one refold per user, however many arrived.
        processor.settle(geofences: geofences, processingTime: now, into: &output)
    }

    private mutating func foldHeads(geofences: GeofenceTable, now: UnixMillis, force: Bool, drain: Bool,
                                    source: Topics, into output: inout OutputBatch)
    {
        while true {
            // Only the heads' event times are needed to choose.
            let fix = fixHead < fixes.count ? fixes[fixHead].createdAt : nil
            let command = commandHead < commands.count ? commands[commandHead].createdAt : nil
            let takeCommand: Bool
            switch (fix, command) {
            case let (fix?, command?): takeCommand = command <= fix
            case (nil, _?):
                let head = commands[commandHead]
                let confirmed = head.round <= fixesEndConfirmed && head.createdAt <= fixesEventTime
                guard confirmed || (force && fixesHeard && !fixesBehind) || drain else { return }
                if !confirmed, !drain { forcedMerges += 1 }
                takeCommand = true
            case (_?, nil):
                let confirmed = fixes[fixHead].round <= commandsEndConfirmed
                guard confirmed || (force && commandsHeard && !commandsBehind) || drain else { return }
                if !confirmed, !drain { forcedMerges += 1 }
                takeCommand = false
            case (nil, nil): return
            }
            if takeCommand {
                let input = commands[commandHead]
                commandHead += 1
                commandsOffset = input.offset + 1
                foldedCommands += 1
                fold(input, topic: source.tripCommands, geofences: geofences, now: now, into: &output)
            } else {
                let input = fixes[fixHead]
                fixHead += 1
                locationsOffset = input.offset + 1
                foldedFixes += 1
                fold(input, topic: source.locations, geofences: geofences, now: now, into: &output)
            }
        }
    }

    private mutating func fold(_ input: PendingInput, topic: String, geofences: GeofenceTable, now: UnixMillis,
                               into output: inout OutputBatch)
    {
        if input.timestamp >= 0 { uncommittedTimestamps.append(input.timestamp) }
        lastInputAt = now
        input.value.withUnsafeBytes { value in
            processor.process(
                input.decoded, key: input.key, value: value,
                source: RecordSource(topic: topic, partition: partition, offset: input.offset),
                geofences: geofences, processingTime: now, into: &output)
        }
        dirty = true
    }

    /// Moves a quiet partition's stream time on by the wall clock (see `RuntimeOptions.idleAdvance`):
    /// when nothing is pending and nothing was folded for `idle` ms, stream time becomes `now - idle`.
    mutating func advanceIfIdle(now: UnixMillis, idle: Int64, geofences: GeofenceTable, into output: inout OutputBatch) {
        guard idle > 0, pendingCount == 0, now - lastInputAt >= idle else { return }
        let target = now - idle
        guard target > processor.fold.streamTime else { return }
        processor.advanceStreamTime(to: target, geofences: geofences, processingTime: now, into: &output)
        idleAdvances += 1
        dirty = true
    }

    private mutating func compact() {
        if fixHead > 0 {
            fixes.removeFirst(fixHead)
            fixHead = 0
        }
        if commandHead > 0 {
            commands.removeFirst(commandHead)
            commandHead = 0
        }
    }
}
