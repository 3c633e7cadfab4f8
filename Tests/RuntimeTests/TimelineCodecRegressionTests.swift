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
        // Then storedSegments (1 byte), five Int64s and the table's fingerprint (4 bytes).
        let second = (record.count - 45 - 4)..<(record.count - 45)
        #expect(Array(record[second]) == [0, 0, 0, 0])
        var corrupt = record
        corrupt.replaceSubrange(second, with: [0] + zigzag(10) + [0, 0])
        #expect(throws: (any Error).self) { try TimelineCodec.decode(corrupt) }
    }
}
