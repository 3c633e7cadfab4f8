import LZ4IO
import Testing

@Suite("LZ4Frame whole-buffer compression")
struct LZ4FrameTests {
    @Test(
        "Round trips",
        arguments: [
            ("empty", [UInt8]()),
            ("small", Array("hello, frame".utf8)),
            ("random 5 MB", TestFiles.randomBytes(count: 5_000_000)),
            (
                "repetitive 8 MB",
                Array(repeating: Array(#"{"device":"v1","lat":41.1,"lon":-8.6}\#n"#.utf8), count: 200_000).flatMap {
                    $0
                }
            ),
        ] as [(String, [UInt8])])
    func roundTrip(name: String, bytes: [UInt8]) throws {
        let compressed = LZ4Frame.compress(bytes)
        #expect(compressed.starts(with: [0x04, 0x22, 0x4D, 0x18]), "starts with the magic number")
        #expect(try LZ4Frame.decompress(compressed) == bytes, "\(name)")
    }

    @Test("Repetitive data shrinks; HC level shrinks it further")
    func ratio() throws {
        let bytes = Array(repeating: Array("trip,geofence,enter,exit;".utf8), count: 40_000).flatMap { $0 }
        let fast = LZ4Frame.compress(bytes)
        let dense = LZ4Frame.compress(bytes, level: 9)
        #expect(fast.count < bytes.count / 50)
        #expect(dense.count <= fast.count)
        #expect(try LZ4Frame.decompress(dense) == bytes)
    }

    @Test("Concatenated frames decompress to the concatenated contents")
    func concatenated() throws {
        let first = Array("first\n".utf8)
        let second = Array("second\n".utf8)
        #expect(try LZ4Frame.decompress(LZ4Frame.compress(first) + LZ4Frame.compress(second)) == first + second)
    }

    @Test("Corrupt data is an error with liblz4's error name, not a crash")
    func corrupt() throws {
        let bytes = TestFiles.randomBytes(count: 100_000, seed: 7) + Array(repeating: 65, count: 100_000)
        var flippedPayload = LZ4Frame.compress(bytes)
        flippedPayload[flippedPayload.count / 2] ^= 0x5A
        var badHeader = LZ4Frame.compress(bytes)
        badHeader[4] = 0xFF  // FLG byte: unsupported version bits
        for corrupted in [flippedPayload, badHeader, Array("not lz4 at all".utf8)] {
            do {
                let output = try LZ4Frame.decompress(corrupted)
                Issue.record("decompressed \(output.count) bytes from corrupt input")
            } catch {
                guard case .corruptFrame(let name) = error.kind else {
                    Issue.record("expected corruptFrame, got \(error)")
                    continue
                }
                #expect(name.hasPrefix("ERROR_"))
                #expect(error.description.hasPrefix("<memory>: corrupt LZ4 frame (ERROR_"))
            }
        }
    }

    @Test("Every truncation is reported as truncatedFrame, never a crash or short output")
    func truncated() throws {
        let bytes = TestFiles.randomBytes(count: 3_000, seed: 9) + Array(repeating: 66, count: 3_000)
        let compressed = LZ4Frame.compress(bytes)
        for length in [0, 3, 4, 6, 10, compressed.count / 2, compressed.count - 4, compressed.count - 1] {
            #expect(throws: LZ4IOError(.truncatedFrame, path: nil), "cut at \(length)") {
                try LZ4Frame.decompress(Array(compressed.prefix(length)))
            }
        }
    }
}
