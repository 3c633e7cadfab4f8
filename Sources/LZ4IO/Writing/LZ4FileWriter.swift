import CLZ4

/// Streams bytes into an LZ4-frame-compressed file (`.lz4`), e.g. NDJSON outputs or state snapshots too large to
/// hold twice in memory. The frame uses 1 MiB linked blocks and a content checksum; `lz4 -d` reads it.
///
/// ```swift
/// let output = try LZ4FileWriter(path: "events.ndjson.lz4")
/// try output.write(line); try output.write(byte: 0x0A)
/// try output.close()      // writes the end mark and checksum; without it the frame is truncated
/// ```
///
/// - Important: Call `close()` and check its error. `deinit` finishes the frame as a last resort but can only drop
///   an error.
public final class LZ4FileWriter {
    /// The file being written.
    public var path: String { output.path }
    private let output: FileWriter
    private let context: OpaquePointer
    private var preferences: LZ4F_preferences_t
    /// Uncompressed bytes per `LZ4F_compressUpdate` call; `compressed` is sized for its worst case.
    private let inputChunk = 1 << 20
    private let compressed: UnsafeMutableRawPointer
    private let compressedCapacity: Int
    private var isClosed = false

    /// Creates or truncates `path` and writes the frame header.
    /// - Parameter level: 0 (default) is the fast mode; 3...12 select the denser HC mode.
    /// - Throws: the errors of `FileWriter.init`.
    public init(path: String, level: Int32 = 0) throws(LZ4IOError) {
        var preferences = LZ4F_preferences_t()
        preferences.frameInfo.blockSizeID = LZ4F_max1MB
        preferences.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled
        preferences.compressionLevel = level
        var context: OpaquePointer?
        let status = LZ4F_createCompressionContext(&context, UInt32(LZ4F_VERSION))
        // Fails only on allocation failure or a header/library mismatch: nothing a caller could handle.
        precondition(LZ4F_isError(status) == 0 && context != nil, "LZ4F_createCompressionContext failed")
        let capacity = max(LZ4F_compressBound(1 << 20, &preferences), Int(LZ4F_HEADER_SIZE_MAX))
        let compressed = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
        do throws(LZ4IOError) {
            self.output = try FileWriter(path: path)
        } catch {
            LZ4F_freeCompressionContext(context)
            compressed.deallocate()
            throw error
        }
        self.context = context!
        self.preferences = preferences
        self.compressed = compressed
        self.compressedCapacity = capacity
        let headerSize = LZ4F_compressBegin(self.context, compressed, capacity, &self.preferences)
        precondition(LZ4F_isError(headerSize) == 0, String(cString: LZ4F_getErrorName(headerSize)))
        try output.write(UnsafeRawBufferPointer(start: compressed, count: headerSize))
    }

    deinit {
        if !isClosed { try? close() }
        LZ4F_freeCompressionContext(context)
        compressed.deallocate()
    }

    // MARK: - Writing

    /// Compresses and appends `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(LZ4IOError) {
        precondition(!isClosed, "write to closed LZ4FileWriter \(path)")
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let length = min(inputChunk, bytes.count - offset)
            let produced = LZ4F_compressUpdate(context, compressed, compressedCapacity, base + offset, length, nil)
            // The destination holds LZ4F_compressBound(inputChunk) bytes, which liblz4 guarantees is enough.
            precondition(LZ4F_isError(produced) == 0, String(cString: LZ4F_getErrorName(produced)))
            try output.write(UnsafeRawBufferPointer(start: compressed, count: produced))
            offset += length
        }
    }

    /// Compresses and appends `bytes`.
    public func write(_ bytes: [UInt8]) throws(LZ4IOError) {
        // `withUnsafeBytes` only rethrows untyped errors, so the typed error is carried out as a value.
        let failure = bytes.withUnsafeBytes { raw -> LZ4IOError? in
            do throws(LZ4IOError) { try write(raw) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Compresses and appends the UTF-8 bytes of `text`.
    public func write(_ text: String) throws(LZ4IOError) {
        var text = text
        let failure = text.withUTF8 { utf8 -> LZ4IOError? in
            do throws(LZ4IOError) { try write(UnsafeRawBufferPointer(utf8)) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Compresses and appends one byte.
    public func write(byte: UInt8) throws(LZ4IOError) {
        let failure = withUnsafeBytes(of: byte) { raw -> LZ4IOError? in
            do throws(LZ4IOError) { try write(raw) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Ends the frame (remaining data, end mark, checksum) and closes the file. Calling it again does nothing.
    /// - Parameter synchronizing: `fsync` the file before closing it, e.g. before renaming it into place.
    ///   Default: false.
    public func close(synchronizing: Bool = false) throws(LZ4IOError) {
        guard !isClosed else { return }
        isClosed = true
        let produced = LZ4F_compressEnd(context, compressed, compressedCapacity, nil)
        precondition(LZ4F_isError(produced) == 0, String(cString: LZ4F_getErrorName(produced)))
        do throws(LZ4IOError) {
            try output.write(UnsafeRawBufferPointer(start: compressed, count: produced))
            if synchronizing { try output.synchronize() }
        } catch {
            try? output.close()
            throw error
        }
        try output.close()
    }
}
