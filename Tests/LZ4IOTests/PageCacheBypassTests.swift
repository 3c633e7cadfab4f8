import Foundation
import Testing

@testable import LZ4IO

@Suite("FileWriter around the page cache")
struct PageCacheBypassTests {
    /// Pieces of every awkward size: single bytes, pieces that leave the file offset unaligned, and pieces larger
    /// than the bypass's buffer.
    static let pieceSizes = [1, 4095, 3, 70_000, 4096, 1, 5_000_000, 12_345, 9 << 20, 17, 4_194_303, 2]

    static func write(_ data: [UInt8], to writer: FileWriter, flushingAfter flushAt: Int? = nil) throws {
        var offset = 0
        for (index, size) in pieceSizes.enumerated() where offset < data.count {
            let end = min(data.count, offset + size)
            if size == 1 {
                try writer.write(byte: data[offset])
            } else {
                try writer.write(Array(data[offset..<end]))
            }
            offset = end
            if index == flushAt { try writer.flush() }
        }
        try writer.write(Array(data[offset...]))
    }

    /// Whether files in `directory` accept `O_DIRECT` at all (tmpfs before Linux 6.6 does not).
    static func acceptsDirectWrites(in directory: String) -> Bool {
        let probe = directory + "/probe"
        let descriptor = open(probe, O_WRONLY | O_CREAT | PageCacheBypass.directFlag, 0o644)
        defer { unlink(probe) }
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return PageCacheBypass.directFlag != 0
    }

    @Test("Past the threshold, writes go around the page cache and the file holds every byte in order")
    func bypassKeepsEveryByte() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let path = directory + "/out.ndjson"
        let data = TestFiles.randomBytes(count: 30_000_000, seed: 7)
        let writer = try FileWriter(path: path, bufferSize: 1 << 16, bypassingPageCacheAfter: 100_001)
        #expect(!writer.bypassesPageCache)
        try Self.write(Array(data[..<(20_000_000)]), to: writer)
        #expect(writer.bypassesPageCache == Self.acceptsDirectWrites(in: directory))
        try Self.write(Array(data[20_000_000...]), to: writer)
        try writer.close()
        #expect(!writer.bypassesPageCache)
        #expect(try TestFiles.contents(of: path) == data)
    }

    @Test("A flush while bypassing writes the unaligned tail too, and later writes bypass again")
    func flushInTheMiddle() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let path = directory + "/out.ndjson"
        let data = TestFiles.randomBytes(count: 24_000_000, seed: 8)
        let writer = try FileWriter(path: path, bypassingPageCacheAfter: 0)
        try Self.write(data, to: writer, flushingAfter: 6)
        try writer.flush()
        #expect(writer.bufferedByteCount == 0)
        #expect(try TestFiles.contents(of: path) == data)
        // The first write after the flush starts a bypass; it engages once the bypass's buffer fills.
        try writer.write(Array(data[..<5_000_000]))
        try writer.write(Array(data[5_000_000..<10_000_000]))
        #expect(writer.bypassesPageCache == Self.acceptsDirectWrites(in: directory))
        try writer.close()
        #expect(try TestFiles.contents(of: path) == data + data[..<10_000_000])
    }

    @Test("Overwriting a longer file in place and bypassing leaves exactly the new bytes")
    func reusedFileIsCutToTheNewBytes() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let path = directory + "/out.ndjson"
        try TestFiles.write(Array(repeating: 0x41, count: 40_000_000), to: path)
        let data = TestFiles.randomBytes(count: 9_999_999, seed: 9)
        let writer = try FileWriter(path: path, bufferSize: 1 << 16, reusingExistingPages: true,
                                    bypassingPageCacheAfter: 1 << 20)
        try Self.write(data, to: writer)
        try writer.close()
        #expect(try TestFiles.contents(of: path) == data)
    }

    @Test("Where the system refuses O_DIRECT, the writer goes on through the page cache")
    func refusedBypassFallsBack() throws {
        // /dev/null takes writes but has no direct I/O: setting O_DIRECT on it fails.
        let writer = try FileWriter(path: "/dev/null", bypassingPageCacheAfter: 0)
        try Self.write(TestFiles.randomBytes(count: 12_000_000, seed: 10), to: writer)
        #expect(!writer.bypassesPageCache)
        try writer.flush()
        #expect(writer.bufferedByteCount == 0)
        try writer.close()
    }
}
