import Domain
import Testing

/// The per-fix shortcuts of the fold (user lookup by a word-wise hash, fix extras kept by identity
/// in the tail) change nothing the fold yields.
@Suite struct FoldHotPathTests {
    static let o = World.center

    /// Ids of every length from 1 to 40 bytes, non-ASCII ones, and ids equal in their first eight or
    /// sixteen bytes: each user finds their own state again.
    @Test func usersWithIdsOfEveryLengthKeepTheirOwnState() {
        var ids: [String] = (1...40).map { String(repeating: "x", count: $0) }
        ids += (0..<50).map { "driver-000000000\($0)" }  // same first 16 bytes
        ids += (0..<20).map { "abcdefgh\($0)" }  // same first 8 bytes
        ids += ["ü", "üü", "司机-1", "司机-2", "🚕🚕🚕🚕🚕", "🚕🚕🚕🚕🚖"]
        var h = Harness([])
        for (index, id) in ids.enumerated() {
            h.send(Fix(userId: id, createdAt: World.t0 + Int64(index) * 1000,
                       position: World.offset(Self.o, north: Double(index) * 10, east: 0)))
        }
        #expect(h.fold.userCount == ids.count)
        for (index, id) in ids.enumerated() {
            #expect(h.fold.state(of: id)?.location == World.offset(Self.o, north: Double(index) * 10, east: 0), "\(id)")
        }
        #expect(h.fold.state(of: "driver-0000000050") == nil)
        #expect(h.fold.state(of: "🚕🚕🚕🚕") == nil)
    }

    /// Device ids that repeat and change, with a late fix placed among them: the refold
    /// from the tail gives each fix the extras it came with, as an in-order fold does.
    @Test func extrasThatRepeatAndChangeSurviveARefold() {
        let store = World.circle("store", "g1", at: World.offset(Self.o, north: 2_000, east: 0), radius: 150)
        // (seconds, device, meters north): "a", then "b" (which enters the store), then none.
        let sent: [(Int64, String?, Double)] = [
            (0, "a", 0), (60, "a", 100), (120, "b", 400), (180, "b", 900), (240, "b", 2_000), (300, nil, 2_010),
        ]
        let late: (Int64, String?, Double) = (150, "c", 650)
        func fix(_ input: (Int64, String?, Double)) -> Fix {
            Fix(userId: "u1", createdAt: World.t0 + input.0 * 1000,
                position: World.offset(Self.o, north: input.2, east: 0), deviceId: input.1,
                metadata: input.1.map { RawJSON("{\"device\":\"\($0)\"}") })
        }
        var shuffled = Harness([store])
        for input in sent { shuffled.send(fix(input)) }
        shuffled.send(fix(late))
        var ordered = Harness([store])
        for input in (sent + [late]).sorted(by: { $0.0 < $1.0 }) { ordered.send(fix(input)) }

        #expect(shuffled.fold.state(of: "u1")?.deviceId == "b")
        #expect(shuffled.fold.state(of: "u1")?.metadata == RawJSON("{\"device\":\"b\"}"))
        #expect(shuffled.fold.state(of: "u1") == ordered.fold.state(of: "u1"))
        let entered = shuffled.upserted().filter { $0.type == .enteredGeofence }
        #expect(entered.map(\.deviceId) == ["b"])
        #expect(shuffled.upserted().map(\.deviceId) == ordered.upserted().map(\.deviceId))
    }

    /// The partition keeps one fold context for all its steps, aimed at each in place: every step
    /// still folds with the table it is given, whether the table changes within a batch (another
    /// table for the next fix), between batches, or stays the same, and the user's id in the events
    /// is the user's of that step.
    @Test func everyStepFoldsWithTheTableAndUserItIsGiven() {
        let store = World.circle("store", "g1", at: Self.o, radius: 150)
        let depot = World.circle("depot", "g2", at: World.offset(Self.o, north: 2_000, east: 0), radius: 150)
        let withStore = GeofenceTable([store])
        var withBoth = withStore
        withBoth.upsert(depot)
        var fold = PartitionFold()
        var events: [Event] = []
        func send(_ user: String, _ seconds: Int64, north: Double, _ table: GeofenceTable) {
            let fix = World.fix(user, at: seconds, World.offset(Self.o, north: north, east: 0), accuracy: 10)
            _ = fold.process(fix, geofences: table, processingTime: fix.createdAt, events: &events)
        }
        send("u1", 0, north: 0, withStore)  // enters the store
        send("u2", 1, north: 2_000, withStore)  // the depot is not in this table
        send("u2", 2, north: 2_000, withBoth)  // another table within the batch: enters the depot
        fold.settle(geofences: withBoth, processingTime: World.t0 + 2_000, events: &events)
        var changed = withBoth
        changed.remove(store.id)  // between batches: the store is gone, u1's visit ends
        send("u1", 3, north: 0, changed)
        send("u3", 4, north: 0, changed)  // the same table again: nothing to enter
        #expect(events.map { "\($0.userId) \($0.type) \($0.geofence?.externalId ?? "")" } == [
            "u1 enteredGeofence g1", "u2 enteredGeofence g2", "u1 exitedGeofence g1",
        ])
        // The caller's table, changed after the batches, is not the table the fold had folded with.
        #expect(withStore.count == 1 && withBoth.count == 2 && changed.count == 1)
    }

    /// An event's `_id` is the stable hash of user, type, geofence and visit, whether the context
    /// hashed its user id on creation or again when the id was changed (the fold starts every event
    /// id from that hash instead of hashing the id per event).
    @Test func eventIdsStartFromTheUserIdOfTheContext() {
        let store = World.circle("store", "g1", at: Self.o, radius: 150)
        let table = GeofenceTable([store])
        var renamed = FoldContext(userId: "someone-else", geofences: table, settings: FoldSettings(), replayed: false)
        renamed.userId = "u1"
        let fresh = FoldContext(userId: "u1", geofences: table, settings: FoldSettings(), replayed: false)
        var expected = StableHasher()
        expected.combine("u1")
        expected.combine(EventType.enteredGeofence.rawValue)
        expected.combine(store.id.rawValue)
        EventOrdinal(day: EventOrdinal.day(of: World.t0), count: 1).combine(into: &expected)  // the first visit of g1 that day
        for context in [fresh, renamed] {
            var state = UserState()
            var events: [Event] = []
            let input = TimelineInput(fix: World.fix(at: 0, Self.o, accuracy: 10), extras: nil)
            _ = state.fold(input, context: context, events: &events)
            #expect(events.map(\.type) == [.enteredGeofence])
            #expect(events.first?.id == EventID(hashing: expected))
            #expect(events.first?.userId == "u1")
        }
    }

    /// A `user.updated_trip` event's `_id` is the stable hash of user, type, trip, ordinal (the start
    /// among that user's starts of the externalId that day), time and source,
    /// and a `user.started_trip`'s of user, type, trip and ordinal, though the fold hashes those once a
    /// trip and type (`TripBox.idHasher`): for every
    /// fix of two trips of one user, the second with the first's externalId, and for a second user
    /// on a trip of that name. Fails if the kept hash outlives its trip or skips a part.
    @Test func updatedTripIdsHashUserTripOrdinalAndTime() {
        var h = Harness([World.circle("store", "g1", at: Self.o, radius: 100)])
        func expectedID(_ user: String, ordinal: UInt32, at seconds: Int64) -> EventID {
            var expected = StableHasher()
            expected.combine(user)
            expected.combine(EventType.updatedTrip.rawValue)
            expected.combine("t1")
            EventOrdinal(day: EventOrdinal.day(of: World.t0), count: ordinal).combine(into: &expected)
            expected.combine(World.t0 + seconds * 1000)
            expected.combine(UInt8(0))  // from a fix (1: from an update command)
            return EventID(hashing: expected)
        }
        func startedID(_ user: String, ordinal: UInt32) -> EventID {
            var expected = StableHasher()
            expected.combine(user)
            expected.combine(EventType.startedTrip.rawValue)
            expected.combine("t1")
            EventOrdinal(day: EventOrdinal.day(of: World.t0), count: ordinal).combine(into: &expected)
            return EventID(hashing: expected)
        }
        var expected: [EventID] = []
        var expectedStarts: [EventID] = []
        for (user, ordinal, start) in [("u1", UInt32(1), Int64(0)), ("u1", 2, 200), ("u2", 1, 0)] {
            h.send(World.start(user, at: start))
            expectedStarts.append(startedID(user, ordinal: ordinal))
            for step in 1...4 {
                let at = start + Int64(step) * 15
                h.send(World.fix(user, at: at, World.offset(Self.o, north: 3_000 - Double(step) * 150, east: 0)))
                expected.append(expectedID(user, ordinal: ordinal, at: at))
            }
            h.send(World.command(.complete, user, at: start + 100))
        }
        let ids = h.events(.updatedTrip).map(\.id)
        #expect(ids.count == expected.count)
        #expect(Set(ids) == Set(expected))
        #expect(h.events(.startedTrip).map(\.id) == expectedStarts)
    }
}
