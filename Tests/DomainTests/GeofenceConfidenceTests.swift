import Domain
import Testing

/// Radar's `confidence` on geofence events: the fix's distance from the edge, on the event's side,
/// against its accuracy (see `EventConfidence`).
@Suite struct GeofenceConfidenceTests {
    let o = World.center

    @Test func theRule() {
        #expect(EventConfidence(margin: 30, accuracy: 30) == .high)
        #expect(EventConfidence(margin: 29, accuracy: 30) == .medium)
        #expect(EventConfidence(margin: 15, accuracy: 30) == .medium)
        #expect(EventConfidence(margin: 14, accuracy: 30) == .low)
        #expect(EventConfidence(margin: 0, accuracy: 0) == .high)
        #expect(EventConfidence(margin: 500, accuracy: .nan) == .medium)
    }

    /// The confidence of the single entry a fix `north` meters from the center makes.
    func entryConfidence(_ geofence: Geofence, north: Double, accuracy: Float) -> EventConfidence? {
        var h = Harness([geofence])
        h.send(World.fix(at: 0, World.offset(o, north: north, east: 0), accuracy: accuracy))
        #expect(h.types() == [.enteredGeofence])
        return h.published.first?.confidence
    }

    @Test func circleEntriesByDepthAgainstAccuracy() {
        let circle = World.circle("store", "g1", radius: 100)
        #expect(entryConfidence(circle, north: 0, accuracy: 10) == .high)
        #expect(entryConfidence(circle, north: 80, accuracy: 30) == .medium)  // 20 m inside
        // Allowed in by the accuracy floor, but the uncertainty circle is mostly outside.
        #expect(entryConfidence(circle, north: 80, accuracy: 50) == .low)
        #expect(entryConfidence(circle, north: 0, accuracy: .nan) == .medium)
    }

    @Test func polygonEntriesMeasureToTheNearestEdge() {
        let corners = [(-100.0, -100.0), (-100, 100), (100, 100), (100, -100)].map {
            World.offset(o, north: $0.0, east: $0.1)
        }
        let square = Geofence(tag: "yard", externalId: "p1", shape: .polygon(rings: [corners]))
        #expect(entryConfidence(square, north: 90, accuracy: 8) == .high)  // 10 m from the north edge
        #expect(entryConfidence(square, north: 90, accuracy: 15) == .medium)
        #expect(entryConfidence(square, north: 90, accuracy: 40) == .low)
    }

    @Test func exitsPastTheBufferAreHighAndCarryNoReason() {
        var h = Harness([World.circle("store", "g1", radius: 100)])
        h.send(World.fix(at: 0, o, accuracy: 10))
        h.send(World.fix(at: 60, World.offset(o, north: 300, east: 0), accuracy: 20))
        let exit = h.events(.exitedGeofence)
        #expect(exit.count == 1)
        #expect(exit.first?.confidence == .high && exit.first?.exitReason == nil)
        #expect(h.events(.dwelledInGeofence).isEmpty)
    }

    @Test func aLateFixCorrectsTheEntrysConfidence() {
        var h = Harness([World.circle("store", "g1", radius: 100)])
        h.send(World.fix(at: 0, World.offset(o, north: 1_000, east: 0), accuracy: 5))
        h.send(World.fix(at: 120, World.offset(o, north: 80, east: 0), accuracy: 50))
        let entry = h.published[0]
        #expect(entry.type == .enteredGeofence && entry.confidence == .low)
        // The offline buffer shows the user was already at the center, precisely, at 60 s.
        h.send(World.fix(at: 60, o, accuracy: 5, replayed: true))
        let corrected = h.published.last
        #expect(corrected?.id == entry.id && corrected?.revision == .corrected)
        #expect(corrected?.confidence == .high && corrected?.createdAt == World.t0 + 60_000)
    }
}
