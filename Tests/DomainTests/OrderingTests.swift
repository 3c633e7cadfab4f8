import Domain
import Simulation
import Testing

enum Input {
    case fix(Fix)
    case command(TripCommand)

    var time: UnixMillis {
        switch self {
        case let .fix(f): f.createdAt
        case let .command(c): c.createdAt
        }
    }
}

@Suite struct OrderingTests {
    let o = World.center

    @Test func duplicatesAreDropped() {
        var h = Harness([World.circle("store", "g1")])
        let fix = World.fix(at: 0, o)
        h.send(fix)
        #expect(h.send(fix) == .duplicate)
        h.send(World.fix(at: 10, o))
        #expect(h.send(fix) == .duplicate)  // a late duplicate too
        #expect(h.fold.counters.duplicates == 2)
        #expect(h.published.count == 1)
    }

    @Test func lateFixMovesAnEntryEarlierAsACorrection() {
        var h = Harness([World.circle("store", "g1")])
        h.send(World.fix(at: 0, World.offset(o, north: 1_000, east: 0)))
        h.send(World.fix(at: 120, o))
        let entry = h.published[0]
        #expect(entry.createdAt == World.t0 + 120_000 && !entry.replayed && !entry.late)
        h.send(World.fix(at: 60, World.offset(o, north: 20, east: 0), replayed: true))
        #expect(h.published.count == 2)
        let corrected = h.published[1]
        #expect(corrected.id == entry.id)
        #expect(corrected.revision == .corrected)
        #expect(corrected.replayed && !corrected.late)
        #expect(corrected.createdAt == World.t0 + 60_000)
        #expect(h.fold.counters.rewinds == 1)
    }

    @Test func lateFixRetractsAnEntryThatNoLongerHappened() {
        // Inside at 0 (entered); a "jump" fix at 30 looked like a real exit-and-return pattern?
        // Simpler: a late fix shows the user left before a dwell timer fired.
        var h = Harness([World.circle("store", "g1", dwell: 2)])
        h.send(World.fix(at: 0, o))
        h.send(World.fix(at: 200, o))  // dwell fires at 120 s
        #expect(h.types() == [.enteredGeofence, .dwelledInGeofence])
        // Offline buffer: the user was 1 km away at 60 s and came back at 150 s.
        h.send(World.fix(at: 60, World.offset(o, north: 1_000, east: 0), replayed: true))
        let retracted = h.published.filter { $0.revision == .retracted }
        #expect(retracted.map(\.type) == [.dwelledInGeofence])
        // The exit at 60 s and the re-entry at 200 s are new, from the replay.
        let fresh = h.published.dropFirst(2).filter { $0.revision == .original }
        #expect(Set(fresh.map(\.type)) == [.exitedGeofence, .enteredGeofence])
        #expect(fresh.allSatisfy { $0.replayed && !$0.late })
    }

    @Test func inputsBeyondTheHorizonAreTooLate() {
        var settings = FoldSettings()
        settings.replayHorizon = 600_000
        var h = Harness([], settings: settings)
        h.send(World.fix(at: 1_000, o))
        #expect(h.send(World.fix(at: 100, o)).isRejected(.tooLate))
        #expect(h.send(World.fix(at: 500, o)) == .accepted)
    }

    @Test func inputsOlderThanTheKeptHistoryAreTooLate() {
        var settings = FoldSettings()
        settings.replayHorizon = 100_000
        settings.segmentInputs = 4
        let store = MemoryHistoryStore()
        var h = Harness([], settings: settings, history: store)
        for i in 0..<40 { h.send(World.fix(at: Int64(i) * 10, World.offset(o, north: Double(i), east: 0))) }
        // Newest at 390 s, horizon 100 s: 285 s is beyond it, 295 s within.
        let late = h.send(World.fix(at: 285, o))
        #expect(late.isRejected(.tooLate))
        if case let .rejected(_, detail) = late { #expect(detail.contains("105 s behind")) }
        #expect(h.send(World.fix(at: 295, o)) == .accepted)
        // Older history expired by itself: what is stored reaches back about a horizon and a segment.
        #expect(store.inputCount < 20)
        #expect(store.all(of: "u1").first.map { $0.firstTime >= World.t0 + 250_000 } == true)
    }

    @Test func futureTimestampsAreRejected() {
        var fold = PartitionFold()
        var events: [Event] = []
        let result = fold.process(World.fix(at: 7_200, o), geofences: GeofenceTable(), processingTime: World.t0,
                                  events: &events)
        #expect(result.isRejected(.futureTimestamp))
    }

    @Test func replayedFixesAreReplayedAndLaggingOnesLate() {
        var h = Harness([World.circle("store", "g1"), World.circle("store", "g2", at: World.offset(o, north: 2_000, east: 0))])
        h.send(World.fix(at: 0, o, replayed: true))
        #expect(h.published.count == 1)
        #expect(h.published.allSatisfy { $0.replayed && !$0.late })
        h.clockLag = 3_600_000
        h.send(World.fix(at: 100, World.offset(o, north: 2_000, east: 0)))
        #expect(h.published.count == 3)
        // In order but an hour behind processing time: late, not replayed (Radar's `replayed` is offline replay).
        #expect(h.published.dropFirst().allSatisfy { !$0.replayed && $0.late })
    }

    @Test func lateTripCommandRewindsTheTrip() {
        var h = Harness([World.circle("store", "g1")])
        h.send(World.fix(at: 10, World.offset(o, north: 1_000, east: 0)))
        h.send(World.fix(at: 20, World.offset(o, north: 900, east: 0)))
        h.send(World.start(at: 5))
        let types = h.types()
        #expect(types.filter { $0 == .updatedTrip }.count == 2)
        #expect(h.published.allSatisfy { $0.replayed })
    }

    // MARK: - The ordering property

    /// A random day of one user: geofences, a trip or two, a path with noise and jumps.
    static func scenario(seed: UInt64) -> (geofences: [Geofence], inputs: [Input]) {
        var rng = SeededRandom(seed: seed)
        let o = World.center
        var fences: [Geofence] = []
        for i in 0..<4 {
            let c = World.offset(o, north: Double.random(in: -800...800, using: &rng),
                                 east: Double.random(in: -800...800, using: &rng))
            fences.append(World.circle("s", "g\(i)", at: c, radius: Double.random(in: 60...250, using: &rng),
                                       dwell: Bool.random(using: &rng) ? Int.random(in: 1...4, using: &rng) : nil))
        }
        let square = [(-150.0, -150.0), (-150, 150), (150, 150), (150, -150)].map { World.offset(o, north: $0.0, east: $0.1) }
        fences.append(Geofence(tag: "zone", externalId: "p", shape: .polygon(rings: [square]), dwellThreshold: 2))

        var inputs: [Input] = []
        var north = Double.random(in: -900...900, using: &rng), east = Double.random(in: -900...900, using: &rng)
        var t: Int64 = 0
        let steps = Int.random(in: 20...60, using: &rng)
        let tripAt = Int.random(in: 0..<steps, using: &rng)
        let stopAt = Int.random(in: tripAt..<(steps + 5), using: &rng)
        for step in 0..<steps {
            if step == tripAt {
                inputs.append(.command(World.start(at: t + 1, tag: "s", geofence: "g\(Int.random(in: 0..<4, using: &rng))",
                                                   threshold: 1, scheduled: Bool.random(using: &rng) ? t + 200 : nil)))
            }
            if step == stopAt {
                inputs.append(.command(World.command(Bool.random(using: &rng) ? .complete : .cancel, at: t + 2)))
            }
            north += Double.random(in: -150...150, using: &rng)
            east += Double.random(in: -150...150, using: &rng)
            var c = World.offset(o, north: north, east: east)
            if Int.random(in: 0..<15, using: &rng) == 0 { c = World.offset(o, north: 9_000, east: 0) }  // a jump
            let accuracy: Float = Bool.random(using: &rng) ? .nan : Float.random(in: 3...120, using: &rng)
            inputs.append(.fix(Fix(userId: "u1", createdAt: World.t0 + t * 1000, position: c, accuracy: accuracy)))
            t += Int64.random(in: 5...90, using: &rng)
        }
        return (fences, inputs)
    }

    /// Arrival orders a fleet produces: offline buffers delivered after a newer live fix, swaps,
    /// retried duplicates.
    static func arrivalOrder(_ sorted: [Input], seed: UInt64) -> [Input] {
        var rng = SeededRandom(seed: seed ^ 0xabcdef)
        var order = sorted
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            // Move a run of inputs later (the device was offline and replays its buffer).
            let start = Int.random(in: 0..<order.count, using: &rng)
            let length = Int.random(in: 1...min(8, order.count - start), using: &rng)
            let run = Array(order[start..<(start + length)])
            order.removeSubrange(start..<(start + length))
            let target = Int.random(in: start...order.count, using: &rng)
            order.insert(contentsOf: run, at: target)
        }
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            let i = Int.random(in: 0..<order.count, using: &rng), j = Int.random(in: 0..<order.count, using: &rng)
            order.swapAt(i, j)
        }
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            order.insert(order[Int.random(in: 0..<order.count, using: &rng)],
                         at: Int.random(in: 0...order.count, using: &rng))
        }
        return order
    }

    static func run(_ inputs: [Input], geofences: [Geofence]) -> Harness {
        var settings = FoldSettings()
        settings.segmentInputs = 4  // most refolds reach into stored segments
        var h = Harness(geofences, settings: settings, history: MemoryHistoryStore())
        for input in inputs {
            switch input {
            case let .fix(f): h.send(f)
            case let .command(c): h.send(c)
            }
        }
        return h
    }

    @Test(arguments: 0..<300)
    func resultDoesNotDependOnArrivalOrder(seed: Int) {
        let (fences, inputs) = Self.scenario(seed: UInt64(seed))
        let reference = Self.run(inputs, geofences: fences).upserted()
        let shuffled = Self.run(Self.arrivalOrder(inputs, seed: UInt64(seed)), geofences: fences)
        let result = shuffled.upserted()
        #expect(result.count == reference.count)
        let same = zip(result, reference).allSatisfy { $0.hasSameContent(as: $1) }
        #expect(same, "seed \(seed): \(result.map(\.type)) vs \(reference.map(\.type))")
        #expect(!shuffled.results.contains { if case .rejected = $0 { true } else { false } })
    }

    @Test func foldIsDeterministic() {
        let (fences, inputs) = Self.scenario(seed: 42)
        let a = Self.run(inputs, geofences: fences).published
        let b = Self.run(inputs, geofences: fences).published
        #expect(a == b)
        #expect(a.count > 5)
    }
}

@Suite struct OfflineReplayTests {
    @Test(arguments: [2, 6, 13, 24, 40])
    func aLongOfflineBufferReplayedAfterALiveFixIsFoldedNotTooLate(buffered: Int) {
        let o = World.center
        var h = Harness([World.circle("store", "g1")])
        var t: Int64 = 0
        for i in 0..<20 {
            h.send(World.fix(at: t, World.offset(o, north: Double(i) * 20, east: 0)))
            t += 5
        }
        let gapStart = t
        h.send(World.fix(at: gapStart + Int64(buffered) * 5 + 1, World.offset(o, north: 500, east: 0)))
        for i in 0..<buffered {
            let result = h.send(World.fix(at: gapStart + Int64(i) * 5, World.offset(o, north: 400 + Double(i), east: 0),
                                          replayed: true))
            #expect(result == .accepted, "buffered fix \(i) of \(buffered)")
        }
        #expect(h.fold.counters.rewinds == buffered)
    }
}

@Suite struct HistoryBoundaryTests {
    /// Commands and a live fix arrive while the device is offline; its buffer, newer than
    /// everything already folded into the checkpoint, must still be placed (not too late).
    @Test func bufferOlderThanRetainedHistoryButNewerThanTheCheckpointIsFolded() {
        let o = World.center
        var h = Harness([World.circle("store", "g1")])
        for i in 0..<12 { h.send(World.fix(at: Int64(i) * 5, World.offset(o, north: Double(i) * 10, east: 0))) }
        h.send(World.start(at: 200, trip: "a"))
        h.send(World.command(.complete, at: 210, trip: "a"))
        h.send(World.start(at: 211, trip: "b"))
        h.send(World.fix(at: 230, World.offset(o, north: 300, east: 0)))
        for i in 0..<10 {
            let result = h.send(World.fix(at: 60 + Int64(i) * 5, World.offset(o, north: 120 + Double(i) * 5, east: 0),
                                          replayed: true))
            #expect(result == .accepted, "buffered fix \(i)")
        }
        // Older than everything, but within the horizon: still placed, at the very start.
        #expect(h.send(World.fix(at: 1, o)) == .accepted)
        #expect(h.fold.timeline(of: "u1")!.hotInputCount <= FoldSettings().segmentInputs + 1)
    }
}

@Suite struct TableChangeTests {
    /// A late fix refolds history after a geofence was added: the entry that the new geofence
    /// yields was never published, so it must be published now (the old fold, redone with
    /// today's table, would hide it).
    @Test func aRefoldAfterAGeofenceChangePublishesWhatTheNewTableYields() {
        let o = World.center
        var h = Harness([])
        h.send(World.fix(at: 0, World.offset(o, north: 1_000, east: 0)))
        h.send(World.fix(at: 20, o))
        h.geofences.upsert(World.circle("store", "late"))
        h.send(World.fix(at: 10, World.offset(o, north: 500, east: 0), replayed: true))
        let entries = h.events(.enteredGeofence)
        #expect(entries.count == 1)
        #expect(entries.first?.createdAt == World.t0 + 20_000)
        #expect(entries.first?.replayed == true)
    }
}
