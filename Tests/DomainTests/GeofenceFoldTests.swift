import Domain
import Testing

@Suite struct GeofenceFoldTests {
    let o = World.center

    @Test func enterThenExitWithDurationInMinutes() {
        var h = Harness([World.circle("store", "g1", radius: 100)])
        h.send(World.fix(at: 0, World.offset(o, north: 400, east: 0)))
        h.send(World.fix(at: 60, World.offset(o, north: 50, east: 0)))
        h.send(World.fix(at: 760, World.offset(o, north: 400, east: 0)))
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        let exit = h.published[1]
        #expect(exit.durationSeconds == 700)
        #expect(exit.geofence?.externalId == "g1")
        #expect(exit.createdAt == World.t0 + 760_000)
        #expect(h.published[0].id != exit.id)
    }

    @Test func jitterAtTheEdgeDoesNotFlap() {
        var h = Harness([World.circle("store", "g1", radius: 100)])
        h.send(World.fix(at: 0, World.offset(o, north: 95, east: 0)))
        // Noise of ±15 m around the edge: inside once, never confidently outside past the buffer.
        for i in 1...40 {
            let north = 100.0 + (i % 2 == 0 ? 15 : -15)
            h.send(World.fix(at: Int64(i) * 10, World.offset(o, north: north, east: 0)))
        }
        #expect(h.types() == [.enteredGeofence])
        h.send(World.fix(at: 500, World.offset(o, north: 130, east: 0)))  // past 100 m + 20 m buffer
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
    }

    @Test func inaccurateFixesDoNotDecide() {
        var h = Harness([World.circle("store", "g1", radius: 50)])
        // Centre inside, but a 300 m uncertainty on a 50 m fence cannot say the user is in.
        h.send(World.fix(at: 0, o, accuracy: 300))
        #expect(h.published.isEmpty)
        h.send(World.fix(at: 10, o, accuracy: 10))
        #expect(h.types() == [.enteredGeofence])
        // 80 m outside the edge but ±100 m uncertain: still possibly inside, no exit.
        h.send(World.fix(at: 20, World.offset(o, north: 130, east: 0), accuracy: 100))
        #expect(h.types() == [.enteredGeofence])
        // Beyond any doubt: 2 km away with ±100 m.
        h.send(World.fix(at: 200, World.offset(o, north: 2_000, east: 0), accuracy: 100))
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        // A fix too vague to use for geofences at all is counted.
        h.send(World.fix(at: 300, World.offset(o, north: 2_000, east: 0), accuracy: 5_000))
        #expect(h.fold.counters.tooInaccurate == 1)
    }

    @Test func polygonEntry() {
        let square = [(-100.0, -100.0), (-100, 100), (100, 100), (100, -100), (-100, -100)]
            .map { World.offset(o, north: $0.0, east: $0.1) }
        var h = Harness([Geofence(tag: "depot", externalId: "p1", shape: .polygon(rings: [square]))])
        h.send(World.fix(at: 0, World.offset(o, north: 0, east: 300)))
        h.send(World.fix(at: 30, World.offset(o, north: 0, east: 90)))
        h.send(World.fix(at: 60, World.offset(o, north: 0, east: 112)))  // inside the 20 m buffer
        h.send(World.fix(at: 90, World.offset(o, north: 0, east: 125)))
        #expect(h.types() == [.enteredGeofence, .exitedGeofence])
        #expect(h.published.allSatisfy { $0.geofence?.tag == "depot" })
    }

    @Test func dwellFiresOnceAtThresholdInEventTime() {
        var h = Harness([World.circle("store", "g1", radius: 100, dwell: 5)])
        h.send(World.fix(at: 0, o))
        h.send(World.fix(at: 120, o))
        #expect(h.types() == [.enteredGeofence])
        h.send(World.fix(at: 400, o))  // 6m40s after entry: dwell due at 5 min fires first
        h.send(World.fix(at: 900, o))
        #expect(h.types() == [.enteredGeofence, .dwelledInGeofence])
        #expect(h.events(.dwelledInGeofence).first?.createdAt == World.t0 + 300_000)
    }

    @Test func dwellFiresOnStreamTimeFromOtherUsers() {
        var h = Harness([World.circle("store", "g1", radius: 100, dwell: 2)])
        h.send(World.fix("a", at: 0, o))
        h.send(World.fix("b", at: 500, World.offset(o, north: 5_000, east: 0)))  // moves the partition's clock
        #expect(h.types() == [.enteredGeofence, .dwelledInGeofence])
        #expect(h.events(.dwelledInGeofence).first?.userId == "a")
    }

    @Test func disabledGeofencesAreIgnoredAndDeletedOnesEndTheVisitSayingWhy() {
        var h = Harness([World.circle("store", "off", radius: 100, enabled: false), World.circle("store", "on")])
        h.send(World.fix(at: 0, o))
        #expect(h.published.map { $0.geofence?.externalId } == ["on"])
        h.geofences.remove(GeofenceID(tag: "store", externalId: "on"))
        h.send(World.fix(at: 100, World.offset(o, north: 1_000, east: 0)))
        #expect(h.published.count == 2)
        #expect(h.published[1].type == .exitedGeofence && h.published[1].exitReason == .geofenceDeleted)
        #expect(h.fold.state(of: "u1")?.presences.isEmpty == true)
    }

    @Test func overlappingGeofencesEnterInIdOrderRegardlessOfTableOrder() {
        let a = World.circle("s", "a"), b = World.circle("s", "b")
        var h1 = Harness([a, b]), h2 = Harness([b, a])
        h1.send(World.fix(at: 0, o))
        h2.send(World.fix(at: 0, o))
        #expect(h1.published == h2.published)
        #expect(h1.published.count == 2)
    }

    /// More geofences hold the fix than the fold keeps on the stack (32): every one is entered, in
    /// id order, and each is left as the user moves out of it.
    @Test func aFixInsideMoreGeofencesThanTheStackHoldsEntersAndLeavesEachOne() {
        let circles = (0..<80).map { World.circle("pile", "g\($0)", radius: 100 + 5 * Double($0)) }
        var h = Harness(circles.shuffled())
        h.send(World.fix(at: 0, o))
        let entered = h.events(.enteredGeofence)
        #expect(entered.count == 80)
        #expect(entered.map(\.geofence!.id) == entered.map(\.geofence!.id).sorted())
        // 300 m north: out of every circle of radius up to 200 m (and its edge buffer), inside
        // every one of 400 m or more.
        h.send(World.fix(at: 120, World.offset(o, north: 300, east: 0)))
        let exited = Set(h.events(.exitedGeofence).map { $0.geofence!.externalId })
        #expect(exited.isSuperset(of: (0...20).map { "g\($0)" }))
        #expect(exited.isDisjoint(with: (60..<80).map { "g\($0)" }))
        #expect(h.fold.state(of: "u1")?.presences.count == 80 - exited.count)
        h.send(World.fix(at: 600, World.offset(o, north: 3_000, east: 0)))
        #expect(h.events(.exitedGeofence).count == 80)
        #expect(h.fold.state(of: "u1")?.presences.isEmpty == true)
    }

    /// A user inside many geofences stays in each while the fixes stay inside, and leaves only the
    /// ones it moves out of, whether its presences come in geofence-id order (as the fold keeps them)
    /// or, restored from a state written otherwise, in another order.
    @Test(arguments: [false, true])
    func presencesAreMatchedToTheGeofencesHoldingTheFixInAnyOrder(restoredReversed: Bool) {
        let circles = (0..<12).map { World.circle("ring", "g\($0)", radius: 150 + 20 * Double($0)) }
        var h = Harness(circles)
        h.send(World.fix(at: 0, o, accuracy: 5))
        #expect(h.events(.enteredGeofence).count == 12)
        if restoredReversed {
            var parts = h.fold.allTimelines()[0].parts
            parts.current.presences.reverse()
            #expect(parts.current.presences.map(\.geofenceID) != parts.current.presences.map(\.geofenceID).sorted())
            h.fold.restore(parts, geofences: h.geofences)
        }
        // Still inside every circle, a few meters on: nothing to publish.
        let before = h.published.count
        h.send(World.fix(at: 30, World.offset(o, north: 20, east: 0), accuracy: 5))
        #expect(h.published.count == before, "\(h.published.dropFirst(before).map(\.type))")
        // 330 m north: out of the circles up to 230 m and their edge buffer, inside those of 330 m or more.
        h.send(World.fix(at: 60, World.offset(o, north: 330, east: 0), accuracy: 5))
        let exited = Set(h.events(.exitedGeofence).map { $0.geofence!.externalId })
        #expect(exited.isSuperset(of: (0...4).map { "g\($0)" }))
        #expect(exited.isDisjoint(with: (9..<12).map { "g\($0)" }))
        #expect(h.events(.enteredGeofence).count == 12)
        #expect(h.fold.state(of: "u1")?.presences.count == 12 - exited.count)
    }

    @Test func gpsJumpIsFilteredAndCounted() {
        var h = Harness([World.circle("store", "far", at: World.offset(o, north: 11_000, east: 0))])
        h.send(World.fix(at: 0, o))
        h.send(World.fix(at: 15, World.offset(o, north: 11_000, east: 0)))  // 11 km in 15 s
        h.send(World.fix(at: 30, World.offset(o, north: 10, east: 0)))
        #expect(h.published.isEmpty)
        #expect(h.fold.counters.filteredJumps == 1)
        #expect(h.fold.state(of: "u1")?.location == World.offset(o, north: 10, east: 0))
    }

    @Test func repeatedConsistentFarFixesAreARealMove() {
        var h = Harness([World.circle("store", "far", at: World.offset(o, north: 11_000, east: 0))])
        h.send(World.fix(at: 0, o))
        for i in 1...3 { h.send(World.fix(at: Int64(i) * 15, World.offset(o, north: 11_000, east: Double(i)))) }
        #expect(h.types() == [.enteredGeofence])
        #expect(h.fold.counters.filteredJumps == 2)
    }
}

@Suite struct LargeGeofenceTests {
    @Test func aCitySizedCircleAddedLaterIsEnteredOnTheNextFix() {
        var h = Harness([World.circle("store", "small")])
        h.send(World.fix("a", at: 0, World.offset(World.center, north: 3_000, east: 0)))
        h.send(World.fix("b", at: 0, World.offset(World.center, north: -9_000, east: 4_000)))
        h.geofences.upsert(Geofence(tag: "city", externalId: "all",
                                    shape: .circle(center: World.center, radius: 50_000)))
        h.send(World.fix("a", at: 10, World.offset(World.center, north: 3_010, east: 0)))
        h.send(World.fix("b", at: 10, World.offset(World.center, north: -9_010, east: 4_000)))
        #expect(h.events(.enteredGeofence).map(\.userId) == ["a", "b"])
    }

    /// A city-sized shape is listed apart from the grid's cells, so a lookup reports it after the
    /// cell's geofences (which it lists in id order) whatever its id: entries still come in id
    /// order, and a user inside all of them stays inside each.
    @Test func aCitySizedShapeAmongSmallOnesIsEnteredInIdOrderAndKept() throws {
        let small = (0..<16).map { World.circle("store", "s\($0)", radius: 200) }
        // A city whose id sorts among the small ones' (ids are hashes): then the index's order is not id order.
        let city = try #require(["all", "zone", "metro", "region", "district"].lazy.map {
            Geofence(tag: "city", externalId: $0, shape: .circle(center: World.center, radius: 50_000))
        }.first { city in small.contains { $0.id < city.id } && small.contains { $0.id > city.id } })
        var h = Harness(small + [city])
        h.send(World.fix(at: 0, World.center, accuracy: 5))
        let entered = h.events(.enteredGeofence).map(\.geofence!.id)
        #expect(entered.count == 17)
        #expect(entered == entered.sorted())
        h.send(World.fix(at: 30, World.offset(World.center, north: 10, east: 0), accuracy: 5))
        #expect(h.published.count == 17, "\(h.published.dropFirst(17).map(\.type))")
        #expect(h.fold.state(of: "u1")?.presences.count == 17)
    }
}
