import LZ4IO

/// A file's line batches, each read on a thread of its own while the caller works on those before.
///
/// Reading a replay's fixes (the kernel copying each chunk, the scan for newlines) was 7% of a
/// 2-thread replay's samples, on the main thread, while the other fold threads waited at the next fork. The reader keeps
/// a buffer more than the caller holds (`LineReader`'s `batchesKept`): the batches handed out stay
/// valid while the next one is read into another.
final class LineReadAhead: @unchecked Sendable {
    // Safe: `reader`, `next` and `nextHasLines` are touched by the read thread only in the job
    // submitted by `nextBatch`, and by the calling thread only after the `wait` that ends it.
    private let reader: LineReader
    private let thread = SerialJobThread(name: "tripstream-replay-reader")
    private var next = LineBatch()
    private var nextHasLines = false
    /// A read is in flight (or done and not yet handed out).
    private(set) var reading = false
    /// The file's progress up to the batch last handed out.
    private(set) var progress: ReadProgress

    /// - Parameters:
    ///   - chunkSize: bytes per batch, about (`LineReader`'s).
    ///   - batchesKept: through how many more `nextBatch` calls a batch stays valid (`LineReader`'s).
    ///   - readingAtOnce: start reading the first batch now, rather than at the first `nextBatch`.
    init(path: String, chunkSize: Int = 1 << 20, batchesKept: Int = 0, readingAtOnce: Bool = false) throws {
        reader = try LineReader(path: path, chunkSize: chunkSize, batchesKept: batchesKept + 1)
        progress = reader.progress
        if readingAtOnce { try readNext() }
    }

    /// Starts reading the batch after the last one handed out.
    private func readNext() throws {
        try thread.submit { [self] in nextHasLines = try reader.nextBatch(into: &next) }
        reading = true
    }

    /// Ends the read thread (after the read in flight). Call it once, when done.
    func stop() { thread.stop() }

    /// Replaces `batch` with the next lines, as `LineReader.nextBatch`, and starts reading the ones
    /// after them. `batch`'s lines are valid until the next call (`batchesKept`: the one after as many more).
    /// - Throws: the reader's errors, the read ahead's when the batch it read is asked for.
    func nextBatch(into batch: inout LineBatch) throws -> Bool {
        let hasLines: Bool
        if reading {
            try thread.wait()
            reading = false
            swap(&batch, &next)
            hasLines = nextHasLines
        } else {
            hasLines = try reader.nextBatch(into: &batch)
        }
        progress = reader.progress
        guard hasLines else { return false }
        // The read overwrites the buffer of the oldest batch kept, which the caller is done with.
        try thread.submit { [self] in nextHasLines = try reader.nextBatch(into: &next) }
        reading = true
        return true
    }
}
