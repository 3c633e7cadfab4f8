/// Appends the state store's binary format: little-endian fixed-width integers, LEB128 lengths,
/// UTF-8 strings with their length. Compact and exact (floats keep their bit patterns).
///
/// Every piece is stored through a pointer into a scratch area on the stack, which reaches the
/// output array in few large appends: an `Array.append` per field (a uniqueness check, a capacity
/// check, a call, and for a fixed-width value a `memmove`) cost a seal more than the values.
/// Use it through `bytes(_:)`; the scratch pointer never leaves that call.
struct BinaryWriter {
    /// What was flushed from the scratch area so far.
    private var flushed: [UInt8] = []
    private let scratch: UnsafeMutablePointer<UInt8>
    /// Bytes waiting in `scratch`.
    private var pending = 0

    /// The most `withUnsafeTemporaryAllocation` places on the stack without asking the system; a
    /// typical state record fits.
    static let scratchSize = 1024
    /// Pieces longer than this go to the output directly once the scratch area is flushed.
    static let copyThreshold = 256

    private init(scratch: UnsafeMutablePointer<UInt8>) { self.scratch = scratch }

    /// The bytes `body` writes.
    static func bytes(_ body: (inout BinaryWriter) -> Void) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratchSize) { area in
            var writer = BinaryWriter(scratch: area.baseAddress!)
            body(&writer)
            // Most records never left the scratch area: one allocation of their exact size.
            if writer.flushed.isEmpty { return Array(UnsafeBufferPointer(start: writer.scratch, count: writer.pending)) }
            writer.flush()
            return writer.flushed
        }
    }

    // MARK: - Scratch management

    /// Room for `n` ≤ 16 bytes at the returned pointer; the caller then `commit`s.
    @inline(__always)
    private mutating func room(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if pending &+ n > Self.scratchSize { flush() }
        return scratch + pending
    }

    @inline(__always)
    private mutating func commit(_ n: Int) { pending &+= n }

    private mutating func flush() {
        guard pending > 0 else { return }
        flushed.append(contentsOf: UnsafeBufferPointer(start: scratch, count: pending))
        pending = 0
    }

    /// Appends bytes of any length.
    mutating func append(_ piece: UnsafeRawBufferPointer) {
        let n = piece.count
        guard n > 0 else { return }
        if pending &+ n > Self.scratchSize {
            flush()
            if n > Self.copyThreshold {
                flushed.append(contentsOf: piece)
                return
            }
        }
        UnsafeMutableRawPointer(scratch + pending).copyMemory(from: piece.baseAddress!, byteCount: n)
        commit(n)
    }

    mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    // MARK: - Values

    mutating func u8(_ v: UInt8) {
        room(1).pointee = v
        commit(1)
    }

    mutating func bool(_ v: Bool) { u8(v ? 1 : 0) }

    mutating func u32(_ v: UInt32) {
        UnsafeMutableRawPointer(room(4)).storeBytes(of: v.littleEndian, as: UInt32.self)
        commit(4)
    }

    mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }

    mutating func u64(_ v: UInt64) {
        UnsafeMutableRawPointer(room(8)).storeBytes(of: v.littleEndian, as: UInt64.self)
        commit(8)
    }

    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    mutating func f32(_ v: Float) { u32(v.bitPattern) }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }

    mutating func length(_ v: Int) { varint(UInt64(v)) }

    /// An unsigned LEB128 integer.
    mutating func varint(_ v: UInt64) {
        let p = room(10)
        var value = v
        var n = 0
        while value >= 0x80 {
            p[n] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            n &+= 1
        }
        p[n] = UInt8(truncatingIfNeeded: value)
        commit(n &+ 1)
    }

    /// A signed integer, zigzag-encoded: small magnitudes take few bytes either side of zero.
    mutating func zigzag(_ v: Int64) { varint(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }

    mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            length(utf8.count)
            append(UnsafeRawBufferPointer(utf8))
        }
    }

    mutating func blob(_ b: [UInt8]) {
        length(b.count)
        append(b)
    }

    /// Writes a presence flag, then the value if present.
    mutating func optional<T>(_ value: T?, _ write: (inout BinaryWriter, T) -> Void) {
        if let value {
            u8(1)
            write(&self, value)
        } else {
            u8(0)
        }
    }
}
