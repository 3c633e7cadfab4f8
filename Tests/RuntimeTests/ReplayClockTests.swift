import Codec
import Domain
import Foundation
import LZ4IO
import Runtime
import Testing

/// `tripstream replay` has no wall clock: one device's wrong clock must not move time for the
/// others, while a real gap in the data, where every user moves on, still advances it.
@Suite struct ReplayClockTests {
    static let t0: UnixMillis = 1_767_247_200_000  // 2026-01-01T06:00:00Z
    static let store = Geofence(tag: "store", externalId: "g1", description: "store",
                                shape: .circle(center: Coordinate(latitude: 41.148, longitude: -8.611), radius: 150),
                                dwellThreshold: 10)

    static func fix(_ user: String, minutes: Double, inside: Bool = true, replayed: Bool = false) -> Fix {
        Fix(userId: user, createdAt: t0 + UnixMillis(minutes * 60_000),
            position: Coordinate(latitude: inside ? 41.148 : 41.2, longitude: -8.611), accuracy: 5, replayed: replayed)
    }

    /// Replays fixes (in this order) and a trip start for user A; returns events and dead letters.
    static func replay(_ fixes: [Fix]) throws -> (events: [DecodedEvent], deadLetters: [String]) {
        let directory = NSTemporaryDirectory() + "tripstream-clock-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try ReplayJob.makeDirectory(directory)
        func write(_ name: String, _ lines: [[UInt8]]) throws -> String {
            try NDJSONFile.write(lines, to: directory + "/" + name)
        }
        func encoded(_ body: (inout [UInt8]) -> Void) -> [UInt8] {
            var line: [UInt8] = []
            body(&line)
            return line
        }
        let start = TripCommand(kind: .start, userId: "A", createdAt: t0,
                                trip: TripOptions(externalId: "t1", destinationGeofenceTag: "store",
                                                  destinationGeofenceExternalId: "g1", mode: .car))
        // One partition: the guard judges a fix against the stream time of its partition, and these
        // scenarios need A and B in one stream (in different partitions B's clock could not reach A's).
        var options = ReplayOptions(
            geofencesPath: try write("geofences.ndjson", [encoded { InputRecordEncoder.encode(Self.store, into: &$0) }]),
            commandsPath: try write("commands.ndjson", [encoded { InputRecordEncoder.encode(start, into: &$0) }]),
            fixesPath: try write("fixes.ndjson", fixes.map { fix in encoded { InputRecordEncoder.encode(fix, into: &$0) } }),
            outputDirectory: directory + "/out", settings: FoldSettings())
        options.partitions = 1
        _ = try ReplayJob.run(options)
        let events = try String(contentsOfFile: directory + "/out/events.ndjson", encoding: .utf8)
            .split(separator: "\n").map { try EventDecoder.decode(Array($0.utf8)) }
        let letters = try String(contentsOfFile: directory + "/out/dead-letters.ndjson", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        return (events, letters)
    }

    @Test func oneDevicesWrongClockMovesNoClock() throws {
        let b2199 = Fix(userId: "B", createdAt: 7_226_582_400_000, position: Coordinate(latitude: 41.2, longitude: -8.6))
        let (events, letters) = try Self.replay([
            Self.fix("A", minutes: 1), Self.fix("A", minutes: 2), b2199, Self.fix("A", minutes: 4),
        ])
        #expect(letters.count == 1)
        #expect(letters.first?.contains("future_timestamp") == true)
        let types = events.map(\.event.type)
        #expect(!types.contains(.dwelledInGeofence), "A's 10-minute dwell must not fire after 3 minutes")
        #expect(!types.contains(.stoppedTrip), "A's trip must not expire")
        #expect(types.contains(.enteredGeofence))
        #expect(events.allSatisfy { ($0.actualCreatedAt ?? 0) < Self.t0 + 3_600_000 }, "no event processed in 2199")
    }

    @Test func aRealGapWhereEveryUserMovesOnAdvancesTime() throws {
        let (events, letters) = try Self.replay([
            Self.fix("A", minutes: 1), Self.fix("B", minutes: 1, inside: false), Self.fix("A", minutes: 2),
            // Two hours without data, then both users again.
            Self.fix("B", minutes: 122, inside: false), Self.fix("A", minutes: 122), Self.fix("A", minutes: 123),
        ])
        #expect(letters.isEmpty, "\(letters)")
        let types = events.map(\.event.type)
        #expect(types.contains(.dwelledInGeofence), "the gap really passed: A's dwell fires")
    }

    @Test func aLoneUsersGapIsFolded() throws {
        let (events, letters) = try Self.replay([
            Self.fix("A", minutes: 1), Self.fix("A", minutes: 2), Self.fix("A", minutes: 90), Self.fix("A", minutes: 91),
        ])
        #expect(letters.isEmpty, "\(letters)")
        #expect(events.contains { $0.event.type == .dwelledInGeofence })
    }

    /// A inside the store at 1 and 2 minutes, B outside at 1, then A's next fixes 40 minutes on: a
    /// real gap, held while the stream is still at 2 minutes.
    static let aJumpsAcrossAGap = [
        fix("A", minutes: 1), fix("B", minutes: 1, inside: false), fix("A", minutes: 2),
        fix("A", minutes: 40), fix("A", minutes: 41),
    ]

    /// A real gap (A's next fix 40 minutes on), then late data from B before B's live fixes catch
    /// up: B's offline buffer (marked replayed) and a fix of B older than the stream. Neither says
    /// the stream is still in the old time: A's fixes after the gap are folded, not dead-lettered.
    @Test func lateDataReplayedAcrossARealGapRefutesNothing() throws {
        let (events, letters) = try Self.replay(Self.aJumpsAcrossAGap + [
            Self.fix("B", minutes: 1.5, inside: false),  // behind the stream
            Self.fix("B", minutes: 3, inside: false, replayed: true), Self.fix("B", minutes: 4, inside: false, replayed: true),
            Self.fix("B", minutes: 41, inside: false), Self.fix("A", minutes: 42),
        ])
        #expect(letters.isEmpty, "\(letters)")
        #expect(events.contains { $0.event.type == .dwelledInGeofence }, "A stayed 40 minutes: the dwell fires")
    }

    /// Only late data from the others after A's jump, then the end of the input: nothing went on
    /// in the old time, so the gap is A's own and is folded.
    @Test func lateDataAloneLeavesTheGapToBeFolded() throws {
        let (events, letters) = try Self.replay(Self.aJumpsAcrossAGap + [
            Self.fix("B", minutes: 1.5, inside: false), Self.fix("B", minutes: 3, inside: false, replayed: true),
        ])
        #expect(letters.isEmpty, "\(letters)")
        #expect(events.contains { $0.event.type == .dwelledInGeofence }, "A stayed 40 minutes: the dwell fires")
    }

    /// B's buffer left unmarked goes on in the old time, as a wrong clock's neighbours would, but
    /// reaches A's time: held fixes the stream caught up with (within the skew) are folded.
    @Test func anUnmarkedBufferThatReachesTheHeldTimeReleasesIt() throws {
        let (events, letters) = try Self.replay(Self.aJumpsAcrossAGap + [
            Self.fix("B", minutes: 3, inside: false), Self.fix("B", minutes: 12, inside: false),
            Self.fix("B", minutes: 26, inside: false), Self.fix("A", minutes: 42),
        ])
        #expect(letters.isEmpty, "\(letters)")
        #expect(events.contains { $0.event.type == .dwelledInGeofence }, "A stayed 40 minutes: the dwell fires")
    }

    /// A device set to 2199 stays held while the others cross a real gap of their own (B's fix at
    /// 40 minutes is held too, then confirmed by A's): only the wrong clock is dead-lettered.
    @Test func aWrongClockStaysHeldThroughARealGapOfTheOthers() throws {
        let x2199 = Fix(userId: "X", createdAt: 7_226_582_400_000, position: Coordinate(latitude: 41.2, longitude: -8.6))
        let (events, letters) = try Self.replay([
            Self.fix("A", minutes: 1), Self.fix("B", minutes: 1, inside: false), x2199, Self.fix("A", minutes: 2),
            Self.fix("B", minutes: 40, inside: false), Self.fix("A", minutes: 41), Self.fix("A", minutes: 42),
        ])
        #expect(letters.count == 1 && letters.first?.contains(#"\"userId\":\"X\""#) == true, "\(letters)")
        #expect(letters.first?.contains("future_timestamp") == true)
        #expect(events.allSatisfy { ($0.actualCreatedAt ?? 0) < Self.t0 + 3_600_000 }, "no event processed in 2199")
        #expect(events.contains { $0.event.type == .dwelledInGeofence }, "the others' gap was real: A's dwell fires")
    }

    /// The issue's case: B's device says 2199 and B's fix is the first of its partition, where there
    /// is no stream yet to be ahead of. The next fix judges it: dead-lettered, no clock moved, and B's
    /// own true fixes minutes later are folded, not `too_late`.
    @Test func aWrongClockAsThePartitionsFirstFixIsJudgedByTheNext() throws {
        let b2199 = Fix(userId: "B", createdAt: 7_226_582_400_000, position: Coordinate(latitude: 41.2, longitude: -8.6))
        let (events, letters) = try Self.replay([
            b2199, Self.fix("A", minutes: 1), Self.fix("B", minutes: 1, inside: false), Self.fix("A", minutes: 2),
            Self.fix("B", minutes: 3), Self.fix("B", minutes: 4), Self.fix("A", minutes: 5),
        ])
        #expect(letters.count == 1, "\(letters)")
        #expect(letters.first?.contains("future_timestamp") == true && letters.first?.contains(#"\"userId\":\"B\""#) == true)
        #expect(events.contains { $0.event.type == .enteredGeofence && $0.event.userId == "B" }, "B's true fixes are folded")
        #expect(events.allSatisfy { ($0.actualCreatedAt ?? 0) < Self.t0 + 3_600_000 }, "no event processed in 2199")
    }

    /// A partition's first fix in the same time as the next is folded first, as it came.
    @Test func aTrueFirstFixIsFoldedBeforeTheNext() throws {
        let (events, letters) = try Self.replay([
            Self.fix("A", minutes: 1), Self.fix("B", minutes: 1.5, inside: false), Self.fix("A", minutes: 12),
        ])
        #expect(letters.isEmpty, "\(letters)")
        #expect(events.contains { $0.event.type == .dwelledInGeofence }, "A entered at 1 minute and stayed 11")
        #expect(events.allSatisfy { !$0.event.replayed }, "nothing was placed late")
    }
}

/// The future-clock rule of records with a Kafka timestamp (`run`, `replay --brokers`, `--archive`):
/// judged against the record's timestamp, not the wall clock nor the stream.
@Suite struct RecordTimeClockTests {
    @Test func anInputFarAheadOfItsRecordsTimestampIsDeadLettered() {
        var processor = InputProcessor(settings: FoldSettings())
        let skew = processor.fold.settings.maxClockSkew
        let sent: UnixMillis = 1_767_247_200_000
        var output = OutputBatch(newlineSeparated: true)
        func send(_ user: String, at time: UnixMillis, recordTime: UnixMillis?) {
            let fix = Fix(userId: user, createdAt: time, position: Coordinate(latitude: 41.148, longitude: -8.611))
            var line: [UInt8] = []
            InputRecordEncoder.encode(fix, into: &line)
            line.withUnsafeBytes { value in
                processor.process(.fix(fix), key: Array(user.utf8), value: value,
                                  source: RecordSource(topic: "tripstream.locations", partition: 0, offset: 0),
                                  geofences: GeofenceTable(), processingTime: sent + 10_000_000_000, recordTime: recordTime,
                                  into: &output)
            }
        }
        send("B", at: sent + skew + 1, recordTime: sent)  // ahead of its record by more than the skew
        send("A", at: sent + skew, recordTime: sent)  // at the skew: folded
        send("C", at: sent + 2 * skew, recordTime: nil)  // no timestamp: left to the fold
        send("D", at: sent + 2 * skew, recordTime: -1)  // Kafka's "none"
        #expect(processor.counters.deadLetters[.futureTimestamp] == 1)
        #expect(processor.fold.state(of: "B") == nil, "never its user's newest input")
        #expect(processor.fold.state(of: "A") != nil && processor.fold.state(of: "C") != nil && processor.fold.state(of: "D") != nil)
    }
}
