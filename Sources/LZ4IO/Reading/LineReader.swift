#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the lines of a plain or LZ4-frame-compressed file without copying them.
///
/// The format is detected from the first four bytes (the LZ4 magic number `0x184D2204`), not from the file name.
/// The file is read in `chunkSize` pieces with POSIX `read(2)` (compressed files are decompressed straight into the
/// line buffer), and lines are handed out as views of that buffer, without their `\n` or `\r\n`.
///
/// - Empty lines are skipped but counted, so line numbers match the file.
/// - A last line without `\n` is delivered.
/// - A line longer than `maxLineLength` is not delivered: the reader skips to its newline and reports a
///   `LineTooLong` with its number, in `LineBatch.linesTooLong` or through `forEachLine`'s `onLineTooLong`.
///   Memory stays bounded by about `maxLineLength + 2 × chunkSize`, times `batchesKept + 1`.
/// - With `batchesKept` n, lines are read into n + 1 buffers in turn, so a batch stays valid through the next
///   n `nextBatch` calls: one thread can read the next batch while others still work on this one.
///
/// ```swift
/// let reader = try LineReader(path: "fixes.ndjson.lz4")
/// var batch = LineBatch()
/// while try reader.nextBatch(into: &batch) {
///     for line in batch { try decode(line.bytes) }            // valid until the next nextBatch call
///     for skipped in batch.linesTooLong { rejected(skipped.lineNumber) }
///     progressBar.update(reader.progress.fraction)
/// }
/// ```
///
/// Not `Sendable`: a reader is driven by one task at a time.
public final class LineReader {
    /// The path given at creation, used in error messages.
    public let path: String
    /// Whether the input is LZ4-frame compressed.
    public let isCompressed: Bool
    /// Bytes requested from the file (or produced by the decompressor) per read.
    public let chunkSize: Int
    /// Longest line, without its terminator, that is delivered.
    public let maxLineLength: Int
    /// Number of the last line seen so far, including empty and skipped lines.
    public private(set) var linesRead = 0

    private let descriptor: Int32
    private let closesDescriptor: Bool
    private let decoder: LZ4FrameDecoder?
    private let totalBytes: Int64?
    private var bytesRead: Int64
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    /// The buffers of the `batchesKept` batches before, oldest first: the next batch is read into the oldest.
    private var spares: [(buffer: UnsafeMutableRawPointer, capacity: Int)] = []
    /// Unscanned bytes are `buffer[dataStart..<dataEnd]`; after a scan only a partial last line remains there.
    private var dataStart = 0
    private var dataEnd: Int
    private var sourceExhausted: Bool
    private var finished = false
    /// The over-long line being skipped, with the bytes counted so far.
    private var skipping: LineTooLong?

    /// Opens `path` for reading.
    /// - Parameters:
    ///   - chunkSize: bytes per read. Default: 1 MiB.
    ///   - maxLineLength: longest deliverable line in bytes. Default: 1 MiB.
    ///   - batchesKept: through how many more `nextBatch` calls a batch stays valid (that many more line
    ///     buffers, used in turn). Default: 0, until the next call.
    /// - Throws: `notFound`, `permissionDenied`, `isDirectory`, or another system error, naming `path`.
    public convenience init(
        path: String, chunkSize: Int = 1 << 20, maxLineLength: Int = 1 << 20, batchesKept: Int = 0
    ) throws(LZ4IOError) {
        let descriptor = try SystemFile.openForReading(path)
        try self.init(
            fileDescriptor: descriptor, name: path, closesDescriptor: true, chunkSize: chunkSize,
            maxLineLength: maxLineLength, batchesKept: batchesKept)
    }

    /// Reads from an open file descriptor, e.g. standard input (0).
    /// - Parameters:
    ///   - name: what error messages call the input.
    ///   - closesDescriptor: whether the reader closes the descriptor when it is released — or when this
    ///     initializer throws.
    public init(
        fileDescriptor descriptor: Int32,
        name: String,
        closesDescriptor: Bool = false,
        chunkSize: Int = 1 << 20,
        maxLineLength: Int = 1 << 20,
        batchesKept: Int = 0
    ) throws(LZ4IOError) {
        precondition(chunkSize > 0 && maxLineLength > 0, "chunkSize and maxLineLength must be positive")
        precondition(batchesKept >= 0, "batchesKept must not be negative")
        // Room for two chunks, and for the four magic bytes even with tiny (test-sized) chunks.
        let capacity = max(2 * chunkSize, 64)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
        var sniffed = 0
        var exhausted = false
        do throws(LZ4IOError) {
            if SystemFile.isDirectory(descriptor) { throw LZ4IOError(.isDirectory, path: name) }
            // Pipes may deliver fewer than four bytes per read; the magic number needs all four.
            while sniffed < 4 {
                let count = try SystemFile.read(
                    descriptor, into: buffer + sniffed, count: min(chunkSize, capacity - sniffed), path: name)
                if count == 0 {
                    exhausted = true
                    break
                }
                sniffed += count
            }
        } catch {
            buffer.deallocate()
            if closesDescriptor { try? SystemFile.close(descriptor, path: name) }
            throw error
        }
        let head = UnsafeRawBufferPointer(start: buffer, count: sniffed)
        let isCompressed = LZ4Frame.hasMagicNumber(head)
        self.path = name
        self.isCompressed = isCompressed
        self.chunkSize = chunkSize
        self.maxLineLength = maxLineLength
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
        self.totalBytes = SystemFile.regularFileSize(descriptor)
        self.bytesRead = Int64(sniffed)
        self.buffer = buffer
        self.capacity = capacity
        spares = (0..<batchesKept).map { _ in
            (UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64), capacity)
        }
        // Compressed bytes move to the decoder; plain bytes are already where lines are scanned.
        self.decoder = isCompressed ? LZ4FrameDecoder(initialInput: head, inputCapacity: chunkSize, path: name) : nil
        self.dataEnd = isCompressed ? 0 : sniffed
        self.sourceExhausted = exhausted && !isCompressed
    }

    deinit {
        buffer.deallocate()
        for spare in spares { spare.buffer.deallocate() }
        if closesDescriptor { try? SystemFile.close(descriptor, path: path) }
    }

    /// Bytes of the file consumed so far (compressed bytes for LZ4 input) and the file's size.
    public var progress: ReadProgress {
        ReadProgress(bytesRead: bytesRead, totalBytes: totalBytes)
    }

    // MARK: - Reading

    /// Replaces the contents of `batch` with the next lines (about one chunk's worth) and the over-long lines
    /// skipped on the way.
    /// - Returns: `false` at the end of the input, with `batch` empty.
    /// - Throws: read errors, `corruptFrame` or `truncatedFrame`, naming the file. Lines of earlier batches were
    ///   valid; the reader should not be used after an error.
    /// - Warning: The lines in `batch` are valid only until the next call (with `batchesKept` n, the n + 1st).
    public func nextBatch(into batch: inout LineBatch) throws(LZ4IOError) -> Bool {
        batch.reset(base: buffer)
        guard !finished else { return false }
        // The previous batch's lines are in `buffer`: with spares, this one goes to the oldest. Only once per
        // call: a second refill (no complete line yet) must not turn to a buffer being kept.
        var turnBuffers = !spares.isEmpty
        while true {
            if turnBuffers { turnToSpare() }
            turnBuffers = false
            try refill()
            scanCompleteLines(into: &batch)
            if sourceExhausted {
                finishLastLine(into: &batch)
                finished = true
            }
            if finished || !batch.isEmpty || !batch.linesTooLong.isEmpty {
                return !batch.isEmpty || !batch.linesTooLong.isEmpty
            }
        }
    }

    /// Calls `body` for every non-empty line and `onLineTooLong` for every skipped one, in line order.
    /// - Parameters:
    ///   - onLineTooLong: told about each line longer than `maxLineLength`; throw from it to stop reading.
    ///   - body: receives each line; `line.bytes` is valid only during the call.
    public func forEachLine(
        onLineTooLong: (LineTooLong) throws -> Void,
        _ body: (Line) throws -> Void
    ) throws {
        var batch = LineBatch()
        while try nextBatch(into: &batch) {
            var skipped = batch.linesTooLong[...]
            for line in batch {
                while let next = skipped.first, next.lineNumber < line.number {
                    try onLineTooLong(next)
                    skipped = skipped.dropFirst()
                }
                try body(line)
            }
            for next in skipped { try onLineTooLong(next) }
        }
    }

    // MARK: - Buffer management

    /// Moves the partial last line to the front of the oldest spare buffer and reads on there, keeping
    /// the lines handed out from `buffer` (which becomes the newest spare) as they are.
    private func turnToSpare() {
        guard !spares.isEmpty, !sourceExhausted || dataEnd > dataStart else { return }
        var next = spares.removeFirst()
        let pending = dataEnd - dataStart
        if next.capacity < pending {
            next.buffer.deallocate()
            next.capacity = max(capacity, pending)
            next.buffer = UnsafeMutableRawPointer.allocate(byteCount: next.capacity, alignment: 64)
        }
        if pending > 0 { next.buffer.copyMemory(from: buffer + dataStart, byteCount: pending) }
        spares.append((buffer, capacity))
        (buffer, capacity) = next
        (dataStart, dataEnd) = (0, pending)
    }

    /// Moves the partial last line to the front, makes room for a chunk and reads one.
    private func refill() throws(LZ4IOError) {
        guard !sourceExhausted else { return }
        let pending = dataEnd - dataStart
        if dataStart > 0 {
            if pending > 0 { memmove(buffer, buffer + dataStart, pending) }
            (dataStart, dataEnd) = (0, pending)
        }
        if capacity - dataEnd < chunkSize { grow(toAtLeast: dataEnd + chunkSize) }
        let count = try readChunk(into: buffer + dataEnd)
        if count == 0 { sourceExhausted = true } else { dataEnd += count }
    }

    private func readChunk(into destination: UnsafeMutableRawPointer) throws(LZ4IOError) -> Int {
        guard let decoder else { return try readFile(into: destination, count: chunkSize) }
        return try decoder.decompress(into: UnsafeMutableRawBufferPointer(start: destination, count: chunkSize)) {
            (input) throws(LZ4IOError) -> Int in
            try readFile(into: input.baseAddress!, count: input.count)
        }
    }

    private func readFile(into destination: UnsafeMutableRawPointer, count: Int) throws(LZ4IOError) -> Int {
        let read = try SystemFile.read(descriptor, into: destination, count: count, path: path)
        bytesRead += Int64(read)
        return read
    }

    private func grow(toAtLeast needed: Int) {
        let newCapacity = max(capacity * 2, needed)
        let newBuffer = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 64)
        newBuffer.copyMemory(from: buffer, byteCount: dataEnd)
        buffer.deallocate()
        (buffer, capacity) = (newBuffer, newCapacity)
    }

    // MARK: - Scanning

    /// Records every complete line in `buffer[dataStart..<dataEnd]`, leaving only a partial line behind.
    private func scanCompleteLines(into batch: inout LineBatch) {
        batch.base = UnsafeRawPointer(buffer)
        let base = buffer
        let end = dataEnd
        var position = dataStart
        if var skipped = skipping {
            guard let newline = memchr(base + position, 0x0A, end - position) else {
                skipped.byteCount += end - position
                (skipping, dataStart) = (skipped, end)
                return
            }
            let newlineOffset = base.distance(to: newline)
            skipped.byteCount += newlineOffset - position
            if newlineOffset > position, base.load(fromByteOffset: newlineOffset - 1, as: UInt8.self) == 0x0D {
                skipped.byteCount -= 1
            }
            batch.linesTooLong.append(skipped)
            skipping = nil
            position = newlineOffset + 1
        }
        var lineNumber = linesRead
        let maxLineLength = maxLineLength
        while position < end, let newline = memchr(base + position, 0x0A, end - position) {
            let newlineOffset = base.distance(to: newline)
            var length = newlineOffset - position
            if length > 0, base.load(fromByteOffset: newlineOffset - 1, as: UInt8.self) == 0x0D { length -= 1 }
            lineNumber += 1
            if length > maxLineLength {
                batch.linesTooLong.append(LineTooLong(lineNumber: lineNumber, byteCount: length))
            } else if length > 0 {
                batch.entries.append(LineBatch.Entry(offset: position, length: length, number: lineNumber))
            }
            position = newlineOffset + 1
        }
        linesRead = lineNumber
        dataStart = position
        // A partial line that is already too long is skipped from here on; the +1 leaves room for a `\r`.
        if end - position > maxLineLength + 1 {
            linesRead += 1
            skipping = LineTooLong(lineNumber: linesRead, byteCount: end - position)
            dataStart = end
        }
    }

    /// At the end of input: delivers a last line without `\n`, or reports the over-long line being skipped.
    private func finishLastLine(into batch: inout LineBatch) {
        if let skipped = skipping {
            batch.linesTooLong.append(skipped)
            skipping = nil
            return
        }
        guard dataEnd > dataStart else { return }
        var length = dataEnd - dataStart
        if buffer.load(fromByteOffset: dataEnd - 1, as: UInt8.self) == 0x0D { length -= 1 }
        linesRead += 1
        if length > maxLineLength {
            batch.linesTooLong.append(LineTooLong(lineNumber: linesRead, byteCount: length))
        } else if length > 0 {
            batch.entries.append(LineBatch.Entry(offset: dataStart, length: length, number: linesRead))
        }
        dataStart = dataEnd
    }
}
