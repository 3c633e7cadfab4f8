import Domain
import Simulation
import Testing

/// The spatial index must return exactly what a scan of every geofence's box would, on tables as
/// dense as a geofence-heavy city, with deletes and re-inserts (boxes across the antimeridian:
/// `AntimeridianTests`).
@Suite struct SpatialGridTests {
    static func denseTable(seed: UInt64, count: Int, center: Coordinate) -> [Geofence] {
        var settings = SimulationSettings()
        settings.users = 0
        settings.geofences = count
        settings.seed = seed
        settings.cityCenter = center
        settings.cityArea = CityArea(eastWest: 13_000, northSouth: 10_000)
        settings.circleRadius = 50...300
        settings.squareHalfSide = 50...300
        return FleetSimulator(settings: settings).geofences
    }

    static func candidates(_ table: GeofenceTable, at point: Coordinate) -> Set<GeofenceID> {
        var found = Set<GeofenceID>()
        table.forEachCandidate(at: point) { geofence, _ in
            #expect(found.insert(geofence.id).inserted, "a geofence is listed once per lookup")
        }
        return found
    }

    /// 3,000 geofences leave most cells under `SpatialGrid.splitThreshold`; 10,000 (the dense city)
    /// put ~144 in a cell, so every cell is split and listed per sub-cell, before and after removals.
    @Test(arguments: [
        (UInt64(1), Coordinate(latitudeE7: 411_496_000, longitudeE7: -86_110_000), 3_000),
        (UInt64(2), Coordinate(latitudeE7: -336_000_000, longitudeE7: -706_000_000), 3_000),  // south and west of 0°
        (UInt64(3), Coordinate(latitudeE7: 411_496_000, longitudeE7: -86_110_000), 10_000),
        (UInt64(4), Coordinate(latitudeE7: -336_000_000, longitudeE7: -706_000_000), 10_000),
    ])
    func candidatesEqualABruteForceScan(seed: UInt64, center: Coordinate, count: Int) {
        var geofences = Self.denseTable(seed: seed, count: count, center: center)
        var table = GeofenceTable(geofences)
        // Deletes and re-inserts move slots around.
        for index in stride(from: 0, to: geofences.count, by: 7) { table.remove(geofences[index].id) }
        for index in stride(from: 0, to: geofences.count, by: 14) { table.upsert(geofences[index]) }
        geofences = table.all
        var random = SeededRandom(seed: seed)
        var checked = 0
        for _ in 0..<2_000 {
            // Points near geofences, to hit edges and overlaps, and anywhere in the city.
            let anchor = geofences[Int.random(in: 0..<geofences.count, using: &random)].geometry.boundingBox
            let latitudeE7 = Int32.random(in: (anchor.minLatE7 - 3_000)...(anchor.maxLatE7 + 3_000), using: &random)
            let longitudeE7 = Int32.random(in: (anchor.minLngE7 - 3_000)...(anchor.maxLngE7 + 3_000), using: &random)
            let point = Coordinate(latitudeE7: latitudeE7, longitudeE7: longitudeE7)
            let expected = Set(geofences.filter { $0.geometry.boundingBox.contains(point) }.map(\.id))
            #expect(Self.candidates(table, at: point) == expected)
            checked += expected.count
        }
        #expect(checked > 2_000, "the points fall inside geofences")
    }

    /// The shapes holding a point, from the index's own copy of each shape (circles inline,
    /// polygons' rings in one flat array), equal the geometry's exact test over every enabled
    /// geofence, to the bit, after most polygons were removed (their rings compacted) and some
    /// were inserted again, and with some geofences disabled.
    @Test func containingEqualsTheGeometryAfterCompaction() {
        let center = Coordinate(latitudeE7: 411_496_000, longitudeE7: -86_110_000)
        var geofences = Self.denseTable(seed: 5, count: 6_000, center: center).enumerated().map { index, geofence in
            index % 11 == 0
                ? Geofence(tag: geofence.tag, externalId: geofence.externalId, shape: geofence.shape, enabled: false)
                : geofence
        }
        var table = GeofenceTable(geofences)
        // Two thirds removed: the removed polygons' values outweigh the live ones, so the rings are
        // compacted (at least once); then a sixth inserted again, at new offsets.
        for index in geofences.indices where index % 3 != 0 { table.remove(geofences[index].id) }
        for index in stride(from: 1, to: geofences.count, by: 6) { table.upsert(geofences[index]) }
        geofences = table.all
        #expect(geofences.contains { if case .polygon = $0.shape { true } else { false } })
        var random = SeededRandom(seed: 5)
        var checked = 0
        for _ in 0..<2_000 {
            let anchor = geofences[Int.random(in: 0..<geofences.count, using: &random)].geometry.boundingBox
            let point = Coordinate(
                latitudeE7: Int32.random(in: (anchor.minLatE7 - 3_000)...(anchor.maxLatE7 + 3_000), using: &random),
                longitudeE7: Int32.random(in: (anchor.minLngE7 - 3_000)...(anchor.maxLngE7 + 3_000), using: &random))
            var expected: [GeofenceID: [UInt64]] = [:]
            for geofence in geofences where geofence.enabled {
                let distance = geofence.geometry.signedDistance(to: point)
                if distance <= 0 {
                    expected[geofence.id] = [distance.bitPattern, geofence.geometry.characteristicRadius.bitPattern]
                }
            }
            var found: [GeofenceID: [UInt64]] = [:]
            table.forEachContaining(point) { id, slot, distance, radius, hasFoldOptions in
                #expect(table.geofence(atSlot: slot)?.id == id)
                #expect(table.geofence(atSlot: slot)?.hasFoldOptions == hasFoldOptions)
                found[id] = [distance.bitPattern, radius.bitPattern]
            }
            #expect(found == expected)
            checked += expected.count
        }
        #expect(checked > 1_000, "the points fall inside geofences")
    }

    /// A visit the fix is outside of is tested from the index's entry at the presence's slot: the
    /// geometry's exact distance and radius, to the bit, inside and outside the shape, after the
    /// rings were compacted; nothing where the geofence object must decide (disabled, fold options)
    /// or where the slot does not hold that geofence (another id, removed, out of range).
    @Test func aSlotAnswersAsTheGeometryWithoutTheObject() {
        let center = Coordinate(latitudeE7: 411_496_000, longitudeE7: -86_110_000)
        var geofences = Self.denseTable(seed: 8, count: 6_000, center: center).enumerated().map { index, geofence in
            index % 11 == 0 || index % 13 == 0
                ? Geofence(tag: geofence.tag, externalId: geofence.externalId, shape: geofence.shape,
                           enabled: index % 11 != 0, stopDetection: index % 13 == 0)
                : geofence
        }
        var table = GeofenceTable(geofences)
        let removed = geofences.indices.filter { $0 % 3 != 0 }.map { geofences[$0] }
        var removedSlots: [Int32] = []
        for geofence in removed {
            var slot: Int32 = -1
            _ = table.geofence(geofence.id, hint: &slot)
            removedSlots.append(slot)
            table.remove(geofence.id)
        }
        for slot in removedSlots.prefix(200) { #expect(table.signedDistance(slot: slot, id: removed[0].id, to: center) == nil) }
        for index in stride(from: 1, to: geofences.count, by: 6) { table.upsert(geofences[index]) }
        geofences = table.all
        #expect(geofences.contains { if case .polygon = $0.shape { true } else { false } })
        var random = SeededRandom(seed: 8)
        var answered = 0, outside = 0
        for _ in 0..<3_000 {
            let geofence = geofences[Int.random(in: 0..<geofences.count, using: &random)]
            let box = geofence.geometry.boundingBox
            let point = Coordinate(
                latitudeE7: Int32.random(in: (box.minLatE7 - 5_000)...(box.maxLatE7 + 5_000), using: &random),
                longitudeE7: Int32.random(in: (box.minLngE7 - 5_000)...(box.maxLngE7 + 5_000), using: &random))
            var slot: Int32 = -1
            #expect(table.geofence(geofence.id, hint: &slot) === geofence)
            let answer = table.signedDistance(slot: slot, id: geofence.id, to: point)
            guard geofence.enabled, !geofence.hasFoldOptions else {
                #expect(answer == nil)
                continue
            }
            let distance = geofence.geometry.signedDistance(to: point)
            #expect(answer?.distance.bitPattern == distance.bitPattern)
            #expect(answer?.radius.bitPattern == geofence.geometry.characteristicRadius.bitPattern)
            let other = geofences[Int.random(in: 0..<geofences.count, using: &random)].id
            if other != geofence.id { #expect(table.signedDistance(slot: slot, id: other, to: point) == nil) }
            answered += 1
            if distance > 0 { outside += 1 }
        }
        #expect(answered > 1_000 && outside > 300, "points inside and outside answered")
        #expect(table.signedDistance(slot: -1, id: geofences[0].id, to: center) == nil)
        #expect(table.signedDistance(slot: Int32(geofences.count * 4), id: geofences[0].id, to: center) == nil)
    }

    /// A lookup reads a cell's lists through the address of their words, kept beside them: a copy of
    /// a table whose cells then change (inserts that grow and split cells, removals) answers from its
    /// own words, the changed table from the new ones, and a table copied back from the changed one
    /// answers as it does.
    @Test func aCopyAnswersFromItsOwnCellsWhileTheOtherChanges() {
        let center = Coordinate(latitudeE7: 411_496_000, longitudeE7: -86_110_000)
        let geofences = Self.denseTable(seed: 6, count: 4_000, center: center)
        let before = GeofenceTable(Array(geofences[0..<1_000]))
        var changed = before
        for geofence in geofences[1_000...] { changed.upsert(geofence) }  // cells grow past the split
        for index in stride(from: 0, to: 1_000, by: 2) { changed.remove(geofences[index].id) }
        let copiedBack = changed
        var random = SeededRandom(seed: 6)
        for _ in 0..<1_000 {
            let anchor = geofences[Int.random(in: 0..<geofences.count, using: &random)].geometry.boundingBox
            let point = Coordinate(
                latitudeE7: Int32.random(in: anchor.minLatE7...anchor.maxLatE7, using: &random),
                longitudeE7: Int32.random(in: anchor.minLngE7...anchor.maxLngE7, using: &random))
            for (table, all) in [(before, before.all), (changed, changed.all), (copiedBack, changed.all)] {
                let expected = Set(all.filter { $0.geometry.boundingBox.contains(point) }.map(\.id))
                #expect(Self.candidates(table, at: point) == expected)
            }
        }
    }
}
