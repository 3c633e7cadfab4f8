import Domain
import Testing

/// Multi-leg trips (Radar's trip legs): per-leg approaching and arrival, stops, leg commands.
@Suite struct TripLegTests {
    let o = World.center
    /// Three stops north of the start: a at 1 km, b at 2 km, c at 3 km.
    var geofences: [Geofence] {
        ["a", "b", "c"].enumerated().map { index, id in
            World.circle("stop", id, at: World.offset(o, north: Double(index + 1) * 1_000, east: 0), radius: 100)
        }
    }

    func leg(_ geofence: String, stop: Int, id: String = "") -> TripLeg {
        TripLeg(id: id, destinationGeofenceTag: "stop", destinationGeofenceExternalId: geofence, stopDuration: stop)
    }

    func command(_ kind: TripCommand.Kind, at seconds: Int64, _ configure: (inout TripOptions) -> Void) -> TripCommand {
        var options = TripOptions(externalId: "t1")
        configure(&options)
        return TripCommand(kind: kind, userId: "u1", createdAt: World.t0 + seconds * 1000, trip: options)
    }

    /// Fixes every 15 s from `from` to `to` meters north, 100 m apart; returns the time after the last.
    @discardableResult
    func drive(_ h: inout Harness, from: Double, to: Double, at start: Int64, replayed: Bool = false) -> Int64 {
        var t = start, north = from
        let step = to >= from ? 100.0 : -100.0
        while step > 0 ? north <= to : north >= to {
            h.send(World.fix(at: t, World.offset(o, north: north, east: 0), accuracy: 10, replayed: replayed))
            t += 15
            north += step
        }
        return t
    }

    /// Fixes every 15 s at `north` meters for `seconds`; returns the time after the last.
    @discardableResult
    func wait(_ h: inout Harness, at north: Double, from start: Int64, for seconds: Int64) -> Int64 {
        var t = start
        while t < start + seconds {
            h.send(World.fix(at: t, World.offset(o, north: north, east: 0), accuracy: 10))
            t += 15
        }
        return t
    }

    func legs(_ h: Harness) -> [TripLeg] { h.fold.state(of: "u1")?.trip?.snapshot.plan.legs ?? [] }

    @Test func eachLegArrivesAndIsDoneAfterItsStopThenTheTripCompletes() throws {
        var h = Harness(geofences)
        h.send(World.fix(at: 0, o, accuracy: 10))
        h.send(command(.start, at: 1) { $0.legs = [leg("a", stop: 2), leg("b", stop: 0)] })
        #expect(legs(h).map(\.id) == ["leg-1", "leg-2"])
        #expect(h.events(.startedTrip).first?.trip?.plan.destinationGeofenceExternalId == "a")

        var t = drive(&h, from: 100, to: 1_000, at: 15)
        let arrivedAtA = try #require(h.events(.arrivedAtTripDestination).first)
        #expect(arrivedAtA.trip?.plan.currentLeg?.id == "leg-1")
        t = wait(&h, at: 1_000, from: t, for: 180)  // the 2 min stop runs out meanwhile
        let done = legs(h)[0]
        #expect(done.status == .completed && done.arrivedAt == arrivedAtA.createdAt)
        let next = try #require(h.events(.updatedTrip).first { $0.trip?.plan.currentLeg?.id == "leg-2" })
        #expect(next.createdAt == arrivedAtA.createdAt + 120_000, "a stream-time timer, as dwell")
        #expect(next.trip?.status == .started && next.trip?.plan.destinationGeofenceExternalId == "b")

        drive(&h, from: 1_100, to: 2_000, at: t)
        let arrivals = h.events(.arrivedAtTripDestination)
        #expect(arrivals.count == 2 && Set(arrivals.map(\.id)).count == 2, "one arrival per leg, each its own _id")
        #expect(Set(h.events(.approachingTripDestination).map { $0.trip?.plan.currentLeg?.id }) == ["leg-1", "leg-2"])
        let stop = try #require(h.events(.stoppedTrip).first, "b has no stop: the last leg is done on arrival")
        #expect(stop.trip?.status == .completed && stop.createdAt == arrivals[1].createdAt)
        #expect(stop.trip?.plan.legs.map(\.status) == [.completed, .completed])
        #expect(stop.trip?.plan.currentLeg == nil)
    }

    @Test func leavingADestinationEndsTheStopEarly() throws {
        var h = Harness(geofences)
        h.send(World.fix(at: 0, o, accuracy: 10))
        h.send(command(.start, at: 1) { $0.legs = [leg("a", stop: 30), leg("c", stop: 5)] })
        let t = drive(&h, from: 100, to: 1_000, at: 15)
        #expect(legs(h)[0].status == .pending)
        drive(&h, from: 1_100, to: 1_400, at: t)  // out of a, past its hysteresis buffer
        #expect(legs(h)[0].status == .completed)
        #expect(h.fold.state(of: "u1")?.trip?.snapshot.plan.destinationGeofenceExternalId == "c")
    }

    @Test func commandsAddReorderSkipAndArrive() throws {
        var h = Harness(geofences)
        h.send(World.fix(at: 0, o, accuracy: 10))
        h.send(command(.start, at: 1) { $0.legs = [leg("a", stop: 5, id: "first"), leg("b", stop: 5)] })
        h.send(command(.addLegs, at: 2) { $0.legs = [leg("c", stop: 5)] })
        #expect(legs(h).map(\.id) == ["first", "leg-2", "leg-3"])

        h.send(command(.reorderLegs, at: 3) { $0.legIds = ["leg-3", "first", "leg-2"] })
        let trip = try #require(h.fold.state(of: "u1")?.trip)
        #expect(trip.snapshot.plan.legs.map(\.id) == ["leg-3", "first", "leg-2"])
        #expect(trip.snapshot.plan.destinationGeofenceExternalId == "c" && trip.snapshot.eta != nil)

        let rejected = PartitionFold.Result.rejected(
            .invalidTransition, detail: "the trip's current status does not allow the status this command asks for")
        #expect(h.send(command(.reorderLegs, at: 4) { $0.legIds = ["first", "leg-2"] }) == rejected)
        #expect(h.send(command(.addLegs, at: 5) { $0.legs = [leg("a", stop: 1, id: "first")] }) == rejected)
        #expect(h.send(command(.updateLeg, at: 6) { $0.legId = "first"; $0.status = .arrived }) == rejected)

        h.send(command(.updateLeg, at: 7) { $0.legId = "first"; $0.status = .canceled })  // skip a
        #expect(legs(h).map(\.status) == [.pending, .canceled, .pending])
        h.send(command(.updateLeg, at: 8) { $0.legId = "leg-3"; $0.status = .arrived })
        #expect(h.events(.arrivedAtTripDestination).last?.trip?.plan.currentLeg?.id == "leg-3")
        h.send(command(.updateLeg, at: 9) { $0.legId = "leg-3"; $0.status = .completed })
        #expect(h.fold.state(of: "u1")?.trip?.snapshot.plan.currentLeg?.id == "leg-2")
        h.send(command(.updateLeg, at: 10) { $0.legId = "leg-2"; $0.status = .canceled })  // the current, last leg
        let stop = try #require(h.events(.stoppedTrip).first)
        #expect(stop.trip?.status == .completed && stop.trip?.plan.legs.map(\.status) == [.completed, .canceled, .canceled])
    }

    @Test func aStoppedTripClosesItsLegs() throws {
        var settings = FoldSettings()
        settings.tripExpiry = 600_000
        var h = Harness(geofences, settings: settings)
        h.send(command(.start, at: 0) { $0.legs = [leg("a", stop: 5), leg("b", stop: 5)] })
        h.send(World.fix(at: 700, o, accuracy: 10))
        let stop = try #require(h.events(.stoppedTrip).first)
        #expect(stop.trip?.status == .expired && stop.trip?.plan.legs.map(\.status) == [.expired, .expired])
    }

    @Test func legCommandsNeedATripWithLegs() {
        var h = Harness(geofences)
        h.send(World.start(at: 0, tag: "stop", geofence: "a"))
        #expect(h.send(command(.addLegs, at: 1) { $0.legs = [leg("b", stop: 0)] }) != .accepted)
        #expect(h.fold.state(of: "u1")?.trip?.snapshot.plan.legs.isEmpty == true)
    }

    @Test func anOfflineBufferThatPassesThroughALegCorrectsTheTrip() throws {
        var h = Harness(geofences)
        h.send(World.fix(at: 0, o, accuracy: 10))
        h.send(command(.start, at: 1) { $0.legs = [leg("a", stop: 0), leg("b", stop: 0)] })
        drive(&h, from: 100, to: 600, at: 15)  // live up to 600 m: t = 15 … 90
        // Offline from 700 m to 1,500 m (through a); live again from 1,600 m on.
        drive(&h, from: 1_600, to: 1_700, at: 240)
        #expect(h.events(.arrivedAtTripDestination).isEmpty)
        #expect(legs(h).map(\.status) == [.pending, .pending])

        drive(&h, from: 700, to: 1_500, at: 105, replayed: true)
        let arrival = try #require(h.upserted().first { $0.type == .arrivedAtTripDestination })
        #expect(arrival.replayed && arrival.trip?.plan.currentLeg?.id == "leg-1")
        #expect(legs(h).map(\.status) == [.completed, .pending])
        // The live fixes after the buffer now head for b: republished as corrections.
        let corrected = h.published.filter { $0.revision == .corrected && $0.createdAt >= World.t0 + 240_000 }
        #expect(!corrected.isEmpty && corrected.allSatisfy { $0.trip?.plan.currentLeg?.id == "leg-2" })
    }
}
