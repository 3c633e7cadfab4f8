import Domain
import Testing

/// Radar's `pending` status and the update command's `status`; per-trip expiry.
@Suite struct TripStatusCommandTests {
    let o = World.center
    let destination = World.circle("store", "g1", radius: 100)

    func start(at seconds: Int64, status: TripStatus? = nil, expiresAfter: Int? = nil) -> TripCommand {
        var command = World.start(at: seconds)
        command.trip.status = status
        command.trip.expiresAfter = expiresAfter
        return command
    }

    func set(_ status: TripStatus, at seconds: Int64) -> TripCommand {
        TripCommand(kind: .update, userId: "u1", createdAt: World.t0 + seconds * 1000,
                    trip: TripOptions(externalId: "t1", status: status))
    }

    func tripEvents(_ h: Harness) -> [Event] { h.published.filter { $0.trip != nil } }

    @Test func aPendingTripIsSilentUntilAnUpdateStartsIt() throws {
        var h = Harness([destination])
        h.send(World.fix(at: 0, World.offset(o, north: 3_000, east: 0)))
        #expect(h.send(start(at: 10, status: .pending)) == .accepted)
        h.send(World.fix(at: 40, World.offset(o, north: 2_500, east: 0)))
        #expect(tripEvents(h).isEmpty)
        #expect(h.fold.state(of: "u1")?.trip?.snapshot.status == .pending)
        #expect(h.fold.state(of: "u1")?.trip?.snapshot.eta == nil, "no ETA while pending")

        h.send(set(.started, at: 60))
        let started = try #require(tripEvents(h).first)
        #expect(started.type == .startedTrip && started.trip?.status == .started)
        #expect(started.trip?.startedAt == World.t0 + 60_000, "the trip starts when it is started")
        #expect(started.trip?.eta != nil, "from the last fresh fix")
        h.send(World.fix(at: 90, World.offset(o, north: 2_000, east: 0)))
        #expect(h.events(.updatedTrip).last?.createdAt == World.t0 + 90_000, "tracked from then on")
    }

    @Test func aStartWithoutStatusStartsThePendingTrip() throws {
        var h = Harness([destination])
        h.send(start(at: 0, status: .pending))
        h.send(start(at: 30))
        let started = try #require(h.events(.startedTrip).first)
        #expect(started.trip?.startedAt == World.t0 + 30_000 && h.events(.startedTrip).count == 1)
        h.send(start(at: 60, status: .pending))  // the same trip, already started: it cannot go back
        #expect(h.fold.state(of: "u1")?.trip?.snapshot.status == .started)
        #expect(h.fold.counters.rejected[.invalidTransition] == 1)
    }

    @Test func anUpdateSetsApproachingArrivedAndCompleted() throws {
        var h = Harness([destination])
        h.send(World.fix(at: 0, World.offset(o, north: 5_000, east: 0)))
        h.send(start(at: 10))
        h.send(set(.approaching, at: 20))
        #expect(h.types().suffix(2) == [.updatedTrip, .approachingTripDestination])
        h.send(set(.arrived, at: 30))
        let arrived = try #require(h.events(.arrivedAtTripDestination).first)
        #expect(arrived.trip?.status == .arrived && arrived.trip?.arrivedAt == World.t0 + 30_000)
        #expect(arrived.trip?.eta == Eta(durationSeconds: 0, distanceMeters: 0))
        h.send(set(.completed, at: 40))
        let stop = try #require(h.events(.stoppedTrip).first)
        #expect(stop.trip?.status == .completed && stop.trip?.summary?.timeOnSiteSeconds == 10)
    }

    @Test func impossibleTransitionsAreDeadLetteredAndChangeNothing() {
        var h = Harness([destination])
        h.send(start(at: 0, status: .pending))
        #expect(h.send(set(.arrived, at: 10)) == .rejected(.invalidTransition,
            detail: "the trip's current status does not allow the status this command asks for"))
        #expect(h.fold.state(of: "u1")?.trip?.snapshot.status == .pending)
        h.send(set(.started, at: 20))
        h.send(set(.arrived, at: 30))
        let published = h.published.count
        for (status, seconds) in [(TripStatus.started, Int64(40)), (.approaching, 50)] {
            #expect(h.send(set(status, at: seconds)) == .rejected(.invalidTransition,
                detail: "the trip's current status does not allow the status this command asks for"))
        }
        #expect(h.published.count == published && h.fold.state(of: "u1")?.trip?.snapshot.status == .arrived)
        #expect(h.fold.counters.rejected[.invalidTransition] == 3)
    }

    @Test func aPendingTripCanBeCanceledAndExpires() throws {
        var h = Harness([destination])
        h.send(start(at: 0, status: .pending))
        h.send(set(.canceled, at: 30))
        let canceled = try #require(h.events(.stoppedTrip).first)
        #expect(canceled.trip?.status == .canceled && canceled.trip?.startedAt == World.t0)

        h.send(start(at: 100, status: .pending, expiresAfter: 10))
        h.send(World.fix(at: 700, World.offset(o, north: 3_000, east: 0)))
        let expired = try #require(h.events(.stoppedTrip).last)
        #expect(expired.trip?.status == .expired && expired.createdAt == World.t0 + 100_000 + 600_000)
    }

    @Test func expiryPerTripAndServiceWide() throws {
        var settings = FoldSettings()
        settings.tripExpiry = 20 * 60_000
        var h = Harness([destination], settings: settings)
        h.send(start(at: 0))
        h.send(World.fix(at: 1_500, World.offset(o, north: 3_000, east: 0)))
        #expect(h.events(.stoppedTrip).last?.createdAt == World.t0 + 1_200_000, "the service-wide default")
        h.send(start(at: 2_000, expiresAfter: 5))
        h.send(World.fix(at: 3_000, World.offset(o, north: 3_000, east: 0)))
        let stop = try #require(h.events(.stoppedTrip).last)
        #expect(stop.trip?.status == .expired && stop.createdAt == World.t0 + 2_300_000, "the trip's own")
        #expect(stop.trip?.plan.expiry == 300_000)
    }

    @Test func aLateStartOfThePendingTripMakesTheArrivalValid() throws {
        var h = Harness([destination])
        h.send(start(at: 0, status: .pending))
        #expect(h.send(set(.arrived, at: 300)) != .accepted)  // pending: cannot arrive
        #expect(h.events(.arrivedAtTripDestination).isEmpty)
        // The dispatcher's start, delivered late, goes before the arrival.
        h.send(set(.started, at: 100))
        let arrived = try #require(h.upserted().first { $0.type == .arrivedAtTripDestination })
        #expect(arrived.trip?.arrivedAt == World.t0 + 300_000 && arrived.replayed)
        #expect(h.upserted().contains { $0.type == .startedTrip && $0.createdAt == World.t0 + 100_000 })
    }

    @Test func aLateCancelRetractsAnArrivalSetByCommand() throws {
        var h = Harness([destination])
        h.send(start(at: 0))
        h.send(set(.arrived, at: 300))
        let arrived = try #require(h.events(.arrivedAtTripDestination).first)
        h.send(TripCommand(kind: .cancel, userId: "u1", createdAt: World.t0 + 200_000,
                           trip: TripOptions(externalId: "t1")))
        let retracted = h.published.filter { $0.revision == .retracted }
        #expect(retracted.contains { $0.id == arrived.id })
        #expect(!h.upserted().contains { $0.type == .arrivedAtTripDestination })
        #expect(h.upserted().first { $0.type == .stoppedTrip }?.trip?.status == .canceled)
    }
}
