import Domain
import Simulation
import Testing

/// The spatial index against a brute-force scan over many random tables: the candidates and the
/// shapes holding a point, as sets, to the bit, and in the order lookups report them (the order of
/// the last upsert, shapes spanning more than `SpatialGrid.maxCellsPerShape` cells last), through
/// upserts that move, reshape, disable and delete geofences, at points on cell and sub-cell
/// borders and box edges, across the equator and the prime meridian, at the antimeridian and near the poles;
/// each table changed one geofence at a time, or in bulk (`GeofenceTable.loadingInBulk`).
@Suite struct SpatialIndexCrossCheckTests {
    /// Where the random tables lie: Porto, Santiago (south and west of 0°), the crossing of 0° and
    /// 0°, Fiji across the antimeridian, and 88.9° north, where boxes are wide and shapes past 89° inert.
    static let places: [Coordinate] = [
        Coordinate(latitude: 41.15, longitude: -8.61), Coordinate(latitude: -33.6, longitude: -70.6),
        Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: -17.8, longitude: 179.97),
        Coordinate(latitude: 88.9, longitude: 20),
    ]

    /// A geofence within about `spread` degrees of `place`: mostly circles of 5 m to 2 km and
    /// diamonds, some of them disabled, and now and then a shape wider than 2.5° (oversized).
    static func randomGeofence(_ name: String, near place: Coordinate, spread: Double,
                               random: inout SeededRandom) -> Geofence
    {
        func wrapped(_ lng: Double) -> Double { lng > 180 ? lng - 360 : lng < -180 ? lng + 360 : lng }
        let lat = min(max(place.latitude + Double.random(in: -spread...spread, using: &random), -89.5), 89.5)
        let lng = wrapped(place.longitude + Double.random(in: -spread...spread, using: &random))
        let center = Coordinate(latitude: lat, longitude: lng)
        let enabled = Int.random(in: 0..<10, using: &random) != 0
        let kind = Int.random(in: 0..<40, using: &random)
        let shape: GeofenceShape
        if kind < 22 {
            shape = .circle(center: center, radius: Double.random(in: 5...2_000, using: &random))
        } else if kind < 39 {
            let d = Double.random(in: 0.0001...0.02, using: &random)
            let ring = [(0.0, -d), (d, 0), (0, d), (-d, 0), (0, -d)].map {
                Coordinate(latitude: lat + $0.0, longitude: wrapped(lng + $0.1))
            }
            shape = .polygon(rings: [ring])
        } else {
            shape = .circle(center: center, radius: Double.random(in: 150_000...400_000, using: &random))
        }
        return Geofence(tag: "t", externalId: name, shape: shape, enabled: enabled)
    }

    /// Whether the index keeps `box` in its oversized list: more than `maxCellsPerShape` grid cells.
    static func isOversized(_ box: BoundingBox) -> Bool {
        func cell(_ e7: Int32) -> Int64 {
            let v = Int64(e7)
            return v >= 0 ? v / SpatialGrid.cellSizeE7 : (v - SpatialGrid.cellSizeE7 + 1) / SpatialGrid.cellSizeE7
        }
        let parts = box.parts
        let rows = cell(box.maxLatE7) - cell(box.minLatE7) + 1
        return rows * parts.reduce(0) { $0 + cell($1.maxLngE7) - cell($1.minLngE7) + 1 } > SpatialGrid.maxCellsPerShape
    }

    /// Points that catch off-by-ones: near a geofence's box and exactly on its edges, on the
    /// borders of the 0.0025° sub-cells and 0.01° cells around it (and one unit either side), and anywhere near `place`.
    static func randomPoint(near geofences: [Geofence], place: Coordinate, random: inout SeededRandom) -> Coordinate {
        let box = geofences[Int.random(in: 0..<geofences.count, using: &random)].geometry.boundingBox
        let part = box.parts.first ?? BoundingBox(minLatE7: place.latitudeE7, minLngE7: place.longitudeE7,
                                                  maxLatE7: place.latitudeE7, maxLngE7: place.longitudeE7)
        func near(_ low: Int32, _ high: Int32, limit: Int64) -> Int32 {
            let value: Int64
            switch Int.random(in: 0..<5, using: &random) {
            case 0: value = Int64(low)
            case 1: value = Int64(high)
            case 2, 3:
                let grid = Int.random(in: 0..<2, using: &random) == 0 ? SpatialGrid.cellSizeE7 : SpatialGrid.cellSizeE7 / 4
                let some = Int64.random(in: Int64(low)...Int64(high), using: &random)
                value = some - ((some % grid) + grid) % grid + Int64.random(in: -1...1, using: &random)
            default: value = Int64.random(in: (Int64(low) - 5_000)...(Int64(high) + 5_000), using: &random)
            }
            return Int32(min(max(value, -limit), limit))
        }
        return Coordinate(latitudeE7: near(part.minLatE7, part.maxLatE7, limit: 900_000_000),
                          longitudeE7: near(part.minLngE7, part.maxLngE7, limit: 1_800_000_000))
    }

    /// Expects lookups at `points` points near `inOrder` (the live geofences in the order of their last
    /// upsert) to equal a brute-force scan of them; returns how many geofences held the points.
    static func expectLookupsEqualAScan(_ table: GeofenceTable, _ inOrder: [Geofence], points: Int, place: Coordinate,
                                        random: inout SeededRandom) -> Int
    {
        var checked = 0
        let gridded = inOrder.filter { !isOversized($0.geometry.boundingBox) }
        let oversized = inOrder.filter { isOversized($0.geometry.boundingBox) }
        for _ in 0..<points {
            let point = randomPoint(near: inOrder, place: place, random: &random)
            // A hint: traps on no point, changes no answer.
            for stage in GeofenceTable.LookupStage.allCases { table.prefetchLookup(point, stage: stage) }
            // A cell's geofences in id order, then the city-sized ones in upsert order.
            let expected = (gridded.sorted { $0.id < $1.id } + oversized).filter { $0.geometry.boundingBox.contains(point) }
            var candidates: [String] = []
            table.forEachCandidate(at: point) { geofence, slot in
                #expect(table.geofence(atSlot: slot) === geofence)
                candidates.append(geofence.externalId)
            }
            #expect(candidates == expected.map(\.externalId), "candidates at \(point)")

            // Holding the point: every enabled geofence at a signed distance ≤ 0, in the candidates' order.
            let holding = expected.filter { $0.enabled && $0.geometry.signedDistance(to: point) <= 0 }
            #expect(Set(holding.map(\.id)) == Set(inOrder.filter {
                $0.enabled && $0.geometry.signedDistance(to: point) <= 0
            }.map(\.id)))
            var found: [String] = []
            table.forEachContaining(point) { id, slot, distance, radius, hasFoldOptions in
                guard let geofence = table.geofence(atSlot: slot) else {
                    Issue.record("no geofence in slot \(slot)")
                    return
                }
                #expect(geofence.id == id && geofence.hasFoldOptions == hasFoldOptions)
                #expect(distance.bitPattern == geofence.geometry.signedDistance(to: point).bitPattern)
                #expect(radius.bitPattern == geofence.geometry.characteristicRadius.bitPattern)
                found.append(geofence.externalId)
            }
            #expect(found == holding.map(\.externalId), "holding \(point)")
            checked += holding.count
        }
        return checked
    }

    /// Deleting most polygons of a bulk load compacts the polygons' rings in its middle, with cells
    /// staged; geofences upserted after it land in cells the compaction packed.
    @Test func ringsCompactedInTheMiddleOfABulkLoad() {
        var random = SeededRandom(seed: 5)
        let place = Self.places[0]
        var geofences: [String: Geofence] = [:]
        var order: [String] = []
        func diamond(_ name: String) -> Geofence {
            // Hundreds to a cell: staged while the table loads.
            let lat = place.latitude + Double.random(in: -0.004...0.004, using: &random)
            let lng = place.longitude + Double.random(in: -0.004...0.004, using: &random)
            let d = Double.random(in: 0.0005...0.004, using: &random)
            let ring = [(0.0, -d), (d, 0), (0, d), (-d, 0), (0, -d)].map {
                Coordinate(latitude: lat + $0.0, longitude: lng + $0.1)
            }
            return Geofence(tag: "t", externalId: name, shape: .polygon(rings: [ring]))
        }
        var table = GeofenceTable()
        table.loadingInBulk { table in
            for index in 0..<3_000 {
                let geofence = diamond("p\(index)")
                table.upsert(geofence)
                geofences[geofence.externalId] = geofence
                order.append(geofence.externalId)
            }
            for index in 0..<2_600 {
                #expect(table.remove(GeofenceID(tag: "t", externalId: "p\(index)")) != nil)
                geofences["p\(index)"] = nil
            }
            order.removeFirst(2_600)
            for index in 3_000..<3_400 {
                let geofence = diamond("p\(index)")
                table.upsert(geofence)
                geofences[geofence.externalId] = geofence
                order.append(geofence.externalId)
            }
        }
        #expect(table.count == 800)
        let checked = Self.expectLookupsEqualAScan(table, order.map { geofences[$0]! }, points: 2_000, place: place,
                                                   random: &random)
        #expect(checked > 100, "the points fall inside geofences")
    }

    @Test(arguments: 0..<15, [false, true])
    func lookupsEqualABruteForceScanInIdOrder(seed: Int, inBulk: Bool) {
        var random = SeededRandom(seed: UInt64(seed) &* 0x9e37_79b9 &+ 11)
        let place = Self.places[seed % Self.places.count]
        // 0.003°: one to four cells of hundreds of geofences each, which a bulk load stages.
        let spread = [0.02, 0.1, 0.5, 0.003][seed % 4]
        var table = GeofenceTable()
        /// The model: the live geofences by name, in the order of their last upsert.
        var live: [String: Geofence] = [:]
        var order: [String] = []
        var next = 0
        func change(_ body: (inout GeofenceTable) -> Void) {
            if inBulk { table.loadingInBulk(body) } else { body(&table) }
        }
        func upsert(_ geofence: Geofence, into table: inout GeofenceTable) {
            table.upsert(geofence)
            live[geofence.externalId] = geofence
            order.removeAll { $0 == geofence.externalId }
            order.append(geofence.externalId)
        }
        change { table in
            for _ in 0..<Int.random(in: 200...1_200, using: &random) {
                upsert(Self.randomGeofence("g\(next)", near: place, spread: spread, random: &random), into: &table)
                next += 1
            }
        }
        var checked = 0
        for round in 0..<3 {
            if round > 0 {
                // Moves and reshapes (an upsert of a known id), deletes and new geofences.
                change { table in
                    for _ in 0..<Int.random(in: 50...400, using: &random) {
                        let name = order[Int.random(in: 0..<order.count, using: &random)]
                        switch Int.random(in: 0..<3, using: &random) {
                        case 0: upsert(Self.randomGeofence(name, near: place, spread: spread, random: &random), into: &table)
                        case 1:
                            #expect(table.remove(GeofenceID(tag: "t", externalId: name))?.externalId == name)
                            live[name] = nil
                            order.removeAll { $0 == name }
                        default:
                            upsert(Self.randomGeofence("g\(next)", near: place, spread: spread, random: &random),
                                   into: &table)
                            next += 1
                        }
                    }
                }
            }
            #expect(table.count == live.count)
            checked += Self.expectLookupsEqualAScan(table, order.map { live[$0]! }, points: 300, place: place,
                                                    random: &random)
        }
        #expect(checked > 50, "the points fall inside geofences")
    }

    /// A geofence moved by an upsert is found at its new place only; deleted, nowhere; and one whose box
    /// ends exactly on a sub-cell border is found on the border and not one unit past it.
    @Test func movedAndDeletedGeofencesAndBoxesOnSubCellBorders() {
        let subCell = Int32(SpatialGrid.cellSizeE7 / 4)
        let corner = Coordinate(latitudeE7: 411_500_000, longitudeE7: -86_100_000)  // on a cell corner
        let edge = Coordinate(latitudeE7: corner.latitudeE7 + subCell, longitudeE7: corner.longitudeE7 + subCell)
        // A square whose box is exactly corner...edge: the first sub-cell of its cell, up to the next ones' first row and column.
        let square = Geofence(tag: "t", externalId: "square", shape: .polygon(rings: [[
            corner, Coordinate(latitudeE7: corner.latitudeE7, longitudeE7: edge.longitudeE7), edge,
            Coordinate(latitudeE7: edge.latitudeE7, longitudeE7: corner.longitudeE7), corner,
        ]]))
        var table = GeofenceTable([square])
        func names(_ point: Coordinate) -> [String] {
            var found: [String] = []
            table.forEachCandidate(at: point) { geofence, _ in found.append(geofence.externalId) }
            return found
        }
        #expect(square.geometry.boundingBox == BoundingBox(minLatE7: corner.latitudeE7, minLngE7: corner.longitudeE7,
                                                           maxLatE7: edge.latitudeE7, maxLngE7: edge.longitudeE7))
        for point in [corner, edge, Coordinate(latitudeE7: edge.latitudeE7, longitudeE7: corner.longitudeE7)] {
            #expect(names(point) == ["square"])
        }
        for point in [Coordinate(latitudeE7: edge.latitudeE7 + 1, longitudeE7: edge.longitudeE7),
                      Coordinate(latitudeE7: edge.latitudeE7, longitudeE7: edge.longitudeE7 + 1),
                      Coordinate(latitudeE7: corner.latitudeE7 - 1, longitudeE7: corner.longitudeE7),
                      Coordinate(latitudeE7: corner.latitudeE7, longitudeE7: corner.longitudeE7 - 1)]
        {
            #expect(names(point).isEmpty, "\(point)")
        }

        let before = Coordinate(latitude: 41.16, longitude: -8.62)
        let after = Coordinate(latitude: 41.19, longitude: -8.58)
        table.upsert(Geofence(tag: "t", externalId: "moving", shape: .circle(center: before, radius: 100)))
        #expect(names(before) == ["moving"])
        table.upsert(Geofence(tag: "t", externalId: "moving", shape: .circle(center: after, radius: 100)))
        #expect(names(before).isEmpty && names(after) == ["moving"])
        var holding: [GeofenceID] = []
        table.forEachContaining(after) { id, _, _, _, _ in holding.append(id) }
        #expect(holding == [GeofenceID(tag: "t", externalId: "moving")])
        table.remove(GeofenceID(tag: "t", externalId: "moving"))
        #expect(names(after).isEmpty && names(corner) == ["square"])
    }
}
