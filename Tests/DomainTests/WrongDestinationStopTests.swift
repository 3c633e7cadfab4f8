import Domain
import Testing

/// `user.arrived_at_wrong_trip_destination` under the default rule (`WrongDestinationRule.stop`): a stop
/// of `stopDuration` inside a geofence with the destination's tag but another externalId, once a stop
/// and once a visit, while the trip is on its way.
@Suite struct WrongDestinationStopTests {
    let o = World.center
    var destination: Geofence { World.circle("store", "g1", at: north(5_000)) }

    func north(_ meters: Double) -> Coordinate { World.offset(o, north: meters, east: 0) }

    /// Fixes every 10 s standing at `position` for `seconds`, from `start`.
    func stand(at position: Coordinate, from start: Int64, seconds: Int64, user: String = "u1") -> [Fix] {
        stride(from: start, through: start + seconds, by: 10).map { World.fix(user, at: $0, position) }
    }

    func start(at seconds: Int64, rule: WrongDestinationRule? = nil) -> TripCommand {
        var command = World.start(at: seconds)
        command.trip.wrongDestination = rule
        return command
    }

    /// The user comes from 1 km south at 300 s, then stands `seconds` inside store g2 (at the origin).
    func visitWrongStore(_ h: inout Harness, standing seconds: Int64, rule: WrongDestinationRule? = nil) {
        h.send(World.fix(at: 0, north(-1_000)))
        h.send(start(at: 1, rule: rule))
        h.send(World.fix(at: 290, north(-200)))
        for fix in stand(at: o, from: 300, seconds: seconds) { h.send(fix) }
        h.send(World.fix(at: 310 + seconds, north(1_000)))
    }

    @Test func aStopFiresOnceWhenConfirmedAndAnEntryAloneNever() {
        var h = Harness([destination, World.circle("store", "g2")])
        visitWrongStore(&h, standing: 100)  // shorter than the 2-minute stop
        #expect(h.events(.enteredGeofence).count == 1 && h.events(.arrivedAtWrongTripDestination).isEmpty)

        var stopped = Harness([destination, World.circle("store", "g2")])
        visitWrongStore(&stopped, standing: 300)
        let wrong = stopped.events(.arrivedAtWrongTripDestination)
        #expect(wrong.count == 1)
        // The stop began with the first standing fix after arriving (310 s: the fix at 300 s still moved).
        #expect(wrong.first?.createdAt == World.t0 + 310_000 + FoldSettings().stopDuration)
        #expect(wrong.first?.geofence?.externalId == "g2")
    }

    @Test func theRuleIsSetGloballyAndPerTrip() {
        let geofences = [destination, World.circle("store", "g2")]
        var entryTrip = Harness(geofences)
        visitWrongStore(&entryTrip, standing: 30, rule: .entry)
        #expect(entryTrip.events(.arrivedAtWrongTripDestination).map(\.createdAt) == [World.t0 + 300_000])

        var offTrip = Harness(geofences)
        visitWrongStore(&offTrip, standing: 600, rule: .off)
        #expect(offTrip.events(.arrivedAtWrongTripDestination).isEmpty)

        var entryService = FoldSettings()
        entryService.wrongDestination = .entry
        var byService = Harness(geofences, settings: entryService)
        visitWrongStore(&byService, standing: 30)
        #expect(byService.events(.arrivedAtWrongTripDestination).count == 1)
        var stopTrip = Harness(geofences, settings: entryService)
        visitWrongStore(&stopTrip, standing: 30, rule: .stop)
        #expect(stopTrip.events(.arrivedAtWrongTripDestination).isEmpty)
    }

    @Test func oneStopAmongOverlappingStoresNamesTheOneItIsDeepestIn() {
        // Three stores of the chain overlap where the user stops (a station's forecourt).
        let geofences = [destination, World.circle("store", "near", at: World.offset(o, north: 20, east: 0)),
                         World.circle("store", "far", at: World.offset(o, north: 80, east: 0)),
                         World.circle("store", "side", at: World.offset(o, north: 0, east: 70))]
        var h = Harness(geofences)
        visitWrongStore(&h, standing: 600)
        #expect(h.events(.arrivedAtWrongTripDestination).map { $0.geofence?.externalId } == ["near"])
    }

    @Test func aSecondStopInTheSameVisitIsNotNewsButAnotherVisitIs() {
        var h = Harness([destination, World.circle("store", "g2")])
        h.send(World.fix(at: 0, north(-1_000)))
        h.send(World.start(at: 1))
        h.send(World.fix(at: 290, north(-200)))
        for fix in stand(at: o, from: 300, seconds: 200) { h.send(fix) }
        h.send(World.fix(at: 520, World.offset(o, north: 50, east: 0)))  // moves within the store
        for fix in stand(at: World.offset(o, north: 50, east: 0), from: 530, seconds: 200) { h.send(fix) }
        #expect(h.events(.arrivedAtWrongTripDestination).count == 1)
        h.send(World.fix(at: 800, north(-1_000)))  // leaves, comes back, stops again: a new visit
        h.send(World.fix(at: 890, north(-100)))
        for fix in stand(at: o, from: 900, seconds: 200) { h.send(fix) }
        let wrong = h.events(.arrivedAtWrongTripDestination)
        #expect(wrong.count == 2 && Set(wrong.map(\.id)).count == 2)
    }

    @Test func notWhereTheTripStartsNorAfterItArrived() {
        // Loading at the chain's store g2 when the trip starts: its origin, not a wrong destination.
        var origin = Harness([destination, World.circle("store", "g2")])
        for fix in stand(at: o, from: 0, seconds: 60) { origin.send(fix) }
        origin.send(World.start(at: 61))
        for fix in stand(at: o, from: 70, seconds: 600) { origin.send(fix) }
        #expect(origin.events(.arrivedAtWrongTripDestination).isEmpty)

        // Arrived at g1; g3 of the chain overlaps it: standing there is standing at the destination. Then
        // the courier drives on and stops at g4 with the trip arrived (never completed): no news either.
        let g1 = World.circle("store", "g1", at: north(1_000))
        var arrived = Harness([g1, World.circle("store", "g3", at: north(1_060)),
                               World.circle("store", "g4", at: north(3_000))])
        arrived.send(World.fix(at: 0, o))
        arrived.send(World.start(at: 1))
        arrived.send(World.fix(at: 100, north(900)))
        for fix in stand(at: north(1_030), from: 110, seconds: 600) { arrived.send(fix) }
        for fix in stand(at: north(3_000), from: 900, seconds: 600) { arrived.send(fix) }
        #expect(arrived.events(.arrivedAtTripDestination).count == 1)
        #expect(arrived.events(.arrivedAtWrongTripDestination).isEmpty)
    }

    @Test func aBufferThatRevealsTheStopGivesTheEventOfTheEventTimeFold() {
        let geofences = [destination, World.circle("store", "g2")]
        var inOrder = Harness(geofences)
        visitWrongStore(&inOrder, standing: 300)
        // The same inputs, the stop's fixes held in the device's buffer until it left the store.
        var late = Harness(geofences)
        late.send(World.fix(at: 0, north(-1_000)))
        late.send(start(at: 1))
        late.send(World.fix(at: 290, north(-200)))
        late.send(World.fix(at: 610, north(1_000)))
        #expect(late.events(.arrivedAtWrongTripDestination).isEmpty)
        for fix in stand(at: o, from: 300, seconds: 300) {
            late.send(Fix(userId: fix.userId, createdAt: fix.createdAt, position: fix.position, replayed: true))
        }
        let upserted = late.upserted().filter { $0.type == .arrivedAtWrongTripDestination }
        #expect(upserted.count == 1 && upserted.first?.replayed == true)
        #expect(upserted.map(\.id) == inOrder.upserted().filter { $0.type == .arrivedAtWrongTripDestination }.map(\.id))
        #expect(upserted.map(\.createdAt) == inOrder.events(.arrivedAtWrongTripDestination).map(\.createdAt))
    }
}
