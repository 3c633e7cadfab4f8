/// A buffered file writer on POSIX `write(2)`, for NDJSON outputs: creates or truncates the file, buffers 1 MiB
/// by default, and names the path in every error.
///
/// ```swift
/// let output = try FileWriter(path: "events.ndjson")
/// for event in events { try output.write(encode(event)); try output.write(byte: 0x0A) }
/// try output.close()
/// ```
///
/// - Important: Call `close()` and check its error. `deinit` flushes and closes as a last resort, but there it can
///   only drop an error.
public final class FileWriter {
    /// The file being written.
    public let path: String
    private let descriptor: Int32
    private let buffer: UnsafeMutableRawPointer
    private let capacity: Int
    private var count = 0
    private var isClosed = false
    private let truncatesOnClose: Bool
    private var written: Int64 = 0
    private var bypassThreshold: Int64?
    /// Set once the file is past `bypassThreshold`, unless the system cannot bypass the page cache.
    private var bypass: PageCacheBypass?

    /// Creates or truncates `path`.
    /// - Parameters:
    ///   - bufferSize: bytes collected before a `write(2)`. Default: 1 MiB.
    ///   - permissions: mode for a new file, before the umask. Default: `0o644`.
    ///   - bypassingPageCacheAfter: once the file holds this many bytes, write the rest with `O_DIRECT`
    ///     (`PageCacheBypass`), where the system allows it. For large outputs written once. Default: never.
    ///   - reusingExistingPages: overwrite an existing file from its start and cut it to the bytes written
    ///     at `close()`, instead of truncating it when opening. Its page-cache pages are then rewritten
    ///     instead of freed and allocated again, which makes rewriting a large file several times faster
    ///     where fresh pages are expensive (in a VM that hands freed memory back to its host, ~0.5 GB/s
    ///     instead of ~3 GB/s). Default: false.
    ///
    /// - Warning: With `reusingExistingPages`, until `close()` the file's tail still holds the old
    ///     content: write under a temporary name and rename it into place after `close()`.
    /// - Throws: `notFound` (missing directory), `permissionDenied`, `isDirectory`, or another system error.
    public init(
        path: String, bufferSize: Int = 1 << 20, permissions: UInt32 = 0o644, reusingExistingPages: Bool = false,
        bypassingPageCacheAfter: Int64? = nil
    ) throws(LZ4IOError) {
        precondition(bufferSize > 0, "bufferSize must be positive")
        self.descriptor = try SystemFile.openForWriting(path, permissions: permissions, truncate: !reusingExistingPages)
        self.truncatesOnClose = reusingExistingPages
        self.bypassThreshold = PageCacheBypass.directFlag == 0 ? nil : bypassingPageCacheAfter
        self.path = path
        self.capacity = bufferSize
        self.buffer = .allocate(byteCount: bufferSize, alignment: 64)
    }

    deinit {
        if !isClosed { try? close() }
        buffer.deallocate()
        bypass?.deallocate()
    }

    /// Bytes accepted so far that are still in the buffer.
    public var bufferedByteCount: Int { count + (bypass?.pendingByteCount ?? 0) }

    /// Whether writes now go around the page cache (see `bypassingPageCacheAfter`).
    public var bypassesPageCache: Bool { bypass?.bypasses ?? false }

    // MARK: - Writing

    /// Appends `bytes`; large writes bypass the buffer.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(LZ4IOError) {
        precondition(!isClosed, "write to closed FileWriter \(path)")
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if bypass != nil {
            written += Int64(try bypass!.write(bytes, to: descriptor, path: path))
            if bypass!.isRefused { try endBypass() }
            return
        }
        try writeBuffered(source, count: bytes.count)
        if let bypassThreshold, written + Int64(count) >= bypassThreshold { try startBypass() }
    }

    private func writeBuffered(_ source: UnsafeRawPointer, count byteCount: Int) throws(LZ4IOError) {
        if byteCount > capacity - count {
            try flush()
            if byteCount >= capacity {
                try SystemFile.writeAll(descriptor, source, count: byteCount, path: path)
                written += Int64(byteCount)
                return
            }
        }
        (buffer + count).copyMemory(from: source, byteCount: byteCount)
        count += byteCount
    }

    /// Moves what is buffered into a page-cache bypass starting at the file's end.
    private func startBypass() throws(LZ4IOError) {
        bypass = PageCacheBypass(offset: written)
        let pending = count
        count = 0
        written += Int64(try bypass!.write(UnsafeRawBufferPointer(start: buffer, count: pending), to: descriptor,
                                           path: path))
    }

    /// Writes what the bypass holds and lets it go; if the system refused it, no other is started.
    private func endBypass() throws(LZ4IOError) {
        guard var ending = bypass else { return }
        bypass = nil
        if ending.isRefused { bypassThreshold = nil }
        defer { ending.deallocate() }
        written += Int64(try ending.drain(to: descriptor, path: path, all: true))
    }

    /// Appends `bytes`.
    public func write(_ bytes: [UInt8]) throws(LZ4IOError) {
        // `withUnsafeBytes` only rethrows untyped errors, so the typed error is carried out as a value.
        let failure = bytes.withUnsafeBytes { raw -> LZ4IOError? in
            do throws(LZ4IOError) { try write(raw) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Appends the UTF-8 bytes of `text`.
    public func write(_ text: String) throws(LZ4IOError) {
        var text = text
        let failure = text.withUTF8 { utf8 -> LZ4IOError? in
            do throws(LZ4IOError) { try write(UnsafeRawBufferPointer(utf8)) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Appends one byte, e.g. `0x0A` after an NDJSON record.
    public func write(byte: UInt8) throws(LZ4IOError) {
        precondition(!isClosed, "write to closed FileWriter \(path)")
        if bypass != nil {
            try withUnsafeBytes(of: byte) { raw throws(LZ4IOError) in try write(raw) }
            return
        }
        if count == capacity { try flush() }
        buffer.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    // MARK: - Flushing and closing

    /// Hands buffered bytes to the kernel.
    public func flush() throws(LZ4IOError) {
        if bypass != nil {
            // All of it, the unaligned tail through the page cache; a later write starts a bypass again.
            try endBypass()
            return
        }
        guard count > 0 else { return }
        let pending = count
        count = 0  // on failure the bytes are lost either way; a retry would duplicate a partial write
        written += Int64(pending)
        try SystemFile.writeAll(descriptor, buffer, count: pending, path: path)
    }

    /// Flushes and asks the kernel to put the data on disk (`fsync`), e.g. before renaming a snapshot into place.
    public func synchronize() throws(LZ4IOError) {
        try flush()
        try SystemFile.synchronize(descriptor, path: path)
    }

    /// Flushes and closes the file. Calling it again does nothing.
    public func close() throws(LZ4IOError) {
        guard !isClosed else { return }
        isClosed = true
        do throws(LZ4IOError) {
            try flush()
            if truncatesOnClose { try SystemFile.truncate(descriptor, length: written, path: path) }
        } catch {
            try? SystemFile.close(descriptor, path: path)
            throw error
        }
        try SystemFile.close(descriptor, path: path)
    }
}
