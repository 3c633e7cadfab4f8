import Domain
import Simulation
import Testing

/// Ordering at the full replay horizon: inputs arriving hours late, after tens or hundreds of newer
/// inputs, are folded at their place; the result, upserted by `_id`, equals the in-order fold.
@Suite struct HorizonTests {
    static let o = World.center

    /// A phone driving north to the store (a 150 m circle, 5 min dwell, also the trip's destination),
    /// offline for `gapMinutes` while it enters, dwells and leaves, one fix every 15 s throughout.
    /// - Returns: the trip command, the fixes before the gap, the buffered fixes (replayed), and the
    ///   live fixes after it.
    static func drive(user: String = "u1", gapMinutes: Int, liveAfter: Int, startAt: Int64 = 0)
        -> (start: TripCommand, before: [Fix], buffer: [Fix], after: [Fix])
    {
        let start = World.start(user, at: startAt, threshold: 5)
        var before: [Fix] = [], buffer: [Fix] = [], after: [Fix] = []
        let gapStart = startAt + 600, gapEnd = gapStart + Int64(gapMinutes) * 60
        var t = startAt + 15
        while t < gapEnd + Int64(liveAfter) * 15 {
            // 2 km south, then 4 m/s north: inside from ~8 min into the gap; parked in the middle, then away east.
            let north: Double, east: Double
            let intoGap = t - gapStart
            if t < gapStart {
                north = -2_000 - Double(gapStart - t) * 4; east = 0
            } else if intoGap < 480 {
                north = -2_000 + Double(intoGap) * 4.2; east = 0
            } else if intoGap < 480 + 420 {
                north = 0; east = 0  // inside, long enough for the dwell
            } else {
                north = 0; east = min(Double(intoGap - 900) * 6, 3_000)
            }
            let fix = World.fix(user, at: t, World.offset(o, north: north, east: east), accuracy: 8,
                                replayed: t >= gapStart && t < gapEnd)
            if t < gapStart { before.append(fix) } else if t < gapEnd { buffer.append(fix) } else { after.append(fix) }
            t += 15
        }
        return (start, before, buffer, after)
    }

    static let store = World.circle("store", "g1", radius: 150, dwell: 5)

    /// The in-order fold of the same inputs.
    static func reference(_ inputs: [Input], geofences: [Geofence], settings: FoldSettings = FoldSettings()) -> [Event] {
        var sorted = inputs
        sorted.sort { $0.time < $1.time }
        var h = Harness(geofences, settings: settings, history: MemoryHistoryStore())
        for input in sorted { h.send(input) }
        return h.upserted()
    }

    static func same(_ a: [Event], _ b: [Event]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.hasSameContent(as: $1) }
    }

    /// The first difference between two upserted lists, briefly.
    static func difference(_ a: [Event], _ b: [Event]) -> String {
        func brief(_ e: Event) -> String {
            "\(e.userId) \(e.type) at +\((e.createdAt - World.t0) / 1000) s \(e.trip.map { "\($0.status)" } ?? "")"
        }
        let bIDs = Dictionary(b.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        let aIDs = Dictionary(a.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        let onlyA = a.filter { bIDs[$0.id] == nil }.sorted { $0.createdAt < $1.createdAt }
        let onlyB = b.filter { aIDs[$0.id] == nil }.sorted { $0.createdAt < $1.createdAt }
        let changed = a.filter { event in bIDs[event.id].map { !$0.hasSameContent(as: event) } ?? false }
        return "\(a.count) vs \(b.count); only in result: \(onlyA.prefix(3).map(brief)); only in reference: "
            + "\(onlyB.prefix(3).map(brief)); changed: \(changed.prefix(2).map { brief($0) + " vs " + brief(bIDs[$0.id]!) })"
    }

    @Test(arguments: [false, true])
    func aLateOfflineBufferIsPlacedAfterFortyLiveFixes(oneBatch: Bool) {
        let (start, before, buffer, after) = Self.drive(gapMinutes: 24, liveAfter: 60)
        #expect(buffer.count == 96)
        var h = Harness([Self.store], history: MemoryHistoryStore())
        h.send(start)
        for fix in before { h.send(fix) }
        for fix in after.prefix(40) { h.send(fix) }
        h.settlesEachInput = !oneBatch
        for fix in buffer { #expect(h.send(fix) == .accepted) }
        h.settlesEachInput = true
        h.settle()
        for fix in after.dropFirst(40) { h.send(fix) }

        let inputs = [Input.command(start)] + (before + buffer + after).map(Input.fix)
        let reference = Self.reference(inputs, geofences: [Self.store])
        let result = h.upserted()
        #expect(Self.same(result, reference), "\(Self.difference(result, reference))")
        let types = Set(result.map(\.type))
        for type: EventType in [.enteredGeofence, .dwelledInGeofence, .exitedGeofence, .arrivedAtTripDestination] {
            #expect(types.contains(type), "\(type) missing")
        }
        let gap = (buffer.first!.createdAt)...(buffer.last!.createdAt)
        #expect(result.filter { $0.type == .enteredGeofence }.allSatisfy { gap.contains($0.createdAt) })
        #expect(h.fold.state(of: "u1")?.trip?.snapshot.status == .arrived)
        #expect(h.fold.counters.lateInputs == 96)
        #expect(h.fold.counters.rewinds == (oneBatch ? 1 : 96))
    }

    @Test func aTwoHourBufferDeliveredHalfAnHourLateCostsOneRefoldInABatch() {
        let (start, before, buffer, after) = Self.drive(gapMinutes: 120, liveAfter: 120)
        #expect(buffer.count == 480)
        let store = MemoryHistoryStore()
        var h = Harness([Self.store], history: store)
        h.send(start)
        for fix in before + after { h.send(fix) }
        #expect(store.segmentCount >= 4, "the live fixes reached the store")
        h.settlesEachInput = false
        for fix in buffer { #expect(h.send(fix) == .accepted) }
        h.settle()
        let inputs = [Input.command(start)] + (before + buffer + after).map(Input.fix)
        let reference = Self.reference(inputs, geofences: [Self.store])
        #expect(Self.same(h.upserted(), reference), "\(Self.difference(h.upserted(), reference))")
        #expect(h.fold.counters.rewinds == 1)
        // The refold folds the history from the segment the buffer lands in, twice (old and new):
        // in proportion to what it places, not to the buffer's length times the history.
        let history = before.count + buffer.count + after.count + 1
        #expect(h.fold.counters.refoldedInputs <= 2 * history)
        #expect(h.fold.counters.refoldedInputs >= buffer.count + 2 * after.count)
    }

    @Test func aTripCommandLateByMinutesStartsTheTripAtItsPlace() {
        let (start, before, buffer, after) = Self.drive(gapMinutes: 24, liveAfter: 10)
        let fixes = before + buffer + after
        var h = Harness([Self.store], history: MemoryHistoryStore())
        // The dispatch backend's start arrives 10 minutes (40 fixes) after its createdAt.
        for fix in fixes.prefix(41) { h.send(fix) }
        #expect(h.send(start) == .accepted)
        for fix in fixes.dropFirst(41) { h.send(fix) }
        let reference = Self.reference([Input.command(start)] + fixes.map(Input.fix), geofences: [Self.store])
        #expect(Self.same(h.upserted(), reference), "\(Self.difference(h.upserted(), reference))")
        #expect(h.upserted().contains { $0.type == .arrivedAtTripDestination })
    }

    @Test func theHorizonIsTheOnlyBound() {
        var settings = FoldSettings()
        settings.replayHorizon = 7 * 24 * 3_600_000
        settings.segmentInputs = 8
        let store = MemoryHistoryStore()
        var h = Harness([Self.store], settings: settings, history: store)
        // A week of a fix every 10 minutes.
        let week = Int64(7 * 24 * 3600)
        var t: Int64 = 0
        while t <= week {
            h.send(World.fix(at: t, World.offset(Self.o, north: Double(t % 5_000), east: 0), accuracy: 10))
            t += 600
        }
        let newest = t - 600
        #expect(store.inputCount > 900, "a week of history is kept")
        // Exactly at the horizon: placed. One millisecond before it: too late, saying by how much.
        let atHorizon = h.send(World.fix(at: newest - week, World.offset(Self.o, north: 7, east: 0)))
        #expect(atHorizon == .accepted || atHorizon == .duplicate)
        var fold = h.fold
        var events: [Event] = []
        let beyond = Fix(userId: "u1", createdAt: World.t0 + (newest - week) * 1000 - 1,
                         position: World.offset(Self.o, north: 9, east: 0))
        let result = fold.process(beyond, geofences: h.geofences, processingTime: World.t0 + newest * 1000,
                                  events: &events)
        #expect(result.isRejected(.tooLate))
        if case let .rejected(_, detail) = result { #expect(detail.contains("168 h 0 min behind")) }
    }

    @Test func historyOlderThanTheHorizonExpiresByItself() {
        var settings = FoldSettings()
        settings.replayHorizon = 3_600_000
        settings.segmentInputs = 16
        let store = MemoryHistoryStore()
        var h = Harness([Self.store], settings: settings, history: store)
        for i in 0..<(6 * 240) {  // six hours of 15 s fixes
            h.send(World.fix(at: Int64(i) * 15, World.offset(Self.o, north: Double(i % 40) * 50, east: 0)))
        }
        // One hour is 240 inputs; at most a segment more is kept, plus the hot tail.
        let kept = store.inputCount + h.fold.timeline(of: "u1")!.hotInputCount
        #expect(kept >= 240 && kept <= 240 + 2 * settings.segmentInputs, "kept \(kept)")
    }

    @Test func aFloodOfInputsAtOneInstantIsBounded() {
        var h = Harness([Self.store], history: MemoryHistoryStore())
        h.send(World.fix(at: 0, Self.o))
        var rejected = 0
        for i in 1...100 {
            if h.send(World.fix(at: 10, World.offset(Self.o, north: Double(i), east: 0))).isRejected(.timestampFlood) {
                rejected += 1
            }
        }
        #expect(rejected == 100 - UserTimeline.maximumEqualTimes)
        #expect(h.fold.timeline(of: "u1")!.hotInputCount <= UserTimeline.maximumEqualTimes + 1)
        // Late ones too: queued behind a late input, the excess is dropped when they are placed.
        h.settlesEachInput = false
        h.send(World.fix(at: 5, Self.o))
        for i in 1...100 { h.send(World.fix(at: 20, World.offset(Self.o, north: Double(i), east: 1))) }
        h.settle()
        #expect(h.fold.counters.rejected[.timestampFlood] == 2 * (100 - UserTimeline.maximumEqualTimes))
        #expect(h.fold.timeline(of: "u1")!.hotInputCount <= 2 * UserTimeline.maximumEqualTimes + 2)
    }

    @Test func segmentsAreAlsoCutByWhatTheirInputsCarry() {
        let store = MemoryHistoryStore()
        var h = Harness([Self.store], history: store)
        for i in 0..<40 {
            var fix = World.fix(at: Int64(i) * 15, Self.o)
            fix.metadata = RawJSON("{\"blob\":\"" + String(repeating: Character(String(i % 10)), count: 60_000) + "\"}")
            h.send(fix)
        }
        #expect(store.segmentCount >= 5, "cut by weight, not after 32 inputs")
        for segment in store.all(of: "u1") {
            let weight = segment.inputs.reduce(0) { $0 + $1.attachmentWeight }
            #expect(weight < UserTimeline.segmentAttachmentBytes + 65_536, "a segment carries \(weight) bytes")
        }
        // Late data cut the same way when placed.
        h.settlesEachInput = false
        for i in 0..<10 {
            var fix = World.fix(at: Int64(i) * 15 + 7, Self.o, replayed: true)
            fix.metadata = RawJSON("{\"late\":\"" + String(repeating: "z", count: 60_000) + "\(i)\"}")
            h.send(fix)
        }
        h.settle()
        for segment in store.all(of: "u1") {
            let weight = segment.inputs.reduce(0) { $0 + $1.attachmentWeight }
            #expect(weight < UserTimeline.segmentAttachmentBytes + 65_536, "a segment carries \(weight) bytes")
        }
    }

    // MARK: - The ordering property across users and long gaps

    /// A few users of one partition, each with a trip and an offline gap of up to three hours.
    static func fleet(seed: UInt64) -> (geofences: [Geofence], inputs: [Input]) {
        var rng = SeededRandom(seed: seed)
        var fences: [Geofence] = []
        for i in 0..<6 {
            let c = World.offset(o, north: Double.random(in: -1_500...1_500, using: &rng),
                                 east: Double.random(in: -1_500...1_500, using: &rng))
            fences.append(World.circle("s", "g\(i)", at: c, radius: Double.random(in: 80...250, using: &rng),
                                       dwell: Bool.random(using: &rng) ? Int.random(in: 1...6, using: &rng) : nil))
        }
        var inputs: [Input] = []
        for u in 0..<Int.random(in: 2...5, using: &rng) {
            let user = "u\(u)"
            var north = Double.random(in: -1_500...1_500, using: &rng)
            var east = Double.random(in: -1_500...1_500, using: &rng)
            var t = Int64.random(in: 0...300, using: &rng)
            let steps = Int.random(in: 60...240, using: &rng)
            let tripAt = Int.random(in: 0..<steps, using: &rng)
            for step in 0..<steps {
                if step == tripAt {
                    inputs.append(.command(World.start(user, at: t + 1, tag: "s",
                                                       geofence: "g\(Int.random(in: 0..<6, using: &rng))", threshold: 2)))
                }
                north += Double.random(in: -120...120, using: &rng)
                east += Double.random(in: -120...120, using: &rng)
                let accuracy: Float = Bool.random(using: &rng) ? .nan : Float.random(in: 3...90, using: &rng)
                inputs.append(.fix(Fix(userId: user, createdAt: World.t0 + t * 1000,
                                       position: World.offset(o, north: north, east: east), accuracy: accuracy)))
                t += Int64.random(in: 5...60, using: &rng)
                if Int.random(in: 0..<80, using: &rng) == 0 { t += Int64.random(in: 600...10_800, using: &rng) }
            }
        }
        return (fences, inputs)
    }

    /// Arrival orders across users: per-user offline buffers of up to hours delivered after newer
    /// fixes of everyone, swaps, duplicates; the partition's order mixes users arbitrarily.
    static func arrival(_ inputs: [Input], seed: UInt64) -> [Input] {
        var rng = SeededRandom(seed: seed ^ 0x5eed)
        var order = inputs.sorted { $0.time < $1.time }
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            // A user's run of inputs (an offline buffer) moved later, past other users' newer inputs.
            let start = Int.random(in: 0..<order.count, using: &rng)
            let user = order[start].userId
            let length = Int.random(in: 1...150, using: &rng)
            let picked = order.indices.filter { $0 >= start && order[$0].userId == user }.prefix(length)
            let run = picked.map { order[$0] }
            for index in picked.reversed() { order.remove(at: index) }
            let target = Int.random(in: min(start, order.count)...order.count, using: &rng)
            order.insert(contentsOf: run, at: target)
        }
        for _ in 0..<Int.random(in: 0...6, using: &rng) {
            order.swapAt(Int.random(in: 0..<order.count, using: &rng), Int.random(in: 0..<order.count, using: &rng))
        }
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            order.insert(order[Int.random(in: 0..<order.count, using: &rng)], at: Int.random(in: 0...order.count, using: &rng))
        }
        return order
    }

    @Test(arguments: 0..<60)
    func resultDoesNotDependOnArrivalOrderAcrossUsersAndLongGaps(seed: Int) {
        let (fences, inputs) = Self.fleet(seed: UInt64(seed))
        var settings = FoldSettings()
        settings.segmentInputs = 5
        settings.replayHorizon = 48 * 3_600_000  // every input of these day-long histories is within it
        let reference = Self.reference(inputs, geofences: fences, settings: settings)
        var rng = SeededRandom(seed: UInt64(seed) &+ 99)
        var h = Harness(fences, settings: settings, history: MemoryHistoryStore())
        h.settlesEachInput = false
        for input in Self.arrival(inputs, seed: UInt64(seed)) {
            h.send(input)
            if Int.random(in: 0..<20, using: &rng) == 0 { h.settle() }  // batches of random size
        }
        h.settle()
        let result = h.upserted()
        #expect(Self.same(result, reference), "seed \(seed): \(Self.difference(result, reference))")
        #expect(!h.results.contains { if case .rejected = $0 { true } else { false } })
    }
}

extension Input {
    var userId: String {
        switch self {
        case let .fix(f): f.userId
        case let .command(c): c.userId
        }
    }
}

extension Harness {
    @discardableResult
    mutating func send(_ input: Input) -> PartitionFold.Result {
        switch input {
        case let .fix(f): send(f)
        case let .command(c): send(c)
        }
    }
}
