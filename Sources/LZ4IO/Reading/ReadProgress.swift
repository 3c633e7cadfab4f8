/// How far a reader has got through its file, in bytes of the file as stored (compressed bytes for `.lz4`).
public struct ReadProgress: Sendable, Equatable {
    /// Bytes read from the file so far.
    public var bytesRead: Int64
    /// Size of the file, or `nil` when it has none (pipes, terminals).
    public var totalBytes: Int64?

    /// Creates a progress value.
    public init(bytesRead: Int64, totalBytes: Int64?) {
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
    }

    /// `bytesRead / totalBytes` in 0...1, or `nil` when the total is unknown or zero.
    public var fraction: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(bytesRead) / Double(totalBytes))
    }
}
