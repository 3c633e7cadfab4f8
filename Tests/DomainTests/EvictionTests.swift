import Domain
import Testing

/// Users idle beyond the horizon leave memory with nothing lost: their state comes back with their
/// next input, and what they yield is what it would have been had they stayed.
@Suite struct EvictionTests {
    static let o = World.center
    static let store = World.circle("store", "g1", radius: 150, dwell: 5)

    /// u1 visits the store and leaves; u2 sits inside it; u3 is on a trip; u4 keeps the stream moving.
    static func day(_ h: inout Harness) {
        for i in 0..<10 { h.send(World.fix("u1", at: Int64(i) * 60, i < 5 ? o : World.offset(o, north: 2_000, east: 0))) }
        h.send(World.fix("u2", at: 0, o))
        h.send(World.start("u3", at: 0))
        h.send(World.fix("u3", at: 30, World.offset(o, north: 5_000, east: 0)))
        for i in 0..<80 { h.send(World.fix("u4", at: 600 + Int64(i) * 300, World.offset(o, north: 9_000, east: Double(i)))) }
    }

    @Test func idleUsersLeaveMemoryAndComeBackUnchanged() {
        var settings = FoldSettings()
        settings.replayHorizon = 3_600_000
        let history = MemoryHistoryStore()
        var h = Harness([Self.store], settings: settings, history: history)
        Self.day(&h)
        _ = h.fold.takeTouchedTimelines()  // flushed, as the runtime does before evicting
        let before = h.fold.state(of: "u1")!
        let evicted = h.fold.evictIdleUsers(before: h.fold.streamTime - settings.replayHorizon)
        #expect(evicted == 1, "only u1: u2 is inside a geofence, u3 on a trip, u4 active")
        #expect(h.fold.state(of: "u1") == nil && h.fold.userCount == 3)
        #expect(history.parkedCount == 1)
        // u1 returns and enters the store again: its state continues where it left.
        h.send(World.fix("u1", at: 600 + 80 * 300, Self.o))
        #expect(h.fold.counters.usersReturned == 1)
        let visits = { (state: UserState?) in state?.ordinals.counts.reduce(0) { $0 + $1.count } ?? 0 }
        #expect(visits(h.fold.state(of: "u1")) == visits(before) + 1)
        #expect(h.fold.userCount == 4)

        // The same inputs without eviction give the same events.
        var reference = Harness([Self.store], settings: settings, history: MemoryHistoryStore())
        Self.day(&reference)
        reference.send(World.fix("u1", at: 600 + 80 * 300, Self.o))
        let a = h.upserted(), b = reference.upserted()
        #expect(a.count == b.count && zip(a, b).allSatisfy { $0.hasSameContent(as: $1) })
    }

    @Test func aFreedSlotIsReusedAndSnapshotsSkipIt() {
        var settings = FoldSettings()
        settings.replayHorizon = 600_000
        var h = Harness([], settings: settings, history: MemoryHistoryStore())
        h.send(World.fix("gone", at: 0, Self.o))
        h.send(World.fix("stays", at: 3_600, Self.o))
        _ = h.fold.takeTouchedTimelines()
        #expect(h.fold.evictIdleUsers(before: h.fold.streamTime - settings.replayHorizon) == 1)
        #expect(h.fold.allTimelines().map(\.userId) == ["stays"])
        h.send(World.fix("new", at: 3_700, Self.o))
        #expect(h.fold.allTimelines().map(\.userId).sorted() == ["new", "stays"])
        #expect(h.fold.userCount == 2)
    }
}
