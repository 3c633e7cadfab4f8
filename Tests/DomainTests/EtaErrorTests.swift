import Domain
import Testing

/// The trip summary's ETA error at 25/50/75 % of the way (`EtaMilestones`).
@Suite struct EtaErrorTests {
    let o = World.center
    let destination = World.circle("store", "g1", radius: 100)
    /// Meters north of the destination at the start, and closed in on every 30 s fix.
    let startNorth = 4_000.0, step = 240.0

    func north(_ fix: Int) -> Double { startNorth - Double(fix) * step }

    /// Fix `i` of the drive in: at `i` × 30 s, `north(i)` meters north of the destination.
    func driveFix(_ i: Int, replayed: Bool = false) -> Fix {
        World.fix(at: Int64(i) * 30, World.offset(o, north: north(i), east: 0), accuracy: 10, replayed: replayed)
    }

    /// The first fix at or inside `fraction` of the way left, over `fixes`.
    func milestoneFix(leaving fraction: Double, among fixes: [Int]) -> Int? {
        fixes.first { north($0) <= fraction * startNorth }
    }

    /// Actual minus predicted arrival (seconds) as the events of `h` show it at the fix at `seconds`.
    func error(in h: Harness, atFixSeconds seconds: Int64, arrival: UnixMillis) throws -> Int32 {
        let update = try #require(h.upserted().first {
            $0.type == .updatedTrip && $0.createdAt == World.t0 + seconds * 1000
        })
        let eta = try #require(update.trip?.eta)
        return Int32((arrival - (update.createdAt + Int64(eta.durationSeconds) * 1000)) / 1000)
    }

    func stop(in h: Harness) throws -> TripSnapshot {
        try #require(h.upserted().first { $0.type == .stoppedTrip }?.trip)
    }

    @Test func gradesTheEtaAtAQuarterHalfAndThreeQuartersOfTheWay() throws {
        var h = Harness([destination])
        h.send(driveFix(0))
        h.send(World.start(at: 1))
        let fixes = Array(1...17)
        for i in fixes { h.send(driveFix(i)) }
        h.send(World.command(.complete, at: 600))
        let trip = try stop(in: h)
        let arrival = try #require(trip.arrivedAt)
        let errors = try #require(trip.summary?.etaErrors)
        for (fraction, graded) in [(0.75, errors.quarter), (0.5, errors.half), (0.25, errors.threeQuarters)] {
            let fix = try #require(milestoneFix(leaving: fraction, among: fixes))
            #expect(graded == (try error(in: h, atFixSeconds: Int64(fix) * 30, arrival: arrival)))
        }
        // Each milestone was graded at its own fix: the three predictions differ.
        #expect(Set([errors.quarter, errors.half, errors.threeQuarters]).count == 3)
    }

    /// Beside each error, whether the arrival fell within the range the graded ETA gave.
    @Test func gradesTheRangeOfTheSameEtas() throws {
        var h = Harness([destination])
        h.send(driveFix(0))
        h.send(World.start(at: 1))
        let fixes = Array(1...17)
        for i in fixes { h.send(driveFix(i)) }
        h.send(World.command(.complete, at: 600))
        let trip = try stop(in: h)
        let arrival = try #require(trip.arrivedAt)
        let inRange = try #require(trip.summary?.etaErrors).inRange
        for (fraction, graded) in [(0.75, inRange.quarter), (0.5, inRange.half), (0.25, inRange.threeQuarters)] {
            let fix = try #require(milestoneFix(leaving: fraction, among: fixes))
            let update = try #require(h.upserted().first {
                $0.type == .updatedTrip && $0.createdAt == World.t0 + Int64(fix) * 30_000
            })
            let eta = try #require(update.trip?.eta)
            #expect(eta.durationLowSeconds < eta.durationSeconds && eta.durationSeconds < eta.durationHighSeconds)
            let low = update.createdAt + Int64(eta.durationLowSeconds) * 1000
            let high = update.createdAt + Int64(eta.durationHighSeconds) * 1000
            #expect(graded == (arrival >= low && arrival <= high))
        }
    }

    @Test func aTripThatNeverArrivesHasNoErrors() throws {
        var h = Harness([destination])
        h.send(driveFix(0))
        h.send(World.start(at: 1))
        for i in 1...12 { h.send(driveFix(i)) }
        h.send(World.command(.cancel, at: 400))
        let trip = try stop(in: h)
        #expect(trip.arrivedAt == nil)
        #expect(trip.summary?.etaErrors == EtaErrors())
    }

    @Test func aNewDestinationStartsTheWayAgain() throws {
        var h = Harness([destination, World.circle("store", "g2", at: World.offset(o, north: -1_000, east: 0))])
        h.send(driveFix(0))
        h.send(World.start(at: 1))
        for i in 1...9 { h.send(driveFix(i)) }  // past half the way to g1
        h.send(TripCommand(kind: .update, userId: "u1", createdAt: World.t0 + 271_000,
                           trip: TripOptions(externalId: "t1", destinationGeofenceTag: "store",
                                             destinationGeofenceExternalId: "g2")))
        for i in 10...21 { h.send(driveFix(i)) }
        h.send(World.command(.complete, at: 900))
        let trip = try stop(in: h)
        let arrival = try #require(trip.arrivedAt)
        let errors = try #require(trip.summary?.etaErrors)
        // The way to g2 is measured from the update's ETA, from fix 9: 1,840 + 1,000 m.
        let way = north(9) + 1_000
        let quarter = try #require((10...21).first { north($0) + 1_000 <= 0.75 * way })
        #expect(errors.quarter == (try error(in: h, atFixSeconds: Int64(quarter) * 30, arrival: arrival)))
        #expect(errors.threeQuarters != nil)
    }

    @Test func anOfflineBufferCorrectsTheGradedStop() throws {
        var h = Harness([destination])
        h.send(driveFix(0))
        h.send(World.start(at: 1))
        let live = [1, 2, 3] + Array(11...17)  // offline from fix 4 to fix 10
        for i in live { h.send(driveFix(i)) }
        h.send(World.command(.complete, at: 600))
        let before = try stop(in: h)
        let liveQuarter = try #require(milestoneFix(leaving: 0.75, among: live))
        #expect(liveQuarter == 11)
        #expect(before.summary?.etaErrors.quarter
            == (try error(in: h, atFixSeconds: Int64(liveQuarter) * 30, arrival: before.arrivedAt!)))

        for i in 4...10 { h.send(driveFix(i, replayed: true)) }
        let stops = h.published.filter { $0.type == .stoppedTrip }
        #expect(stops.count >= 2 && stops.last?.revision == .corrected && stops.last?.id == stops.first?.id)
        let after = try stop(in: h)
        let quarter = try #require(milestoneFix(leaving: 0.75, among: Array(1...17)))
        #expect(after.summary?.etaErrors.quarter
            == (try error(in: h, atFixSeconds: Int64(quarter) * 30, arrival: after.arrivedAt!)))
        #expect(after.summary?.etaErrors != before.summary?.etaErrors)
    }
}
