import Domain
import RocksDBIO

/// A partition's history segments in RocksDB, with the changes of the transactions not yet
/// committed in an indexed batch that reads see first: the database only ever holds what a committed
/// Kafka transaction made durable in the state changelog, so a restore can start from it.
///
/// The runtime folds while the previous transaction commits, so the batch may hold changes of two
/// transactions: each change is tagged with its generation (`seal` closes one), and a commit writes
/// its generations to the database and keeps the younger ones in the batch.
///
/// Keys: the userId's length (4 bytes, big-endian), its bytes, then the segment's first input time
/// (8 bytes, big-endian with the sign flipped): a user's segments sit together in time order.
public final class RocksHistoryStore: HistoryStore, @unchecked Sendable {
    // Unchecked: used by the thread that folds its partition, like every store.
    public let database: RocksDatabase
    private let overlay = RocksWriteBatch()
    /// The batch's changes in order, with their generations (what `commit(through:)` splits).
    private var uncommitted: [(generation: UInt64, key: [UInt8], value: [UInt8]?)] = []
    /// The generation changes are tagged with now.
    private var generation: UInt64 = 0
    /// Changes since the last `takeChanges`, for the state changelog (nil value: deleted).
    private var changes: [(key: [UInt8], value: [UInt8]?)] = []
    private let recordsChanges: Bool
    /// Whether `close()` closes `database` (not for a store sharing another owner's database).
    private let ownsDatabase: Bool
    /// The first error the database or a stored record gave, until `takeFailure`.
    private var failure: String?
    /// Segments that could not be decoded: skipped (the refold starts after the hole), counted and
    /// described in `takeCorruptionReport`, never a failure, so a bad record cannot stall a partition.
    public private(set) var corruptSegments = 0
    private var corruption: String?

    /// - Parameters:
    ///   - fresh: delete what the directory holds first (its contents are not known to match the
    ///     changelog the state will be restored from).
    ///   - recordsChanges: keep the changes for `takeChanges` (the Kafka runtime's changelog).
    public init(directory: String, fresh: Bool, recordsChanges: Bool, tuning: RocksDatabase.Tuning = .init()) throws {
        if fresh { try RocksDatabase.destroy(path: directory) }
        database = try RocksDatabase(path: directory, tuning: tuning)
        self.recordsChanges = recordsChanges
        ownsDatabase = true
        try database.scan(from: Self.parkedPrefix, below: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) { _, _ in
            mayHaveParkedUsers = true
            return false
        }
    }

    /// A store in a fresh `database` that other stores share: their users must be others than this
    /// one's (a user's keys hold only its id), as the partitions of one replay are. The database's
    /// owner closes it: `close()` here leaves it open for the others.
    init(sharing database: RocksDatabase, recordsChanges: Bool) {
        self.database = database
        self.recordsChanges = recordsChanges
        ownsDatabase = false
    }

    /// Closes the database, if this store opened it.
    public func close() { if ownsDatabase { database.close() } }

    // MARK: - HistoryStore

    public func segments(of userId: String, from time: UnixMillis) -> [HistorySegment] {
        let prefix = Self.prefix(userId)
        var segments: [HistorySegment] = []
        do {
            try database.scan(from: prefix, below: prefix + Self.beyondTimes, backingUpTo: Self.key(prefix, time),
                              overlay: overlay) { _, value in
                do {
                    segments.append(try TimelineCodec.decodeSegment(Array(value)))
                } catch {
                    // A hole in history: what follows it still refolds from its own start state.
                    corruptSegments += 1
                    segments.removeAll()
                    if corruption == nil { corruption = "history segment of user \(userId) unreadable, skipped: \(error)" }
                }
                return true
            }
        } catch {
            remember("\(error)")
        }
        return segments
    }

    public func replace(_ userId: String, removing removed: [UnixMillis], adding added: [HistorySegment]) {
        let prefix = Self.prefix(userId)
        // Sealing a tail removes nothing: no set to build on that path (every 32 inputs of a user).
        if !removed.isEmpty {
            let kept = Set(added.map(\.firstTime))
            for time in removed where !kept.contains(time) { delete(Self.key(prefix, time)) }
        }
        for segment in added { put(Self.key(prefix, segment.firstTime), TimelineCodec.encode(segment)) }
    }

    public func expire(_ userId: String, before cutoff: UnixMillis) -> HistoryExpiry {
        let prefix = Self.prefix(userId)
        // The oldest first times, up to the first two at or after the cutoff.
        var times: [UnixMillis] = []
        var atOrAfter = 0
        do {
            try database.scan(from: prefix, below: prefix + Self.beyondTimes, overlay: overlay) { key, _ in
                guard key.count == prefix.count + 8 else { return true }
                let time = Self.time(key, at: prefix.count)
                times.append(time)
                if time >= cutoff { atOrAfter += 1 }
                return atOrAfter < 2
            }
        } catch {
            remember("\(error)")
            return HistoryExpiry(oldestStart: .min, secondStart: .max, dropped: 0)
        }
        var drop = 0
        while drop + 1 < times.count, times[drop + 1] < cutoff { drop += 1 }
        for time in times[..<drop] { delete(Self.key(prefix, time)) }
        let left = times[drop...]
        return HistoryExpiry(oldestStart: left.first ?? .min, secondStart: left.dropFirst().first ?? .max,
                             dropped: drop)
    }

    // MARK: - Parked users

    /// Keys of parked users: four 0xFF bytes (no userId is that long), then the user's prefix.
    static let parkedPrefix: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
    public private(set) var mayHaveParkedUsers = false

    /// Parked parts go only to the local store: they are exactly the user's last state record in the
    /// changelog (a user is parked only when nothing of theirs is unflushed).
    public func park(_ parts: UserTimeline.Parts) {
        stage(Self.parkedPrefix + Self.prefix(parts.userId), TimelineCodec.encode(parts))
        mayHaveParkedUsers = true
    }

    public func unpark(_ userId: String) -> UserTimeline.Parts? {
        let key = Self.parkedPrefix + Self.prefix(userId)
        do {
            guard let value = try database.get(key, overlay: overlay) else { return nil }
            stage(key, nil)
            return try TimelineCodec.decode(value)
        } catch {
            corruptSegments += 1
            if corruption == nil { corruption = "parked state of user \(userId) unreadable: \(error)" }
            return nil
        }
    }

    // MARK: - Transactions

    /// The changes since the last call, as state-changelog records (key, value; nil deletes).
    public func takeChanges() -> [(key: [UInt8], value: [UInt8]?)] {
        defer { changes.removeAll(keepingCapacity: true) }
        return changes.map { (Self.changelogPrefix + $0.key, $0.value) }
    }

    /// Closes the generation of the changes so far (they go into one transaction).
    /// - Returns: the generation to pass to `commit(through:)` once that transaction committed.
    public func seal() -> UInt64 {
        defer { generation += 1 }
        return generation
    }

    /// Writes every change to the database (no transaction is in flight).
    public func commit() throws {
        try database.write(overlay)
        uncommitted.removeAll(keepingCapacity: true)
    }

    /// Writes the changes of generations up to `sealed` to the database: their transaction committed.
    /// Younger changes (folded while it committed) stay in the batch.
    public func commit(through sealed: UInt64) throws {
        guard let firstYounger = uncommitted.firstIndex(where: { $0.generation > sealed }) else {
            return try commit()
        }
        guard firstYounger > 0 else { return }
        let committed = RocksWriteBatch()
        for change in uncommitted[..<firstYounger] { apply(change.key, change.value, to: committed) }
        try database.write(committed)
        // A batch cannot drop entries: it is refilled with the younger changes.
        uncommitted.removeFirst(firstYounger)
        overlay.clear()
        for change in uncommitted { apply(change.key, change.value, to: overlay) }
    }

    /// Forgets every uncommitted change: a transaction was aborted (the state is rebuilt).
    public func discard() {
        overlay.clear()
        uncommitted.removeAll(keepingCapacity: true)
        changes.removeAll(keepingCapacity: true)
    }

    /// Makes what was committed survive a machine crash (before a snapshot claims it).
    public func synchronize() throws { try database.synchronize() }

    /// The first unreadable segment since the last call, for the log.
    public func takeCorruptionReport() -> String? {
        defer { corruption = nil }
        return corruption
    }

    /// The first failure of the database since the last call: the fold may have seen incomplete history.
    public func takeFailure() -> String? {
        defer { failure = nil }
        return failure
    }

    /// Applies a state-changelog record of a segment (restoring); not recorded as a change.
    public func restore(changelogKey: [UInt8], value: [UInt8]?) {
        let key = Array(changelogKey.dropFirst(Self.changelogPrefix.count))
        stage(key, value)
        if overlay.count >= 10_000 {
            do { try commit() } catch { remember("\(error)") }
        }
    }

    // MARK: - Keys

    /// Changelog keys of segments start with these bytes; no userId key can (userIds are text, and
    /// the partition checkpoint's key continues with a letter).
    public static let changelogPrefix: [UInt8] = [0, 1]

    public static func isSegmentKey(_ key: [UInt8]) -> Bool {
        key.count > changelogPrefix.count && key[0] == 0 && key[1] == 1
    }

    static let beyondTimes = [UInt8](repeating: 0xff, count: 9)

    static func prefix(_ userId: String) -> [UInt8] {
        let utf8 = Array(userId.utf8)
        let length = UInt32(utf8.count)
        return [UInt8(length >> 24), UInt8((length >> 16) & 0xff), UInt8((length >> 8) & 0xff), UInt8(length & 0xff)]
            + utf8
    }

    static func key(_ prefix: [UInt8], _ time: UnixMillis) -> [UInt8] {
        var key = prefix
        let ordered = UInt64(bitPattern: time) ^ (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { key.append(UInt8((ordered >> UInt64(shift)) & 0xff)) }
        return key
    }

    static func time(_ key: UnsafeRawBufferPointer, at offset: Int) -> UnixMillis {
        var ordered: UInt64 = 0
        for index in 0..<8 { ordered = ordered << 8 | UInt64(key[offset + index]) }
        return Int64(bitPattern: ordered ^ (1 << 63))
    }

    private func put(_ key: [UInt8], _ value: [UInt8]) {
        stage(key, value)
        if recordsChanges { changes.append((key, value)) }
    }

    private func delete(_ key: [UInt8]) {
        stage(key, nil)
        if recordsChanges { changes.append((key, nil)) }
    }

    /// Puts (or with nil deletes) in the batch, remembered with its generation. Without a changelog
    /// (replays) nothing is pipelined: the batch alone is enough.
    private func stage(_ key: [UInt8], _ value: [UInt8]?) {
        apply(key, value, to: overlay)
        if recordsChanges { uncommitted.append((generation, key, value)) }
    }

    private func apply(_ key: [UInt8], _ value: [UInt8]?, to batch: RocksWriteBatch) {
        if let value { batch.put(key, value) } else { batch.delete(key) }
    }

    private func remember(_ message: String) {
        if failure == nil { failure = message }
    }
}
