import Codec
import Domain
import KafkaIO

/// One owned input partition: its fold, and the fixes and commands fetched but not yet folded.
///
/// The fixes topic and the trip-commands topic arrive on separate streams. They are merged by
/// event time of their heads, a head waiting while the other stream may still deliver something
/// older (it has records in flight, i.e. is not known to be at its end). Folding the same records
/// in the same order after a crash gives the same outputs, so a repeat is an identical repeat.
struct PartitionOwner {
    let partition: Int32
    var processor: InputProcessor
    var fixes: [PendingInput] = []
    var commands: [PendingInput] = []
    private var fixHead = 0
    private var commandHead = 0
    /// Whether each stream is known to be at its end (no record fetched since its last EOF).
    var fixesAtEnd = false { didSet { fixesHeard = true } }
    var commandsAtEnd = false { didSet { commandsHeard = true } }
    /// Whether each stream reported anything (a record or its end) since the partition was taken:
    /// until then a stream is still connecting, and the other must wait for it even when forced.
    private(set) var fixesHeard = false
    private(set) var commandsHeard = false
    /// Whether a record of each stream was taken since the partition was: only then is a cached high
    /// watermark known to come from this ownership's fetches.
    private var tookFixes = false
    private var tookCommands = false
    /// Next offsets to read: what a restore resumes from.
    var locationsOffset: Int64
    var commandsOffset: Int64
    /// Whether anything changed since the last checkpoint record.
    var dirty = false
    /// Inputs folded, by stream.
    var foldedFixes = 0
    var foldedCommands = 0
    /// Kafka timestamps of the inputs folded since the last commit (for the commit latency).
    var uncommittedTimestamps: [Int64] = []
    /// Offsets below these were already taken (re-deliveries after a seek are dropped).
    var nextFetchLocations: Int64 = 0
    var nextFetchCommands: Int64 = 0

    /// Whether the changelog had a checkpoint: then the inputs resume from its offsets.
    let hasCheckpoint: Bool

    init(partition: Int32, settings: FoldSettings, checkpoint: PartitionCheckpoint?) {
        self.partition = partition
        hasCheckpoint = checkpoint != nil
        processor = InputProcessor(settings: settings)
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

    /// Queues a fetched fix; a re-delivery (fetched again after a seek) is dropped.
    mutating func take(fix record: ConsumedRecord) {
        guard record.offset >= nextFetchLocations else { return }
        nextFetchLocations = record.offset + 1
        fixesAtEnd = false
        tookFixes = true
        fixes.append(.fix(key: record.key, value: record.value, offset: record.offset, timestamp: record.timestamp))
    }

    /// Queues a fetched trip command; a re-delivery is dropped.
    mutating func take(command record: ConsumedRecord) {
        guard record.offset >= nextFetchCommands else { return }
        nextFetchCommands = record.offset + 1
        commandsAtEnd = false
        tookCommands = true
        commands.append(.command(key: record.key, value: record.value, offset: record.offset,
                                 timestamp: record.timestamp))
    }

    /// Marks a stream at its end once every record below the high watermark of its latest fetch was taken.
    /// The end-of-partition notice says the same, but only after the next fetch comes back empty, which a
    /// broker may hold for `fetch.wait.max.ms`: meanwhile the other stream's heads would wait.
    mutating func noteHighWatermarks(fixes fixesHigh: Int64?, commands commandsHigh: Int64?) {
        if !fixesAtEnd, tookFixes, let fixesHigh, nextFetchLocations >= fixesHigh { fixesAtEnd = true }
        if !commandsAtEnd, tookCommands, let commandsHigh, nextFetchCommands >= commandsHigh { commandsAtEnd = true }
    }

    /// Folds every pending input whose turn has come.
    /// - Parameters:
    ///   - force: fold even if a stream might still deliver an older record (it has been silent too
    ///     long): liveness over a perfectly repeatable merge.
    ///   - drain: fold everything fetched (shutting down).
    mutating func foldReady(geofences: GeofenceTable, now: UnixMillis, force: Bool, drain: Bool = false,
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
                guard fixesAtEnd || (force && fixesHeard) || drain else { return compact() }
                takeCommand = true
            case (_?, nil):
                guard commandsAtEnd || (force && commandsHeard) || drain else { return compact() }
                takeCommand = false
            case (nil, nil): return compact()
            }
            if takeCommand {
                let input = commands[commandHead]
                commandHead += 1
                commandsOffset = input.offset + 1
                foldedCommands += 1
                if input.timestamp >= 0 { uncommittedTimestamps.append(input.timestamp) }
                input.value.withUnsafeBytes { value in
                    processor.process(
                        input.decoded, key: input.key, value: value,
                        source: RecordSource(topic: source.tripCommands, partition: partition, offset: input.offset),
                        geofences: geofences, processingTime: now, into: &output)
                }
            } else {
                let input = fixes[fixHead]
                fixHead += 1
                locationsOffset = input.offset + 1
                foldedFixes += 1
                if input.timestamp >= 0 { uncommittedTimestamps.append(input.timestamp) }
                input.value.withUnsafeBytes { value in
                    processor.process(
                        input.decoded, key: input.key, value: value,
                        source: RecordSource(topic: source.locations, partition: partition, offset: input.offset),
                        geofences: geofences, processingTime: now, into: &output)
                }
            }
            dirty = true
        }
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
