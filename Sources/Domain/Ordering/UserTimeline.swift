/// One user's inputs in event-time order, whatever order they arrive in (DESIGN.md "Ordering").
///
/// In-order inputs fold at once. An input older than the newest one is inserted at its place; the
/// state is rebuilt from the checkpoint before it and the newer inputs are folded again. The events
/// of the old and the new history are compared by `_id`: new ones go out with `live: false`,
/// changed ones with `corrected: true`, vanished ones with `retracted: true`. What was published
/// is never stored: it is, by determinism, exactly what folding the old history yields.
///
/// History is bounded: between `historyLimit / 2` and `historyLimit` inputs, with the checkpoint
/// state before the oldest (`base`) and one at the middle, so a refold never folds more than
/// `historyLimit` inputs twice.
public struct UserTimeline: Sendable {
    public internal(set) var current: UserState
    var base: UserState
    var middle: UserState?
    /// Index of the first input after `middle` (an `Int32`: a user keeps this struct, so it is packed).
    var middleSlot: Int32 = 0
    /// The geofence table's version when the oldest input still in history was first folded
    /// (truncated; `.max`: unknown, after a restore). Refolding diffs against a fold of the old
    /// history with today's table, which only equals what was published if the table has not
    /// changed since; otherwise every refolded event is republished (an identical repeat at worst).
    var tableVersion: UInt32 = .max
    var middleIndex: Int {
        get { Int(middleSlot) }
        set { middleSlot = Int32(newValue) }
    }
    var history: [TimelineInput] = []
    /// Whether `base` has inputs folded into it (then nothing may go before `history[0]`).
    /// Event time of the newest input folded into `base` (`.min`: none). Nothing at or before it
    /// can be inserted any more.
    var baseTime: UnixMillis = .min
    /// Latest stream time whose timers were applied to `current`.
    public internal(set) var watermark: UnixMillis = .min
    /// Due time of the latest timer a stream-time tick fired: an input older than that must be
    /// refolded so that the timer fires at its place in event time.
    var lastTickTimer: UnixMillis = .min
    /// The newest input's event time: history is sorted and always holds the newest input.
    public var newestTime: UnixMillis { history.last?.time ?? baseTime }

    public let userId: String

    public init(userId: String) {
        self.userId = userId
        current = UserState()
        base = current
    }

    public var historyCount: Int { history.count }

    public enum Admission: Equatable, Sendable {
        /// Folded at the end of history, no refold.
        case folded(FoldOutcome)
        /// Inserted into history; the user was refolded.
        case rewound(FoldOutcome)
        case duplicate
        case tooLate
    }

    /// Admits one input.
    /// - Parameters:
    ///   - context: `live` applies to the events of an in-order input; refold events are never live.
    ///   - events: receives the events to publish (new, corrected, retracted).
    public mutating func admit(_ input: TimelineInput, context: FoldContext, events: inout [Event]) -> Admission {
        let settings = context.settings
        let newest = newestTime
        if newest != .min, input.time < newest - settings.replayHorizon { return .tooLate }

        // Insertion point: after every input ordered at or before this one.
        var position = history.count
        while position > 0, input.isOrdered(before: history[position - 1]) { position -= 1 }
        var probe = position
        while probe > 0, history[probe - 1].time == input.time {
            if history[probe - 1].isDuplicate(of: input) { return .duplicate }
            probe -= 1
        }
        if position == 0, input.time <= baseTime { return .tooLate }

        if position == history.count, input.time >= lastTickTimer {
            if history.isEmpty { tableVersion = UInt32(truncatingIfNeeded: context.geofences.version) }
            let outcome = current.fold(input, context: context, events: &events)
            // Room for exactly the limit: doubling from 4 would allocate 8 for a limit of 6.
            if history.capacity == 0 { history.reserveCapacity(max(context.settings.historyLimit, 2)) }
            history.append(input)
            compact(context: context)
            return .folded(outcome)
        }
        return .rewound(refold(inserting: input, at: position, context: context, events: &events))
    }

    /// Applies stream time: fires this user's timers due at or before `time`.
    public mutating func tick(to time: UnixMillis, context: FoldContext, events: inout [Event]) {
        guard time > watermark else { return }
        watermark = time
        if let fired = current.fireTimers(upTo: time, context: context, events: &events) {
            lastTickTimer = max(lastTickTimer, fired)
        }
    }

    // MARK: - Refold

    private mutating func refold(inserting input: TimelineInput, at position: Int, context: FoldContext,
                                 events: inout [Event]) -> FoldOutcome
    {
        var quiet = context
        quiet.live = false
        quiet.nextTimerDue = .min  // refolds start from checkpoints, not the live state
        let useMiddle = middle != nil && position >= middleIndex
        let start = useMiddle ? middle! : base
        let from = useMiddle ? middleIndex : 0

        var oldEvents: [Event] = []
        var state = start
        for index in from..<history.count { _ = state.fold(history[index], context: quiet, events: &oldEvents) }
        state.fireTimers(upTo: watermark, context: quiet, events: &oldEvents)

        history.insert(input, at: position)
        if middle != nil, position < middleIndex { middleIndex += 1 }

        var newEvents: [Event] = []
        var outcome = FoldOutcome.applied
        state = start
        for index in from..<history.count {
            if !useMiddle, middle != nil, index == middleIndex { middle = state }
            let result = state.fold(history[index], context: quiet, events: &newEvents)
            if index == position { outcome = result }
        }
        if !useMiddle, middle != nil, middleIndex == history.count { middle = state }
        let fired = state.fireTimers(upTo: watermark, context: quiet, events: &newEvents)
        lastTickTimer = fired ?? .min
        current = state

        let version = UInt32(truncatingIfNeeded: context.geofences.version)
        let tableChanged = tableVersion != version
        Self.publishDifferences(old: oldEvents, new: newEvents, republishUnchanged: tableChanged, into: &events)
        if tableChanged, from == 0 { tableVersion = version }  // all of history now as today's table says
        compact(context: context)
        return outcome
    }

    /// Appends what changed between two foldings of a history, matched by `_id`.
    /// - Parameter republishUnchanged: the old folding may not be what was published (the geofence
    ///   table changed since): publish unchanged events too (identical repeats if they were).
    static func publishDifferences(old: [Event], new: [Event], republishUnchanged: Bool, into events: inout [Event]) {
        var oldByID: [EventID: Int] = [:]
        oldByID.reserveCapacity(old.count)
        for (index, event) in old.enumerated() { oldByID[event.id] = index }
        var seen = [Bool](repeating: false, count: old.count)
        for var event in new {
            if let index = oldByID[event.id] {
                seen[index] = true
                if old[index].hasSameContent(as: event) {
                    if !republishUnchanged { continue }
                } else {
                    event.revision = .corrected
                }
            }
            event.live = false
            events.append(event)
        }
        for (index, event) in old.enumerated() where !seen[index] {
            var retraction = event
            retraction.revision = .retracted
            retraction.live = false
            events.append(retraction)
        }
    }

    // MARK: - Bounding history

    /// Keeps about `historyLimit` inputs: when `historyLimit / 2` inputs follow the middle
    /// checkpoint, it becomes the base and the inputs before it are dropped. A long offline replay
    /// inserted before the middle may grow history to twice the limit; beyond that the oldest
    /// inputs are folded into the base.
    private mutating func compact(context: FoldContext) {
        let limit = max(context.settings.historyLimit, 2)
        let half = limit / 2
        // A checkpoint is only valid if no stream-time timer ran past the last input folded into it.
        let clean = history.isEmpty || lastTickTimer <= history[history.count - 1].time
        if let checkpoint = middle, middleIndex > 0, history.count - middleIndex >= half {
            base = checkpoint
            baseTime = history[middleIndex - 1].time
            history.removeFirst(middleIndex)
            middle = nil
            middleIndex = 0
        } else if history.count >= 2 * limit {
            let drop = history.count - limit
            var quiet = context
            quiet.live = false
            quiet.nextTimerDue = .min  // folding into the base, not the live state
            var discarded: [Event] = []  // published when these inputs were folded
            for index in 0..<drop { _ = base.fold(history[index], context: quiet, events: &discarded) }
            baseTime = history[drop - 1].time
            history.removeFirst(drop)
            if middle != nil {
                if middleIndex >= drop { middleIndex -= drop } else { middle = nil; middleIndex = 0 }
            }
        }
        if middle == nil, history.count >= half, clean {
            middle = current
            middleIndex = history.count
        }
    }
}
