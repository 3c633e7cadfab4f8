/// One line handed out by a `LineReader`: a view of the reader's buffer, without the `\n` or `\r\n` terminator.
///
/// - Warning: `bytes` points into the reader's buffer. It is valid only until the next call to `nextBatch(into:)`
///   (or the end of the `forEachLine` body) and must never be stored; copy what you need to keep.
public struct Line {
    /// The line's bytes, never empty.
    public let bytes: UnsafeRawBufferPointer
    /// 1-based line number in the file; empty and skipped lines are counted too.
    public let number: Int
}
