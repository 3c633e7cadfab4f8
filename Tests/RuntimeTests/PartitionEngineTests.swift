import Codec
import Domain
@testable import Runtime
import Testing

/// The engine `run` and every replay drive: the same records give the same decisions whoever drives it.
@Suite struct PartitionEngineTests {
    static let t0: UnixMillis = 1_767_247_200_000

    /// Folds `fix` as a record of `timestamp` (negative: none) and returns what was dead-lettered so far.
    static func fold(_ fix: Fix, timestamp: Int64, processingTime: UnixMillis?, engine: inout PartitionEngine,
                     output: inout OutputBatch)
    {
        var line: [UInt8] = []
        InputRecordEncoder.encode(fix, into: &line)
        var table = GeofenceTable()
        line.withUnsafeBytes { value in
            let record = PartitionEngine.Record(
                key: Array(fix.userId.utf8), value: value,
                source: RecordSource(topic: "tripstream.locations", partition: 0, offset: 0), timestamp: timestamp)
            engine.fold(.fix(fix), record, geofences: &table, processingTime: processingTime, into: &output)
        }
    }

    static func fix(_ user: String, at time: UnixMillis) -> Fix {
        Fix(userId: user, createdAt: time, position: Coordinate(latitude: 41.148, longitude: -8.611), accuracy: 5)
    }

    /// A 2199 fix among other users' fixes, with its record's timestamp: dead-lettered by the record alone,
    /// whether the driver has a wall clock (`run`) or not (a replay of the topics); its user's next fix folds.
    @Test func aFarFutureFixIsDeadLetteredInEveryModeAndItsUsersNextFixFolds() {
        for processingTime in [Self.t0 + 5_000, nil] {
            var engine = PartitionEngine(processor: InputProcessor(settings: FoldSettings()))
            var output = OutputBatch(newlineSeparated: true)
            Self.fold(Self.fix("A", at: Self.t0), timestamp: Self.t0, processingTime: processingTime, engine: &engine,
                      output: &output)
            Self.fold(Self.fix("B", at: 7_226_582_400_000), timestamp: Self.t0 + 1_000, processingTime: processingTime,
                      engine: &engine, output: &output)
            Self.fold(Self.fix("A", at: Self.t0 + 2_000), timestamp: Self.t0 + 2_000, processingTime: processingTime,
                      engine: &engine, output: &output)
            Self.fold(Self.fix("B", at: Self.t0 + 3_000), timestamp: Self.t0 + 3_000, processingTime: processingTime,
                      engine: &engine, output: &output)
            #expect(engine.processor.counters.deadLetters[.futureTimestamp] == 1)
            #expect(engine.processor.fold.state(of: "B")?.locationAt == Self.t0 + 3_000, "B's next fix folded")
            #expect(engine.processor.fold.streamTime == Self.t0 + 3_000, "no clock moved")
        }
    }

    /// A file's line has no timestamp: with no wall clock either, the stream judges it (the clock guard
    /// holds a partition's first fix until the next); with a wall clock (`run`) it folds at once.
    @Test func aRecordWithoutATimestampIsJudgedByTheWallClockOrElseTheStream() {
        var replay = PartitionEngine(processor: InputProcessor(settings: FoldSettings()))
        var live = PartitionEngine(processor: InputProcessor(settings: FoldSettings()))
        var output = OutputBatch(newlineSeparated: true)
        Self.fold(Self.fix("A", at: Self.t0), timestamp: -1, processingTime: nil, engine: &replay, output: &output)
        Self.fold(Self.fix("A", at: Self.t0), timestamp: -1, processingTime: Self.t0, engine: &live, output: &output)
        #expect(replay.processor.fold.state(of: "A") == nil, "held until the stream can judge it")
        #expect(live.processor.fold.state(of: "A") != nil)
        Self.fold(Self.fix("B", at: Self.t0 + 1_000), timestamp: -1, processingTime: nil, engine: &replay, output: &output)
        #expect(replay.processor.fold.state(of: "A") != nil, "the next fix within the skew releases it")
    }

    /// Commands scheduled ahead fold before the first fix not older than them, and the rest at the end.
    @Test func scheduledCommandsFoldBeforeTheFirstFixNotOlder() {
        var engine = PartitionEngine(processor: InputProcessor(settings: FoldSettings()))
        var output = OutputBatch(newlineSeparated: true)
        func command(_ user: String, at time: UnixMillis) -> PartitionEngine.ScheduledCommand {
            let start = TripCommand(kind: .start, userId: user, createdAt: time,
                                    trip: TripOptions(externalId: "\(user)-t", destinationGeofenceTag: "store",
                                                      destinationGeofenceExternalId: "g1", mode: .car))
            var bytes: [UInt8] = []
            InputRecordEncoder.encode(start, into: &bytes)
            return PartitionEngine.ScheduledCommand(
                command: start, bytes: bytes, source: RecordSource(topic: "tripstream.trip-commands", partition: 0, offset: 0))
        }
        engine.schedule([command("A", at: Self.t0 + 1_500), command("B", at: Self.t0 + 9_000)])
        Self.fold(Self.fix("A", at: Self.t0 + 1_000), timestamp: Self.t0 + 1_000, processingTime: nil, engine: &engine,
                  output: &output)
        #expect(engine.processor.fold.counters.commands == 0 && engine.scheduledLeft == 2)
        Self.fold(Self.fix("A", at: Self.t0 + 2_000), timestamp: Self.t0 + 2_000, processingTime: nil, engine: &engine,
                  output: &output)
        #expect(engine.processor.fold.counters.commands == 1 && engine.scheduledLeft == 1)
        #expect(engine.processor.fold.state(of: "A")?.hasActiveTrip == true)
        var table = GeofenceTable()
        engine.finish(geofences: &table, processingTime: nil, into: &output)
        #expect(engine.scheduledLeft == 0 && engine.processor.fold.counters.commands == 2)
    }
}
