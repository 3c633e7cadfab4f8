/// The parts of a timeline that persist in the state changelog and snapshots (its stored segments
/// persist on their own). `current` is among them, so a restore decodes and never refolds: it is,
/// by determinism, what folding the tail from its start state gives, which `rebuiltCurrent` checks.
extension UserTimeline {
    public struct Parts: Sendable, Equatable {
        public var userId: String
        public var current: UserState
        public var tailStart: UserState
        public var tail: [TimelineInput]
        public var storedSegments: Int
        public var historyStart: UnixMillis
        public var secondSegmentStart: UnixMillis
        public var watermark: UnixMillis
        public var lastTickTimer: UnixMillis
        public var newestTime: UnixMillis
        /// The geofence table's fingerprint the tail was folded with (`.max`: unknown).
        public var tableVersion: UInt32

        public init(userId: String, current: UserState, tailStart: UserState, tail: [TimelineInput], storedSegments: Int,
                    historyStart: UnixMillis, secondSegmentStart: UnixMillis, watermark: UnixMillis,
                    lastTickTimer: UnixMillis, newestTime: UnixMillis, tableVersion: UInt32 = .max)
        {
            self.userId = userId
            self.current = current
            self.tailStart = tailStart
            self.tail = tail
            self.storedSegments = storedSegments
            self.historyStart = historyStart
            self.secondSegmentStart = secondSegmentStart
            self.watermark = watermark
            self.lastTickTimer = lastTickTimer
            self.newestTime = newestTime
            self.tableVersion = tableVersion
        }
    }

    /// The persistent parts; queued inputs must be settled first.
    public var parts: Parts {
        assert(pending.isEmpty, "persisting a timeline with unsettled inputs")
        return Parts(userId: userId, current: current, tailStart: tailStart, tail: tail.decoded(), storedSegments: Int(storedSegments),
                     historyStart: historyStart, secondSegmentStart: secondSegmentStart, watermark: watermark,
                     lastTickTimer: lastTickTimer, newestTime: newestTime, tableVersion: tableVersion)
    }

    /// The tail as it is held, which a state record stores as it is (state version 8): its input
    /// count, its delta-encoded inputs, and the fix extras and trip commands they refer to. Queued
    /// inputs must be settled first, as for `parts`.
    public var tailCount: Int {
        assert(pending.isEmpty, "persisting a timeline with unsettled inputs")
        return tail.count
    }
    public var tailBytes: [UInt8] { tail.bytes }
    public var tailAttachments: [TimelineInput.Attachment] { tail.attachments }

    /// The inputs of a tail stored from `tailBytes` and `tailAttachments`, checked (see `TailLog`).
    /// - Throws: an error whose description names what a corrupt record got wrong.
    public static func tailInputs(persisted bytes: [UInt8], count: Int, attachments: [TimelineInput.Attachment]) throws
        -> [TimelineInput]
    {
        try TailLog.inputs(persisted: bytes, count: count, attachments: attachments)
    }

    /// Restores a timeline from persisted parts.
    public init(parts: Parts) {
        self.init(userId: parts.userId)
        current = parts.current
        tailStart = parts.tailStart
        tail = TailLog(parts.tail)
        storedSegments = Int32(clamping: parts.storedSegments)
        historyStart = parts.historyStart
        secondSegmentStart = parts.secondSegmentStart
        watermark = parts.watermark
        newestTime = parts.newestTime
        lastTickTimer = parts.lastTickTimer
        tableVersion = parts.tableVersion
    }

    /// The current state as folding the tail from its start state gives it (events discarded): what
    /// `current` must equal.
    public static func rebuiltCurrent(_ parts: Parts, context: FoldContext) -> UserState {
        var quiet = context
        quiet.replayed = true
        quiet.nextTimerDue = .min
        var discarded: [Event] = []
        var state = parts.tailStart
        for input in parts.tail { _ = state.fold(input, context: quiet, events: &discarded) }
        state.fireTimers(upTo: parts.watermark, context: quiet, events: &discarded)
        return state
    }
}
