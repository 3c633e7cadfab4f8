import Foundation
import LZ4IO
import Testing

@Suite("LineReader", .serialized)
struct LineReaderTests {
    @Test("Plain and LZ4 files give identical lines, numbers and endings handled")
    func plainAndCompressedAgree() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let (bytes, expected) = TestFiles.ndjson(lines: 60_000)
        try TestFiles.write(bytes, to: directory + "/plain.ndjson")
        // No .lz4 extension on purpose: detection is by magic number.
        try TestFiles.write(LZ4Frame.compress(bytes), to: directory + "/compressed.ndjson")

        for chunkSize in [1 << 20, 4096, 77] {
            let plain = try TestFiles.readLines(directory + "/plain.ndjson", chunkSize: chunkSize)
            let compressed = try TestFiles.readLines(directory + "/compressed.ndjson", chunkSize: chunkSize)
            #expect(plain.lines.count == expected.count)
            #expect(plain.lines.elementsEqual(expected) { $0.number == $1.number && $0.text == $1.text })
            #expect(compressed.lines.elementsEqual(expected) { $0.number == $1.number && $0.text == $1.text })
            #expect(plain.tooLong.isEmpty && compressed.tooLong.isEmpty)
        }
        #expect(try LineReader(path: directory + "/compressed.ndjson").isCompressed)
        #expect(try !LineReader(path: directory + "/plain.ndjson").isCompressed)
    }

    @Test("CRLF, empty lines and a last line without newline")
    func lineEndings() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let text = "a\r\n\nb\n\r\nc\rd\nlast"
        for (name, bytes) in [("plain", Array(text.utf8)), ("lz4", LZ4Frame.compress(Array(text.utf8)))] {
            let path = directory + "/" + name
            try TestFiles.write(bytes, to: path)
            let result = try TestFiles.readLines(path)
            #expect(result.lines.map(\.text) == ["a", "b", "c\rd", "last"], "\(name)")
            #expect(result.lines.map(\.number) == [1, 3, 5, 6], "\(name)")
        }
    }

    @Test("Empty file, newline-only file, 1-3 byte files, also with 1- and 3-byte chunks")
    func tinyFiles() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        for (text, lines) in [("", [String]()), ("\n\n\n", []), ("x", ["x"]), ("x\n", ["x"]), ("ab\n", ["ab"])] {
            let path = directory + "/tiny"
            for chunkSize in [1, 3, 1 << 20] {
                try TestFiles.write(Array(text.utf8), to: path)
                #expect(try TestFiles.readLines(path, chunkSize: chunkSize).lines.map(\.text) == lines)
                try TestFiles.write(LZ4Frame.compress(Array(text.utf8)), to: path)
                #expect(try TestFiles.readLines(path, chunkSize: chunkSize).lines.map(\.text) == lines)
            }
        }
    }

    @Test("Lines longer than the chunk are delivered whole; buffer grows")
    func longLines() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let long = String(repeating: "x", count: 300_000)
        let text = "short\n\(long)\nafter\n\(long)"
        for (name, bytes) in [("plain", Array(text.utf8)), ("lz4", LZ4Frame.compress(Array(text.utf8)))] {
            let path = directory + "/" + name
            try TestFiles.write(bytes, to: path)
            let result = try TestFiles.readLines(path, chunkSize: 4096, maxLineLength: 300_000)
            #expect(result.lines.map(\.text) == ["short", long, "after", long], "\(name)")
            #expect(result.tooLong.isEmpty)
        }
    }

    @Test("Lines over maxLineLength are reported with number and length, then reading continues")
    func lineTooLong() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let max = 1_000
        let exact = String(repeating: "e", count: max)
        let over = String(repeating: "o", count: max + 1)
        let huge = String(repeating: "h", count: 50_000)
        let text = "a\n\(exact)\r\n\(over)\nb\n\(huge)\r\nc\n\(huge)"
        for chunkSize in [64, 999, 1_000, 1_001, 4_096, 1 << 20] {
            for (name, bytes) in [("plain", Array(text.utf8)), ("lz4", LZ4Frame.compress(Array(text.utf8)))] {
                let path = directory + "/" + name
                try TestFiles.write(bytes, to: path)
                let result = try TestFiles.readLines(path, chunkSize: chunkSize, maxLineLength: max)
                let context = "\(name), chunk \(chunkSize)"
                #expect(result.lines.map(\.text) == ["a", exact, "b", "c"], "\(context)")
                #expect(result.lines.map(\.number) == [1, 2, 4, 6], "\(context)")
                #expect(
                    result.tooLong == [
                        LineTooLong(lineNumber: 3, byteCount: max + 1),
                        LineTooLong(lineNumber: 5, byteCount: 50_000),
                        LineTooLong(lineNumber: 7, byteCount: 50_000),
                    ], "\(context)")
            }
        }
    }

    @Test("forEachLine interleaves lines and too-long reports in line order")
    func forEachLineOrder() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let path = directory + "/mixed"
        try TestFiles.write(Array("one\n\(String(repeating: "z", count: 100))\nthree\n".utf8), to: path)
        var events: [String] = []
        try LineReader(path: path, maxLineLength: 10).forEachLine(onLineTooLong: {
            events.append("skipped \($0.lineNumber) (\($0.byteCount) bytes)")
        }) { line in
            events.append("\(line.number): \(String(decoding: line.bytes, as: UTF8.self))")
        }
        #expect(events == ["1: one", "skipped 2 (100 bytes)", "3: three"])
    }

    @Test("Progress reports bytes read of the stored file and its size")
    func progress() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let (bytes, _) = TestFiles.ndjson(lines: 50_000)
        let compressed = LZ4Frame.compress(bytes)
        try TestFiles.write(compressed, to: directory + "/p.lz4")
        let reader = try LineReader(path: directory + "/p.lz4", chunkSize: 64 * 1024)
        #expect(reader.progress.totalBytes == Int64(compressed.count))
        var batch = LineBatch()
        var fractions: [Double] = []
        while try reader.nextBatch(into: &batch) { fractions.append(reader.progress.fraction ?? -1) }
        #expect(fractions.count > 3)
        #expect(fractions == fractions.sorted())
        #expect(reader.progress.bytesRead == Int64(compressed.count))
        #expect(reader.progress.fraction == 1)
        #expect(reader.linesRead == 50_000)
    }

    @Test("Reads from a file descriptor")
    func fileDescriptor() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        try TestFiles.write(LZ4Frame.compress(Array("x\ny\n".utf8)), to: directory + "/fd")
        let descriptor = open(directory + "/fd", O_RDONLY)
        try #require(descriptor >= 0)
        let reader = try LineReader(fileDescriptor: descriptor, name: "<stdin>", closesDescriptor: true)
        var texts: [String] = []
        try reader.forEachLine(onLineTooLong: { _ in }) { texts.append(String(decoding: $0.bytes, as: UTF8.self)) }
        #expect(texts == ["x", "y"])
        #expect(reader.progress.totalBytes != nil)
    }

    // MARK: - Errors

    @Test("Missing file, directory and permission errors name the path")
    func openErrors() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let missing = directory + "/nope.ndjson.lz4"
        #expect(throws: LZ4IOError(.notFound, path: missing)) { try LineReader(path: missing) }
        #expect(LZ4IOError(.notFound, path: missing).description == "\(missing): no such file or directory")
        #expect(throws: LZ4IOError(.isDirectory, path: directory)) { try LineReader(path: directory) }
        #expect(LZ4IOError(.isDirectory, path: "/d").description == "/d: is a directory, expected a file")
    }

    @Test("Permission denied names the path", .enabled(if: geteuid() != 0, "root bypasses file permissions"))
    func permissionDenied() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let path = directory + "/secret"
        try TestFiles.write([1, 2, 3], to: path)
        chmod(path, 0)
        #expect(throws: LZ4IOError(.permissionDenied, path: path)) { try LineReader(path: path) }
    }

    @Test("Truncated LZ4 files fail with truncatedFrame naming the file; lines before it were delivered")
    func truncatedFile() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let (bytes, _) = TestFiles.ndjson(lines: 20_000)
        let compressed = LZ4Frame.compress(bytes)
        let path = directory + "/cut.ndjson.lz4"
        for cut in [4, 7, 100, compressed.count / 2, compressed.count - 1] {
            try TestFiles.write(Array(compressed.prefix(cut)), to: path)
            var delivered = 0
            #expect(throws: LZ4IOError(.truncatedFrame, path: path), "cut at \(cut)") {
                try TestFiles.readLinesCounting(path, delivered: &delivered)
            }
            if cut == compressed.count - 1 { #expect(delivered > 0) }
        }
        #expect(LZ4IOError(.truncatedFrame, path: path).description.hasPrefix("\(path): truncated LZ4 frame"))
    }

    @Test("Corrupt LZ4 files fail with corruptFrame naming the file and liblz4's error")
    func corruptFile() throws {
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let (bytes, _) = TestFiles.ndjson(lines: 20_000)
        var compressed = LZ4Frame.compress(bytes)
        compressed[compressed.count / 3] ^= 0xFF
        let path = directory + "/bad.lz4"
        try TestFiles.write(compressed, to: path)
        do {
            var delivered = 0
            try TestFiles.readLinesCounting(path, delivered: &delivered)
            Issue.record("no error for a corrupt frame")
        } catch let error as LZ4IOError {
            guard case .corruptFrame(let name) = error.kind else {
                Issue.record("expected corruptFrame, got \(error)")
                return
            }
            #expect(error.path == path)
            #expect(error.description == "\(path): corrupt LZ4 frame (\(name))")
            #expect(name.hasPrefix("ERROR_"))
        }
    }

    // MARK: - Interoperability

    @Test("Reads the output of Debian's lz4 tool (default and small linked blocks); lz4 -d reads ours")
    func lz4Tool() throws {
        try #require(TestFiles.hasLZ4Tool, "\(TestFiles.lz4ToolPath) is not installed; cannot check interoperability")
        let directory = try TestFiles.makeDirectory()
        defer { TestFiles.remove(directory) }
        let (bytes, expected) = TestFiles.ndjson(lines: 100_000)
        try TestFiles.write(bytes, to: directory + "/in.ndjson")
        for flags in [[], ["-B4", "-BD"], ["-9", "--no-frame-crc"]] {
            let output = directory + "/tool.ndjson.lz4"
            #expect(try TestFiles.runLZ4Tool(["-q", "-f"] + flags + [directory + "/in.ndjson", output]) == 0)
            let result = try TestFiles.readLines(output)
            #expect(result.lines.elementsEqual(expected) { $0.number == $1.number && $0.text == $1.text }, "\(flags)")
        }
        let ours = directory + "/ours.lz4"
        let writer = try LZ4FileWriter(path: ours)
        try writer.write(bytes)
        try writer.close()
        #expect(try TestFiles.runLZ4Tool(["-q", "-d", "-f", ours, directory + "/ours.out"]) == 0)
        #expect(try TestFiles.contents(of: directory + "/ours.out") == bytes)
    }
}

extension TestFiles {
    /// Reads all lines, counting them in `delivered`, so a test can see what arrived before an error.
    static func readLinesCounting(_ path: String, delivered: inout Int) throws {
        let reader = try LineReader(path: path, chunkSize: 4096)
        var batch = LineBatch()
        while try reader.nextBatch(into: &batch) { delivered += batch.count }
    }
}
