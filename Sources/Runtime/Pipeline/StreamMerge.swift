import Domain
import KafkaIO

/// The event-time merge of one partition's two input streams (fixes and trip commands), fetched by
/// separate clients at their own pace: both cursors, the merge rules and the clock of how long a
/// head has waited.
///
/// A head whose other stream has nothing pending waits until the broker confirms that stream is at
/// its end, asked after the head was taken: whatever was written to the other topic before the head
/// was fetched is then folded first, in event-time order. (An end-of-partition notice or a cached
/// watermark cannot say that: they may predate the head, and a stream that races ahead of the other
/// one turns the other's records into late arrivals.) A trip command also waits for the fixes to
/// reach its event time: fixes of the minutes before it may still be on their way from the devices,
/// while commands are sparse and never keep fixes waiting that way. A head that waited longer than
/// `mergeWait` without the broker's word is taken anyway (liveness over a perfectly repeatable
/// merge), unless the broker said the other stream holds records not yet taken: they will come.
struct StreamMerge {
    enum Stream { case fixes, commands }

    /// Seconds a head may wait for the other stream's end before it is taken anyway.
    let mergeWait: Double
    private var fixes: [PendingInput] = []
    private var commands: [PendingInput] = []
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
    /// The end the broker last gave for each stream while records below it were untaken (else 0).
    private var fixesKnownEnd: Int64 = 0
    private var commandsKnownEnd: Int64 = 0
    /// The newest event time among the fixes taken since the partition was.
    private(set) var fixesEventTime: UnixMillis = .min
    /// Offsets below these were already taken (re-deliveries after a seek are dropped).
    private(set) var nextFetchFixes: Int64
    private(set) var nextFetchCommands: Int64
    /// Monotonic seconds when the merge last moved on or had nothing pending: the wait clock.
    private var lastProgress: Double
    /// Heads taken past the other stream without the broker's confirmation.
    private(set) var forcedMerges = 0

    init(fixesFrom fixesOffset: Int64, commandsFrom commandsOffset: Int64, mergeWait: Double, now: Double) {
        self.mergeWait = mergeWait
        nextFetchFixes = fixesOffset
        nextFetchCommands = commandsOffset
        lastProgress = now
    }

    var pendingCount: Int { (fixes.count - fixHead) + (commands.count - commandHead) }
    var pendingFixes: Int { fixes.count - fixHead }
    var fixesBehind: Bool { nextFetchFixes < fixesKnownEnd }
    var commandsBehind: Bool { nextFetchCommands < commandsKnownEnd }

    /// Queues a fix fetched in poll round `round`; a re-delivery (fetched again after a seek) is dropped.
    mutating func take(fix record: ConsumedRecord, round: UInt64) {
        guard record.offset >= nextFetchFixes else { return }
        nextFetchFixes = record.offset + 1
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
            let atEnd = max(nextFetchFixes, fixes.position ?? 0) >= fixes.end
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

    /// Hands every input whose turn has come to `fold`, in event-time order.
    /// - Parameters:
    ///   - now: monotonic seconds, for the wait clock: a round that starts after the heads waited
    ///     `mergeWait` is forced past silent streams.
    ///   - drain: take everything fetched (shutting down).
    mutating func takeReady(now: Double, drain: Bool = false, _ fold: (PendingInput, Stream) -> Void) {
        let force = now - lastProgress > mergeWait
        var progressed = false
        while let stream = nextStream(force: force, drain: drain) {
            progressed = true
            switch stream {
            case .commands:
                commandHead += 1
                fold(commands[commandHead - 1], .commands)
            case .fixes:
                fixHead += 1
                fold(fixes[fixHead - 1], .fixes)
            }
        }
        if progressed || pendingCount == 0 { lastProgress = now }
        compact()
    }

    private mutating func nextStream(force: Bool, drain: Bool) -> Stream? {
        let fix = fixHead < fixes.count ? fixes[fixHead].createdAt : nil
        let command = commandHead < commands.count ? commands[commandHead].createdAt : nil
        switch (fix, command) {
        case let (fix?, command?): return command <= fix ? .commands : .fixes
        case (nil, _?):
            let head = commands[commandHead]
            let confirmed = head.round <= fixesEndConfirmed && head.createdAt <= fixesEventTime
            guard confirmed || (force && fixesHeard && !fixesBehind) || drain else { return nil }
            if !confirmed, !drain { forcedMerges += 1 }
            return .commands
        case (_?, nil):
            let confirmed = fixes[fixHead].round <= commandsEndConfirmed
            guard confirmed || (force && commandsHeard && !commandsBehind) || drain else { return nil }
            if !confirmed, !drain { forcedMerges += 1 }
            return .fixes
        case (nil, nil): return nil
        }
    }

    /// Why the heads wait, for a warning when they wait long: nil when nothing is pending.
    func waitDescription(now: Double) -> String? {
        guard pendingCount > 0 else { return nil }
        return "\(pendingFixes) fixes and \(pendingCount - pendingFixes) commands pending for \(Int(now - lastProgress)) s; "
            + "fixes fetched to \(nextFetchFixes) (broker end \(fixesKnownEnd), confirmed round \(fixesEndConfirmed), heard \(fixesHeard)), "
            + "commands fetched to \(nextFetchCommands) (broker end \(commandsKnownEnd), confirmed round \(commandsEndConfirmed), heard \(commandsHeard))"
    }

    /// Seconds since the merge last moved on or had nothing pending.
    func waiting(now: Double) -> Double { now - lastProgress }

    /// Time the caller spent blocked (waiting on a commit) is not time the other stream stayed silent.
    mutating func excuse(_ seconds: Double) { lastProgress += seconds }

    /// Frees the inputs already taken.
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
