import Domain

/// Appends JSON text to a caller's reusable byte buffer, fast.
///
/// Every piece is written through a pointer into a scratch area of `limit` bytes: an `Array.append`
/// per field (uniqueness and capacity checks, a call) would cost more than the JSON itself.
/// - `append(to:_:)`: a 1 KiB stack scratch area that reaches the `[UInt8]` in a few large appends.
/// - `append(to:reserving:_:)`: the scratch area is the destination array's own reserved capacity,
///   so a record sized up front is written in place, with no copy at all.
///
/// - Important: The scratch pointer never leaves those calls.
public struct JSONWriter {
    /// The output: the caller's buffer (moved in, not copied) plus everything flushed so far.
    var bytes: [UInt8] = []
    let scratch: UnsafeMutablePointer<UInt8>
    /// Bytes waiting in `scratch`.
    var pending = 0
    /// Size of `scratch` (≥ `scratchSize`): `room` flushes rather than write past it.
    var limit: Int
    /// The last day converted to a date: the timestamps of one record are mostly on one day.
    var cachedDay = Int.min
    var cachedDate = (year: 0, month: 0, day: 0)

    /// Large enough for a whole typical event, so that it reaches the array in one append.
    static let scratchSize = 2048
    /// `append(to:_:)`'s scratch area: the most `withUnsafeTemporaryAllocation` places on the stack
    /// without asking the system (above it, a heap allocation per call). A user's state fits.
    static let stackScratchSize = 1024
    /// Pieces up to this long are copied through the scratch area.
    static let copyThreshold = 512
    /// Strings up to this many UTF-8 bytes are escaped straight into the scratch area.
    static let shortString = 80

    /// Keeps a heap scratch area alive for writers made with `init(taking:)`.
    private var owner: ScratchArea?

    init(scratch: UnsafeMutablePointer<UInt8>, limit: Int = scratchSize) {
        self.scratch = scratch
        self.limit = limit
    }

    /// A writer that appends to `buffer`, whose storage it moves in (`buffer` is left empty until
    /// `finish(into:)` moves it back). Allocates its scratch area on the heap: prefer
    /// `append(to:_:)` on hot paths.
    public init(taking buffer: inout [UInt8]) {
        let area = ScratchArea(capacity: Self.scratchSize)
        self.scratch = area.pointer
        self.limit = Self.scratchSize
        self.owner = area
        swap(&bytes, &buffer)
    }

    /// Flushes and moves the written bytes back into `buffer` (see `init(taking:)`).
    public mutating func finish(into buffer: inout [UInt8]) {
        flush()
        swap(&bytes, &buffer)
    }

    /// Runs `body` with a writer that appends to `buffer`.
    public static func append(to buffer: inout [UInt8], _ body: (inout JSONWriter) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: stackScratchSize) { area in
            var writer = JSONWriter(scratch: area.baseAddress!, limit: stackScratchSize)
            swap(&writer.bytes, &buffer)
            body(&writer)
            writer.flush()
            swap(&writer.bytes, &buffer)
        }
    }

    /// Runs `body` with a writer that writes straight into `buffer`'s spare capacity, after making
    /// room for `reserving` bytes: no scratch copy, no per-piece `Array.append`.
    ///
    /// `reserving` is an upper bound of what `body` writes for speed only: if `body` writes more,
    /// the writer flushes as `append(to:_:)` does and the bytes are the same.
    /// - Parameters:
    ///   - buffer: the destination; receives exactly the bytes `body` writes.
    ///   - reserving: the expected maximum size of the output (raised to at least `scratchSize`).
    ///   - body: writes through the writer.
    /// - Important: The writer's pointer is valid only during `body`; do not copy the writer out.
    @inline(__always)
    static func append(to buffer: inout [UInt8], reserving: Int, _ body: (inout JSONWriter) -> Void) {
        let bound = max(reserving, scratchSize)
        var overflow: [UInt8] = []
        buffer.append(addingCapacity: bound) { span in
            span.withUnsafeMutableBufferPointer { area, initialized in
                var writer = JSONWriter(scratch: area.baseAddress!, limit: area.count)
                body(&writer)
                if writer.bytes.isEmpty {
                    initialized = writer.pending
                } else {
                    // More than `reserving`: part of the output was flushed to `writer.bytes`.
                    writer.flush()
                    swap(&overflow, &writer.bytes)
                    initialized = 0
                }
            }
        }
        if !overflow.isEmpty { buffer.append(contentsOf: overflow) }
    }

    /// The text written so far (tests).
    public var text: String {
        var copy = self
        copy.flush()
        return String(decoding: copy.bytes, as: UTF8.self)
    }

    /// Bytes written so far (flushed or not).
    var count: Int { bytes.count + pending }

    // MARK: - Scratch management

    /// Room for `n` ≤ `stackScratchSize` bytes at the returned pointer; the caller then `commit`s.
    @inline(__always)
    mutating func room(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if pending &+ n > limit { flush() }
        return scratch + pending
    }

    @inline(__always)
    mutating func commit(_ n: Int) { pending &+= n }

    mutating func flush() {
        guard pending > 0 else { return }
        bytes.append(contentsOf: UnsafeBufferPointer(start: scratch, count: pending))
        pending = 0
    }

    /// Appends bytes of any length.
    ///
    /// Inlined: where the length is a constant (a literal key), the copy compiles to a few moves
    /// instead of a call here and one to `memmove`, together 15% of the dense replay's instructions.
    @inline(__always)
    mutating func append(_ piece: UnsafeRawBufferPointer) {
        let n = piece.count
        guard pending &+ n <= limit else { return appendPastScratch(piece) }
        if n > 0 { UnsafeMutableRawPointer(scratch + pending).copyMemory(from: piece.baseAddress!, byteCount: n) }
        pending &+= n
    }

    /// `append` of a piece that does not fit the scratch area's rest: a short one after a flush, a
    /// long one straight to the output.
    private mutating func appendPastScratch(_ piece: UnsafeRawBufferPointer) {
        flush()
        if piece.count <= Self.copyThreshold {
            UnsafeMutableRawPointer(scratch).copyMemory(from: piece.baseAddress!, byteCount: piece.count)
            pending = piece.count
        } else {
            bytes.append(contentsOf: piece)
        }
    }

    // MARK: - Raw text

    /// Appends literal JSON text, e.g. a key with its colon.
    @inline(__always)
    public mutating func raw(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public mutating func byte(_ b: UInt8) {
        room(1).pointee = b
        commit(1)
    }

    /// Splices a JSON value kept as source text.
    public mutating func raw(_ json: RawJSON) { json.bytes.withUnsafeBytes { append($0) } }

    public mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    // MARK: - Strings

    /// A quoted string with `"`, `\` and control characters escaped (`\n`, `\t`, … or `\u00XX`);
    /// all other UTF-8 passes through unchanged.
    public mutating func string(_ value: String) {
        // Read in place: a `var` copy for `withUTF8` would retain and release the string each time.
        let written: Void? = value.utf8.withContiguousStorageIfAvailable { string(utf8: UnsafeRawBufferPointer($0)) }
        guard written == nil else { return }
        var value = value
        value.withUTF8 { string(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// A quoted string from UTF-8 bytes (assumed valid).
    public mutating func string(utf8: UnsafeRawBufferPointer) {
        let n = utf8.count
        if n <= Self.shortString {
            // Worst case every byte becomes \u00XX.
            let start = room(n * 6 + 2)
            var p = start
            p.pointee = UInt8(ascii: "\"")
            p += 1
            var i = 0
            // 8 bytes at a time while none needs escaping (SWAR, as in JSONReader.readString).
            while i + 8 <= n {
                let word = utf8.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let ones: UInt64 = 0x0101_0101_0101_0101
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special =
                    ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                if special & 0x8080_8080_8080_8080 != 0 { break }
                UnsafeMutableRawPointer(p).storeBytes(of: word, as: UInt64.self)
                p += 8
                i += 8
            }
            while i < n {
                let b = utf8[i]
                i += 1
                if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") {
                    p.pointee = b
                    p += 1
                } else {
                    p = Self.escape(b, at: p)
                }
            }
            p.pointee = UInt8(ascii: "\"")
            p += 1
            commit(p - start)
            return
        }
        // Long strings: copy runs of plain bytes, escape the rest.
        byte(UInt8(ascii: "\""))
        var runStart = 0
        for i in 0..<n {
            let b = utf8[i]
            guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
            if runStart < i { append(UnsafeRawBufferPointer(rebasing: utf8[runStart..<i])) }
            runStart = i + 1
            let p = room(6)
            commit(Self.escape(b, at: p) - p)
        }
        if runStart < n { append(UnsafeRawBufferPointer(rebasing: utf8[runStart..<n])) }
        byte(UInt8(ascii: "\""))
    }

    /// Writes the escape of `b` at `p`; returns the position after it.
    private static func escape(_ b: UInt8, at p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        p[0] = UInt8(ascii: "\\")
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): p[1] = b
        case 0x08: p[1] = UInt8(ascii: "b")
        case 0x0C: p[1] = UInt8(ascii: "f")
        case 0x0A: p[1] = UInt8(ascii: "n")
        case 0x0D: p[1] = UInt8(ascii: "r")
        case 0x09: p[1] = UInt8(ascii: "t")
        default:
            let hex: StaticString = "0123456789abcdef"
            p[1] = UInt8(ascii: "u")
            p[2] = UInt8(ascii: "0")
            p[3] = UInt8(ascii: "0")
            p[4] = hex.utf8Start[Int(b >> 4)]
            p[5] = hex.utf8Start[Int(b & 0xF)]
            return p + 6
        }
        return p + 2
    }

    // MARK: - Fixed-size fields

    /// `"2013-07-01T00:00:53.000Z"` (quoted, UTC, milliseconds).
    public mutating func timestamp(_ millis: UnixMillis) {
        let p = room(26)
        p[0] = UInt8(ascii: "\"")
        let (days, millisOfDay) = RFC3339.split(millis)
        if days != cachedDay {
            cachedDay = days
            cachedDate = RFC3339.civilFromDays(days)
        }
        RFC3339.write(date: cachedDate, millisOfDay: millisOfDay, to: p + 1)
        p[25] = UInt8(ascii: "\"")
        commit(26)
    }

    /// The 24 lowercase hex digits of an event id, quoted.
    public mutating func eventID(_ id: EventID) {
        let p = room(26)
        p[0] = UInt8(ascii: "\"")
        // A byte at a time, its two digits from a table: half the steps of a digit at a time.
        let pairs = Self.hexPairs.utf8Start
        for i in 0..<8 {
            let byte = Int(truncatingIfNeeded: id.high >> (56 - 8 * UInt64(i))) & 0xFF
            UnsafeMutableRawPointer(p + 1 + 2 * i).copyMemory(from: pairs + 2 * byte, byteCount: 2)
        }
        for i in 0..<4 {
            let byte = Int(truncatingIfNeeded: id.low >> (24 - 8 * UInt32(i))) & 0xFF
            UnsafeMutableRawPointer(p + 17 + 2 * i).copyMemory(from: pairs + 2 * byte, byteCount: 2)
        }
        p[25] = UInt8(ascii: "\"")
        commit(26)
    }

    /// `"00"` … `"ff"`, the two hex digits of every byte.
    static let hexPairs: StaticString = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

    /// A GeoJSON point: `{"type":"Point","coordinates":[lng,lat]}`.
    public mutating func point(_ c: Coordinate) {
        raw("{\"type\":\"Point\",\"coordinates\":[")
        coordinateE7(c.longitudeE7)
        byte(UInt8(ascii: ","))
        coordinateE7(c.latitudeE7)
        raw("]}")
    }
}
