import Domain
import Runtime
import Simulation
import Testing

@Suite struct TimelineCodecTests {
    /// Folds a simulated fleet, split into a first and a second half of records.
    func simulatedFold() -> (fold: PartitionFold, store: MemoryHistoryStore, table: GeofenceTable, rest: [SimulatedRecord],
                             published: [Event])
    {
        var settings = SimulationSettings()
        settings.users = 150
        settings.geofences = 80
        settings.cityRadius = 2_500
        settings.duration = 1_200
        settings.offlineChance = 0.02
        settings.seed = 11
        let store = MemoryHistoryStore()
        var simulator = FleetSimulator(settings: settings)
        let table = GeofenceTable(simulator.geofences)
        var records: [SimulatedRecord] = []
        while simulator.nextStep(into: &records) {}
        let half = records.count / 2
        var fold = PartitionFold(settings: Self.settings, history: store)
        var events: [Event] = []
        for record in records[..<half] { feed(record, to: &fold, table: table, events: &events) }
        return (fold, store, table, Array(records[half...]), events)
    }

    /// Small segments: most users have history in the store, not only in their tail.
    static let settings: FoldSettings = {
        var settings = FoldSettings()
        settings.segmentInputs = 4
        return settings
    }()

    func feed(_ record: SimulatedRecord, to fold: inout PartitionFold, table: GeofenceTable, events: inout [Event]) {
        let now: UnixMillis
        switch record {
        case let .fix(f):
            now = f.createdAt + 1_000
            _ = fold.process(f, geofences: table, processingTime: now, events: &events)
        case let .command(c):
            now = c.createdAt + 1_000
            _ = fold.process(c, geofences: table, processingTime: now, events: &events)
        case .geofence: return
        }
        fold.settle(geofences: table, processingTime: now, events: &events)
    }

    /// A seal encodes each touched timeline in place: the bytes must be those of its `parts`, for
    /// every user of a fleet whose tails hold commands, device extras and late inputs.
    @Test func aTimelineEncodedInPlaceHasTheBytesOfItsParts() {
        var (fold, _, _, _, _) = simulatedFold()
        var compared = 0, differing = 0, tailInputs = 0, attachments = 0
        fold.forEachTouchedTimeline { timeline in
            let inPlace = TimelineCodec.encode(timeline)
            let viaParts = TimelineCodec.encode(timeline.parts)
            if inPlace != viaParts { differing += 1 }
            compared += 1
            tailInputs += timeline.tailCount
            attachments += timeline.tailAttachments.count
        }
        #expect(compared == 150 && differing == 0)
        #expect(tailInputs > 150 && attachments > 0, "tails of several inputs, some with extras or commands")
        var visitedAgain = 0
        fold.forEachTouchedTimeline { _ in visitedAgain += 1 }
        #expect(visitedAgain == 0, "a visited timeline is no longer touched")
    }

    /// A snapshot written from a fold in place has the bytes of one made from its timelines' parts,
    /// and reads back to those parts.
    @Test func aSnapshotEncodedFromTheFoldInPlaceHasTheBytesOfItsParts() throws {
        let (fold, _, _, _, _) = simulatedFold()
        let checkpoint = PartitionCheckpoint(locationsOffset: 7, commandsOffset: 3, streamTime: fold.streamTime)
        let parts = fold.allTimelines().map(\.parts)
        #expect(parts.count == 150)
        let viaParts = PartitionSnapshot(partition: 2, changelogOffset: 40, checkpoint: checkpoint, timelines: parts)
        let inPlace = PartitionSnapshot.encoded(partition: 2, changelogOffset: 40, checkpoint: checkpoint, fold: fold)
        #expect(inPlace == viaParts.encoded())
        let decoded = try PartitionSnapshot(decoding: inPlace)
        #expect(decoded.timelines == parts && decoded.changelogOffset == 40 && decoded.partition == 2)
    }

    @Test func everyTimelineRoundTripsAndRestoresToTheSameState() throws {
        var (fold, store, table, rest, published) = simulatedFold()
        let timelines = fold.takeTouchedTimelines()
        #expect(timelines.count == 150)
        #expect(store.segmentCount > 150, "history reaches into the store")
        #expect(fold.counters.rewinds > 10, "the simulated fleet replays offline buffers late")
        var restored = PartitionFold(settings: Self.settings, history: store.copy())
        var withTrips = 0
        for timeline in timelines {
            let bytes = TimelineCodec.encode(timeline.parts)
            let parts = try TimelineCodec.decode(bytes)
            #expect(parts == timeline.parts)
            restored.restore(parts, geofences: table)
            #expect(restored.state(of: timeline.userId) == timeline.current)
            // The persisted current state is what folding the persisted tail gives.
            let context = FoldContext(userId: parts.userId, geofences: table, settings: Self.settings, replayed: true)
            #expect(UserTimeline.rebuiltCurrent(parts, context: context) == parts.current)
            if timeline.current.trip != nil { withTrips += 1 }
        }
        #expect(withTrips > 10)
        restored.restoreStreamTime(fold.streamTime)
        // The restored partition goes on exactly as the original does.
        var a: [Event] = [], b: [Event] = []
        for record in rest {
            feed(record, to: &fold, table: table, events: &a)
            feed(record, to: &restored, table: table, events: &b)
        }
        #expect(a.count > 1_000)
        // After a restore the geofence table a user's events were folded with is unknown, so a refold
        // republishes instead of diffing: more publications, the same final content by `_id`.
        let upsertedA = KafkaRuntimeHarness.upserted(published + a)
        let upsertedB = KafkaRuntimeHarness.upserted(published + b)
        #expect(upsertedA.count > 1_000)
        let same = upsertedA == upsertedB
        let onlyA = upsertedA.keys.filter { upsertedB[$0] != upsertedA[$0] }
        let onlyB = upsertedB.keys.filter { upsertedA[$0] == nil }
        #expect(same, "restored partition diverged: \(onlyA.count) differ/missing e.g. \(onlyA.prefix(1).map { "\(upsertedA[$0]!) vs \(upsertedB[$0] ?? "none")" }), \(onlyB.count) extra e.g. \(onlyB.prefix(1).map { upsertedB[$0]! })")
        #expect(b.count >= a.count)
    }

    @Test func aScheduledGeofenceEndAndAStopRoundTrip() throws {
        var state = UserState()
        state.stoppedSince = 1_372_636_860_000
        state.presences = [Presence(geofenceID: GeofenceID(tag: "shift", externalId: "s1"), enteredAt: 1_372_636_800_000,
                                    dwellDue: .max, visitOrdinal: 1, endsAt: 1_372_637_100_000)]
        let parts = UserTimeline.Parts(
            userId: "u1", current: state, tailStart: UserState(), tail: [], storedSegments: 0, historyStart: .min,
            secondSegmentStart: .min, watermark: .min, lastTickTimer: .min, newestTime: .min)
        let back = try TimelineCodec.decode(TimelineCodec.encode(parts))
        #expect(back.current == state && back.current.presences.first?.endsAt == 1_372_637_100_000)
        #expect(back.current.stoppedSince == 1_372_636_860_000 && back.tailStart.stoppedSince == .max)
    }

    @Test func corruptRecordsThrowInsteadOfTrapping() throws {
        let (fold, _, _, _, _) = simulatedFold()
        var copy = fold
        let bytes = TimelineCodec.encode(copy.takeTouchedTimelines()[3].parts)
        for cut in stride(from: 0, to: bytes.count - 1, by: 7) {
            #expect(throws: (any Error).self) { try TimelineCodec.decode(Array(bytes[..<cut])) }
        }
        var wrongVersion = bytes
        wrongVersion[0] = 99
        #expect(throws: (any Error).self) { try TimelineCodec.decode(wrongVersion) }
        var rng = SeededRandom(seed: 3)
        for _ in 0..<2_000 {
            var mutated = bytes
            mutated[Int.random(in: 0..<mutated.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            _ = try? TimelineCodec.decode(mutated)  // must not crash
        }
    }
}
