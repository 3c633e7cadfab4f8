import Domain
import Runtime
import Simulation
import Testing

/// The RocksDB history store behaves as the in-memory one the fold's tests use, keeps uncommitted
/// changes out of the database, and is rebuilt from its changelog records.
@Suite struct RocksHistoryStoreTests {
    static func segment(_ time: UnixMillis, inputs: Int = 3, tag: UInt32 = 0) -> HistorySegment {
        var state = UserState()
        state.ordinals = EventOrdinals(counts: [.init(key: .init(rawValue: 1), day: 0, count: tag)])
        let fixes = (0..<inputs).map { i in
            TimelineInput(fix: Fix(userId: "", createdAt: time + UnixMillis(i) * 1000,
                                   position: Coordinate(latitudeE7: 411_480_000 + Int32(i), longitudeE7: -86_110_000),
                                   accuracy: Float(i) * 2.5, speed: 3), extras: nil)
        }
        return HistorySegment(start: state, inputs: fixes, tableVersion: tag)
    }

    /// The same random operations on both stores give the same answers.
    @Test func behavesAsTheMemoryStore() throws {
        let rocks = try TestHistory.store()
        defer { rocks.close() }
        let memory = MemoryHistoryStore()
        var rng = SeededRandom(seed: 17)
        let users = ["u1", "u2", "a user with spaces", "ü"]
        for step in 0..<400 {
            let user = users[Int.random(in: 0..<users.count, using: &rng)]
            let time = UnixMillis.random(in: -50_000...500_000, using: &rng) / 1000 * 1000
            switch Int.random(in: 0..<4, using: &rng) {
            case 0, 1:
                let existing = memory.all(of: user).map(\.firstTime)
                let removed = existing.isEmpty || Bool.random(using: &rng) ? [] : [existing.randomElement(using: &rng)!]
                let added = [Self.segment(time, tag: UInt32(step))]
                rocks.replace(user, removing: removed, adding: added)
                memory.replace(user, removing: removed, adding: added)
            case 2:
                #expect(rocks.segments(of: user, from: time) == memory.segments(of: user, from: time), "step \(step)")
            default:
                #expect(rocks.expire(user, before: time) == memory.expire(user, before: time), "step \(step)")
            }
            if Int.random(in: 0..<10, using: &rng) == 0 { try rocks.commit() }
        }
        for user in users { #expect(rocks.segments(of: user, from: .min) == memory.all(of: user)) }
    }

    @Test func uncommittedChangesNeverReachTheDatabaseAndTheChangelogRebuildsIt() throws {
        let directory = TestHistory.directory()
        let store = try RocksHistoryStore(directory: directory + "/a", fresh: true, recordsChanges: true)
        store.replace("u1", removing: [], adding: [Self.segment(1_000), Self.segment(10_000)])
        var changelog = store.takeChanges()
        try store.commit()
        store.replace("u1", removing: [10_000], adding: [Self.segment(20_000)])
        #expect(store.segments(of: "u1", from: 30_000).map(\.firstTime) == [20_000], "reads see the open changes")
        store.discard()  // the transaction aborted
        #expect(store.segments(of: "u1", from: .min).map(\.firstTime) == [1_000, 10_000])
        store.replace("u1", removing: [1_000], adding: [Self.segment(30_000, tag: 9)])
        changelog += store.takeChanges()
        try store.commit()
        #expect(changelog.allSatisfy { RocksHistoryStore.isSegmentKey($0.key) })
        #expect(changelog.contains { $0.value == nil }, "a removed segment is a tombstone")
        store.close()

        // A lost disk: an empty store fed the changelog records holds the same segments.
        let rebuilt = try RocksHistoryStore(directory: directory + "/b", fresh: true, recordsChanges: true)
        defer { rebuilt.close() }
        var restore = PartitionRestore(snapshot: nil, history: rebuilt)
        for record in changelog { restore.apply(key: record.key, value: record.value) }
        var fold = PartitionFold()
        try restore.install(into: &fold, geofences: GeofenceTable())
        let segments = rebuilt.segments(of: "u1", from: .min)
        #expect(segments.map(\.firstTime) == [10_000, 30_000])
        #expect(segments.last == Self.segment(30_000, tag: 9))
        #expect(rebuilt.takeChanges().isEmpty, "restoring is not a change")
    }

    @Test func parkedUsersSurviveReopeningAndComeBackOnce() throws {
        let directory = TestHistory.directory() + "/parked"
        var state = UserState()
        state.ordinals = EventOrdinals(counts: [.init(key: .init(rawValue: 1), day: 20_000, count: 7)])
        let parts = UserTimeline.Parts(userId: "idle", current: state, tailStart: state, tail: [], storedSegments: 2,
                                       historyStart: .min, secondSegmentStart: 5, watermark: 10, lastTickTimer: 3,
                                       newestTime: 12)
        do {
            let store = try RocksHistoryStore(directory: directory, fresh: true, recordsChanges: true)
            #expect(!store.mayHaveParkedUsers)
            store.park(parts)
            #expect(store.takeChanges().isEmpty, "parked state is a copy of the changelog's, not a change")
            try store.commit()
            try store.synchronize()
            store.close()
        }
        let reopened = try RocksHistoryStore(directory: directory, fresh: false, recordsChanges: true)
        defer { reopened.close() }
        #expect(reopened.mayHaveParkedUsers)
        #expect(reopened.unpark("someone else") == nil)
        #expect(reopened.unpark("idle") == parts)
        try reopened.commit()
        #expect(reopened.unpark("idle") == nil, "taken back once")
        #expect(reopened.segments(of: "idle", from: .min).isEmpty, "parked keys are not segments")
    }

    @Test func corruptSegmentsAreSkippedCountedAndReported() throws {
        let store = try TestHistory.store()
        defer { store.close() }
        store.replace("u1", removing: [], adding: [Self.segment(1_000), Self.segment(10_000), Self.segment(20_000)])
        var changes = store.takeChanges()
        try store.commit()
        // Overwrite the middle segment with garbage through the changelog path.
        changes[1].value = [1, 2, 3]
        var restore = PartitionRestore(snapshot: nil, history: store)
        restore.apply(key: changes[1].key, value: changes[1].value)
        var fold = PartitionFold()
        try restore.install(into: &fold, geofences: GeofenceTable())
        let segments = store.segments(of: "u1", from: .min)
        #expect(segments.map(\.firstTime) == [20_000], "history resumes after the hole")
        #expect(store.corruptSegments == 1)
        #expect(store.takeCorruptionReport()?.contains("u1") == true)
        #expect(store.takeFailure() == nil, "a bad record is not a failure of the store: the partition goes on")
    }
}
