import Codec
import Domain
import LZ4IO
import Runtime

#if canImport(Glibc)
import Glibc
#endif

/// One decoder of untrusted bytes under fuzzing: it runs the decoder on the input, which must
/// return a value or throw, never crash; on a value it checks what the value promises (a round
/// trip through the encoder, the invariants the next stage relies on). A broken promise aborts,
/// like a trap: libFuzzer and the built-in harness both report the input.
enum FuzzTarget: String, CaseIterable, Sendable {
    case fix
    case tripCommand = "trip-command"
    case geofence
    case event
    case deadLetter = "dead-letter"
    case timeline
    case segment
    case snapshot
    case checkpoint
    case lz4Frame = "lz4-frame"

    /// JSON text (the JSON dictionary applies), or binary state.
    var isJSON: Bool {
        switch self {
        case .fix, .tripCommand, .geofence, .event, .deadLetter: true
        case .timeline, .segment, .snapshot, .checkpoint, .lz4Frame: false
        }
    }

    /// What the decoder under test is, for reports.
    var decoder: String {
        switch self {
        case .fix: "FixDecoder.decode"
        case .tripCommand: "TripCommandDecoder.decode"
        case .geofence: "GeofenceDecoder.decode(key:value:)"
        case .event: "EventDecoder.decode"
        case .deadLetter: "DeadLetterDecoder.decode"
        case .timeline: "TimelineCodec.decode"
        case .segment: "TimelineCodec.decodeSegment"
        case .snapshot: "PartitionSnapshot(decoding:)"
        case .checkpoint: "PartitionCheckpoint(bytes:)"
        case .lz4Frame: "LZ4Frame.decompress"
        }
    }

    /// Runs the decoder on `input`; true if it decoded a value (which kept its promises).
    func run(_ input: UnsafeRawBufferPointer) -> Bool {
        switch self {
        case .fix: Self.fix(input)
        case .tripCommand: Self.tripCommand(input)
        case .geofence: Self.geofence(input)
        case .event: Self.event(input)
        case .deadLetter: Self.deadLetter(input)
        case .timeline: Self.timeline(Array(input))
        case .segment: Self.segment(Array(input))
        case .snapshot: Self.snapshot(Array(input))
        case .checkpoint: Self.checkpoint(Array(input))
        case .lz4Frame: Self.lz4Frame(Array(input))
        }
    }

    func run(_ input: [UInt8]) -> Bool { input.withUnsafeBytes { run($0) } }

    // MARK: - JSON records

    /// Whether the reader's own validator accepts the bytes as one JSON value.
    private static func isValidJSON(_ input: UnsafeRawBufferPointer) -> Bool {
        (try? JSONReader.validate(input)) != nil
    }

    /// A decoder says `invalid_json` exactly when the bytes are not JSON: a syntax error anywhere
    /// wins over any other problem, and valid JSON is never called invalid.
    private static func checkRejection(_ error: DecodeError, _ input: UnsafeRawBufferPointer) {
        guard error.reason != .recordTooLarge else { return }
        let valid = isValidJSON(input)
        check(
            (error.reason == .invalidJSON) == !valid,
            "rejected with \(error) but the validator says the bytes are \(valid ? "valid" : "invalid") JSON")
        check(!error.detail.isEmpty, "rejected with an empty detail (\(error.reason.rawValue))")
    }

    private static func fix(_ input: UnsafeRawBufferPointer) -> Bool {
        // Member names compared with the expected one decide as names read as strings do.
        let unpredicted = Result { () throws(DecodeError) in try FixDecoder.decode(input, predictingNames: false) }
        let fix: Fix
        do {
            fix = try FixDecoder.decode(input)
        } catch {
            check(unpredicted == .failure(error), "rejected with \(error), without predicting names \(unpredicted)")
            checkRejection(error, input)
            return false
        }
        check(unpredicted == .success(fix), "decoded \(fix), without predicting names \(unpredicted)")
        check(isValidJSON(input), "decoded bytes the validator rejects")
        var once: [UInt8] = []
        InputRecordEncoder.encode(fix, into: &once)
        guard let again = decodeAgain(once, { b throws(DecodeError) in try FixDecoder.decode(b) }) else { return true }
        // The encoder writes every field but course and altitude.
        var expected = fix
        expected.course = .nan
        expected.altitude = .nan
        check(again == expected, "fix changed in a round trip: \(fix) became \(again)")
        return true
    }

    private static func tripCommand(_ input: UnsafeRawBufferPointer) -> Bool {
        let command: TripCommand
        do {
            command = try TripCommandDecoder.decode(input)
        } catch {
            checkRejection(error, input)
            return false
        }
        check(isValidJSON(input), "decoded bytes the validator rejects")
        var once: [UInt8] = []
        InputRecordEncoder.encode(command, into: &once)
        guard let again = decodeAgain(once, { b throws(DecodeError) in try TripCommandDecoder.decode(b) }) else {
            return true
        }
        check(again == command, "trip command changed in a round trip: \(command) became \(again)")
        return true
    }

    /// The input is `key NUL value` (the key is the record key; no NUL: no key) or, with nothing
    /// after the NUL, a tombstone for that key.
    private static func geofence(_ input: UnsafeRawBufferPointer) -> Bool {
        var key: String?
        var value = input
        if let nul = input.firstIndex(of: 0) {
            key = String(decoding: UnsafeRawBufferPointer(rebasing: input[..<nul]), as: UTF8.self)
            value = UnsafeRawBufferPointer(rebasing: input[(nul + 1)...])
        }
        let change: GeofenceChange
        do {
            change = try GeofenceDecoder.decode(key: key, value: value.isEmpty ? nil : value)
        } catch {
            // A tombstone (an empty, blank or `null` value) fails only for its key; a key that
            // names another geofence fails only after the value decoded.
            if isTombstone(value) { return false }
            if error.reason == .keyMismatch {
                check(isValidJSON(value), "key_mismatch for a value the validator rejects")
            } else {
                checkRejection(error, value)
            }
            return false
        }
        // A tombstone carries no value to check (nor for the harness to build on).
        guard case let .upsert(geofence) = change else { return false }
        check(isValidJSON(value), "decoded bytes the validator rejects")
        // The service puts every geofence into its spatial index.
        var table = GeofenceTable()
        table.upsert(geofence)
        var once: [UInt8] = []
        InputRecordEncoder.encode(geofence, into: &once)
        // With the key a producer would give it, `tag/externalId`. The key splits at the first
        // `/`, so a tag with a `/` in it cannot be keyed (key_mismatch, a clear rejection): such a
        // geofence decodes only without a key, as in replay files.
        let newKey = geofence.tag.contains("/") ? nil : "\(geofence.tag)/\(geofence.externalId)"
        let again = decodeAgain(once) { b throws(DecodeError) in try GeofenceDecoder.decode(key: newKey, value: b) }
        guard case let .upsert(back) = again else { fail("a geofence came back as a tombstone (or not at all)") }
        check(
            back.tag == geofence.tag && back.externalId == geofence.externalId
                && back.description == geofence.description && back.shape == geofence.shape
                && back.metadata == geofence.metadata && back.enabled == geofence.enabled
                && back.dwellThreshold == geofence.dwellThreshold && back.stopDetection == geofence.stopDetection
                && back.disableAfter == geofence.disableAfter && back.deleteAfter == geofence.deleteAfter,
            "geofence changed in a round trip")
        return true
    }

    private static func isTombstone(_ value: UnsafeRawBufferPointer) -> Bool {
        func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        let trimmed = value.drop(while: blank).reversed().drop(while: blank)
        return trimmed.isEmpty || trimmed.reversed().elementsEqual("null".utf8)
    }

    private static func event(_ input: UnsafeRawBufferPointer) -> Bool {
        let decoded: DecodedEvent
        do {
            decoded = try EventDecoder.decode(input)
        } catch {
            checkRejection(error, input)
            return false
        }
        check(isValidJSON(input), "decoded bytes the validator rejects")
        // Events compare geofences by identity: compare what the encoder writes instead. What
        // EventDecoder reads from EventEncoder's output must encode to the same bytes again.
        func encoded(_ d: DecodedEvent) -> [UInt8] {
            var bytes: [UInt8] = []
            EventEncoder.encode(d.event, actualCreatedAt: d.actualCreatedAt ?? d.event.createdAt, into: &bytes)
            return bytes
        }
        let once = encoded(decoded)
        guard let again = decodeAgain(once, { b throws(DecodeError) in try EventDecoder.decode(b) }) else { return true }
        let twice = encoded(again)
        check(once == twice, "event changed in a round trip: \(text(once)) became \(text(twice))")
        return true
    }

    private static func deadLetter(_ input: UnsafeRawBufferPointer) -> Bool {
        let letter: DeadLetter
        do {
            letter = try DeadLetterDecoder.decode(input)
        } catch {
            checkRejection(error, input)
            return false
        }
        check(isValidJSON(input), "decoded bytes the validator rejects")
        var once: [UInt8] = []
        DeadLetterEncoder.encode(letter, into: &once)
        guard let again = decodeAgain(once, { b throws(DecodeError) in try DeadLetterDecoder.decode(b) }) else {
            return true
        }
        check(again == letter, "dead letter changed in a round trip: \(letter) became \(again)")
        return true
    }

    // MARK: - Binary state

    private static func timeline(_ input: [UInt8]) -> Bool {
        guard let parts = try? TimelineCodec.decode(input) else { return false }
        checkTimeline(parts)
        return true
    }

    /// A decoded timeline restores (as the runtime does with every changelog record) and persists
    /// again to the same bytes, which decode to the same bytes once more.
    private static func checkTimeline(_ parts: UserTimeline.Parts) {
        checkOrdered(parts.tail, "timeline tail")
        let once = TimelineCodec.encode(parts)
        let restored = UserTimeline(parts: parts)
        check(TimelineCodec.encode(restored.parts) == once, "a restored timeline persists other bytes")
        guard let again = try? TimelineCodec.decode(once) else { fail("a re-encoded timeline does not decode") }
        check(TimelineCodec.encode(again) == once, "timeline changed in a round trip")
    }

    private static func segment(_ input: [UInt8]) -> Bool {
        guard let segment = try? TimelineCodec.decodeSegment(input) else { return false }
        checkOrdered(segment.inputs, "segment")
        let once = TimelineCodec.encode(segment)
        guard let again = try? TimelineCodec.decodeSegment(once) else { fail("a re-encoded segment does not decode") }
        check(TimelineCodec.encode(again) == once, "segment changed in a round trip")
        return true
    }

    /// Inputs are kept in event-time order: a tail is appended in order, a refold folds in order.
    private static func checkOrdered(_ inputs: [TimelineInput], _ what: String) {
        for i in inputs.indices.dropFirst() where inputs[i].time < inputs[i - 1].time {
            fail("\(what) decoded out of event-time order at input \(i): \(inputs[i - 1].time) then \(inputs[i].time)")
        }
    }

    /// The raw bytes as a snapshot file, and the same bytes as the content of a valid LZ4 frame
    /// (so mutations reach the snapshot's own format, not only the frame's checksum).
    private static func snapshot(_ input: [UInt8]) -> Bool {
        let raw = try? PartitionSnapshot(decoding: input)
        let framed = try? PartitionSnapshot(decoding: LZ4Frame.compress(input))
        for snapshot in [raw, framed].compactMap({ $0 }) {
            for parts in snapshot.timelines { checkTimeline(parts) }
            let once = snapshot.encoded()
            guard let again = try? PartitionSnapshot(decoding: once) else { fail("a re-encoded snapshot does not decode") }
            check(again.encoded() == once, "snapshot changed in a round trip")
        }
        return raw != nil || framed != nil
    }

    private static func checkpoint(_ input: [UInt8]) -> Bool {
        guard let checkpoint = try? PartitionCheckpoint(bytes: input) else { return false }
        // Version 1 records (no previous position) are read and written back as version 2, so
        // only the current version must come back byte for byte; every version must come back equal.
        guard let again = try? PartitionCheckpoint(bytes: checkpoint.bytes) else { fail("a re-encoded checkpoint does not decode") }
        check(again == checkpoint, "checkpoint changed in a round trip")
        if input.first == 2 { check(checkpoint.bytes == input, "checkpoint does not encode to the bytes it came from") }
        return true
    }

    private static func lz4Frame(_ input: [UInt8]) -> Bool {
        guard let content = try? LZ4Frame.decompress(input) else { return false }
        guard let again = try? LZ4Frame.decompress(LZ4Frame.compress(content)) else {
            fail("a recompressed frame does not decompress")
        }
        check(again == content, "LZ4 content changed in a round trip")
        return true
    }

    // MARK: - Failing

    /// Decodes what an encoder wrote from a decoded value: it must decode. One exception, by
    /// design: the accepted years 1970…2200 are the years as written, before the offset, so
    /// `2200-12-31T23:00:00-02:00` is accepted and written back in UTC as year 2201, which reads
    /// as `absurd_timestamp` (nil: no round trip to compare).
    private static func decodeAgain<T>(
        _ bytes: [UInt8], _ decode: (UnsafeRawBufferPointer) throws(DecodeError) -> T
    ) -> T? {
        do {
            return try bytes.withUnsafeBytes { b in Result { () throws(DecodeError) in try decode(b) } }.get()
        } catch {
            if error.reason == .absurdTimestamp
                && (error.detail.hasSuffix("year 1969 outside 1970…2200")
                    || error.detail.hasSuffix("year 2201 outside 1970…2200"))
            {
                return nil
            }
            fail("the encoder's output does not decode: \(error); output: \(text(bytes))")
        }
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes.prefix(2000), as: UTF8.self) }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fail(message()) }
    }

    /// Reports a broken promise and aborts, so the engine keeps the input as a crash.
    static func fail(_ message: String) -> Never {
        FuzzReport.failure(message)
    }
}

/// Reports a broken promise and aborts: libFuzzer and the harness's signal handler keep the input.
enum FuzzReport {
    static func failure(_ message: String) -> Never {
        printError("tripstream-fuzz: property violated: \(message)")
        abort()
    }
}

/// One line on stderr.
func printError(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
