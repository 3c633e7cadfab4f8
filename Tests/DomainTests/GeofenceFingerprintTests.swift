import Domain
import Testing

/// The geofence table's fingerprint: the same for the same contents in every process, so a user's
/// history restored after a restart knows it was folded with the table in force, and its next refold
/// republishes only what changed.
@Suite struct GeofenceFingerprintTests {
    static let a = World.circle("store", "a")
    static let b = World.circle("store", "b", at: World.offset(World.center, north: 500, east: 0))
    static let polygon = Geofence(tag: "zone", externalId: "p", shape: .polygon(rings: [[
        World.point(41.150, -8.612), World.point(41.150, -8.608), World.point(41.152, -8.608), World.point(41.150, -8.612),
    ]]))

    @Test func equalContentsHaveEqualFingerprintsWhateverTheOrderOfChanges() {
        let forward = GeofenceTable([Self.a, Self.b, Self.polygon])
        var other = GeofenceTable([Self.polygon])
        other.upsert(World.circle("store", "temporary"))
        other.upsert(Self.b)
        other.remove(GeofenceID(tag: "store", externalId: "temporary"))
        // A fresh object of the same definition, as a restarted process decodes it again.
        other.upsert(World.circle("store", "a"))
        #expect(other.fingerprint == forward.fingerprint)

        var changed = forward
        changed.upsert(Geofence(tag: "store", externalId: "a", description: "moved",
                                shape: .circle(center: World.center, radius: 100)))
        #expect(changed.fingerprint != forward.fingerprint, "a description is part of what events carry")
        changed.upsert(World.circle("store", "a"))
        #expect(changed.fingerprint == forward.fingerprint, "back to the same contents")
        changed.upsert(World.circle("store", "a", radius: 101))
        #expect(changed.fingerprint != forward.fingerprint)
        changed.upsert(World.circle("store", "a", dwell: 5))
        #expect(changed.fingerprint != forward.fingerprint)
        changed.remove(Self.a.id)
        #expect(changed.fingerprint == GeofenceTable([Self.b, Self.polygon]).fingerprint)
        #expect(GeofenceTable().fingerprint == 0)
    }

    /// The late fix refolds the user's history; a fold restored from its persisted parts, under a table
    /// rebuilt from new objects in another order, publishes what the fold that never stopped does.
    @Test func aRestoredTimelinesRefoldRepublishesNothingUnchanged() {
        let inside = World.center
        let outside = World.offset(World.center, north: 0, east: 300)
        let fixes = (0..<30).map { i in World.fix(at: Int64(i) * 10, (10..<20).contains(i) ? inside : outside, accuracy: 5) }
        let late = World.fix(at: 125, inside, accuracy: 5)

        var running = Harness([Self.a, Self.b], history: MemoryHistoryStore())
        for fix in fixes { running.send(fix) }
        let store = MemoryHistoryStore()
        var stopped = Harness([Self.a, Self.b], history: store)
        for fix in fixes { stopped.send(fix) }
        #expect(stopped.published.contains { $0.type == .enteredGeofence })

        var restarted = Harness([World.circle("store", "b", at: World.offset(World.center, north: 500, east: 0)),
                                 World.circle("store", "a")], history: store)
        for timeline in stopped.fold.allTimelines() { restarted.fold.restore(timeline.parts, geofences: restarted.geofences) }
        restarted.fold.restoreStreamTime(stopped.fold.streamTime)

        let before = (running.published.count, restarted.published.count)
        running.send(late)
        restarted.send(late)
        let fromRunning = Array(running.published.dropFirst(before.0))
        let fromRestarted = Array(restarted.published.dropFirst(before.1))
        #expect(running.fold.counters.rewinds == 1 && restarted.fold.counters.rewinds == 1, "the late fix refolds")
        #expect(fromRestarted == fromRunning, "\(fromRestarted.count) published after the restart, \(fromRunning.count) without one")
    }
}
