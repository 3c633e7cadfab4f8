import Domain
import Testing

/// Where late inputs are placed is one rule of the fold, counted in the partition's inputs
/// (`FoldSettings.latePlacementInputs`): no caller's batch decides it.
@Suite struct LatePlacementTests {
    static let t0: UnixMillis = 1_767_247_200_000

    static func fix(_ user: String, seconds: Int64) -> Fix {
        Fix(userId: user, createdAt: t0 + seconds * 1000, position: Coordinate(latitude: 41.148, longitude: -8.611),
            accuracy: 5)
    }

    @Test func queuedLateInputsArePlacedOnceThePartitionHadTheSetNumberOfInputsSinceTheFirst() {
        var settings = FoldSettings()
        settings.latePlacementInputs = 4
        var fold = PartitionFold(settings: settings)
        var events: [Event] = []
        for second in stride(from: Int64(0), through: 100, by: 10) {
            _ = fold.process(Self.fix("A", seconds: second), geofences: GeofenceTable(), processingTime: Self.t0 + 100_000,
                             events: &events)
        }
        #expect(!fold.hasUnsettledInputs)
        _ = fold.process(Self.fix("A", seconds: 55), geofences: GeofenceTable(), processingTime: Self.t0 + 100_000, events: &events)
        #expect(fold.hasUnsettledInputs, "behind A's newest input: queued")
        #expect(fold.counters.rewinds == 0)
        for second in [Int64(101), 102] {
            _ = fold.process(Self.fix("B", seconds: second), geofences: GeofenceTable(), processingTime: Self.t0 + 102_000,
                             events: &events)
            #expect(fold.hasUnsettledInputs, "3 inputs since the first queued: still queued")
        }
        _ = fold.process(Self.fix("B", seconds: 103), geofences: GeofenceTable(), processingTime: Self.t0 + 103_000, events: &events)
        #expect(!fold.hasUnsettledInputs, "the 4th input since the first queued places it, without a settle")
        #expect(fold.counters.rewinds == 1)
        #expect(fold.timeline(of: "A")?.newestTime == Self.t0 + 100_000)
    }

    @Test func endingABatchPlacesNothing() {
        var fold = PartitionFold(settings: FoldSettings())
        var events: [Event] = []
        for second in [Int64(0), 60, 30] {
            _ = fold.process(Self.fix("A", seconds: second), geofences: GeofenceTable(), processingTime: Self.t0 + 60_000,
                             events: &events)
        }
        fold.endBatch()
        #expect(fold.hasUnsettledInputs && fold.counters.rewinds == 0)
        fold.settle(geofences: GeofenceTable(), processingTime: Self.t0 + 60_000, events: &events)
        #expect(!fold.hasUnsettledInputs && fold.counters.rewinds == 1)
    }
}
