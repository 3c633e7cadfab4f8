import Domain
import Testing

/// `user.trip_signal_lost` / `user.trip_signal_restored`: a trip without fixes, on stream time.
@Suite struct TripSignalTests {
    let o = World.center
    let destination = World.circle("store", "g1", at: World.offset(World.center, north: 20_000, east: 0))

    @Test func lostAfterTheSettingOnStreamTimeAndRestoredWithTheGap() {
        var h = Harness([destination])
        h.send(World.fix(at: 0, o))
        h.send(World.start(at: 1))
        h.send(World.fix(at: 60, World.offset(o, north: 500, east: 0)))
        // Another user's fixes move the partition's stream time: nothing before 60 s + 10 min.
        h.send(World.fix("other", at: 659, o))
        #expect(h.events(.tripSignalLost).isEmpty)
        h.send(World.fix("other", at: 700, o))
        let lost = h.events(.tripSignalLost)
        #expect(lost.count == 1)
        #expect(lost.first?.type.name == "user.trip_signal_lost")
        #expect(lost.first?.createdAt == World.t0 + 660_000 && lost.first?.durationSeconds == 600)
        #expect(lost.first?.trip?.plan.externalId == "t1")
        h.send(World.fix("other", at: 2_000, o))
        #expect(h.events(.tripSignalLost).count == 1)  // once a gap
        h.send(World.fix(at: 2_000, World.offset(o, north: 1_000, east: 0)))
        let restored = h.events(.tripSignalRestored)
        #expect(restored.count == 1 && restored.first?.durationSeconds == 1_940)
        #expect(restored.first?.createdAt == World.t0 + 2_000_000)
        // A new gap may be lost again, with its own _id.
        h.send(World.fix("other", at: 2_700, o))
        #expect(h.events(.tripSignalLost).count == 2)
        #expect(Set(h.events(.tripSignalLost).map(\.id)).count == 2)
    }

    @Test func disabledWithZeroAndSilentWithoutATrip() {
        var settings = FoldSettings()
        settings.tripSignalLostAfter = 0
        var h = Harness([destination], settings: settings)
        h.send(World.fix(at: 0, o))
        h.send(World.start(at: 1))
        h.send(World.fix("other", at: 3_000, o))
        var plain = Harness([destination])
        plain.send(World.fix(at: 0, o))
        plain.send(World.fix("other", at: 3_000, o))
        for harness in [h, plain] {
            #expect(harness.events(.tripSignalLost).isEmpty && harness.events(.tripSignalRestored).isEmpty)
        }
    }

    @Test func anOfflineReplayRetractsTheLostSignal() {
        var h = Harness([destination])
        h.send(World.fix(at: 0, o))
        h.send(World.start(at: 1))
        h.send(World.fix("other", at: 900, o))
        h.send(World.fix(at: 900, World.offset(o, north: 2_000, east: 0)))
        #expect(h.events(.tripSignalLost).count == 1 && h.events(.tripSignalRestored).count == 1)
        // The device was tracking all along: its buffer arrives, and there was no gap.
        for t in stride(from: 300, to: 900, by: 300) {
            h.send(World.fix(at: Int64(t), World.offset(o, north: Double(t) * 2, east: 0), replayed: true))
        }
        let retracted = h.published.filter { $0.revision == .retracted }.map(\.type)
        #expect(retracted.contains(.tripSignalLost) && retracted.contains(.tripSignalRestored))
        #expect(h.published.filter { $0.revision == .retracted }.allSatisfy { $0.replayed })
        #expect(!h.upserted().contains { $0.type == .tripSignalLost || $0.type == .tripSignalRestored })
    }
}
