import Domain
import Testing

@Suite struct GeometryTests {
    @Test func distanceMatchesHaversineAtCityScale() {
        let a = World.point(41.1480, -8.6110)
        let b = World.point(41.1579, -8.6291)  // ~1.86 km
        let expected = 1_873.1  // haversine, R = 6371008.8 m
        #expect(abs(Geodesy.distance(a, b) - expected) < 2)
        #expect(Geodesy.distance(a, a) == 0)
    }

    @Test func distanceAcrossTheAntimeridianIsShort() {
        let a = World.point(0, 179.9999)
        let b = World.point(0, -179.9999)
        #expect(Geodesy.distance(a, b) < 30)
    }

    @Test func circleSignedDistance() {
        let geometry = GeofenceGeometry(.circle(center: World.center, radius: 100))
        #expect(abs(geometry.signedDistance(to: World.center) + 100) < 0.01)
        #expect(abs(geometry.signedDistance(to: World.offset(World.center, north: 150, east: 0)) - 50) < 0.5)
    }

    @Test func polygonContainmentDistanceAndHoles() {
        // A 200 m square with a 50 m square hole in the middle.
        let o = World.center
        let outer = [(-100.0, -100.0), (-100, 100), (100, 100), (100, -100), (-100, -100)]
            .map { World.offset(o, north: $0.0, east: $0.1) }
        let hole = [(-25.0, -25.0), (-25, 25), (25, 25), (25, -25)].map { World.offset(o, north: $0.0, east: $0.1) }
        let geometry = GeofenceGeometry(.polygon(rings: [outer, hole]))
        let inRing = geometry.signedDistance(to: World.offset(o, north: 60, east: 0))
        #expect(inRing < 0 && abs(inRing + 35) < 0.5)  // 35 m to the hole's edge
        #expect(geometry.signedDistance(to: o) > 0)  // inside the hole is outside
        let outside = geometry.signedDistance(to: World.offset(o, north: 130, east: 0))
        #expect(abs(outside - 30) < 0.5)
        #expect(geometry.boundingBox.contains(World.offset(o, north: 99, east: 99)))
    }

    @Test func spatialIndexFindsOnlyNearbyCandidatesAmongMany() {
        var fences: [Geofence] = []
        for i in 0..<10_000 {
            let c = World.offset(World.center, north: Double(i / 100) * 300, east: Double(i % 100) * 300)
            fences.append(World.circle("grid", "g\(i)", at: c, radius: 50))
        }
        let table = GeofenceTable(fences)
        #expect(table.count == 10_000)
        var found: [String] = []
        table.forEachCandidate(at: World.offset(World.center, north: 300 * 7, east: 300 * 42)) { geofence, _ in
            found.append(geofence.externalId)
        }
        #expect(found == ["g742"])
    }

    @Test func tableUpsertReplacesAndRemoveForgets() {
        var table = GeofenceTable([World.circle("s", "a")])
        table.upsert(World.circle("s", "a", at: World.offset(World.center, north: 5_000, east: 0)))
        var hits = 0
        table.forEachCandidate(at: World.center) { _, _ in hits += 1 }
        #expect(hits == 0)
        #expect(table.count == 1)
        table.remove(GeofenceID(tag: "s", externalId: "a"))
        #expect(table.count == 0 && table.geofence(tag: "s", externalId: "a") == nil)
    }
}
