/// One user's inputs in event-time order, whatever order they arrive in (DESIGN.md "Ordering").
///
/// The history reaches back a replay horizon of event time (`FoldSettings.replayHorizon`), however
/// many inputs that is. Only its newest inputs (the tail, at most about `segmentInputs`) and two
/// states stay on the hot heap; older inputs are sealed into `HistorySegment`s in a `HistoryStore`,
/// each with the state before it, so a late input refolds from the segment it lands in.
///
/// In-order inputs fold at once. A late input is queued, with every input of the user after it,
/// until `settle`: one refold then places them all, however many arrived (an offline buffer of
/// hundreds of fixes costs one refold, not one each). The events of the old and the new history are
/// compared by `_id`: new ones are published, changed ones with `corrected: true`, vanished ones with
/// `retracted: true`. What was published is never stored: it is, by determinism, what folding the
/// old history yields.
public struct UserTimeline: Sendable {
    // Stored properties in the order a fix reads them: Swift lays them out in declaration order,
    // and a timeline spans five cache lines; `tailStart`, read only by refolds and seals, goes last.
    public internal(set) var current: UserState
    /// The newest inputs in event-time order, not sealed into a segment yet (delta-encoded).
    var tail = TailLog()
    /// Late inputs, and every input of this user after the first of them, waiting for `settle`.
    var pending: [TimelineInput] = []
    /// Segments of this user in the store.
    public internal(set) var storedSegments: Int32 = 0
    /// The geofence table's fingerprint (truncated) when the tail's oldest input was first folded;
    /// `.max`: unknown (a state persisted before it was). A refold diffs against a fold of the old
    /// history with today's table, which equals what was published only if the table has not
    /// changed since; otherwise every refolded event is republished (an identical repeat at worst).
    /// Persisted with the state, and the fingerprint being the same in every process, a restored
    /// user's first refold republishes nothing unchanged.
    public internal(set) var tableVersion: UInt32 = .max
    /// Inputs older than this can no longer be placed: the history before it expired (`.min`: none has).
    public internal(set) var historyStart: UnixMillis = .min
    /// First input time of the second oldest stored segment (`.max`: fewer than two): once the newest
    /// input is a horizon past it, the oldest segment has expired.
    public internal(set) var secondSegmentStart: UnixMillis = .max
    /// Latest stream time whose timers were applied to `current`.
    public internal(set) var watermark: UnixMillis = .min
    /// Due time of the latest timer a stream-time tick fired: an input older than that must be
    /// refolded so that the timer fires at its place in event time.
    public internal(set) var lastTickTimer: UnixMillis = .min
    /// The newest input's event time, queued ones included.
    public internal(set) var newestTime: UnixMillis = .min

    public let userId: String
    /// `FoldContext.userIdHasher` of this user, hashed once.
    let userIdHasher: StableHasher
    /// The state before `tail[0]`: where a refold that stays within the tail starts.
    public internal(set) var tailStart: UserState

    public init(userId: String) {
        self.userId = userId
        userIdHasher = FoldContext.hasher(of: userId)
        current = UserState()
        tailStart = current
    }

    /// Inputs on the hot heap (the tail and those waiting for `settle`).
    public var hotInputCount: Int { tail.count + pending.count }
    public var storedSegmentCount: Int { Int(storedSegments) }
    public var hasPending: Bool { !pending.isEmpty }

    /// Most inputs of one user with the same event time (segments never split equal times).
    public static let maximumEqualTimes = 64
    /// A segment is also cut once its attachments weigh this much, so that with inputs of at most
    /// 64 KiB a stored segment (and its changelog record) stays well below a megabyte.
    public static let segmentAttachmentBytes = 256 * 1024

    public enum Admission: Equatable, Sendable {
        /// Folded at the end of history, no refold.
        case folded(FoldOutcome)
        /// Late (or queued behind a late one): placed by the next `settle`.
        case deferred
        case duplicate
        /// Older than the horizon allows by this much (milliseconds behind the newest input).
        case tooLate(behind: UnixMillis)
        /// Another input at an event time that already has `maximumEqualTimes`.
        case flooded
    }

    /// Admits one input.
    /// - Parameters:
    ///   - context: `live` applies to the events of an in-order input.
    ///   - events: receives the events of an in-order input.
    public mutating func admit(_ input: TimelineInput, context: FoldContext, store: any HistoryStore,
                               events: inout [Event]) -> Admission
    {
        let settings = context.settings
        if newestTime != .min, input.time < newestTime - settings.replayHorizon || input.time < historyStart {
            return .tooLate(behind: newestTime - input.time)
        }
        if !pending.isEmpty {
            // Duplicates among these are dropped when they are placed.
            queue(input)
            return .deferred
        }
        // In order, the common case: newer than the newest input, and than any timer a tick fired.
        if tail.isEmpty || input.time > tail.lastTime {
            guard input.time >= lastTickTimer else {
                queue(input)
                return .deferred
            }
            if tail.count >= settings.segmentInputs || tail.attachmentBytes >= Self.segmentAttachmentBytes {
                seal(context: context, store: store)
            }
            return append(input, context: context, events: &events)
        }
        // An event time the tail already reaches: its place among the tail's inputs.
        let inputs = tail.decoded()
        var position = inputs.count
        while position > 0, input.isOrdered(before: inputs[position - 1]) { position -= 1 }
        switch Self.equalTimes(of: input, in: inputs, near: position) {
        case .duplicate: return .duplicate
        case .flood: return .flooded
        case .fine: break
        }
        if position == inputs.count, input.time >= lastTickTimer {
            return append(input, context: context, events: &events)  // same time as the newest, after it
        }
        queue(input)
        return .deferred
    }

    private mutating func append(_ input: TimelineInput, context: FoldContext, events: inout [Event]) -> Admission {
        if tail.isEmpty { tableVersion = UInt32(truncatingIfNeeded: context.geofences.fingerprint) }
        let outcome = current.fold(input, context: context, events: &events)
        tail.append(input)
        newestTime = max(newestTime, input.time)
        return .folded(outcome)
    }

    private mutating func queue(_ input: TimelineInput) {
        pending.append(input)
        newestTime = max(newestTime, input.time)
    }

    private enum EqualTimes { case fine, duplicate, flood }

    /// Whether an input of equal time around `position` in the tail is the same input, or there are
    /// too many of them. (Segments never split equal times, so once the tail holds an input's time,
    /// every stored input of that time is in the tail.)
    private static func equalTimes(of input: TimelineInput, in tail: [TimelineInput], near position: Int) -> EqualTimes {
        var count = 0
        var probe = position
        while probe > 0, tail[probe - 1].time == input.time {
            if tail[probe - 1].isDuplicate(of: input) { return .duplicate }
            probe -= 1
            count += 1
        }
        probe = position
        while probe < tail.count, tail[probe].time == input.time {
            if tail[probe].isDuplicate(of: input) { return .duplicate }
            probe += 1
            count += 1
        }
        return count >= Self.maximumEqualTimes ? .flood : .fine
    }

    /// `current.nextTimerDue`, for a timeline in `TimelineStore`. Mutating only to be reached through
    /// the store's mutable addressor, in place: through its read addressor the state is copied (every
    /// reference retained) before anything is called on it, once per fix.
    /// Takes the one setting it reads: passed the settings, the fold copied all of them first, per fix.
    mutating func nextTimerDue(signalLostAfter: UnixMillis) -> UnixMillis {
        current.nextTimerDue(signalLostAfter: signalLostAfter) ?? .max
    }

    /// Applies stream time: fires this user's timers due at or before `time`. Queued inputs must be
    /// settled first. Ticking again at the same time fires what became due since (an in-order input
    /// between the last timer fired and the watermark may schedule one).
    public mutating func tick(to time: UnixMillis, context: FoldContext, events: inout [Event]) {
        assert(pending.isEmpty, "tick before settle")
        guard time >= watermark else { return }
        watermark = time
        if let fired = current.fireTimers(upTo: time, context: context, events: &events) {
            lastTickTimer = max(lastTickTimer, fired)
        }
    }

    // MARK: - Segments

    /// Moves the tail into the store as a segment; the next input starts a new tail.
    private mutating func seal(context: FoldContext, store: any HistoryStore) {
        let segment = HistorySegment(start: tailStart, inputs: tail.decoded(), tableVersion: tableVersion)
        store.replace(userId, removing: [], adding: [segment])
        storedSegments += 1
        if storedSegments == 2 { secondSegmentStart = segment.firstTime }
        // Valid as a refold start: the in-order input that follows is not older than any timer fired.
        tailStart = current
        tail.removeAll()
        expireIfDue(context: context, store: store)
    }

    /// Drops stored segments whose inputs are all older than the horizon behind the newest input.
    mutating func expireIfDue(context: FoldContext, store: any HistoryStore, force: Bool = false) {
        guard storedSegments > 0, newestTime != .min else { return }
        let cutoff = newestTime - context.settings.replayHorizon
        guard force || cutoff > secondSegmentStart else { return }
        let expiry = store.expire(userId, before: cutoff)
        if expiry.dropped > 0 {
            historyStart = expiry.oldestStart != .min ? expiry.oldestStart : (tail.isEmpty ? newestTime : tail.firstTime)
        }
        storedSegments = max(0, storedSegments - Int32(clamping: expiry.dropped))
        secondSegmentStart = expiry.secondStart
    }
}
