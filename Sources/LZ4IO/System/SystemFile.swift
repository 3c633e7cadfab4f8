#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin POSIX wrappers that retry on `EINTR` and turn `errno` into `LZ4IOError`s naming the path.
enum SystemFile {
    /// Opens `path` for reading and rejects directories (which `open(2)` accepts on Linux).
    static func openForReading(_ path: String) throws(LZ4IOError) -> Int32 {
        let descriptor = try open(path, flags: O_RDONLY | O_CLOEXEC, mode: 0)
        if isDirectory(descriptor) {
            try? close(descriptor, path: path)
            throw LZ4IOError(.isDirectory, path: path)
        }
        return descriptor
    }

    /// Creates or truncates `path` for writing.
    static func openForWriting(_ path: String, permissions: UInt32, truncate: Bool = true) throws(LZ4IOError) -> Int32 {
        try open(path, flags: O_WRONLY | O_CREAT | (truncate ? O_TRUNC : 0) | O_CLOEXEC, mode: permissions)
    }

    /// Cuts the file at `length` bytes.
    static func truncate(_ descriptor: Int32, length: Int64, path: String) throws(LZ4IOError) {
        while ftruncate(descriptor, off_t(length)) != 0 {
            let code = errno
            if code == EINTR { continue }
            throw error(code, operation: "ftruncate", path: path)
        }
    }

    private static func open(_ path: String, flags: Int32, mode: UInt32) throws(LZ4IOError) -> Int32 {
        while true {
            #if canImport(Darwin)
                let descriptor = Darwin.open(path, flags, mode_t(mode))
            #else
                let descriptor = Glibc.open(path, flags, mode_t(mode))
            #endif
            if descriptor >= 0 { return descriptor }
            let code = errno
            if code == EINTR { continue }
            throw error(code, operation: "open", path: path)
        }
    }

    /// Reads up to `count` bytes; returns 0 at end of file.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, path: String)
        throws(LZ4IOError) -> Int
    {
        while true {
            #if canImport(Darwin)
                let result = Darwin.read(descriptor, buffer, count)
            #else
                let result = Glibc.read(descriptor, buffer, count)
            #endif
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            throw error(code, operation: "read", path: path)
        }
    }

    /// Writes all `count` bytes, looping over partial writes.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawPointer, count: Int, path: String)
        throws(LZ4IOError)
    {
        var written = 0
        while written < count {
            let result = write(descriptor, bytes + written, count: count - written)
            if result >= 0 {
                written += result
                continue
            }
            let code = errno
            if code == EINTR { continue }
            throw error(code, operation: "write", path: path)
        }
    }

    /// One `write(2)`: the bytes written, or -1 with `errno` set.
    static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, count: Int) -> Int {
        #if canImport(Darwin)
            Darwin.write(descriptor, bytes, count)
        #else
            Glibc.write(descriptor, bytes, count)
        #endif
    }

    static func synchronize(_ descriptor: Int32, path: String) throws(LZ4IOError) {
        if fsync(descriptor) != 0 { throw error(errno, operation: "fsync", path: path) }
    }

    static func close(_ descriptor: Int32, path: String) throws(LZ4IOError) {
        #if canImport(Darwin)
            let result = Darwin.close(descriptor)
        #else
            let result = Glibc.close(descriptor)
        #endif
        // After EINTR the descriptor is already released on Linux; retrying could close someone else's.
        if result != 0, errno != EINTR { throw error(errno, operation: "close", path: path) }
    }

    /// Size of a regular file, `nil` for pipes and other streams.
    static func regularFileSize(_ descriptor: Int32) -> Int64? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    static func isDirectory(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    static func error(_ code: Int32, operation: String, path: String) -> LZ4IOError {
        switch code {
        case ENOENT: LZ4IOError(.notFound, path: path)
        case EACCES, EPERM: LZ4IOError(.permissionDenied, path: path)
        case EISDIR: LZ4IOError(.isDirectory, path: path)
        default: LZ4IOError(.system(operation: operation, errno: code), path: path)
        }
    }

    static func message(for code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}
