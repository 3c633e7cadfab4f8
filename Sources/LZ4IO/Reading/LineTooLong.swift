/// A line the reader skipped because it was longer than its `maxLineLength`. The line is not delivered; everything
/// after its newline is read as usual.
public struct LineTooLong: Sendable, Equatable {
    /// 1-based number of the skipped line.
    public var lineNumber: Int
    /// Length of the line in bytes, without its line terminator.
    public var byteCount: Int

    /// Creates a report.
    public init(lineNumber: Int, byteCount: Int) {
        self.lineNumber = lineNumber
        self.byteCount = byteCount
    }
}
