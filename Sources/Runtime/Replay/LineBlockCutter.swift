import Codec

/// Gathers records of one partition into the blocks a file replay would fold: a plain file of their lines, read
/// by `LineReader` in chunks of `ReplayJob.fixesBlockBytes`, hands out each chunk's complete lines as a block,
/// so a line belongs to the block of the chunk holding its newline (the first block has two chunks: the
/// reader's format sniff reads one). Folding records in the same blocks settles late inputs at the same points,
/// which makes a replay of records byte-identical to a replay of a file holding them.
final class LineBlockCutter {
    /// The chunk size a file replay reads its fixes in.
    static let chunkSize = ReplayJob.fixesBlockBytes

    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0
    /// `isNull`: a record with a null value (a tombstone), which a file cannot hold: no bytes, and no fix.
    private var entries: [(start: Int, length: Int, offset: Int64, timestamp: Int64, key: [UInt8]?, isNull: Bool)] = []
    /// Bytes of the virtual file before the next line.
    private var position = 0
    private var block = 0

    init() {
        capacity = 2 * Self.chunkSize
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
    }

    deinit { buffer.deallocate() }

    var isEmpty: Bool { entries.isEmpty }

    /// Whether a next line of `length` bytes falls in a later chunk than the lines gathered: fold those first.
    func endsBlock(before length: Int) -> Bool {
        !entries.isEmpty && Self.block(ofNewlineAt: position + length) != block
    }

    func append(_ record: UnsafeRawBufferPointer?, key: [UInt8]?, offset: Int64, timestamp: Int64) {
        let value = record ?? UnsafeRawBufferPointer(start: nil, count: 0)
        if used + value.count > capacity {
            let grown = UnsafeMutableRawPointer.allocate(byteCount: max(2 * capacity, used + value.count), alignment: 64)
            grown.copyMemory(from: buffer, byteCount: used)
            buffer.deallocate()
            (buffer, capacity) = (grown, max(2 * capacity, used + value.count))
        }
        if let base = value.baseAddress { (buffer + used).copyMemory(from: base, byteCount: value.count) }
        entries.append((used, value.count, offset, timestamp, key, record == nil))
        used += value.count
        block = Self.block(ofNewlineAt: position + value.count)
        position += value.count + 1
    }

    private static func block(ofNewlineAt position: Int) -> Int { max(position / chunkSize, 1) }

    /// The block's lines, decoded; their bytes stay valid until ``removeAll()``.
    func lines() -> [ReplayLine] {
        entries.map { entry in
            let bytes = UnsafeRawBufferPointer(start: buffer + entry.start, count: entry.length)
            let content: ReplayLine.Content
            do throws(DecodeError) {
                if entry.isNull { throw .nullValue }
                content = .fix(try FixDecoder.decode(bytes))
            } catch {
                content = .invalid(error)
            }
            return ReplayLine(content: content, bytes: bytes, number: Int(entry.offset), timestamp: entry.timestamp,
                              key: entry.key)
        }
    }

    func removeAll() {
        entries.removeAll(keepingCapacity: true)
        used = 0
    }
}
