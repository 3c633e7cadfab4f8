#if canImport(Glibc)
import Glibc
#endif

/// Reading a local file (a snapshot, a replay's spooled outputs) a chunk at a time.
enum LocalFile {
    /// Hands `body` the file's bytes in order, at most `chunkSize` at a time; a read interrupted by a
    /// signal is repeated.
    static func forEachChunk(_ path: String, chunkSize: Int = 1 << 20,
                             _ body: (ArraySlice<UInt8>) throws -> Void) throws
    {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw LocalFileError.cannotOpen(path, reason: LocalFileError.systemReason) }
        defer { close(descriptor) }
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw LocalFileError.cannotRead(path, reason: LocalFileError.systemReason) }
            if count == 0 { return }
            try body(chunk[..<count])
        }
    }

    /// The whole file.
    static func read(_ path: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachChunk(path) { bytes.append(contentsOf: $0) }
        return bytes
    }
}
