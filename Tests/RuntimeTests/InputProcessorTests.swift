import Codec
import Domain
import Runtime
import Testing

@Suite struct InputProcessorTests {
    /// What the Kafka runtime folds: inputs decoded once on arrival. A record that did not decode
    /// becomes a dead letter with its original bytes when its turn comes, and is counted.
    @Test func aPreDecodedInvalidRecordBecomesADeadLetterAtItsTurn() throws {
        var processor = InputProcessor(settings: FoldSettings())
        var output = OutputBatch(newlineSeparated: false)
        let bad = Array(#"{"userId":"u1","createdAt":"2026-13-01T00:00:00Z","latitude":1,"longitude":2}"#.utf8)
        let good = Array(#"{"userId":"u1","createdAt":"2026-01-01T00:00:00Z","latitude":1,"longitude":2}"#.utf8)
        let source = RecordSource(topic: "tripstream.locations", partition: 2, offset: 41)
        for bytes in [bad, good] {
            bytes.withUnsafeBytes { value in
                processor.process(DecodedInput.fix(bytes), key: Array("u1".utf8), value: value, source: source,
                                  geofences: GeofenceTable(), processingTime: 1_767_225_600_000, into: &output)
            }
        }
        #expect(processor.counters.recordsIn == 2)
        #expect(processor.counters.deadLetters[.badTimestamp] == 1)
        #expect(processor.fold.counters.fixes == 1)
        #expect(output.deadLetters.count == 1)
        var letters: [DeadLetter] = []
        try output.deadLetters.forEach { _, value in letters.append(try DeadLetterDecoder.decode(value)) }
        #expect(letters.first?.value == bad)
        #expect(letters.first?.offset == 41 && letters.first?.partition == 2)
    }

    /// A replay has no wall clock: a dead letter is received at the stream time, and has no receivedAt
    /// before the stream has one (neither `UnixMillis.min`, a date in year 0, nor a made-up 1970).
    @Test func aReplaysDeadLetterIsReceivedAtTheStreamTimeOrHasNoTimeBeforeIt() throws {
        var processor = InputProcessor(settings: FoldSettings())
        var output = OutputBatch(newlineSeparated: false)
        let bad = Array(#"{"userId":"u1","createdAt":"2026-01-01T00:00:00Z","latitude":"x","longitude":2}"#.utf8)
        let good = Array(#"{"userId":"u1","createdAt":"2026-01-01T00:00:00Z","latitude":1,"longitude":2}"#.utf8)
        for bytes in [bad, good, bad] {
            bytes.withUnsafeBytes { value in
                processor.processFix(key: nil, value: value, source: Self.source, geofences: GeofenceTable(),
                                     processingTime: nil, into: &output)
            }
        }
        #expect(try Self.letters(output).map(\.receivedAt) == [.min, Self.now])
        var lines: [String] = []
        try output.deadLetters.forEach { _, value in lines.append(String(decoding: value, as: UTF8.self)) }
        #expect(lines.count == 2 && !lines[0].contains("receivedAt") && !lines.joined().contains("1970"), "\(lines)")
        #expect(lines[1].contains(#""receivedAt":"2026-01-01T00:00:00.000Z""#), "\(lines)")
    }

    /// A file's records name their file and line in their dead letters; the offset is -1, not the line.
    @Test func aFilesDeadLetterNamesItsFileAndLine() throws {
        var processor = InputProcessor(settings: FoldSettings())
        processor.sourceFiles = ["tripstream.locations": "in/fixes.ndjson"]
        var output = OutputBatch(newlineSeparated: false)
        let bad = Array(#"{"userId":"u1","createdAt":"2026-01-01T00:00:00Z","latitude":"x","longitude":2}"#.utf8)
        for source in [Self.source, RecordSource(topic: "tripstream.trip-commands", partition: 0, offset: 9)] {
            bad.withUnsafeBytes { value in
                processor.processFix(key: nil, value: value, source: source, geofences: GeofenceTable(),
                                     processingTime: nil, into: &output)
            }
        }
        let letters = try Self.letters(output)
        #expect(letters.map(\.file) == ["in/fixes.ndjson", nil])
        #expect(letters.map(\.line) == [7, nil])
        #expect(letters.map(\.offset) == [-1, 9])
        #expect(letters.map(\.topic) == ["tripstream.locations", "tripstream.trip-commands"])
    }

    static let source = RecordSource(topic: "tripstream.locations", partition: 0, offset: 7)
    static let now: UnixMillis = 1_767_225_600_000

    static func fixJSON(_ userIdJSON: String) -> [UInt8] {
        Array(#"{"userId":"\#(userIdJSON)","createdAt":"2026-01-01T00:00:00Z","latitude":1,"longitude":2}"#.utf8)
    }

    static func letters(_ output: OutputBatch) throws -> [DeadLetter] {
        var letters: [DeadLetter] = []
        try output.deadLetters.forEach { _, value in letters.append(try DeadLetterDecoder.decode(value)) }
        return letters
    }

    /// Fixes and commands are partitioned by key: one whose key is another user's would be folded in
    /// that user's partition. It is dead-lettered `key_mismatch` (pre-decoded, as the Kafka runtime
    /// folds, and decoded here alike) and folds nothing.
    @Test func aFixOrCommandKeyedByAnotherUserIsDeadLettered() throws {
        var processor = InputProcessor(settings: FoldSettings())
        var output = OutputBatch(newlineSeparated: false)
        let fix = Self.fixJSON("u1")
        let command = Array(
            #"{"type":"start","userId":"u1","createdAt":"2026-01-01T00:00:01Z","trip":{"externalId":"t","destinationCoordinates":[2,1]}}"#
                .utf8)
        fix.withUnsafeBytes { value in
            processor.process(DecodedInput.fix(fix), key: Array("u2".utf8), value: value, source: Self.source,
                              geofences: GeofenceTable(), processingTime: Self.now, into: &output)
            processor.processFix(key: Array("u1\u{0}".utf8), value: value, source: Self.source,
                                 geofences: GeofenceTable(), processingTime: Self.now, into: &output)
        }
        command.withUnsafeBytes { value in
            processor.process(DecodedInput.command(command), key: Array("U1".utf8), value: value,
                              source: RecordSource(topic: "tripstream.trip-commands", partition: 0, offset: 3),
                              geofences: GeofenceTable(), processingTime: Self.now, into: &output)
        }
        #expect(processor.counters.recordsIn == 3)
        #expect(processor.counters.deadLetters[.keyMismatch] == 3)
        #expect(processor.fold.userCount == 0 && processor.fold.counters.fixes == 0)
        #expect(processor.fold.counters.commands == 0)
        let letters = try Self.letters(output)
        #expect(letters.map(\.reason) == [.keyMismatch, .keyMismatch, .keyMismatch])
        #expect(letters.first?.detail == #"record key "u2" (2 bytes) is not the userId "u1""#)
        #expect(letters.first?.key == Array("u2".utf8) && letters.first?.value == fix)
        #expect(letters[1].detail == #"record key "u1\u{0}" (3 bytes) is not the userId "u1""#)
        #expect(letters[2].topic == "tripstream.trip-commands" && letters[2].value == command)
        #expect(processor.flushUsers(geofences: GeofenceTable(), now: Self.now, into: &output) == 0)
    }

    /// The key is compared with the decoded userId (escapes resolved); no key (a file replay) is not
    /// checked.
    @Test func aMatchingOrAbsentKeyFolds() throws {
        var processor = InputProcessor(settings: FoldSettings())
        var output = OutputBatch(newlineSeparated: false)
        let escaped = Self.fixJSON(#"caf\u00e9"#)
        escaped.withUnsafeBytes { value in
            processor.process(DecodedInput.fix(escaped), key: Array("café".utf8), value: value, source: Self.source,
                              geofences: GeofenceTable(), processingTime: Self.now, into: &output)
        }
        let plain = Self.fixJSON("u9")
        plain.withUnsafeBytes { value in
            processor.processFix(key: nil, value: value, source: Self.source, geofences: GeofenceTable(),
                                 processingTime: nil, into: &output)
        }
        #expect(output.deadLetters.count == 0)
        #expect(processor.fold.counters.fixes == 2)
        #expect(processor.fold.state(of: "café") != nil && processor.fold.state(of: "u9") != nil)
    }

    /// The state changelog's own keys start with a NUL byte (the partition checkpoint's, and history
    /// segments' 0x00 0x01): a userId never can, so no user's state can overwrite them.
    @Test func aUserIdShapedLikeAnInternalChangelogKeyIsDeadLettered() throws {
        var processor = InputProcessor(settings: FoldSettings())
        var output = OutputBatch(newlineSeparated: false)
        let checkpointKey = PartitionCheckpoint.key
        #expect(checkpointKey.first == 0 && RocksHistoryStore.changelogPrefix.first == 0)
        // JSON for the checkpoint key's text, and for a segment-like key (0x00 0x01 then "u1").
        let checkpointId = #"\u0000"# + String(decoding: checkpointKey.dropFirst(), as: UTF8.self)
        for (json, key) in [(checkpointId, checkpointKey), (#"\u0000\u0001u1"#, RocksHistoryStore.changelogPrefix + Array("u1".utf8))] {
            let bytes = Self.fixJSON(json)
            bytes.withUnsafeBytes { value in
                processor.process(DecodedInput.fix(bytes), key: key, value: value, source: Self.source,
                                  geofences: GeofenceTable(), processingTime: Self.now, into: &output)
            }
        }
        #expect(processor.counters.deadLetters[.invalidIdentifier] == 2)
        #expect(processor.fold.userCount == 0)
        let letters = try Self.letters(output)
        #expect(letters.allSatisfy { $0.detail.hasPrefix("userId has control character U+0000 at position 0") })
        #expect(letters.first?.key == checkpointKey)
        // Nothing for the users topic, no timeline for the changelog.
        #expect(processor.flushUsers(geofences: GeofenceTable(), now: Self.now, into: &output) == 0)
        #expect(output.users.count == 0)
    }
}
