import Foundation
import LZ4IO
import Testing

@Suite("FileWriter and LZ4FileWriter")
struct WriterTests {
    @Test("FileWriter writes small, large and byte-sized pieces in order")
    func plainWriter() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let path = directory + "/out.ndjson"
        let large = TestFiles.randomBytes(count: 3_000_000)
        let writer = try FileWriter(path: path, bufferSize: 1 << 16)
        try writer.write("{\"a\":1}")
        try writer.write(byte: 0x0A)
        try writer.write(large)
        try writer.write(Array("tail".utf8))
        try writer.close()
        try writer.close()  // idempotent
        #expect(try TestFiles.contents(of: path) == Array("{\"a\":1}\n".utf8) + large + Array("tail".utf8))
    }

    @Test("FileWriter truncates an existing file")
    func truncates() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let path = directory + "/out"
        try TestFiles.write(Array(repeating: 1, count: 1000), to: path)
        try TestFiles.write([2, 3], to: path)
        #expect(try TestFiles.contents(of: path) == [2, 3])
    }

    @Test("FileWriter errors name the path")
    func writerErrors() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let inMissingDirectory = directory + "/missing/out.ndjson"
        #expect(throws: LZ4IOError(.notFound, path: inMissingDirectory)) { try FileWriter(path: inMissingDirectory) }
        #expect(throws: LZ4IOError(.isDirectory, path: directory)) { try FileWriter(path: directory) }
        #expect(throws: LZ4IOError(.isDirectory, path: directory)) { try LZ4FileWriter(path: directory) }
    }

    @Test("LZ4FileWriter streams many writes into one frame that decompresses to the same bytes")
    func streamingWriter() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let path = directory + "/out.lz4"
        let (bytes, expected) = TestFiles.ndjson(lines: 80_000)
        let writer = try LZ4FileWriter(path: path)
        // Uneven pieces, including one larger than the writer's 1 MiB input chunk.
        var offset = 0
        for size in [1, 10, 1_000, 2_500_000] + Array(repeating: 333_333, count: 20) where offset < bytes.count {
            let end = min(bytes.count, offset + size)
            try writer.write(Array(bytes[offset..<end]))
            offset = end
        }
        try writer.close()
        let stored = try TestFiles.contents(of: path)
        #expect(stored.count < bytes.count / 2)
        #expect(try LZ4Frame.decompress(stored) == bytes)
        let lines = try TestFiles.readLines(path).lines
        #expect(lines.elementsEqual(expected) { $0.number == $1.number && $0.text == $1.text })
    }

    @Test("An empty LZ4FileWriter output is a valid empty frame")
    func emptyStream() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let path = directory + "/empty.lz4"
        try LZ4FileWriter(path: path).close()
        #expect(try LZ4Frame.decompress(TestFiles.contents(of: path)) == [])
        #expect(try TestFiles.readLines(path).lines.isEmpty)
    }
}
