import Domain
import Testing

@Suite struct TripFoldTests {
    let o = World.center
    let destination = World.circle("store", "g1", radius: 100)

    /// A drive north→south towards the destination, one fix every 15 s at ~10 m/s.
    func drive(_ h: inout Harness, from north: Double, startAt: Int64 = 0, until stop: Double = 0) {
        var t = startAt
        var n = north
        while n > stop {
            h.send(World.fix(at: t, World.offset(o, north: n, east: 0)))
            t += 15
            n -= 150
        }
        h.send(World.fix(at: t, World.offset(o, north: stop, east: 0)))
    }

    @Test func fullLifecycleFiresEachTransitionOnce() {
        var h = Harness([destination])
        h.send(World.fix(at: -5, World.offset(o, north: 3_000, east: 0)))
        h.send(World.start(at: 0, threshold: 2))
        drive(&h, from: 3_000, startAt: 15)
        h.send(World.fix(at: 2_000, o))
        h.send(World.command(.complete, at: 2_100))
        let types = h.types()
        for once: EventType in [.startedTrip, .approachingTripDestination, .arrivedAtTripDestination, .stoppedTrip] {
            #expect(types.filter { $0 == once }.count == 1, "\(once)")
        }
        #expect(types.first == .startedTrip)
        #expect(types.last == .stoppedTrip)
        let approach = types.firstIndex(of: .approachingTripDestination)!
        let arrive = types.firstIndex(of: .arrivedAtTripDestination)!
        #expect(approach < arrive)
        #expect(types.contains(.enteredGeofence))
        let updates = h.events(.updatedTrip)
        #expect(updates.count > 10)
        // ETA falls as the user closes in, and is zero once arrived.
        let etas = updates.compactMap { $0.trip?.eta?.durationSeconds }
        #expect(etas.first! > etas[etas.count / 2])
        #expect(h.events(.arrivedAtTripDestination)[0].trip?.eta == Eta(durationSeconds: 0, distanceMeters: 0))
        let stopped = h.events(.stoppedTrip)[0].trip!
        #expect(stopped.status == .completed)
        #expect(stopped.summary!.durationSeconds == 2_100)
        // ~2.9 km driven (3 km minus the last 100 m were not all inside) — no more, no less.
        #expect(abs(Int(stopped.summary!.distanceMeters) - 3_000) < 60)
        #expect(stopped.summary!.timeOnSiteSeconds != nil)
        #expect(h.fold.state(of: "u1")?.trip == nil)
    }

    @Test func etaUnitsAndDistanceAreSane() {
        var h = Harness([destination])
        h.send(World.fix(at: 0, World.offset(o, north: 2_100, east: 0)))
        h.send(World.start(at: 1))
        let eta = h.events(.startedTrip)[0].trip!.eta!
        // 2 km straight to the centre is ~2.7 km of road; √d model: e^1.85·√2100·0.9 ≈ 263 s.
        #expect(abs(Int(eta.distanceMeters) - 2_835) < 30)
        #expect(eta.durationSeconds > 200 && eta.durationSeconds < 330)
    }

    @Test func timeOnSiteRunsFromArrivalToExit() {
        var h = Harness([destination])
        h.send(World.start(at: 0))
        h.send(World.fix(at: 10, World.offset(o, north: 1_000, east: 0)))
        h.send(World.fix(at: 100, o))
        h.send(World.fix(at: 700, World.offset(o, north: 1_000, east: 0)))
        h.send(World.command(.complete, at: 900))
        #expect(h.events(.stoppedTrip)[0].trip?.summary?.timeOnSiteSeconds == 600)
    }

    @Test func cancelAndUnmatchedCommands() {
        var h = Harness([destination])
        h.send(World.command(.cancel, at: 0))
        #expect(h.published.isEmpty)
        h.send(World.start(at: 1))
        h.send(World.command(.complete, at: 2, trip: "other"))
        #expect(h.types() == [.startedTrip])
        h.send(World.command(.cancel, at: 3))
        #expect(h.events(.stoppedTrip).map { $0.trip?.status } == [.canceled])
        #expect(h.fold.counters.unmatchedCommands == 2)
    }

    @Test func startingAnotherTripCancelsTheActiveOne() {
        var h = Harness([destination])
        h.send(World.start(at: 0, trip: "a"))
        h.send(World.start(at: 5, trip: "b"))
        #expect(h.types() == [.startedTrip, .stoppedTrip, .startedTrip])
        #expect(h.published[1].trip?.plan.externalId == "a")
        #expect(h.published[1].trip?.status == .canceled)
        #expect(h.published[0].id != h.published[2].id)
    }

    @Test func updateCommandChangesThePlan() {
        var h = Harness([destination, World.circle("store", "g2", at: World.offset(o, north: 5_000, east: 0))])
        h.send(World.fix(at: 0, World.offset(o, north: 2_000, east: 0)))
        h.send(World.start(at: 1))
        var update = World.start(at: 2, geofence: "g2")
        update.kind = .update
        h.send(update)
        let updated = h.events(.updatedTrip).last!
        #expect(updated.trip?.plan.destinationGeofenceExternalId == "g2")
        #expect(updated.trip!.eta!.distanceMeters < h.events(.startedTrip)[0].trip!.eta!.distanceMeters + 3_000)
    }

    @Test func tripExpiresOnStreamTime() {
        var settings = FoldSettings()
        settings.tripExpiry = 3_600_000
        var h = Harness([destination], settings: settings)
        h.send(World.start(at: 0))
        h.send(World.fix("other", at: 3_700, World.offset(o, north: 9_000, east: 0)))
        let stopped = h.events(.stoppedTrip)
        #expect(stopped.count == 1)
        #expect(stopped[0].trip?.status == .expired)
        #expect(stopped[0].createdAt == World.t0 + 3_600_000)
    }

    @Test func delayIsDetectedOnceAgainstScheduledArrival() {
        var h = Harness([destination])
        h.send(World.fix(at: 0, World.offset(o, north: 8_000, east: 0)))
        h.send(World.start(at: 1, scheduled: 120))  // 8 km in 2 minutes: late
        for i in 1...5 { h.send(World.fix(at: Int64(i) * 15, World.offset(o, north: 8_000 - Double(i) * 100, east: 0))) }
        let delays = h.events(.delayedDuringTrip)
        #expect(delays.count == 1)
        #expect(delays[0].type.name == "user.delayed_during_trip")
        #expect(delays[0].trip?.delay?.delayed == true && (delays[0].trip?.delay?.minutes ?? 0) > 0)
        // Every trip event of a trip with scheduledArrivalAt carries trip.delay, updated as the ETA moves.
        let tripEvents = h.published.filter { $0.trip != nil }
        #expect(tripEvents.allSatisfy { $0.trip?.delay != nil })
        #expect(Set(h.events(.updatedTrip).compactMap { $0.trip?.delay?.minutes }).count > 1)
    }

    @Test func tripsWithoutScheduledArrivalHaveNoDelay() {
        var h = Harness([destination])
        h.send(World.start(at: 0))
        h.send(World.fix(at: 10, World.offset(o, north: 8_000, east: 0)))
        #expect(h.published.allSatisfy { $0.trip?.delay == nil })
    }

    @Test func delayThresholdFromTheTripOrTheSettings() {
        // 8 km by car from 1 s, due at 120 s: several minutes late, but within a 60-minute threshold.
        var h = Harness([destination])
        h.send(World.fix(at: 0, World.offset(o, north: 8_000, east: 0)))
        h.send(World.start(at: 1, scheduled: 120, delayThreshold: 60))
        h.send(World.fix(at: 15, World.offset(o, north: 7_900, east: 0)))
        #expect(h.events(.delayedDuringTrip).isEmpty)
        #expect(h.events(.updatedTrip).last?.trip?.delay?.delayed == false)
        #expect((h.events(.updatedTrip).last?.trip?.delay?.minutes ?? 0) > 0)
        #expect(h.events(.updatedTrip).last?.trip?.plan.delayThreshold == 60)

        var settings = FoldSettings()
        settings.defaultDelayThreshold = 60
        var quiet = Harness([destination], settings: settings)
        quiet.send(World.fix(at: 0, World.offset(o, north: 8_000, east: 0)))
        quiet.send(World.start(at: 1, scheduled: 120))
        quiet.send(World.fix(at: 15, World.offset(o, north: 7_900, east: 0)))
        #expect(quiet.events(.delayedDuringTrip).isEmpty)
        // The trip's own threshold wins over the default.
        quiet.send(World.start(at: 20, trip: "t2", scheduled: 120, delayThreshold: 0))
        #expect(quiet.events(.delayedDuringTrip).count == 1)
    }

    @Test func aTripThatRecoversAndSlipsAgainIsDelayedOnce() {
        var h = Harness([destination])
        h.send(World.fix(at: 0, World.offset(o, north: 8_000, east: 0)))
        h.send(World.start(at: 1, scheduled: 120))
        #expect(h.events(.delayedDuringTrip).count == 1)
        h.send(World.reschedule(at: 10, scheduled: 7_200))  // caught up: two hours to spare
        #expect(h.published.last?.trip?.delay == TripDelay(delayed: false, minutes: 0))
        h.send(World.reschedule(at: 20, scheduled: 120))  // slips again
        #expect(h.published.last?.trip?.delay?.delayed == true)
        #expect(h.events(.delayedDuringTrip).count == 1)
    }

    @Test func aLateRescheduleRetractsTheDelay() {
        var h = Harness([destination])
        h.send(World.start(at: 0, scheduled: 120))  // no location yet: not late
        h.send(World.fix(at: 15, World.offset(o, north: 8_000, east: 0)))
        h.send(World.fix(at: 30, World.offset(o, north: 7_900, east: 0)))
        let delay = h.events(.delayedDuringTrip)
        #expect(delay.count == 1 && delay[0].createdAt == World.t0 + 15_000)
        // Dispatch moved the appointment at 5 s; the command arrives late.
        h.send(World.reschedule(at: 5, scheduled: 7_200))
        let retracted = h.published.filter { $0.revision == .retracted }
        #expect(retracted.map(\.id) == [delay[0].id])
        #expect(retracted.allSatisfy { $0.replayed })
        let corrected = h.published.filter { $0.revision == .corrected }
        #expect(!corrected.isEmpty && corrected.allSatisfy { $0.type == .updatedTrip && $0.trip?.delay?.delayed == false })
        #expect(!h.upserted().contains { $0.type == .delayedDuringTrip })
    }

    @Test func risingEtaIsSignalled() {
        var h = Harness([destination])
        h.send(World.start(at: 0))
        for i in 0..<6 { h.send(World.fix(at: Int64(i) * 15, World.offset(o, north: 1_000 + Double(i) * 150, east: 0))) }
        #expect((h.events(.updatedTrip).last?.trip?.etaRisingStreak ?? 0) >= 4)
    }

    @Test func mileageIgnoresJumpsAndParkedJitter() {
        var h = Harness([World.circle("store", "g1", at: World.offset(o, north: 50_000, east: 0))])
        h.send(World.fix(at: 0, o))
        h.send(World.start(at: 1))
        var t: Int64 = 15
        for step in 1...20 {  // 2 km north
            h.send(World.fix(at: t, World.offset(o, north: Double(step) * 100, east: 0)))
            t += 15
            if step == 10 {  // a 2-fix excursion 6 km away and back
                h.send(World.fix(at: t, World.offset(o, north: 7_000, east: 0))); t += 15
                h.send(World.fix(at: t, World.offset(o, north: 7_050, east: 0))); t += 15
            }
        }
        for i in 0..<30 {  // parked, ±6 m jitter
            h.send(World.fix(at: t, World.offset(o, north: 2_000 + (i % 2 == 0 ? 6 : -6), east: 0)))
            t += 15
        }
        h.send(World.command(.complete, at: t))
        let meters = Int(h.events(.stoppedTrip)[0].trip!.summary!.distanceMeters)
        #expect(abs(meters - 2_000) < 30)
    }

    @Test func etaLearnsFromThisUsersArrivals() {
        var h = Harness([destination])
        var t: Int64 = 0
        for trip in 0..<3 {
            h.send(World.start(at: t, trip: "t\(trip)"))
            // A slow crawl: 2 km in 20 minutes, much slower than the prior expects.
            for i in 0...80 {
                h.send(World.fix(at: t + Int64(i) * 15, World.offset(o, north: 2_000 - Double(i) * 25, east: 0)))
            }
            h.send(World.command(.complete, at: t + 1_300, trip: "t\(trip)"))
            t += 2_000
        }
        let starts = h.events(.updatedTrip).filter { $0.trip?.eta?.distanceMeters ?? 0 > 2_500 }
        let first = starts.first { $0.trip?.plan.externalId == "t0" }!.trip!.eta!.durationSeconds
        let third = starts.first { $0.trip?.plan.externalId == "t2" }!.trip!.eta!.durationSeconds
        #expect(third > first)
        #expect(h.fold.state(of: "u1")!.etaLearning.observations > 0)
    }
}

extension PartitionFold.Result {
    func isRejected(_ reason: RejectionReason) -> Bool {
        if case let .rejected(r, _) = self { return r == reason }
        return false
    }
}
