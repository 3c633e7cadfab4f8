#if canImport(Glibc)
import Glibc
#endif

/// The process's resident memory, for the standard `process_resident_memory_bytes`: what the
/// sizing guide's memory per user is checked against in production.
enum ProcessMemory {
    /// Resident bytes from `/proc/self/statm` (its second field, in pages); nil where there is none.
    static func residentBytes() -> Int? {
        let descriptor = open("/proc/self/statm", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }
}
