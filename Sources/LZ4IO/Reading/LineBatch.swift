/// The lines of one read: a reusable, allocation-free (once warmed up) container that `LineReader.nextBatch(into:)`
/// fills. Iterate it as a collection of `Line`s, then check `linesTooLong`.
///
/// - Warning: The lines point into the reader's buffer and are valid only until the next `nextBatch(into:)` call.
public struct LineBatch {
    /// Where a line sits in the reader's buffer; kept as offsets so the batch holds a single base pointer.
    struct Entry {
        var offset: Int
        var length: Int
        var number: Int
    }

    var base: UnsafeRawPointer?
    var entries: [Entry]

    /// Lines skipped in this batch because they exceeded the reader's `maxLineLength`. The caller decides whether
    /// that is a rejection to count or a reason to stop; they are never dropped silently.
    public internal(set) var linesTooLong: [LineTooLong] = []

    /// Creates an empty batch.
    /// - Parameter capacity: expected lines per batch; 16 Ki suits 1 MiB chunks of ~100-byte lines.
    public init(capacity: Int = 16_384) {
        entries = []
        entries.reserveCapacity(capacity)
    }

    mutating func reset(base: UnsafeRawPointer) {
        self.base = base
        entries.removeAll(keepingCapacity: true)
        linesTooLong.removeAll(keepingCapacity: true)
    }
}
