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
}
