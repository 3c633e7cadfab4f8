import Synchronization

/// A stretch of one user's history, off the hot heap: consecutive inputs in event-time order and the
/// state before the first of them, so a refold can start here instead of at the user's first input.
///
/// Segments never split inputs of equal time, so a segment is named by its first input's time.
public struct HistorySegment: Sendable, Equatable {
    /// The user's state before `inputs[0]` (timers fired at most up to its time).
    public var start: UserState
    public var inputs: [TimelineInput]
    /// The geofence table's version when these inputs were last folded (truncated).
    public var tableVersion: UInt32

    public init(start: UserState, inputs: [TimelineInput], tableVersion: UInt32) {
        precondition(!inputs.isEmpty, "a history segment holds at least one input")
        self.start = start
        self.inputs = inputs
        self.tableVersion = tableVersion
    }

    /// Its name in the store.
    public var firstTime: UnixMillis { inputs[0].time }
}

/// What expiring a user's old segments left.
public struct HistoryExpiry: Sendable, Equatable {
    /// First input time of the oldest segment kept (`.min` when the user has none).
    public var oldestStart: UnixMillis
    /// First input time of the second oldest (`.max` when fewer than two): once the user's newest input
    /// is a horizon past it, the oldest segment can go.
    public var secondStart: UnixMillis
    /// Segments removed.
    public var dropped: Int

    public init(oldestStart: UnixMillis, secondStart: UnixMillis, dropped: Int) {
        self.oldestStart = oldestStart
        self.secondStart = secondStart
        self.dropped = dropped
    }
}

/// Where the segments of a partition's users live: a local store built for keyed state in the service
/// (RocksDB, made durable through the state changelog), memory in tests.
///
/// The fold calls it only when a segment is sealed (every `FoldSettings.segmentInputs` in-order inputs)
/// and when a late input reaches behind the in-memory tail, never per in-order input. Implementations
/// are used by one thread at a time.
public protocol HistoryStore: AnyObject, Sendable {
    /// The user's segments from the one an input at `time` belongs in (the last starting at or before
    /// `time`, else the oldest) to the newest, oldest first.
    func segments(of userId: String, from time: UnixMillis) -> [HistorySegment]
    /// Removes the segments named by `removed` (first input times), then stores `added`.
    func replace(_ userId: String, removing removed: [UnixMillis], adding added: [HistorySegment])
    /// Drops the user's segments that hold only inputs older than `cutoff`: every segment followed by
    /// one starting before `cutoff` (the last of those still holds inputs at or after it).
    func expire(_ userId: String, before cutoff: UnixMillis) -> HistoryExpiry

    /// Keeps the hot parts of a user leaving memory (idle beyond the horizon), until `unpark`.
    func park(_ parts: UserTimeline.Parts)
    /// Takes back a parked user's parts (nil if the user was never parked).
    func unpark(_ userId: String) -> UserTimeline.Parts?
    /// Whether any user may be parked (new users need no lookup otherwise).
    var mayHaveParkedUsers: Bool { get }
}

/// Segments in memory: for tests and for folds small enough not to need a disk. Its state behind a
/// lock: Sendable as checked, at the cost of an uncontended lock per call (a store is called when a
/// segment is sealed or a late input reaches behind the tail, not per input).
public final class MemoryHistoryStore: HistoryStore {
    private struct Contents: Sendable {
        var byUser: [String: [HistorySegment]] = [:]
        var parked: [String: UserTimeline.Parts] = [:]
    }

    private let contents: Mutex<Contents>

    public init() { contents = Mutex(Contents()) }

    private init(_ contents: Contents) { self.contents = Mutex(contents) }

    public var segmentCount: Int { contents.withLock { $0.byUser.values.reduce(0) { $0 + $1.count } } }
    public var inputCount: Int {
        contents.withLock { $0.byUser.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.inputs.count } } }
    }

    public func all(of userId: String) -> [HistorySegment] { contents.withLock { $0.byUser[userId] ?? [] } }

    /// An independent copy (what a restore from a durable store would see).
    public func copy() -> MemoryHistoryStore { MemoryHistoryStore(contents.withLock { $0 }) }

    public func segments(of userId: String, from time: UnixMillis) -> [HistorySegment] {
        guard let list = contents.withLock({ $0.byUser[userId] }), !list.isEmpty else { return [] }
        let first = list.lastIndex { $0.firstTime <= time } ?? 0
        return Array(list[first...])
    }

    public func replace(_ userId: String, removing removed: [UnixMillis], adding added: [HistorySegment]) {
        contents.withLock { contents in
            var list = contents.byUser[userId] ?? []
            let gone = Set(removed)
            list.removeAll { gone.contains($0.firstTime) }
            for segment in added {
                if let same = list.firstIndex(where: { $0.firstTime == segment.firstTime }) {
                    list[same] = segment
                } else {
                    list.append(segment)
                }
            }
            list.sort { $0.firstTime < $1.firstTime }
            contents.byUser[userId] = list.isEmpty ? nil : list
        }
    }

    public func park(_ parts: UserTimeline.Parts) { contents.withLock { $0.parked[parts.userId] = parts } }
    public func unpark(_ userId: String) -> UserTimeline.Parts? {
        contents.withLock { $0.parked.removeValue(forKey: userId) }
    }
    public var mayHaveParkedUsers: Bool { contents.withLock { !$0.parked.isEmpty } }
    public var parkedCount: Int { contents.withLock { $0.parked.count } }

    public func expire(_ userId: String, before cutoff: UnixMillis) -> HistoryExpiry {
        contents.withLock { contents in
            var list = contents.byUser[userId] ?? []
            var drop = 0
            while drop + 1 < list.count, list[drop + 1].firstTime < cutoff { drop += 1 }
            list.removeFirst(drop)
            contents.byUser[userId] = list.isEmpty ? nil : list
            return HistoryExpiry(oldestStart: list.first?.firstTime ?? .min,
                                 secondStart: list.count > 1 ? list[1].firstTime : .max, dropped: drop)
        }
    }
}
