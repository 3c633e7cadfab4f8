/// The parts of a timeline that persist in the state changelog and snapshots. `current` is not
/// among them: it is rebuilt by folding `history` from the checkpoints, which is deterministic, so
/// a restored timeline is the very same value the live one was.
extension UserTimeline {
    public struct Parts: Sendable, Equatable {
        public var userId: String
        public var base: UserState
        public var middle: UserState?
        public var middleIndex: Int
        public var history: [TimelineInput]
        public var baseTime: UnixMillis
        public var watermark: UnixMillis
        public var lastTickTimer: UnixMillis
        public var newestTime: UnixMillis

        public init(userId: String, base: UserState, middle: UserState?, middleIndex: Int, history: [TimelineInput],
                    baseTime: UnixMillis, watermark: UnixMillis, lastTickTimer: UnixMillis, newestTime: UnixMillis)
        {
            self.userId = userId
            self.base = base
            self.middle = middle
            self.middleIndex = middleIndex
            self.history = history
            self.baseTime = baseTime
            self.watermark = watermark
            self.lastTickTimer = lastTickTimer
            self.newestTime = newestTime
        }
    }

    public var parts: Parts {
        Parts(userId: userId, base: base, middle: middle, middleIndex: middleIndex, history: history, baseTime: baseTime,
              watermark: watermark, lastTickTimer: lastTickTimer, newestTime: newestTime)
    }

    /// Rebuilds a timeline from persisted parts by refolding its history (events discarded).
    public init(parts: Parts, context: FoldContext) {
        self.init(userId: parts.userId)
        base = parts.base
        middle = parts.middle
        middleIndex = parts.middleIndex
        history = parts.history
        baseTime = parts.baseTime
        watermark = parts.watermark
        var discarded: [Event] = []
        var state = parts.middle ?? parts.base
        for index in (parts.middle == nil ? 0 : parts.middleIndex)..<parts.history.count {
            _ = state.fold(parts.history[index], context: context, events: &discarded)
        }
        state.fireTimers(upTo: parts.watermark, context: context, events: &discarded)
        current = state
        lastTickTimer = parts.lastTickTimer
    }
}
