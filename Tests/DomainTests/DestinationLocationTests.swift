import Domain
import Testing

/// Radar's `geometryCenter`/`geometryRadius` for polygons (`GeometryExtent`) and a geofence
/// destination's `trip.destinationLocation`.
@Suite struct DestinationLocationTests {
    let o = World.center

    func polygon(_ id: String, _ corners: [(north: Double, east: Double)], around origin: Coordinate? = nil) -> Geofence {
        let base = origin ?? o
        return Geofence(tag: "zone", externalId: id,
                        shape: .polygon(rings: [corners.map { World.offset(base, north: $0.north, east: $0.east) }]))
    }

    @Test func aSquaresCenterAndHalfDiagonal() throws {
        let square = polygon("sq", [(0, 0), (0, 200), (200, 200), (200, 0), (0, 0)])
        let extent = try #require(square.extent)
        #expect(Geodesy.distance(extent.center, World.offset(o, north: 100, east: 100)) < 0.5)
        #expect(extent.radius == (100 * 2.0.squareRoot()).rounded(.up))
    }

    /// Rings that cross themselves: the area formula's centroid can fall anywhere (here north of the
    /// pole, which crashed building the geofence); the center is then the vertices' mean, within the ring.
    @Test func aRingThatCrossesItselfHasItsCenterWithinIt() throws {
        let rings: [[(Double, Double)]] = [
            // Found by the fuzzer in a geofence record: a depot's square with three corners moved.
            [(82.1391143, -8.6170215), (41.1391143, -8.61498), (41.1406515, -8.61498), (41.1406515, -8.6170215),
             (41.139391143, -8.6170215), (41.1391143, -8.61498), (41.1406515, 48.61498), (41.1406515, -8.6170215),
             (41.1391143, -8.6170215)],
            // A bow tie: two triangles of opposite signs, their areas all but cancelling.
            [(0, 0), (1, 1), (1, 0), (0, 1.0000001), (0, 0)],
        ]
        for ring in rings {
            let corners = ring.map { World.point($0.0, $0.1) }
            let geofence = Geofence(tag: "zone", externalId: "crossed", shape: .polygon(rings: [corners]))
            let extent = try #require(geofence.extent)
            let latitudes = corners.map(\.latitudeE7), longitudes = corners.map(\.longitudeE7)
            #expect(extent.center.latitudeE7 >= latitudes.min()! && extent.center.latitudeE7 <= latitudes.max()!)
            #expect(extent.center.longitudeE7 >= longitudes.min()! && extent.center.longitudeE7 <= longitudes.max()!)
            #expect(extent.radius.isFinite && extent.radius > 0)
        }
    }

    @Test func anLShapesCentroidIsWeightedByArea() throws {
        // 300 × 100 along the bottom, 100 × 200 up the left side: centroid 110 m north and east, not
        // the vertices' mean (133.3 m north and east).
        let l = polygon("l", [(0, 0), (0, 300), (100, 300), (100, 100), (300, 100), (300, 0)])
        let extent = try #require(l.extent)
        let expected = World.offset(o, north: 110, east: 110)
        #expect(Geodesy.distance(extent.center, expected) < 0.5)
        let farthest = [(0.0, 300.0), (300.0, 0.0)].map { Geodesy.distance(extent.center, World.offset(o, north: $0.0, east: $0.1)) }
        #expect(abs(extent.radius - farthest.max()!) <= 2)
    }

    @Test func aPolygonTouchingTheAntimeridianHasItsCenterOnItsSide() throws {
        let edge = World.point(10, 179.999)
        let strip = polygon("strip", [(0, 0), (0, 100), (1_000, 100), (1_000, 0)], around: edge)
        let extent = try #require(strip.extent)
        #expect(Geodesy.distance(extent.center, World.offset(edge, north: 500, east: 50)) < 1)
        #expect(extent.center.longitude < -179.99 || extent.center.longitude > 179.99)
    }

    @Test func tripEventsCarryTheDestinationGeofencesCenter() throws {
        let zone = polygon("dock", [(1_000, -100), (1_000, 100), (1_200, 100), (1_200, -100)])
        let circle = World.circle("store", "g1", at: World.offset(o, north: -2_000, east: 0))
        var h = Harness([zone, circle])
        h.send(World.fix(at: 0, o, accuracy: 10))
        h.send(World.start(at: 1, tag: "zone", geofence: "dock"))
        h.send(World.fix(at: 30, World.offset(o, north: 100, east: 0), accuracy: 10))
        let centroid = try #require(zone.extent?.center)
        #expect(h.events(.startedTrip).first?.trip?.destinationLocation == centroid)
        #expect(h.events(.updatedTrip).last?.trip?.destinationLocation == centroid)
        #expect(h.events(.updatedTrip).last?.trip?.plan.destinationCoordinates == nil)

        h.send(World.start(at: 60, trip: "t2", tag: "store", geofence: "g1"))
        #expect(h.events(.startedTrip).last?.trip?.destinationLocation == World.offset(o, north: -2_000, east: 0))
    }

    @Test func aTripStartedBeforeAnyFixNamesItsDestinationsCenter() throws {
        let circle = World.circle("store", "g1", at: World.offset(o, north: 3_000, east: 0))
        var h = Harness([circle])
        h.send(World.start(at: 0))
        let started = try #require(h.events(.startedTrip).first?.trip)
        #expect(started.eta == nil)  // nothing to measure from yet
        #expect(started.destinationLocation == circle.extent?.center)
    }

    @Test func aLateStartCorrectsTheFixesItPrecedesWithTheDestination() throws {
        let circle = World.circle("store", "g1", at: World.offset(o, north: 3_000, east: 0))
        var h = Harness([circle])
        h.send(World.fix(at: 0, o, accuracy: 10))
        h.send(World.fix(at: 30, World.offset(o, north: 200, east: 0), accuracy: 10))
        #expect(h.events(.updatedTrip).isEmpty)
        h.send(World.start(at: 10))  // the dispatcher's start, late: the fix at 30 s was on the trip
        let update = try #require(h.upserted().first { $0.type == .updatedTrip })
        #expect(update.createdAt == World.t0 + 30_000 && update.replayed)
        #expect(update.trip?.destinationLocation == circle.extent?.center)
    }
}
