import LZ4IO

#if canImport(Glibc)
import Glibc
#endif

/// One partition's outputs kept on disk while an earlier partition is still folding (`replay --brokers --threads`),
/// then handed to the sink in the order they were written: the sink's files stay partition after partition, and
/// no partition's outputs are held in memory.
///
/// Records keep their keys (a topic sink keys by them): each is `stream` (1 byte), key and value lengths (4 bytes
/// each, little-endian), key, value.
final class OutputSpool {
    let path: String
    private let writer: FileWriter
    private var frame: [UInt8] = []

    init(path: String) throws {
        self.path = path
        writer = try FileWriter(path: path)
    }

    /// Appends a batch's records and empties it.
    func write(_ output: inout OutputBatch) throws {
        frame.removeAll(keepingCapacity: true)
        for (stream, buffer) in Self.streams(of: output).enumerated() {
            buffer.forEach { key, value in
                frame.append(UInt8(stream))
                Self.appendLength(key.count, to: &frame)
                Self.appendLength(value.count, to: &frame)
                frame.append(contentsOf: key)
                frame.append(contentsOf: value)
            }
        }
        try writer.write(frame)
        output.removeAll()
    }

    func close() throws { try writer.close() }

    /// Reads a closed spool back into batches of about `batchBytes`, each handed to `body`, then removes the file.
    static func drain(_ path: String, batchBytes: Int = 1 << 20, into body: (inout OutputBatch) throws -> Void) throws {
        defer { unlink(path) }
        var batch = OutputBatch(newlineSeparated: true)
        var pending: [UInt8] = []
        try LocalFile.forEachChunk(path) { chunk in
            pending.append(contentsOf: chunk)
            let used = decode(pending, into: &batch)
            pending.removeFirst(used)
            if batch.byteCount >= batchBytes { try body(&batch) }
        }
        guard pending.isEmpty else { throw ReplayError.spoolTruncated(path: path) }
        if batch.recordCount > 0 { try body(&batch) }
    }

    /// Appends the whole records at the start of `bytes` to `batch`; returns the bytes they take.
    private static func decode(_ bytes: [UInt8], into batch: inout OutputBatch) -> Int {
        var position = 0
        while bytes.count - position >= 9 {
            let keyCount = length(bytes, at: position + 1), valueCount = length(bytes, at: position + 5)
            let end = position + 9 + keyCount + valueCount
            guard end <= bytes.count else { break }
            let key = Array(bytes[(position + 9)..<(position + 9 + keyCount)])
            let value = bytes[(position + 9 + keyCount)..<end]
            let append: (inout RecordBuffer) -> Void = { $0.append(keyBytes: key) { $0.append(contentsOf: value) } }
            switch bytes[position] {
            case 0: append(&batch.events)
            case 1: append(&batch.eta)
            case 2: append(&batch.deadLetters)
            default: append(&batch.tripSummaries)
            }
            position = end
        }
        return position
    }

    /// The streams a replay writes, in the order of their stream numbers.
    private static func streams(of output: OutputBatch) -> [RecordBuffer] {
        [output.events, output.eta, output.deadLetters, output.tripSummaries]
    }

    private static func appendLength(_ count: Int, to bytes: inout [UInt8]) {
        let value = UInt32(count)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    private static func length(_ bytes: [UInt8], at position: Int) -> Int {
        (0..<4).reduce(0) { $0 | Int(bytes[position + $1]) << (8 * $1) }
    }
}
