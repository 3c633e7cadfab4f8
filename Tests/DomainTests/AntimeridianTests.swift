#if canImport(Glibc)
import Glibc
#endif
import Domain
import Simulation
import Testing

/// Geofences at the edges of the map: circles across ±180° work (box, index, distance, fold),
/// polygons crossing it and anything past ±89° latitude are refused (`GeofenceShape.problem`) and
/// inert if built anyway.
@Suite struct AntimeridianTests {
    /// A point, its longitude brought into [-180, 180] (180 and -180 stay as written).
    static func point(_ lat: Double, _ lng: Double) -> Coordinate {
        var lng = lng.truncatingRemainder(dividingBy: 360)
        if lng > 180 { lng -= 360 } else if lng < -180 { lng += 360 }
        return Coordinate(latitude: lat, longitude: lng)
    }

    /// Fiji: a 50 km circle centred 0.1° west of the antimeridian.
    static let fijiCenter = point(-17.8, 179.9)
    static let fiji = Geofence(tag: "island", externalId: "fiji", shape: .circle(center: fijiCenter, radius: 50_000))

    static func candidates(_ table: GeofenceTable, at point: Coordinate) -> [String] {
        var found: [String] = []
        table.forEachCandidate(at: point) { geofence, _ in found.append(geofence.externalId) }
        return found.sorted()
    }

    // MARK: - Circles across the antimeridian

    @Test func circleBoxWrapsAcrossTheAntimeridian() {
        let box = Self.fiji.geometry.boundingBox
        #expect(box.crossesAntimeridian)
        #expect(box.minLngE7 > 1_790_000_000 && box.maxLngE7 < -1_790_000_000)  // 179.4…180, -180…-179.6
        for lng in [179.9, 179.5, 180, -180, -179.95, -179.7] {
            #expect(box.contains(Self.point(-17.8, lng)), "lng \(lng)")
        }
        for lng in [179.0, -179.0, 0, 0.5, -0.5] {
            #expect(!box.contains(Self.point(-17.8, lng)), "lng \(lng)")
        }
        #expect(!box.contains(Self.point(-19, -179.95)) && !box.contains(Self.point(-16.6, 179.9)))
        #expect(box.parts.count == 2 && box.parts.allSatisfy { !$0.crossesAntimeridian })
    }

    @Test func circleDistanceIsMeasuredAcrossTheLine() {
        let geometry = Self.fiji.geometry
        // 0.15° of longitude at 17.8°S is about 15.9 km: well inside.
        let west = Self.point(-17.8, -179.95)
        let inside = geometry.signedDistance(to: west)
        #expect(abs(inside - (Geodesy.distance(Self.fijiCenter, west) - 50_000)) < 1e-6)
        #expect(inside < -33_000 && inside > -35_000)
        // 0.6° west of the center, across the line: 63.5 km, outside by about 13.5 km.
        let outside = geometry.signedDistance(to: Self.point(-17.8, -179.5))
        #expect(outside > 12_500 && outside < 14_500)
        // Symmetric with the same offset to the east of the center.
        let east = geometry.signedDistance(to: Self.point(-17.8, 179.3))
        #expect(abs(east - outside) < 1)
    }

    @Test func spatialIndexFindsTheCircleFromBothSides() {
        var fences = [Self.fiji]
        // Distractors on both sides and at the other end of the grid's longitude numbers.
        fences.append(World.circle("island", "taveuni", at: Self.point(-16.8, -179.9), radius: 5_000))
        fences.append(World.circle("island", "lau", at: Self.point(-17.8, -178.8), radius: 5_000))
        fences.append(World.circle("meridian", "zero", at: Self.point(-17.8, 0), radius: 50_000))
        let table = GeofenceTable(fences)
        #expect(Self.candidates(table, at: Self.point(-17.8, 179.95)) == ["fiji"])
        #expect(Self.candidates(table, at: Self.point(-17.8, -179.95)) == ["fiji"])
        #expect(Self.candidates(table, at: Self.point(-17.8, 180)) == ["fiji"])
        #expect(Self.candidates(table, at: Self.point(-17.8, -180)) == ["fiji"])
        #expect(Self.candidates(table, at: Self.point(-16.8, -179.9)) == ["taveuni"])
        #expect(Self.candidates(table, at: Self.point(-17.8, -179.0)).isEmpty)
        #expect(Self.candidates(table, at: Self.point(-17.8, 0.1)) == ["zero"])

        // Removal takes it out of both sides' cells.
        var emptied = table
        emptied.remove(Self.fiji.id)
        #expect(Self.candidates(emptied, at: Self.point(-17.8, 179.95)).isEmpty)
        #expect(Self.candidates(emptied, at: Self.point(-17.8, -179.95)).isEmpty)
        #expect(Self.candidates(table, at: Self.point(-17.8, -179.95)) == ["fiji"])  // the copy is untouched
    }

    @Test func circleCentredOnTheAntimeridian() {
        for lng in [180.0, -180.0] {
            let geofence = World.circle("line", "c", at: Self.point(0, lng), radius: 1_000)
            let table = GeofenceTable([geofence])
            for side in [179.995, -179.995] {
                let p = Self.point(0, side)
                #expect(geofence.geometry.signedDistance(to: p) < -400, "center \(lng), point \(side)")
                #expect(Self.candidates(table, at: p) == ["c"], "center \(lng), point \(side)")
            }
        }
    }

    // Fixes an hour apart: tens of kilometers between them must not look like GPS jumps.
    @Test func enterOnOneSideExitOnTheOther() {
        var h = Harness([Self.fiji])
        h.send(World.fix(at: 0, Self.point(-17.8, 179.0)))  // 95 km west of the center: outside
        h.send(World.fix(at: 3_600, Self.point(-17.8, 179.8)))  // inside, east of the line
        h.send(World.fix(at: 7_200, Self.point(-17.8, -179.95)))  // inside, west of the line: no event
        h.send(World.fix(at: 10_800, Self.point(-17.9, 179.99)))  // back east, inside
        h.send(World.fix(at: 14_400, Self.point(-17.8, -179.3)))  // 85 km east of the center: outside
        #expect(h.fold.counters.filteredJumps == 0 && h.fold.counters.fixes == h.results.count)
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        #expect(h.published.first?.createdAt == World.t0 + 3_600_000)
        #expect(h.published.last?.durationSeconds == 10_800)

        // And the other way round: in from the west, out to the east.
        var g = Harness([Self.fiji])
        g.send(World.fix(at: 0, Self.point(-17.8, -179.0)))
        g.send(World.fix(at: 3_600, Self.point(-17.8, -179.9)))
        g.send(World.fix(at: 7_200, Self.point(-17.8, 179.7)))
        g.send(World.fix(at: 10_800, Self.point(-17.8, 178.9)))
        #expect(g.types() == [.enteredGeofence, .exitedGeofence])
        #expect(g.published.first?.createdAt == World.t0 + 3_600_000)
        #expect(g.published.last?.createdAt == World.t0 + 10_800_000)
    }

    @Test func staysOutsideOnBothSides() {
        var h = Harness([Self.fiji])
        for (i, lng) in [178.9, 179.2, -179.3, -178.5, 179.0, -179.0].enumerated() {
            h.send(World.fix(at: Int64(i) * 7_200, Self.point(-17.8, lng)))
        }
        h.send(World.fix(at: 86_400, Self.point(-19.0, -179.95)))  // 133 km south
        #expect(h.fold.counters.filteredJumps == 0 && h.fold.counters.fixes == h.results.count)
        #expect(h.published.isEmpty)
    }

    /// Whatever the circle (anywhere, across the line, up to 89° of latitude), every point the
    /// geometry holds is in its box and found by the index: the index never hides an entry.
    @Test func indexNeverMissesAPointTheCircleHolds() {
        var rng = SeededRandom(seed: 0xa471_3e51)
        var fences: [Geofence] = []
        while fences.count < 400 {
            let nearLine = fences.count % 2 == 0
            let lng = nearLine
                ? (Bool.random(using: &rng) ? 180 : -180) + Double.random(in: -1...1, using: &rng)
                : Double.random(in: -180..<180, using: &rng)
            let lat = Double.random(in: -88.9...88.9, using: &rng)
            let radius = Double.random(in: 1...100_000, using: &rng)
            let shape = GeofenceShape.circle(center: Self.point(lat, lng), radius: radius)
            guard shape.problem == nil else { continue }
            fences.append(Geofence(tag: "r", externalId: "c\(fences.count)", shape: shape))
        }
        let table = GeofenceTable(fences)
        var inside = 0
        var acrossTheLine = 0
        for fence in fences {
            guard case let .circle(center, radius) = fence.shape else { continue }
            let dLat = radius / Geodesy.metersPerDegree
            for _ in 0..<50 {
                let lat = min(max(center.latitude + Double.random(in: -1.2...1.2, using: &rng) * dLat, -90), 90)
                let scale = max(cos(lat * .pi / 180), 0.01)
                let p = Self.point(lat, center.longitude + Double.random(in: -1.5...1.5, using: &rng) * dLat / scale)
                guard fence.geometry.signedDistance(to: p) <= 0 else { continue }
                inside += 1
                if (p.longitudeE7 < 0) != (center.longitudeE7 < 0), abs(center.longitude) > 90 { acrossTheLine += 1 }
                #expect(fence.geometry.boundingBox.contains(p), "\(fence.shape) \(p)")
                #expect(Self.candidates(table, at: p).contains(fence.externalId), "\(fence.shape) \(p)")
            }
        }
        #expect(inside > 5_000 && acrossTheLine > 400)
    }

    // MARK: - Polygons: split at the antimeridian works, crossing it is refused

    /// Taveuni's box, split at ±180° as RFC 7946 §3.1.9 asks: two polygons touching the line.
    static let eastHalf = Geofence(
        tag: "zone", externalId: "east",
        shape: .polygon(rings: [[point(-18, 179), point(-18, 180), point(-16, 180), point(-16, 179), point(-18, 179)]]))
    static let westHalf = Geofence(
        tag: "zone", externalId: "west",
        shape: .polygon(rings: [[point(-18, -180), point(-18, -179), point(-16, -179), point(-16, -180)]]))

    @Test func splitPolygonHalvesMeasureAcrossTheLine() {
        #expect(Self.eastHalf.shape.problem == nil && Self.westHalf.shape.problem == nil)
        // A fix 0.01° west of the line is about 1.06 km outside the east half, not 359° away.
        let d = Self.eastHalf.geometry.signedDistance(to: Self.point(-17, -179.99))
        #expect(d > 1_000 && d < 1_100)
        #expect(Self.westHalf.geometry.signedDistance(to: Self.point(-17, -179.99)) < 0)
        let back = Self.westHalf.geometry.signedDistance(to: Self.point(-17, 179.99))
        #expect(back > 1_000 && back < 1_100)
        // A point far away on the other side of the world is still far.
        #expect(Self.eastHalf.geometry.signedDistance(to: Self.point(-17, 0)) > 10_000_000)
    }

    @Test func crossingFromOneHalfToTheOther() {
        var h = Harness([Self.eastHalf, Self.westHalf])
        h.send(World.fix(at: 0, Self.point(-17, 179.5)))
        h.send(World.fix(at: 3_600, Self.point(-17, -179.5)))
        #expect(h.types() == [.enteredGeofence, .exitedGeofence, .enteredGeofence])
        #expect(h.published.map { $0.geofence?.externalId } == ["east", "east", "west"])

        // Hysteresis works across the line: 10 m past the east half's edge, on the west side, is
        // within its 50 m exit buffer (not 360° away), so the user is in both halves for a while.
        var g = Harness([Self.eastHalf, Self.westHalf])
        g.send(World.fix(at: 0, Self.point(-17, 179.9995)))
        g.send(World.fix(at: 60, Self.point(-17, -179.9999)))
        #expect(g.published.map { $0.geofence?.externalId } == ["east", "west"])
        g.send(World.fix(at: 3_600, Self.point(-17, -179.5)))
        #expect(g.types() == [.enteredGeofence, .enteredGeofence, .exitedGeofence])
        #expect(g.published.last?.geofence?.externalId == "east")
    }

    @Test func aPolygonCrossingTheAntimeridianIsRefusedAndInert() {
        // Meant as a 0.2° box around the line; GeoJSON draws it as a band around the whole world.
        let shape = GeofenceShape.polygon(rings: [[
            Self.point(-17.9, 179.9), Self.point(-17.9, -179.9), Self.point(-17.7, -179.9), Self.point(-17.7, 179.9),
        ]])
        let problem = shape.problem ?? ""
        #expect(problem.hasPrefix("polygon crosses the antimeridian"), "\(problem)")
        #expect(problem.contains("ring 0 edge from position 0 [179.9, -17.9] to position 1 [-179.9, -17.9]"))
        #expect(problem.contains("spans 359.8° of longitude"))
        #expect(problem.hasSuffix("split it into two polygons as RFC 7946 §3.1.9 recommends"))

        let geofence = Geofence(tag: "zone", externalId: "band", shape: shape)
        #expect(geofence.geometry.boundingBox.isEmpty)
        let table = GeofenceTable([geofence])
        var h = Harness([geofence])
        for (i, lng) in [179.95, -179.95, 0.0, 90].enumerated() {
            let p = Self.point(-17.8, lng)
            #expect(Self.candidates(table, at: p).isEmpty)
            #expect(geofence.geometry.signedDistance(to: p) == .infinity)
            h.send(World.fix("u\(i)", at: Int64(i) * 60, p))
        }
        #expect(h.published.isEmpty)

        // The closing edge of an unclosed ring counts too; a hole is checked like the outer ring.
        // (This one, a ring of three points 120° apart, would go round the pole the short way.)
        let closing = GeofenceShape.polygon(rings: [[Self.point(10, -170), Self.point(10, -50), Self.point(10, 70)]])
        #expect(closing.problem?.contains("edge from position 2 [70, 10] to position 0 [-170, 10] spans 240°") == true)
        let hole = GeofenceShape.polygon(rings: [
            [Self.point(0, 170), Self.point(0, 179), Self.point(5, 179), Self.point(5, 170)],
            [Self.point(1, 178), Self.point(1, -178), Self.point(2, -178)],
        ])
        #expect(hole.problem?.contains("ring 1 edge from position 0") == true)
        // Wide is fine as long as no edge takes the long way: this one crosses 0°, not 180°.
        let wide = GeofenceShape.polygon(rings: [[Self.point(0, -170), Self.point(0, 0), Self.point(0, 170), Self.point(1, 0)]])
        #expect(wide.problem == nil)
    }

    // MARK: - Poles

    @Test func geofencesMustStayWithin89DegreesOfLatitude() {
        // 50 km from 88.8°N reaches 89.25°N.
        let north = GeofenceShape.circle(center: Self.point(88.8, 10), radius: 50_000)
        #expect(north.problem?.contains("circle reaches latitude 89.2497°N") == true)
        #expect(north.problem?.contains("°N (center [10, 88.8], radius 50000 m)") == true)
        let south = GeofenceShape.circle(center: Self.point(-89.5, 0), radius: 1)
        #expect(south.problem?.contains("°S") == true)
        // Past the pole itself: the circle would wrap around it.
        let pole = GeofenceShape.circle(center: Self.point(90, 0), radius: 100)
        #expect(pole.problem != nil)
        let polar = Geofence(tag: "p", externalId: "p", shape: pole)
        #expect(polar.geometry.boundingBox.isEmpty && polar.geometry.signedDistance(to: Self.point(90, 0)) == .infinity)

        let polygon = GeofenceShape.polygon(rings: [[Self.point(88, 0), Self.point(88, 10), Self.point(89.5, 5)]])
        #expect(polygon.problem?.contains("ring 0 position 2 [5, 89.5] is beyond ±89° of latitude") == true)

        // Just inside the limit: accepted, and its box spans the longitudes its distance allows.
        let high = GeofenceShape.circle(center: Self.point(88.5, 179.9), radius: 50_000)
        #expect(high.problem == nil)
        let geofence = Geofence(tag: "h", externalId: "h", shape: high)
        let box = geofence.geometry.boundingBox
        #expect(box.crossesAntimeridian && box.maxLatE7 <= 890_000_000)
        let table = GeofenceTable([geofence])
        // 10° of longitude at 88.5° is about 29 km: inside, across the line.
        let p = Self.point(88.5, -170.1)
        #expect(geofence.geometry.signedDistance(to: p) < 0)
        #expect(Self.candidates(table, at: p) == ["h"])
    }
}
