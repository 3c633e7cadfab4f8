import Domain
import Testing

/// `user.arrived_at_wrong_trip_destination` under Radar's rule (`WrongDestinationRule.entry`): entering a
/// geofence with the destination's tag but another externalId, during a trip. The default rule, a stop,
/// is `WrongDestinationStopTests`'s.
@Suite struct WrongDestinationTests {
    let o = World.center
    var entryRule: FoldSettings {
        var settings = FoldSettings()
        settings.wrongDestination = .entry
        return settings
    }
    /// The destination, 5 km north; the wrong store is at the origin; a geofence of another tag beside it.
    var geofences: [Geofence] {
        [
            World.circle("store", "g1", at: World.offset(World.center, north: 5_000, east: 0)),
            World.circle("store", "g2"),
            World.circle("depot", "d1", at: World.offset(World.center, north: 0, east: 300)),
        ]
    }

    @Test func firesOnEnteringAnotherGeofenceOfTheDestinationsTag() {
        var h = Harness(geofences, settings: entryRule)
        h.send(World.fix(at: 0, World.offset(o, north: -1_000, east: 0)))
        h.send(World.start(at: 1, threshold: 1))
        h.send(World.fix(at: 60, o))  // the wrong store
        let wrong = h.events(.arrivedAtWrongTripDestination)
        #expect(wrong.count == 1)
        #expect(wrong.first?.type.name == "user.arrived_at_wrong_trip_destination")
        #expect(wrong.first?.geofence?.externalId == "g2" && wrong.first?.trip?.plan.externalId == "t1")
        #expect(wrong.first?.trip?.status == .started)
        // After the entry and the trip update of the same fix.
        #expect(h.types().suffix(3) == [.enteredGeofence, .updatedTrip, .arrivedAtWrongTripDestination])
        h.send(World.fix(at: 90, World.offset(o, north: 0, east: 300)))  // another tag: nothing
        h.send(World.fix(at: 500, World.offset(o, north: 5_000, east: 0)))  // the right one
        #expect(h.events(.arrivedAtWrongTripDestination).count == 1)
        #expect(h.events(.arrivedAtTripDestination).count == 1)
    }

    @Test func eachVisitHasItsOwnIdAndNoTripNoEvent() {
        var h = Harness(geofences, settings: entryRule)
        h.send(World.fix(at: 0, o))  // inside the wrong store before any trip: nothing
        h.send(World.start(at: 1))
        h.send(World.fix(at: 60, World.offset(o, north: -1_000, east: 0)))
        h.send(World.fix(at: 120, o))
        h.send(World.fix(at: 180, World.offset(o, north: -1_000, east: 0)))
        h.send(World.fix(at: 240, o))
        let wrong = h.events(.arrivedAtWrongTripDestination)
        #expect(wrong.count == 2)
        #expect(Set(wrong.map(\.id)).count == 2)
        #expect(wrong.map(\.createdAt) == [World.t0 + 120_000, World.t0 + 240_000])
    }

    @Test func anOfflineReplayRetractsAWrongArrival() {
        var h = Harness(geofences, settings: entryRule)
        h.send(World.fix(at: 0, World.offset(o, north: -1_000, east: 0)))
        h.send(World.start(at: 1))
        h.send(World.fix(at: 120, o))
        let wrong = h.events(.arrivedAtWrongTripDestination)
        #expect(wrong.count == 1)
        // The buffered fixes show the user was already at the wrong store at 60 s: the entry (and
        // so the visit the event's id names) happened then.
        h.send(World.fix(at: 60, o, replayed: true))
        let republished = h.published.filter { $0.revision != .original && $0.type == .arrivedAtWrongTripDestination }
        #expect(!republished.isEmpty)
        #expect(republished.allSatisfy { $0.replayed })
        let upserted = h.upserted().filter { $0.type == .arrivedAtWrongTripDestination }
        #expect(upserted.count == 1 && upserted.first?.createdAt == World.t0 + 60_000)
        // And a trip canceled (late command) before the entry leaves none.
        h.send(World.command(.cancel, at: 30))
        #expect(!h.upserted().contains { $0.type == .arrivedAtWrongTripDestination })
    }
}
