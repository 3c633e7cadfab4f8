import Domain

/// Rebuilds a partition's state from a local snapshot and the state-changelog records after it:
/// users' timelines (the latest record of each wins), history segments (written to the local
/// store), and the partition checkpoint. The Kafka runtime feeds it the changelog; the bench feeds
/// it records from memory to time the restore itself.
public struct PartitionRestore {
    public private(set) var checkpoint: PartitionCheckpoint?
    public private(set) var records = 0
    public private(set) var segments = 0
    /// Records that could not be read: skipped, so a bad record never stops a partition from being
    /// restored (the user keeps the state of their previous readable record).
    public private(set) var corruptRecords = 0
    /// What the first of them said, for the log.
    public private(set) var firstCorruption: String?
    private var latest: [String: UserTimeline.Parts] = [:]
    public let history: RocksHistoryStore
    /// The local snapshot's checkpoint, and whether a checkpoint record came after it in the changelog.
    private let snapshotCheckpoint: PartitionCheckpoint?
    private var sawCheckpointAfterSnapshot = false
    /// Whether the first checkpoint after the snapshot does not go on from the snapshot's: the changelog
    /// holds changes of another owner that the snapshot claims to cover but does not.
    public private(set) var snapshotBehindChangelog = false

    public init(snapshot: PartitionSnapshot?, history: RocksHistoryStore) {
        self.history = history
        checkpoint = snapshot?.checkpoint
        snapshotCheckpoint = snapshot?.checkpoint
        latest.reserveCapacity(snapshot?.timelines.count ?? 0)
        for parts in snapshot?.timelines ?? [] { latest[parts.userId] = parts }
    }

    public var users: Int { latest.count }

    /// Applies one changelog record (a null value deletes a history segment); an unreadable one is
    /// skipped and counted.
    public mutating func apply(key: [UInt8]?, value: [UInt8]?) {
        do {
            try applyReadable(key: key, value: value)
        } catch {
            corruptRecords += 1
            if firstCorruption == nil {
                let name = key.map { String(decoding: $0.prefix(64), as: UTF8.self) } ?? "(no key)"
                firstCorruption = "changelog record for key \"\(name)\" unreadable, skipped: \(error)"
            }
        }
    }

    private mutating func applyReadable(key: [UInt8]?, value: [UInt8]?) throws {
        records += 1
        guard let key else { return }
        if RocksHistoryStore.isSegmentKey(key) {
            history.restore(changelogKey: key, value: value)
            segments += 1
            return
        }
        guard let value else { return }
        if key == PartitionCheckpoint.key {
            let read = try PartitionCheckpoint(bytes: value)
            if let snapshot = snapshotCheckpoint, !sawCheckpointAfterSnapshot, let previous = read.previous,
                previous != snapshot.position, read.position != snapshot.position
            {
                snapshotBehindChangelog = true
            }
            sawCheckpointAfterSnapshot = true
            checkpoint = read
        } else {
            let parts = try TimelineCodec.decode(value)
            guard Array(parts.userId.utf8) == key else {
                throw BinaryReader.Corrupt(description: "state of user \(parts.userId.prefix(64)) under another key")
            }
            latest[parts.userId] = parts
        }
    }

    /// Whether what was read is behind the group's committed offsets (`committed`: fixes and commands, nil
    /// where none was committed): a transaction committed the partition further than the changelog could be
    /// read (a transaction still open holds its last stable offset back), or the snapshot holds less than it
    /// claims.
    public func isBehind(committed: (locations: Int64?, commands: Int64?)) -> Bool {
        if let locations = committed.locations, locations > checkpoint?.locationsOffset ?? 0 { return true }
        if let commands = committed.commands, commands > checkpoint?.commandsOffset ?? 0 { return true }
        return false
    }

    /// Whether the restore must start again without the snapshot: the changelog after it does not go on from
    /// its checkpoint, or it leaves the restore behind the group's committed offsets.
    public func snapshotIsStale(committed: (locations: Int64?, commands: Int64?)) -> Bool {
        snapshotCheckpoint != nil && (snapshotBehindChangelog || isBehind(committed: committed))
    }

    /// Installs the restored users into `fold` (in userId order, so slots do not depend on the
    /// changelog's order) and makes the history store durable as of the changelog read.
    public func install(into fold: inout PartitionFold, geofences: GeofenceTable) throws {
        try history.commit()
        if let failure = history.takeFailure() { throw RuntimeError.historyStore(partition: nil, reason: failure) }
        for userId in latest.keys.sorted() { fold.restore(latest[userId]!, geofences: geofences) }
        _ = fold.takeTouchedTimelines()  // restored, not changed
    }
}
