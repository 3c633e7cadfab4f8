import Domain
import Simulation
import Testing

/// Loading ahead (`PartitionFold.prefetch`, `GeofenceTable.prefetchLookup`) is a hint: asked about
/// any input, wherever it lies and whoever sent it, it traps on nothing (these tests run with bounds
/// checks) and changes nothing the fold yields.
@Suite struct LookAheadTests {
    /// A district dense enough to split its cell into sub-cells, a polygon, and shapes on both sides
    /// of the antimeridian and south of the equator.
    static let geofences: [Geofence] = {
        var geofences: [Geofence] = []
        for index in 0..<120 {
            let place = World.offset(World.center, north: Double(index % 11) * 60, east: Double(index / 11) * 55)
            geofences.append(World.circle("shop", "s\(index)", at: place, radius: 40 + Double(index % 5) * 30,
                                          dwell: index % 7 == 0 ? 2 : nil))
        }
        geofences.append(Geofence(tag: "zone", externalId: "square", description: "", shape: .polygon(rings: [[
            World.offset(World.center, north: -100, east: -100), World.offset(World.center, north: -100, east: 300),
            World.offset(World.center, north: 300, east: 300), World.offset(World.center, north: 300, east: -100),
        ]])))
        geofences.append(World.circle("far", "fiji", at: World.point(-17.0001, 179.9999), radius: 300))
        geofences.append(World.circle("far", "samoa", at: World.point(-17.0001, -179.9999), radius: 300))
        return geofences
    }()

    /// Fixes of 40 users walking through the district, a few at the antimeridian or nowhere near any
    /// geofence, some of them late.
    static func fixes() -> [Fix] {
        var random = SeededRandom(seed: 11)
        var fixes: [Fix] = []
        for step in 0..<60 {
            for user in 0..<40 {
                let place: Coordinate
                switch user % 10 {
                case 8: place = World.point(-17.0001 + Double.random(in: -0.003...0.003, using: &random),
                                            user % 20 == 8 ? 179.9995 : -179.9995)
                case 9: place = World.point(Double.random(in: -80...80, using: &random), Double.random(in: -179...179, using: &random))
                default: place = World.offset(World.center, north: Double.random(in: -200...800, using: &random),
                                              east: Double.random(in: -200...700, using: &random))
                }
                let late: Int64 = user % 13 == 0 && step % 9 == 4 ? -95 : 0
                fixes.append(World.fix("walker-\(user)", at: Int64(step) * 20 + late, place, accuracy: 10))
            }
        }
        return fixes
    }

    /// Folds `fixes` as the replay does, asking about the inputs each stage's distance ahead when
    /// `askingAhead`; idle users evicted half-way (their slots freed, then reused by users never
    /// seen before), so asks land on freed and reused slots too.
    static func fold(_ fixes: [Fix], askingAhead: Bool) -> [Event] {
        var settings = FoldSettings()
        settings.replayHorizon = 120_000
        var h = Harness(geofences, settings: settings, history: MemoryHistoryStore())
        h.settlesEachInput = false
        // Every third walker drives to a shop on a trip, so asks also load trips (`prefetchHeldObjects`).
        for user in stride(from: 0, to: 40, by: 3) {
            h.send(World.start("walker-\(user)", at: 0, trip: "trip-\(user)", tag: "shop", geofence: "s\(user)"))
        }
        for (index, fix) in fixes.enumerated() {
            if askingAhead {
                for stage in PartitionFold.PrefetchStage.allCases where index + stage.distance < fixes.count {
                    let next = fixes[index + stage.distance]
                    h.fold.prefetch(userHash: PartitionFold.userHash(of: next.userId), location: next.position,
                                    geofences: h.geofences, stage: stage)
                    h.fold.prefetch(userHash: PartitionFold.userHash(of: "never-seen"), location: nil,
                                    geofences: h.geofences, stage: stage)
                    h.fold.prefetch(userHash: PartitionFold.userHash(of: "never-seen"), location: World.point(89.9, -180),
                                    geofences: h.geofences, stage: stage)
                }
            }
            h.send(fix)
            if index % 40 == 39 { h.settle() }
            if index == fixes.count / 2 {
                _ = h.fold.takeTouchedTimelines()
                _ = h.fold.evictIdleUsers(before: h.fold.streamTime - settings.replayHorizon)
                for newcomer in 0..<5 { h.send(World.fix("newcomer-\(newcomer)", at: 900, World.center)) }
            }
        }
        h.settle()
        return h.published
    }

    @Test func askingAheadChangesNothingTheFoldYields() {
        let fixes = Self.fixes()
        let plain = Self.fold(fixes, askingAhead: false)
        let asked = Self.fold(fixes, askingAhead: true)
        #expect(plain.count > 500, "the walk crosses geofences: \(plain.count) events")
        #expect(Set(plain.map(\.type)).count >= 3)
        #expect(plain.contains { $0.type == .updatedTrip }, "the walkers on trips report their trips")
        #expect(asked == plain)
    }

    @Test func aLookupLoadedAheadAnswersAsOneNotLoaded() {
        let table = GeofenceTable(Self.geofences)
        var random = SeededRandom(seed: 5)
        var checked = 0
        for _ in 0..<3_000 {
            let point = World.offset(World.center, north: Double.random(in: -300...900, using: &random),
                                     east: Double.random(in: -300...800, using: &random))
            var plain: [GeofenceID] = [], loaded: [GeofenceID] = []
            table.forEachContaining(point) { id, _, _, _, _ in plain.append(id) }
            for stage in GeofenceTable.LookupStage.allCases { table.prefetchLookup(point, stage: stage) }
            table.forEachContaining(point) { id, _, _, _, _ in loaded.append(id) }
            #expect(loaded == plain)
            checked += plain.count
        }
        for point in [World.point(-17.0001, 179.9999999), World.point(-17.0001, -180), World.point(90, 180),
                      World.point(-90, -180), World.point(0, 0)] {
            for stage in GeofenceTable.LookupStage.allCases {
                table.prefetchLookup(point, stage: stage)
                GeofenceTable().prefetchLookup(point, stage: stage)
            }
        }
        #expect(checked > 3_000)
    }

    /// Slots of every kind (taken, freed by a delete, reused, past the end, negative) are asked about
    /// ahead without a trap, and the table answers as before.
    @Test func geofencesAndShapesLoadedAheadAtAnySlot() {
        var table = GeofenceTable(Self.geofences)
        for index in stride(from: 0, to: 120, by: 3) { table.remove(GeofenceID(tag: "shop", externalId: "s\(index)")) }
        table.upsert(World.circle("shop", "late", at: World.center, radius: 90))  // takes a freed slot
        var before: [GeofenceID] = []
        table.forEachContaining(World.center) { id, _, _, _, _ in before.append(id) }
        for slot in Int32(-2)...Int32(Self.geofences.count + 4) {
            table.prefetchGeofence(atSlot: slot)
            table.prefetchShape(atSlot: slot)
        }
        GeofenceTable().prefetchGeofence(atSlot: 0)
        GeofenceTable().prefetchShape(atSlot: 0)
        var after: [GeofenceID] = []
        table.forEachContaining(World.center) { id, _, _, _, _ in after.append(id) }
        #expect(after == before && before.contains(GeofenceID(tag: "shop", externalId: "late")))
    }
}
