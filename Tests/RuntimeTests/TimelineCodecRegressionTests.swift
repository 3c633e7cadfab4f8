import Domain
import Runtime
import Testing

/// Inputs the decoder fuzz targets (`tripstream-fuzz segment`, `timeline`) found crashing or
/// misread: corrupt state records must throw, never trap, and never decode into something the
/// restore then traps on.
extension TimelineCodecTests {
    /// Two plain fixes at the same time and place: the second encodes as four zero bytes (flags,
    /// time delta, latitude delta, longitude delta), which the tests below replace.
    func twoFixSegment(time: UnixMillis) -> [UInt8] {
        let fix = Fix(userId: "u", createdAt: time, position: Coordinate(latitudeE7: 100, longitudeE7: -100))
        let input = TimelineInput(fix: fix, extras: nil)
        let bytes = TimelineCodec.encode(HistorySegment(start: UserState(), inputs: [input, input], tableVersion: 1))
        #expect(Array(bytes.suffix(4)) == [0, 0, 0, 0])
        return bytes
    }

    /// The zigzag varint of `value`, as the codec writes deltas.
    func zigzag(_ value: Int64) -> [UInt8] {
        var raw = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        var out: [UInt8] = []
        while raw >= 0x80 {
            out.append(UInt8(raw & 0x7F) | 0x80)
            raw >>= 7
        }
        out.append(UInt8(raw))
        return out
    }

    @Test func aCoordinateDeltaBeyondInt64ThrowsInsteadOfTrapping() throws {
        let valid = twoFixSegment(time: 1_000)
        #expect(try TimelineCodec.decodeSegment(valid).inputs.count == 2)
        for delta in [Int64.max, Int64.min, Int64.max - 99] {
            // Latitude 100 + Int64.max overflowed the running sum (a trap) before its range was checked.
            let latitude = Array(valid.dropLast(4)) + [0, 0] + zigzag(delta) + [0]
            #expect(throws: (any Error).self) { try TimelineCodec.decodeSegment(latitude) }
            let longitude = Array(valid.dropLast(4)) + [0, 0, 0] + zigzag(delta)
            #expect(throws: (any Error).self) { try TimelineCodec.decodeSegment(longitude) }
        }
        // A delta that lands back in range is still read.
        let back = Array(valid.dropLast(4)) + [0, 0] + zigzag(-200) + [0]
        #expect(try TimelineCodec.decodeSegment(back).inputs[1].position.latitudeE7 == -100)
    }

    @Test func aTimeDeltaWrappingPastInt64MaxIsOutOfOrder() throws {
        let valid = twoFixSegment(time: .max - 1)
        #expect(try TimelineCodec.decodeSegment(valid).inputs.map(\.time) == [.max - 1, .max - 1])
        // +10 after Int64.max - 1 wrapped to Int64.min + 8: a segment decoded out of order.
        let wrapped = Array(valid.dropLast(4)) + [0] + zigzag(10) + [0, 0]
        #expect(throws: (any Error).self) { try TimelineCodec.decodeSegment(wrapped) }

        // In a timeline's tail the restore then trapped (a tail is appended in event-time order).
        let fix = Fix(userId: "u", createdAt: .max - 1, position: Coordinate(latitudeE7: 100, longitudeE7: -100))
        let input = TimelineInput(fix: fix, extras: nil)
        let parts = UserTimeline.Parts(
            userId: "u", current: UserState(), tailStart: UserState(), tail: [input, input], storedSegments: 0,
            historyStart: .min, secondSegmentStart: .max, watermark: .min, lastTickTimer: .min, newestTime: .max - 1)
        let record = TimelineCodec.encode(parts)
        _ = UserTimeline(parts: try TimelineCodec.decode(record))
        // The tail's bytes end with the second fix (4 bytes); then its attachment count (1 byte),
        // storedSegments (1 byte), five Int64s and the table's fingerprint (4 bytes).
        let second = (record.count - 46 - 4)..<(record.count - 46)
        #expect(Array(record[second]) == [0, 0, 0, 0])
        var corrupt = record
        corrupt.replaceSubrange(second, with: [0] + zigzag(10) + [0, 0])
        #expect(throws: (any Error).self) { try TimelineCodec.decode(corrupt) }
    }
}

/// State version 8 stores a timeline's tail as the timeline holds it; records of version 7, whose
/// tail is written input by input, are still read.
extension TimelineCodecTests {
    /// Two plain fixes at time 1,000,000 s and the record of their timeline, with where its tail
    /// section starts: the tail's input count, its bytes (length first), and its attachment count,
    /// followed by the 45 bytes of storedSegments, five Int64s and the table's fingerprint.
    func twoFixRecord() -> (parts: UserTimeline.Parts, record: [UInt8], tailSection: Range<Int>) {
        let fix = Fix(userId: "u", createdAt: 1_000_000, position: Coordinate(latitudeE7: 100, longitudeE7: -100))
        let input = TimelineInput(fix: fix, extras: nil)
        let parts = UserTimeline.Parts(
            userId: "u", current: UserState(), tailStart: UserState(), tail: [input, input], storedSegments: 0,
            historyStart: .min, secondSegmentStart: .max, watermark: .min, lastTickTimer: .min, newestTime: 1_000_000)
        let record = TimelineCodec.encode(parts)
        return (parts, record, (record.count - 45 - 15)..<(record.count - 45))
    }

    /// 1,000,000 as an unsigned varint (the tail's first time).
    static let firstTime: [UInt8] = [0xC0, 0x84, 0x3D]

    /// The record as version 8 wrote it: each of its two empty states held a user-wide visit count
    /// and trip count (four zero bytes each) where version 9 holds its event ordinals (none: one
    /// zero byte). An empty state ends with `stoppedSince` (`.max`), the ordinals, no trip and the
    /// ETA learning (eight zero bytes).
    static func asVersion8(_ record: [UInt8]) -> [UInt8] {
        let stoppedSince: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        let version9 = stoppedSince + [0] + [0] + [UInt8](repeating: 0, count: 8)
        let version8 = stoppedSince + [0, 0, 0, 0] + [0] + [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        var out: [UInt8] = [8]
        var at = 1, replaced = 0
        while at < record.count {
            if replaced < 2, at + version9.count <= record.count, Array(record[at..<(at + version9.count)]) == version9 {
                out += version8
                at += version9.count
                replaced += 1
            } else {
                out.append(record[at])
                at += 1
            }
        }
        #expect(replaced == 2, "both states of the record")
        return out
    }

    /// The record as version 9 wrote it: version 10 added a byte to each presence, to a trip's plan and
    /// to a command's options; two states without presences, trip or commands read alike.
    static func asVersion9(_ record: [UInt8]) -> [UInt8] {
        #expect(record.first == 10)
        return [9] + record.dropFirst()
    }

    @Test func aVersion9RecordDecodesToTheSamePartsAsVersion10() throws {
        let (parts, record, _) = twoFixRecord()
        #expect(try TimelineCodec.decode(Self.asVersion9(record)) == parts)
    }

    @Test func aVersion8RecordDecodesToTheSamePartsAsVersion9() throws {
        let (parts, record, _) = twoFixRecord()
        #expect(try TimelineCodec.decode(Self.asVersion8(Self.asVersion9(record))) == parts)
    }

    @Test func aVersion7RecordDecodesToTheSamePartsAsVersion8() throws {
        let (parts, version10, _) = twoFixRecord()
        let record = Self.asVersion8(Self.asVersion9(version10))
        // The states are 6 bytes longer in version 8: the tail section moves with them.
        let tail = (record.count - 45 - 15)..<(record.count - 45)
        #expect(record.first == 8)
        // 2 inputs; 12 bytes: the first fix (flags, time, latitude and longitude from 0) and the
        // second (four zeros); no attachments.
        #expect(Array(record[tail]) == [2, 12, 0] + Self.firstTime + zigzag(100) + zigzag(-100) + [0, 0, 0, 0] + [0])
        // Version 7 wrote the tail as segments still write their inputs: zigzag time deltas.
        let inputs: [UInt8] = [2, 0] + zigzag(1_000_000) + zigzag(100) + zigzag(-100) + [0, 0, 0, 0]
        let version7 = [7] + Array(record[1..<tail.lowerBound]) + inputs + Array(record[tail.upperBound...])
        #expect(try TimelineCodec.decode(version7) == parts)
        #expect(try TimelineCodec.decode(record) == parts)
    }

    @Test func aCorruptVersion8TailThrows() throws {
        let (_, record, tail) = twoFixRecord()
        func replacingTail(with section: [UInt8]) -> [UInt8] {
            var corrupt = record
            corrupt.replaceSubrange(tail, with: section)
            return corrupt
        }
        let first: [UInt8] = [0] + Self.firstTime + zigzag(100) + zigzag(-100)
        #expect(try TimelineCodec.decode(replacingTail(with: [2, 12] + first + [0, 0, 0, 0] + [0])).tail.count == 2)
        let corrupt: [(String, [UInt8])] = [
            ("an attachment the record does not hold", [2, 13] + first + [2, 0, 0, 0, 0] + [0]),
            ("more inputs than the bytes hold", [3, 12] + first + [0, 0, 0, 0] + [0]),
            ("bytes after the last input", [1, 12] + first + [0, 0, 0, 0] + [0]),
            ("unknown flags", [2, 12] + first + [16, 0, 0, 0] + [0]),
            ("a time delta past Int64.max", [2, 21] + first + [0] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01] + [0, 0] + [0]),
            ("a latitude beyond Int32", [2, 16] + first + [0, 0] + zigzag(Int64(Int32.max)) + [0] + [0]),
            ("an attachment kind that does not exist", [2, 12] + first + [0, 0, 0, 0] + [1, 9]),
        ]
        for (what, section) in corrupt {
            #expect(throws: (any Error).self, "\(what)") { try TimelineCodec.decode(replacingTail(with: section)) }
        }
    }
}
