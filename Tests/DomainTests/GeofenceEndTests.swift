import Domain
import Testing

/// Geofences that go away while users are inside: deleted or disabled on the geofence topic (the
/// visit ends at the user's next fix after the change), or past `disableAfter` / `deleteAfter`
/// (a stream-time timer at that instant). The exit says why (`exitReason`).
@Suite struct GeofenceEndTests {
    let o = World.center
    let far = World.offset(World.center, north: 5_000, east: 0)

    func shift(disableAfter: Int64? = nil, deleteAfter: Int64? = nil, enabled: Bool = true, dwell: Int? = nil)
        -> Geofence
    {
        Geofence(tag: "shift", externalId: "s1", description: "shift s1", shape: .circle(center: o, radius: 100),
                 enabled: enabled, dwellThreshold: dwell, disableAfter: disableAfter.map { World.t0 + $0 * 1000 },
                 deleteAfter: deleteAfter.map { World.t0 + $0 * 1000 })
    }

    @Test func aDeletedGeofenceEndsTheVisitAtTheNextFixNamingIt() {
        var h = Harness([shift()])
        h.send(World.fix(at: 0, o))
        h.geofences.remove(GeofenceID(tag: "shift", externalId: "s1"))
        h.send(World.fix(at: 100, o))  // still standing there
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        let exit = h.published[1]
        #expect(exit.exitReason == .geofenceDeleted && exit.geofence?.externalId == "s1")
        #expect(exit.createdAt == World.t0 + 100_000 && exit.durationSeconds == 100 && exit.confidence == .high)
        #expect(h.fold.state(of: "u1")?.presences.isEmpty == true)
    }

    @Test func aDisabledGeofenceEndsTheVisitAndIsNotEnteredAgain() {
        var h = Harness([shift()])
        h.send(World.fix(at: 0, o))
        h.geofences.upsert(shift(enabled: false))
        h.send(World.fix(at: 100, o))
        h.send(World.fix(at: 200, o))
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        #expect(h.published[1].exitReason == .geofenceDisabled)
    }

    @Test func aGeofenceTheTableNeverSawDeletedEndsTheVisitWithoutAnEvent() {
        var h = Harness([shift()])
        h.send(World.fix(at: 0, o))
        h.geofences = GeofenceTable([])  // a restart whose compacted topic lost the tombstone
        h.send(World.fix(at: 100, o))
        #expect(h.types() == [.enteredGeofence])
        #expect(h.fold.state(of: "u1")?.presences.isEmpty == true)
    }

    @Test func disableAfterEndsTheVisitOnStreamTimeAtItsInstant() {
        var h = Harness([shift(disableAfter: 300)])
        h.send(World.fix("a", at: 0, o))
        h.send(World.fix("b", at: 500, far))  // another user moves the partition's clock past 300 s
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        let exit = h.published[1]
        #expect(exit.userId == "a" && exit.createdAt == World.t0 + 300_000)
        #expect(exit.exitReason == .geofenceDisabled && exit.durationSeconds == 300)
        h.send(World.fix("a", at: 600, o))  // behaves as disabled: no new entry
        #expect(h.published.count == 2)
    }

    @Test func deleteAfterWinsATieAndForbidsEntriesFromItsInstant() {
        var h = Harness([shift(disableAfter: 60, deleteAfter: 60)])
        h.send(World.fix(at: 0, o))
        h.send(World.fix(at: 90, o))
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        #expect(h.published[1].exitReason == .geofenceDeleted && h.published[1].createdAt == World.t0 + 60_000)
        var late = Harness([shift(deleteAfter: 60)])
        late.send(World.fix(at: 100, o))
        #expect(late.published.isEmpty)
    }

    @Test func aScheduleGivenWhileInsideIsTakenAtTheNextFix() {
        var h = Harness([shift()])
        h.send(World.fix("a", at: 0, o))
        h.geofences.upsert(shift(deleteAfter: 200))
        h.send(World.fix("a", at: 100, o))  // learns of the end: a timer at 200 s
        #expect(h.published.count == 1)
        h.send(World.fix("b", at: 250, far))
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        #expect(h.published[1].createdAt == World.t0 + 200_000 && h.published[1].exitReason == .geofenceDeleted)
    }

    @Test func anEndMovedLaterMovesTheTimer() {
        var h = Harness([shift(disableAfter: 200)])
        h.send(World.fix("a", at: 0, o))
        h.geofences.upsert(shift(disableAfter: 400))  // no fix of a's in between: the timer at 200 s re-checks
        h.send(World.fix("b", at: 300, far))
        #expect(h.published.count == 1)
        h.send(World.fix("b", at: 450, far))
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        #expect(h.published[1].createdAt == World.t0 + 400_000)
    }

    @Test func aDwellDueAfterADeleteEndsTheVisitInstead() {
        var h = Harness([shift(dwell: 2)])
        h.send(World.fix("a", at: 0, o))
        h.geofences.remove(GeofenceID(tag: "shift", externalId: "s1"))
        h.send(World.fix("b", at: 500, far))  // a's dwell timer at 120 s fires with the geofence gone
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        #expect(h.published[1].exitReason == .geofenceDeleted && h.published[1].createdAt == World.t0 + 120_000)
    }

    @Test func aLateFixTurnsAScheduledEndIntoThePlainExitItReallyWas() {
        var h = Harness([shift(disableAfter: 300)])
        h.send(World.fix(at: 0, o))
        h.send(World.fix(at: 400, far))
        let end = h.published[1]
        #expect(end.type == .exitedGeofence && end.exitReason == .geofenceDisabled)
        // The offline buffer: the user had left at 200 s.
        h.send(World.fix(at: 200, far, replayed: true))
        let corrected = h.published.last
        #expect(corrected?.id == end.id && corrected?.revision == .corrected)
        #expect(corrected?.exitReason == nil && corrected?.createdAt == World.t0 + 200_000)
        #expect(h.upserted().count == 2)  // the entry and the one exit, now plain
    }
}
