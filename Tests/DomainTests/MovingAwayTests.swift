import Domain
import Testing

/// `user.moving_away_from_trip_destination`: the ETA rose on every fix for `movingAwayAfter`.
@Suite struct MovingAwayTests {
    let o = World.center
    let destination = World.circle("store", "g1", radius: 100)

    /// Drives away from the destination from `north` meters, 150 m every 15 s, for `fixes` fixes.
    func driveAway(_ h: inout Harness, from north: Double, at start: Int64, fixes: Int) {
        for i in 0..<fixes {
            h.send(World.fix(at: start + Int64(i) * 15, World.offset(o, north: north + Double(i) * 150, east: 0)))
        }
    }

    @Test func firesOnceARunOfRisingEtasLastsTheSetting() {
        var h = Harness([destination])
        h.send(World.start(at: 0))
        driveAway(&h, from: 1_000, at: 0, fixes: 20)  // 15 s … 285 s of rising ETAs: under 5 min
        #expect(h.events(.movingAwayFromTripDestination).isEmpty)
        driveAway(&h, from: 4_000, at: 300, fixes: 10)
        let away = h.events(.movingAwayFromTripDestination)
        #expect(away.count == 1)
        #expect(away.first?.type.name == "user.moving_away_from_trip_destination")
        #expect((away.first?.durationSeconds ?? 0) >= 300 && (away.first?.trip?.etaRisingStreak ?? 0) > 0)
        #expect(away.first?.createdAt == World.t0 + 315_000)  // rising since 15 s
    }

    @Test func anotherRunAfterClosingInFiresAgainWithItsOwnId() {
        var settings = FoldSettings()
        settings.movingAwayAfter = 60_000
        var h = Harness([destination], settings: settings)
        h.send(World.start(at: 0))
        driveAway(&h, from: 1_000, at: 0, fixes: 8)
        // Back towards the destination: the run ends.
        h.send(World.fix(at: 130, World.offset(o, north: 1_500, east: 0)))
        h.send(World.fix(at: 145, World.offset(o, north: 1_300, east: 0)))
        driveAway(&h, from: 1_400, at: 160, fixes: 8)
        let away = h.events(.movingAwayFromTripDestination)
        #expect(away.count == 2)
        #expect(Set(away.map(\.id)).count == 2)
    }

    @Test func disabledWithZero() {
        var settings = FoldSettings()
        settings.movingAwayAfter = 0
        var h = Harness([destination], settings: settings)
        h.send(World.start(at: 0))
        driveAway(&h, from: 1_000, at: 0, fixes: 40)
        #expect(h.events(.movingAwayFromTripDestination).isEmpty)
    }

    @Test func anOfflineBufferThatShowsTheUserClosingInRetractsIt() {
        var settings = FoldSettings()
        settings.movingAwayAfter = 60_000
        var h = Harness([destination], settings: settings)
        h.send(World.start(at: 0))
        h.send(World.fix(at: 0, World.offset(o, north: 1_000, east: 0)))
        // Sparse live fixes: each further away than the last.
        for (i, t) in [30, 60, 90].enumerated() {
            h.send(World.fix(at: Int64(t), World.offset(o, north: 1_200 + Double(i) * 200, east: 0)))
        }
        let away = h.events(.movingAwayFromTripDestination)
        #expect(away.count == 1)
        // The buffer shows the user coming closer in between: never a minute of rising ETAs.
        h.send(World.fix(at: 45, World.offset(o, north: 500, east: 0), replayed: true))
        h.send(World.fix(at: 75, World.offset(o, north: 500, east: 0), replayed: true))
        let retracted = h.published.filter { $0.revision == .retracted && $0.type == .movingAwayFromTripDestination }
        #expect(retracted.map(\.id) == away.map(\.id))
        #expect(retracted.allSatisfy { $0.replayed })
        #expect(!h.upserted().contains { $0.type == .movingAwayFromTripDestination })
    }
}
