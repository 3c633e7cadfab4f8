import Foundation
import LZ4IO
@testable import Runtime
import Testing

/// The fixes file read a batch ahead on its own thread: the same lines, in order, as a plain reader,
/// each batch intact while the next is read, and a read error reaching the caller.
@Suite struct LineReadAheadTests {
    /// Lines of varied lengths, some over a 4 KiB chunk, CRLF and empty lines among them.
    static func text(lines: Int) -> String {
        (1...lines).map { number in
            number % 89 == 0 ? "" : "{\"line\":\(number),\"pad\":\"\(String(repeating: "x", count: number * 37 % 5_000))\"}"
                + (number % 3 == 0 ? "\r" : "")
        }.joined(separator: "\n")
    }

    /// Also when the first batch is read from the start (`readingAtOnce`), before it is asked for.
    @Test(arguments: [false, true]) func readsTheLinesOfAPlainReaderBatchByBatch(readingAtOnce: Bool) throws {
        let path = NSTemporaryDirectory() + "read-ahead-\(UUID().uuidString).ndjson"
        defer { unlink(path) }
        let text = Self.text(lines: 3_000)
        try text.write(toFile: path, atomically: false, encoding: .utf8)

        var expected: [String] = []
        try LineReader(path: path, chunkSize: 4096).forEachLine(onLineTooLong: { _ in }) {
            expected.append("\($0.number):" + String(decoding: $0.bytes, as: UTF8.self))
        }
        let readAhead = try LineReadAhead(path: path, chunkSize: 4096, readingAtOnce: readingAtOnce)
        defer { readAhead.stop() }
        #expect(readAhead.reading == readingAtOnce, "the first batch is read from the start, or when asked for")
        if readingAtOnce { usleep(20_000) }  // the first batch read before it is asked for
        var batch = LineBatch()
        var read: [String] = []
        var batches = 0
        while try readAhead.nextBatch(into: &batch) {
            batches += 1
            // Slower than the read of the next batch, which must leave this one as it is.
            let first = batch.first.map { Array($0.bytes).hashValue }
            usleep(200)
            for line in batch { read.append("\(line.number):" + String(decoding: line.bytes, as: UTF8.self)) }
            #expect(batch.first.map { Array($0.bytes).hashValue } == first, "a batch changed while the next was read")
        }
        #expect(batches > 100, "many batches, each read ahead")
        #expect(read == expected)
        #expect(readAhead.progress.bytesRead == Int64(text.utf8.count))
        #expect(try !readAhead.nextBatch(into: &batch), "the end stays the end")
    }

    @Test func anEmptyFileHasNoBatchReadingAtOnceOrNot() throws {
        let path = NSTemporaryDirectory() + "read-ahead-\(UUID().uuidString).ndjson"
        defer { unlink(path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        for readingAtOnce in [false, true] {
            let readAhead = try LineReadAhead(path: path, readingAtOnce: readingAtOnce)
            defer { readAhead.stop() }
            var batch = LineBatch()
            #expect(try !readAhead.nextBatch(into: &batch))
            #expect(try !readAhead.nextBatch(into: &batch))
        }
    }

    /// A first batch that cannot be read, read at once: its error reaches the first `nextBatch`.
    @Test func aReadErrorInTheFirstBatchReadAtOnceReachesTheCaller() throws {
        let path = NSTemporaryDirectory() + "read-ahead-\(UUID().uuidString).ndjson.lz4"
        defer { unlink(path) }
        let compressed = LZ4Frame.compress(Array(Self.text(lines: 20).utf8))
        try Data(compressed.prefix(compressed.count / 2)).write(to: URL(fileURLWithPath: path))
        let readAhead = try LineReadAhead(path: path, readingAtOnce: true)
        defer { readAhead.stop() }
        var batch = LineBatch()
        #expect(throws: LZ4IOError(.truncatedFrame, path: path)) { _ = try readAhead.nextBatch(into: &batch) }
    }

    @Test func aReadErrorAheadReachesTheCaller() throws {
        let path = NSTemporaryDirectory() + "read-ahead-\(UUID().uuidString).ndjson.lz4"
        defer { unlink(path) }
        let compressed = LZ4Frame.compress(Array(Self.text(lines: 3_000).utf8))
        try Data(compressed.prefix(compressed.count * 3 / 4)).write(to: URL(fileURLWithPath: path))
        let readAhead = try LineReadAhead(path: path, chunkSize: 4096)
        defer { readAhead.stop() }
        var batch = LineBatch()
        var lines = 0
        #expect(throws: LZ4IOError(.truncatedFrame, path: path)) {
            while try readAhead.nextBatch(into: &batch) { lines += batch.count }
        }
        #expect(lines > 0, "the batches before the cut were delivered")
    }
}
