import Foundation
import LZ4IO
import Testing

/// Throughput of `LineReader` on real files; opt-in because it needs a large input and a release build:
///
///     LZ4IO_BENCH_FILES=/tmp/big.ndjson,/tmp/big.ndjson.lz4 swift test -c release --filter LineReaderThroughput
@Suite("LineReader throughput")
struct LineReaderThroughputTests {
    static let files =
        ProcessInfo.processInfo.environment["LZ4IO_BENCH_FILES"]?
        .split(separator: ",").map(String.init) ?? []

    @Test(
        "Lines per second and MB/s of uncompressed data, best of 5",
        .enabled(if: !files.isEmpty, "set LZ4IO_BENCH_FILES to comma-separated large files to measure")
    )
    func throughput() throws {
        #if DEBUG
            print("warning: debug build; measure with -c release")
        #endif
        for path in Self.files {
            var best = Duration.seconds(1_000)
            var lines = 0
            var bytes = 0
            var checksum: UInt64 = 0
            for _ in 0..<5 {
                (lines, bytes, checksum) = (0, 0, 0)
                let elapsed = try ContinuousClock().measure {
                    let reader = try LineReader(path: path)
                    var batch = LineBatch()
                    while try reader.nextBatch(into: &batch) {
                        for line in batch {
                            lines += 1
                            bytes += line.bytes.count
                            checksum &+= UInt64(line.bytes[line.bytes.count - 1])  // touch the data
                        }
                    }
                }
                best = min(best, elapsed)
            }
            let seconds = Double(best.components.attoseconds) / 1e18 + Double(best.components.seconds)
            print(
                "\(path): \(lines) lines, \(bytes / 1_000_000) MB of line bytes in \(seconds) s → "
                    + "\(Int(Double(lines) / seconds)) lines/s, \(Int(Double(bytes) / seconds / 1e6)) MB/s"
                    + " (checksum \(checksum))")
            #expect(lines > 0)
        }
    }
}
