import Domain
import Runtime
import Testing

/// A restore never stops at a bad record: it is skipped and counted, and the user keeps the state
/// of their previous readable record, so a partition cannot crash-loop from instance to instance.
@Suite struct PartitionRestoreTests {
    static func parts(_ userId: String, visits: UInt32) -> UserTimeline.Parts {
        var state = UserState()
        state.ordinals = EventOrdinals(counts: [.init(key: .init(rawValue: 1), day: 0, count: visits)])
        return UserTimeline.Parts(userId: userId, current: state, tailStart: state, tail: [], storedSegments: 0,
                                  historyStart: .min, secondSegmentStart: .max, watermark: .min, lastTickTimer: .min,
                                  newestTime: .min)
    }

    @Test func corruptRecordsAreSkippedAndTheUserKeepsTheLastReadableState() throws {
        let history = try TestHistory.store()
        defer { history.close() }
        var restore = PartitionRestore(snapshot: nil, history: history)
        let good = TimelineCodec.encode(Self.parts("u1", visits: 3))
        var truncated = TimelineCodec.encode(Self.parts("u1", visits: 4))
        truncated.removeLast(5)
        let checkpoint = PartitionCheckpoint(locationsOffset: 10, commandsOffset: 2, streamTime: 99)
        restore.apply(key: Array("u1".utf8), value: good)
        restore.apply(key: PartitionCheckpoint.key, value: checkpoint.bytes)
        restore.apply(key: Array("u1".utf8), value: truncated)
        restore.apply(key: PartitionCheckpoint.key, value: [9, 9, 9])
        // A record whose state names another user than its key: not installed under either.
        restore.apply(key: Array("u2".utf8), value: TimelineCodec.encode(Self.parts("u3", visits: 1)))
        #expect(restore.corruptRecords == 3)
        #expect(restore.firstCorruption?.contains("u1") == true)
        #expect(restore.checkpoint == checkpoint, "the previous readable checkpoint stands")
        var fold = PartitionFold()
        try restore.install(into: &fold, geofences: GeofenceTable())
        #expect(fold.state(of: "u1")?.ordinals.counts.first?.count == 3)
        #expect(fold.state(of: "u2") == nil && fold.state(of: "u3") == nil)
    }

    /// A local snapshot written by an instance that had lost the partition without knowing claims changelog
    /// records other owners wrote: the checkpoint after it does not go on from its own, or (none after it) the
    /// group's committed offsets are not its.
    @Test func aSnapshotThatHoldsLessThanTheChangelogUpToItsOffsetIsStale() throws {
        let history = try TestHistory.store()
        defer { history.close() }
        let old = PartitionCheckpoint(locationsOffset: 5, commandsOffset: 1, streamTime: 50)
        let snapshot = PartitionSnapshot(partition: 0, changelogOffset: 20, checkpoint: old, timelines: [])
        func restore(_ tail: [PartitionCheckpoint]) -> PartitionRestore {
            var restore = PartitionRestore(snapshot: snapshot, history: history)
            for checkpoint in tail { restore.apply(key: PartitionCheckpoint.key, value: checkpoint.bytes) }
            return restore
        }
        let goesOn = PartitionCheckpoint(locationsOffset: 9, commandsOffset: 1, streamTime: 70, previous: old.position)
        let skipped = PartitionCheckpoint(locationsOffset: 12, commandsOffset: 2, streamTime: 90, previous:
            PartitionCheckpoint(locationsOffset: 9, commandsOffset: 1, streamTime: 70).position)
        #expect(!restore([goesOn, skipped]).snapshotIsStale(committed: (12, 2)))
        #expect(restore([skipped]).snapshotIsStale(committed: (12, 2)), "what went from 5/1 to 9/1 is missing")
        #expect(!restore([]).snapshotIsStale(committed: (5, 1)))
        #expect(restore([]).snapshotIsStale(committed: (9, 1)), "the group committed past the snapshot")
        #expect(!restore([]).snapshotIsStale(committed: (nil, nil)))
        // Checkpoints written before they named their predecessor (version 1) cannot tell.
        let unnamed = PartitionCheckpoint(locationsOffset: 12, commandsOffset: 2, streamTime: 90)
        #expect(!restore([unnamed]).snapshotIsStale(committed: (12, 2)))
        // Committed further than the changelog could be read (a transaction left open holds its end back).
        #expect(restore([goesOn]).isBehind(committed: (12, 2)))
        #expect(!restore([goesOn]).isBehind(committed: (9, 1)))
    }

    @Test func aCheckpointReadsBackWithWhatItGoesOnFrom() throws {
        let first = PartitionCheckpoint(locationsOffset: 3, commandsOffset: 0, streamTime: .min)
        let next = PartitionCheckpoint(locationsOffset: 7, commandsOffset: 2, streamTime: 1_000, previous: first.position)
        #expect(try PartitionCheckpoint(bytes: next.bytes) == next)
        #expect(try PartitionCheckpoint(bytes: first.bytes) == first)
        // Version 1, as written before: no predecessor.
        let version1: [UInt8] = [1] + Array(repeating: 0, count: 24)
        let decoded = try PartitionCheckpoint(bytes: version1)
        #expect(decoded.position == PartitionCheckpoint(locationsOffset: 0, commandsOffset: 0, streamTime: 0).position)
        #expect(decoded.previous == nil)
    }
}
