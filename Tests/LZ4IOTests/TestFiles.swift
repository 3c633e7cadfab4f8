import Foundation
import LZ4IO
import Testing

/// Temporary files and deterministic test data for the LZ4IO tests.
enum TestFiles {
    /// A fresh directory under the system temp directory; the caller removes it with `remove(_:)`.
    static func makeDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "lz4io-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        let writer = try FileWriter(path: path)
        try writer.write(bytes)
        try writer.close()
    }

    static func contents(of path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Pseudo-random bytes from SplitMix64, so failures reproduce.
    static func randomBytes(count: Int, seed: UInt64 = 42) -> [UInt8] {
        var state = seed
        var bytes = [UInt8]()
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            mixed ^= mixed >> 31
            withUnsafeBytes(of: mixed) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }

    /// NDJSON-like text with a mix of `\n` and `\r\n` endings and some empty lines.
    static func ndjson(lines: Int) -> (bytes: [UInt8], expected: [(number: Int, text: String)]) {
        var bytes: [UInt8] = []
        var expected: [(Int, String)] = []
        for number in 1...lines {
            if number % 97 == 0 {
                bytes += number % 2 == 0 ? [0x0D, 0x0A] : [0x0A]
                continue
            }
            let text =
                #"{"device":"v\#(number % 500)","seq":\#(number),"lat":41.\#(number * 7919 % 100_000),"lon":-8.6}"#
            bytes += Array(text.utf8) + (number % 5 == 0 ? [0x0D, 0x0A] : [0x0A])
            expected.append((number, text))
        }
        return (bytes, expected)
    }

    /// All lines of `path` as (number, text), plus the skipped-line reports, read in batches. Read three
    /// times: by a reader that keeps one buffer, and by ones that keep one and two batches more
    /// (`batchesKept`), whose every batch is read only after as many later ones were: all must agree.
    static func readLines(
        _ path: String, chunkSize: Int = 1 << 20, maxLineLength: Int = 1 << 20
    ) throws -> (lines: [(number: Int, text: String)], tooLong: [LineTooLong]) {
        func collect(_ batch: LineBatch, into lines: inout [(number: Int, text: String)], _ tooLong: inout [LineTooLong]) {
            for line in batch { lines.append((line.number, String(decoding: line.bytes, as: UTF8.self))) }
            tooLong += batch.linesTooLong
        }
        let reader = try LineReader(path: path, chunkSize: chunkSize, maxLineLength: maxLineLength)
        var lines: [(number: Int, text: String)] = []
        var tooLong: [LineTooLong] = []
        var batch = LineBatch()
        while try reader.nextBatch(into: &batch) { collect(batch, into: &lines, &tooLong) }

        for kept in 1...2 {
            let keeping = try LineReader(path: path, chunkSize: chunkSize, maxLineLength: maxLineLength,
                                         batchesKept: kept)
            var keptLines: [(number: Int, text: String)] = []
            var keptTooLong: [LineTooLong] = []
            var held: [LineBatch] = []  // the batches read and not collected yet, oldest first
            while true {
                var next = LineBatch(capacity: 16)
                let more = try keeping.nextBatch(into: &next)
                if more { held.append(next) }
                // Collected only once `kept` later batches were read (or the file ended).
                while held.count > kept || (!more && !held.isEmpty) {
                    collect(held.removeFirst(), into: &keptLines, &keptTooLong)
                }
                if !more { break }
            }
            #expect(keptLines.elementsEqual(lines) { $0.number == $1.number && $0.text == $1.text },
                    "a batch kept through \(kept) more reads changed: \(path), chunk \(chunkSize)")
            #expect(keptTooLong == tooLong)
        }
        return (lines, tooLong)
    }

    /// Runs `/usr/bin/lz4` with `arguments`; returns its exit status.
    static func runLZ4Tool(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: lz4ToolPath)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static let lz4ToolPath = "/usr/bin/lz4"
    static var hasLZ4Tool: Bool { FileManager.default.isExecutableFile(atPath: lz4ToolPath) }
}
