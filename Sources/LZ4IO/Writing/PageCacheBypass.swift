#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The rest of a large output file written with `O_DIRECT`: the device reads the bytes from an aligned buffer of
/// ours, so the kernel neither copies them into the page cache nor allocates pages for them, and a multi-gigabyte
/// replay output does not evict what the machine had cached. Measured on the dev machine (a VM whose fresh page
/// cache pages are expensive), a replay writing 4.4 GB of events spent 2 s in the kernel instead of 7–14 s.
///
/// `O_DIRECT` wants the buffer's address, each write's length and the file offset aligned to the device's logical
/// block; `alignment` (4 KiB) covers every common device. The bytes that bring the file offset to that alignment,
/// and the tail at the end, go through the page cache. Where the filesystem refuses `O_DIRECT` (tmpfs before
/// Linux 6.6, some FUSE filesystems), or refuses a write, the file goes on through the page cache.
struct PageCacheBypass {
    static let alignment = 4096
    /// Bytes per direct write: large enough that the device's latency is amortized.
    static let bufferBytes = 4 << 20

    /// `O_DIRECT`, which Swift's Glibc module does not export (it sits behind `_GNU_SOURCE`); 0 where unknown.
    static var directFlag: Int32 {
        #if os(Linux) && (arch(x86_64) || arch(i386))
            return 0o40000
        #elseif os(Linux) && (arch(arm64) || arch(arm))
            return 0o200000
        #else
            return 0
        #endif
    }

    private let buffer: UnsafeMutableRawPointer
    private var count = 0
    /// Bytes still to write through the page cache before the file offset is aligned.
    private var unalignedLead: Int
    private var isDirect = false
    /// Set once the system refused: everything from then on goes through the page cache.
    private(set) var isRefused = false

    /// Starts at file offset `offset` (everything before it written).
    init(offset: Int64) {
        buffer = .allocate(byteCount: Self.bufferBytes, alignment: Self.alignment)
        unalignedLead = (Self.alignment - Int(offset % Int64(Self.alignment))) % Self.alignment
        isRefused = Self.directFlag == 0
    }

    func deallocate() { buffer.deallocate() }

    /// Bytes accepted and not yet written.
    var pendingByteCount: Int { count }

    /// Whether writes now bypass the page cache.
    var bypasses: Bool { isDirect }

    /// Appends `bytes`, writing every full buffer.
    /// - Returns: the bytes written to the file.
    mutating func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws(LZ4IOError) -> Int {
        var written = 0
        var offset = 0
        while offset < bytes.count {
            let piece = min(Self.bufferBytes - count, bytes.count - offset)
            (buffer + count).copyMemory(from: bytes.baseAddress! + offset, byteCount: piece)
            count += piece
            offset += piece
            if count == Self.bufferBytes { written += try drain(to: descriptor, path: path, all: false) }
        }
        return written
    }

    /// Writes what is pending: with `all`, every byte (the tail through the page cache, after which the
    /// descriptor is back to ordinary writes); otherwise whole aligned blocks, keeping the rest.
    /// - Returns: the bytes written to the file.
    mutating func drain(to descriptor: Int32, path: String, all: Bool) throws(LZ4IOError) -> Int {
        var lead = 0
        if unalignedLead > 0 {
            lead = min(unalignedLead, count)
            try SystemFile.writeAll(descriptor, buffer, count: lead, path: path)
            unalignedLead -= lead
            // The rest to the buffer's start: `O_DIRECT` wants the memory aligned as well as the offset.
            count -= lead
            if count > 0 { buffer.copyMemory(from: buffer + lead, byteCount: count) }
        }
        if unalignedLead == 0, !isDirect, !isRefused {
            isDirect = Self.setDirect(true, on: descriptor)
            isRefused = !isDirect
        }
        var end = 0
        if isDirect {
            let aligned = count / Self.alignment * Self.alignment
            end = try Self.writeDirect(descriptor, buffer, count: aligned, path: path)
            // Refused, or cut short off the alignment: the page cache takes the rest below.
            if end < aligned { refuse(descriptor) }
        }
        if all || isRefused {
            if isDirect {  // the end: the tail is unaligned
                isDirect = false
                _ = Self.setDirect(false, on: descriptor)
            }
            try SystemFile.writeAll(descriptor, buffer + end, count: count - end, path: path)
            end = count
        }
        let rest = count - end
        if rest > 0 { buffer.copyMemory(from: buffer + end, byteCount: rest) }
        count = rest
        return lead + end
    }

    /// From now on, everything goes through the page cache.
    private mutating func refuse(_ descriptor: Int32) {
        if isDirect { _ = Self.setDirect(false, on: descriptor) }
        isDirect = false
        isRefused = true
    }

    private static func setDirect(_ on: Bool, on descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0 else { return false }
        return fcntl(descriptor, F_SETFL, on ? flags | directFlag : flags & ~directFlag) == 0
    }

    /// Writes aligned bytes with `O_DIRECT` set, until done or until the system refuses (`EINVAL`) or
    /// writes a piece off the alignment.
    /// - Returns: the bytes written.
    private static func writeDirect(_ descriptor: Int32, _ bytes: UnsafeRawPointer, count: Int, path: String)
        throws(LZ4IOError) -> Int
    {
        var written = 0
        while written < count {
            let result = SystemFile.write(descriptor, bytes + written, count: count - written)
            if result > 0 {
                written += result
                if result % alignment != 0 { break }
                continue
            }
            let code = errno
            if result == 0 || code == EINVAL { break }
            if code != EINTR { throw SystemFile.error(code, operation: "write", path: path) }
        }
        return written
    }
}
