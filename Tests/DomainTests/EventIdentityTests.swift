import Domain
import Testing

/// An event's `_id` names it by user, type, its geofence or trip and its place among that geofence's
/// or trip's own events that day: a late input republishes only the events it changes.
@Suite struct EventIdentityTests {
    static let o = World.center
    /// Two stores 3 km apart on one road, the second north of the first.
    static let first = World.circle("store", "g1", at: o, radius: 150)
    static let second = World.circle("store", "g2", at: World.offset(o, north: 3_000, east: 0), radius: 150)

    /// A courier 2 km south at 0 s, through g1 at 120–240 s, between the stores at 400 s, through g2 at
    /// 600–720 s and past it at 900 s.
    static func ride(_ user: String, replayedPart: Bool) -> (live: [Fix], buffer: [Fix]) {
        func at(_ seconds: Int64, north: Double, replayed: Bool = false) -> Fix {
            World.fix(user, at: seconds, World.offset(o, north: north, east: 0), accuracy: 10, replayed: replayed)
        }
        let buffer = [at(120, north: 0, replayed: replayedPart), at(180, north: 10, replayed: replayedPart),
                      at(240, north: 20, replayed: replayedPart)]
        let live = [at(0, north: -2_000), at(400, north: 1_500), at(600, north: 3_000), at(660, north: 3_010),
                    at(720, north: 3_020), at(900, north: 4_500)]
        return (live, buffer)
    }

    @Test func aLateVisitToOneGeofenceLeavesAnothersEventsAlone() {
        var late = Harness([Self.first, Self.second])
        var users: [String] = []
        for index in 0..<20 {
            let user = "courier-\(index)"
            users.append(user)
            for fix in Self.ride(user, replayedPart: true).live { late.send(fix) }
        }
        let beforeBuffers = late.published
        #expect(beforeBuffers.filter { $0.geofence?.externalId == "g2" }.count == 40, "an entry and an exit each")
        for user in users {
            for fix in Self.ride(user, replayedPart: true).buffer { late.send(fix) }
        }
        let corrections = late.published.dropFirst(beforeBuffers.count)
        // g1's visits are new: an entry and an exit per courier; nothing of g2 is republished.
        #expect(corrections.count == 40)
        #expect(corrections.allSatisfy { $0.geofence?.externalId == "g1" && $0.revision == .original && $0.replayed })
        #expect(!corrections.contains { $0.revision == .retracted })

        // And the upserted result is the event-time fold's.
        var inOrder = Harness([Self.first, Self.second])
        for user in users {
            let ride = Self.ride(user, replayedPart: false)
            for fix in (ride.live + ride.buffer).sorted(by: { $0.createdAt < $1.createdAt }) { inOrder.send(fix) }
        }
        #expect(Self.upserted(late.published) == Self.upserted(inOrder.published))
    }

    /// A trip's events keep their ids when a late command adds an earlier trip of another externalId.
    @Test func aLateEarlierTripLeavesALaterTripsEventsAlone() {
        let far = World.offset(Self.o, north: -5_000, east: 0)
        var h = Harness([Self.first])
        h.send(World.start(at: 1_000, trip: "b"))
        h.send(World.fix(at: 1_060, far, accuracy: 10))
        h.send(World.fix(at: 1_120, World.offset(Self.o, north: -4_000, east: 0), accuracy: 10))
        let tripB = h.published.filter { $0.trip?.plan.externalId == "b" }
        #expect(!tripB.isEmpty)
        let published = h.published.count
        // Trip "a", started and completed before "b", arrives late.
        h.send(World.start(at: 100, trip: "a"))
        h.send(World.command(.complete, at: 200, trip: "a"))
        let corrections = h.published.dropFirst(published)
        #expect(corrections.contains { $0.type == .startedTrip && $0.trip?.plan.externalId == "a" })
        #expect(!corrections.contains { $0.trip?.plan.externalId == "b" },
                "b's events: \(corrections.filter { $0.trip?.plan.externalId == "b" }.map { "\($0.type) \($0.revision)" })")
    }

    /// Repeated visits of a geofence on one day, and visits on later days, each have their own ids;
    /// only the current day's counts are kept.
    @Test func visitsAreNumberedPerGeofenceAndDay() {
        var h = Harness([Self.first, Self.second])
        let away = World.offset(Self.o, north: 1_500, east: 0)
        let day: Int64 = 86_400
        var seconds: Int64 = 0
        for (offset, place) in [(0, Self.o), (60, away), (120, Self.o), (180, away), (day, Self.o), (day + 60, away),
                                (2 * day, Self.o)] as [(Int64, Coordinate)]
        {
            seconds = offset
            h.send(World.fix(at: seconds, place, accuracy: 10))
        }
        let entries = h.events(.enteredGeofence)
        #expect(entries.count == 4)
        #expect(Set(entries.map(\.id)).count == 4)
        let ordinals = h.fold.state(of: "u1")!.ordinals.counts
        #expect(ordinals.map(\.day).allSatisfy { $0 >= EventOrdinal.day(of: World.t0 + seconds * 1000) - 1 },
                "counts of days before yesterday are dropped: \(ordinals)")
        #expect(ordinals.count == 2, "g1 yesterday and today")
    }

    @Test func ordinalsCountPerKeyAndDay() {
        var ordinals = EventOrdinals()
        let g1 = EventOrdinals.Key.visits(of: Self.first.id), g2 = EventOrdinals.Key.visits(of: Self.second.id)
        let trip = EventOrdinals.Key.starts(ofTrip: "g1")
        let day0 = World.t0, hour: UnixMillis = 3_600_000
        #expect(ordinals.next(g1, at: day0).count == 1)
        #expect(ordinals.next(g2, at: day0 + hour).count == 1)
        #expect(ordinals.next(g1, at: day0 + 2 * hour).count == 2)
        #expect(ordinals.next(trip, at: day0 + 2 * hour).count == 1, "a trip is counted apart from a geofence")
        let tomorrow = ordinals.next(g1, at: day0 + 24 * hour)
        #expect(tomorrow.count == 1 && tomorrow.day == EventOrdinal.day(of: day0) + 1)
        #expect(ordinals.counts.count == 4, "yesterday's counts are kept a day")
        _ = ordinals.next(g2, at: day0 + 48 * hour)
        #expect(ordinals.counts.map(\.day) == [EventOrdinal.day(of: day0) + 1, EventOrdinal.day(of: day0) + 2])
        #expect(EventOrdinal.day(of: -1) == -1 && EventOrdinal.day(of: 0) == 0 && EventOrdinal.day(of: 86_399_999) == 0)
    }

    /// Events by `_id`, retractions removed, the last revision kept; `actualCreatedAt`-like fields ignored.
    static func upserted(_ events: [Event]) -> [String] {
        var byID: [EventID: Event] = [:]
        for event in events {
            if event.revision == .retracted { byID[event.id] = nil } else { byID[event.id] = event }
        }
        return byID.values.sorted { $0.id < $1.id }.map {
            "\($0.id.hexString) \($0.type) \($0.userId) \($0.createdAt) \($0.geofence?.externalId ?? "-")"
        }
    }
}
