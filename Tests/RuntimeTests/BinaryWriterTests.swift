import Testing

@testable import Runtime

/// The writer stores through a scratch area that it flushes to the output: its bytes must not depend
/// on where the pieces fall against the area's end.
@Suite struct BinaryWriterTests {
    /// The same values written byte by byte, as the format defines them.
    static func expected(_ pieces: [[UInt8]], repeats: Int) -> [UInt8] {
        var out: [UInt8] = []
        for index in 0..<repeats {
            out.append(7)
            out += withUnsafeBytes(of: UInt64(index).littleEndian, Array.init)
            out += withUnsafeBytes(of: UInt32(index).littleEndian, Array.init)
            var v = UInt64(index) << 20  // a varint of several bytes
            while v >= 0x80 {
                out.append(UInt8(v & 0x7f) | 0x80)
                v >>= 7
            }
            out.append(UInt8(v))
            let piece = pieces[index % pieces.count]
            out.append(UInt8(piece.count))  // a blob's length (all under 128)
            out += piece
        }
        return out
    }

    @Test func valuesAcrossTheScratchAreasEndAreWrittenInOrder() {
        // Short pieces (copied through the area) and long ones (written past it once it is flushed).
        let pieces: [[UInt8]] = [[], [1, 2, 3], Array(repeating: 9, count: 100), (0..<127).map { UInt8($0) }]
        for repeats in [1, 20, 200] {
            let written = BinaryWriter.bytes { w in
                for index in 0..<repeats {
                    w.u8(7)
                    w.u64(UInt64(index))
                    w.u32(UInt32(index))
                    w.varint(UInt64(index) << 20)
                    w.blob(pieces[index % pieces.count])
                }
            }
            #expect(written == Self.expected(pieces, repeats: repeats), "\(repeats) repeats")
        }
        // A piece longer than the area goes around it whole.
        let long = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let written = BinaryWriter.bytes { w in
            w.u8(1)
            w.append(long)
            w.u8(2)
        }
        #expect(written == [1] + long + [2])
    }
}
