import Domain

/// Replay's defence against one device's wrong clock. A file has no wall clock: time is the
/// stream's, so a fix dated far ahead of it (a device set to 2199) would move stream time for
/// everyone, firing every dwell and expiry at once. Such a fix is held until the stream decides:
/// - another user's fix as far ahead confirms a real gap in the data (every user moved on): the
///   held fixes up to its time are folded;
/// - the stream catches up with a held fix (other users' fixes reach it within the skew): it is
///   folded, being no longer ahead;
/// - at the end of the input (or once `maximumHeld` fixes are held), what is still held is
///   dead-lettered `future_timestamp`, having moved no clock, if other users' live fixes went on in
///   the old time meanwhile (a wrong device clock); folded otherwise (a lone user's gap).
///
/// A partition's first fix, with no stream to be ahead of, is held until the second: one within the
/// skew of it releases it; one further behind makes it a held fix like any other.
///
/// A fix that went on in the old time decides nothing by itself: a device's offline buffer
/// replayed across a real gap of its partition (a quiet night) looks just like it, and taken as a
/// refutation it dead-lettered the morning. Late data (behind the stream time, or marked
/// `replayed`) is not even counted as going on in the old time.
struct ClockGuard {
    struct Held {
        var fix: Fix
        var bytes: [UInt8]
        var source: RecordSource
        var key: [UInt8]?
    }

    enum Verdict: Equatable {
        /// Fold this fix now.
        case fold
        /// Hold this fix.
        case hold
        /// The jump is real up to this fix's time: fold what is held up to it (`takeHeld(caughtUpWith:)`),
        /// then this fix; hold it if nothing held was that early (a jump of its own).
        case confirm
        /// Dead-letter what is held, then judge this fix again.
        case refute
    }

    let skew: UnixMillis
    private(set) var held: [Held] = []
    private var heldUsers: Set<String> = []
    /// Whether another user's live fix went on in the old time (at or past the stream time, not
    /// ahead) since the hold began.
    private(set) var contradicted = false
    /// The earliest held fix's time (`.max` when none): asked after every fix while holding, so
    /// kept rather than found by a scan of up to `maximumHeld` fixes.
    private var earliestHeld = UnixMillis.max
    /// Held fixes after which the hold is decided (see the type's comment).
    static let maximumHeld = 10_000

    init(skew: UnixMillis) { self.skew = skew }

    var isHolding: Bool { !held.isEmpty }

    mutating func judge(_ fix: Fix, streamTime: UnixMillis) -> Verdict {
        if streamTime == .min {
            // No stream yet: a partition's first fix has nothing to be judged against, and folded at once
            // a wrong clock would become the stream (its user's next true fixes then too late). Held,
            // the next fix judges it: released before that fix when within the skew of it, else held on.
            if held.isEmpty { return .hold }
            if earliestHeld <= fix.createdAt &+ skew { return .confirm }
            if !heldUsers.contains(fix.userId), !fix.replayed { contradicted = true }
            return .fold
        }
        let ahead = fix.createdAt > streamTime &+ skew
        if held.isEmpty { return ahead ? .hold : .fold }
        if heldUsers.contains(fix.userId) {
            guard ahead else { return .fold }
            guard held.count >= Self.maximumHeld else { return .hold }
            return contradicted ? .refute : .confirm
        }
        if ahead { return .confirm }
        if !fix.replayed, fix.createdAt >= streamTime { contradicted = true }
        return .fold
    }

    mutating func hold(_ fix: Fix, bytes: UnsafeRawBufferPointer, source: RecordSource, key: [UInt8]?) {
        held.append(Held(fix: fix, bytes: Array(bytes), source: source, key: key))
        heldUsers.insert(fix.userId)
        earliestHeld = min(earliestHeld, fix.createdAt)
    }

    /// The held fixes dated at most `time` plus the skew, in the order they came; the others stay held.
    mutating func takeHeld(caughtUpWith time: UnixMillis) -> [Held] {
        let limit = time &+ skew
        guard earliestHeld <= limit else { return [] }
        let taken = held.filter { $0.fix.createdAt <= limit }
        held.removeAll { $0.fix.createdAt <= limit }
        if held.isEmpty {
            endHold()
        } else {
            heldUsers = Set(held.map(\.fix.userId))
            earliestHeld = held.lazy.map(\.fix.createdAt).min()!
        }
        return taken
    }

    /// Everything held, in the order it came.
    mutating func takeHeld() -> [Held] {
        defer { endHold() }
        return held
    }

    private mutating func endHold() {
        held.removeAll()
        heldUsers.removeAll()
        contradicted = false
        earliestHeld = .max
    }
}
