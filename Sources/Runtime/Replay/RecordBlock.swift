import Codec

/// Gathers records of one partition (of the topics or an archive) into blocks of about `blockBytes` of values,
/// each folded at once, as a file replay folds the lines of each chunk it reads. Where a block ends decides
/// nothing of the output: late inputs are placed where the fold's policy says (`FoldSettings.latePlacementInputs`).
final class RecordBlock {
    /// Bytes of values after which a block is folded.
    let blockBytes: Int

    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0
    /// `isNull`: a record with a null value (a tombstone), which a file cannot hold: no bytes, and no fix.
    private var entries: [(start: Int, length: Int, offset: Int64, timestamp: Int64, key: [UInt8]?, isNull: Bool)] = []

    init(blockBytes: Int = ReplayJob.fixesBlockBytes) {
        self.blockBytes = max(blockBytes, 1)
        capacity = self.blockBytes
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
    }

    deinit { buffer.deallocate() }

    var isEmpty: Bool { entries.isEmpty }

    /// Whether a next record of `length` bytes would take the block past `blockBytes`: fold it first.
    func endsBlock(before length: Int) -> Bool {
        !entries.isEmpty && used + length > blockBytes
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
    }

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
