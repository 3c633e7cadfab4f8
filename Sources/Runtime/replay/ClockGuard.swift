import Domain

/// Replay's defence against one device's wrong clock. A file has no wall clock: time is the
/// stream's, so a fix dated far ahead of it (a device set to 2199) would move stream time for
/// everyone, firing every dwell and expiry at once. Such a fix is held until the stream decides:
/// another user's fix as far ahead confirms a real gap in the data (every user moved on), and the
/// held fixes are folded; another user's fix at the old time refutes it, and the held fixes are
/// dead-lettered `future_timestamp`, having moved no clock. At the end of the input, or when one
/// user alone keeps sending for long enough, what is held is folded (a lone user's gap).
///
/// Only a live fix that moves the old stream on refutes: one behind the stream time, or marked
/// `replayed` (a device's offline buffer), is late data, which says nothing of where the stream is
/// now. It is folded at its place while the jump stays held. Taken as refutations, the buffers
/// replayed across a real gap of a partition (a quiet night) dead-lettered the fixes after the gap.
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
        /// Fold what is held, then this fix.
        case confirm
        /// Dead-letter what is held, then fold this fix.
        case refute
    }

    let skew: UnixMillis
    private(set) var held: [Held] = []
    private var heldUsers: Set<String> = []
    /// Held fixes after which one user's jump is taken as real (nobody else is sending).
    static let maximumHeld = 10_000

    init(skew: UnixMillis) { self.skew = skew }

    var isHolding: Bool { !held.isEmpty }

    func judge(_ fix: Fix, streamTime: UnixMillis) -> Verdict {
        let ahead = streamTime != .min && fix.createdAt > streamTime &+ skew
        if held.isEmpty { return ahead ? .hold : .fold }
        if heldUsers.contains(fix.userId) {
            guard ahead else { return .fold }
            return held.count >= Self.maximumHeld ? .confirm : .hold
        }
        if ahead { return .confirm }
        return fix.replayed || fix.createdAt < streamTime ? .fold : .refute
    }

    mutating func hold(_ fix: Fix, bytes: UnsafeRawBufferPointer, source: RecordSource, key: [UInt8]?) {
        held.append(Held(fix: fix, bytes: Array(bytes), source: source, key: key))
        heldUsers.insert(fix.userId)
    }

    mutating func takeHeld() -> [Held] {
        defer {
            held.removeAll()
            heldUsers.removeAll()
        }
        return held
    }
}
