/// A file or LZ4 frame problem, with a message that names the file.
public struct LZ4IOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The file (or, when writing, its directory) does not exist.
        case notFound
        /// The process may not open the file in the requested mode.
        case permissionDenied
        /// The path names a directory.
        case isDirectory
        /// The LZ4 data is not a valid frame; the payload is liblz4's error name, e.g. `ERROR_contentChecksum_invalid`.
        case corruptFrame(String)
        /// The data ends inside an LZ4 frame.
        case truncatedFrame
        /// Any other failing system call, with its `errno` and the call's name.
        case system(operation: String, errno: Int32)
    }

    /// What went wrong.
    public var kind: Kind
    /// The file concerned; `nil` for in-memory buffers.
    public var path: String?

    /// Creates an error.
    public init(_ kind: Kind, path: String?) {
        self.kind = kind
        self.path = path
    }

    /// E.g. `/data/fixes.ndjson.lz4: corrupt LZ4 frame (ERROR_contentChecksum_invalid)`.
    public var description: String {
        let subject = path ?? "<memory>"
        switch kind {
        case .notFound: return "\(subject): no such file or directory"
        case .permissionDenied: return "\(subject): permission denied"
        case .isDirectory: return "\(subject): is a directory, expected a file"
        case .corruptFrame(let name): return "\(subject): corrupt LZ4 frame (\(name))"
        case .truncatedFrame: return "\(subject): truncated LZ4 frame (data ends inside the frame)"
        case .system(let operation, let code):
            return "\(subject): \(operation) failed: \(SystemFile.message(for: code))"
        }
    }
}
