/// The parts of a timeline that persist in the state changelog and snapshots (its stored segments
/// persist on their own). `current` is not among them: it is rebuilt by folding the tail from its
/// start state, which is deterministic, so a restored timeline is the very same value the live one was.
extension UserTimeline {
    public struct Parts: Sendable, Equatable {
        public var userId: String
        public var tailStart: UserState
        public var tail: [TimelineInput]
        public var storedSegments: Int
        public var historyStart: UnixMillis
        public var secondSegmentStart: UnixMillis
        public var watermark: UnixMillis
        public var lastTickTimer: UnixMillis
        public var newestTime: UnixMillis

        public init(userId: String, tailStart: UserState, tail: [TimelineInput], storedSegments: Int,
                    historyStart: UnixMillis, secondSegmentStart: UnixMillis, watermark: UnixMillis,
                    lastTickTimer: UnixMillis, newestTime: UnixMillis)
        {
            self.userId = userId
            self.tailStart = tailStart
            self.tail = tail
            self.storedSegments = storedSegments
            self.historyStart = historyStart
            self.secondSegmentStart = secondSegmentStart
            self.watermark = watermark
            self.lastTickTimer = lastTickTimer
            self.newestTime = newestTime
        }
    }

    /// The persistent parts; queued inputs must be settled first.
    public var parts: Parts {
        assert(pending.isEmpty, "persisting a timeline with unsettled inputs")
        return Parts(userId: userId, tailStart: tailStart, tail: tail.decoded(), storedSegments: Int(storedSegments),
                     historyStart: historyStart, secondSegmentStart: secondSegmentStart, watermark: watermark,
                     lastTickTimer: lastTickTimer, newestTime: newestTime)
    }

    /// Rebuilds a timeline from persisted parts by refolding its tail (events discarded).
    public init(parts: Parts, context: FoldContext) {
        self.init(userId: parts.userId)
        tailStart = parts.tailStart
        tail = TailLog(parts.tail)
        storedSegments = Int32(clamping: parts.storedSegments)
        historyStart = parts.historyStart
        secondSegmentStart = parts.secondSegmentStart
        watermark = parts.watermark
        newestTime = parts.newestTime
        var quiet = context
        quiet.live = false
        quiet.nextTimerDue = .min
        var discarded: [Event] = []
        var state = parts.tailStart
        for input in parts.tail { _ = state.fold(input, context: quiet, events: &discarded) }
        state.fireTimers(upTo: parts.watermark, context: quiet, events: &discarded)
        current = state
        lastTickTimer = parts.lastTickTimer
    }
}
