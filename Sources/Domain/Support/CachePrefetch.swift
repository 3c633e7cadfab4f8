/// LLVM's prefetch intrinsic: asks the core to bring a cache line in without waiting for it. A hint
/// only (it changes no value and never faults), used where the fold knows the next inputs' addresses
/// before it needs them, so that their cache misses overlap instead of following one another.
@_extern(c, "llvm.prefetch.p0")
private func llvmPrefetch(_ address: UnsafeRawPointer, _ write: Int32, _ locality: Int32, _ dataCache: Int32)

public enum CachePrefetch {
    static let lineBytes = 64

    /// Starts loading the cache line of `address` for reading, kept in every cache level.
    @inline(__always)
    static func read(_ address: UnsafeRawPointer) { llvmPrefetch(address, 0, 3, 1) }

    /// Starts loading the first `bytes` (at most `maxLines` lines) of the object whose reference is
    /// stored at `field`, if any. The reference is read as bits, not retained: a retain would write
    /// the very line being loaded, and wait for it. A class reference, an optional one (nil is zero)
    /// and an array (a reference to its storage, whose header holds the count) are each one pointer;
    /// a wrong guess of a layout costs speed only.
    @inline(__always)
    static func readReferenced(at field: UnsafeRawPointer, bytes: Int, maxLines: Int) {
        guard let object = referenced(at: field) else { return }
        read(object, bytes: bytes, maxLines: maxLines)
    }

    /// The address of the object whose reference is stored at `field`, nil if none: the reference
    /// read as bits, not retained (see `readReferenced`).
    @inline(__always)
    static func referenced(at field: UnsafeRawPointer) -> UnsafeRawPointer? {
        field.load(as: UnsafeRawPointer?.self)
    }

    /// Starts loading the lines of `bytes` bytes from `address`, at most `maxLines` of them.
    @inline(__always)
    public static func read(_ address: UnsafeRawPointer, bytes: Int, maxLines: Int) {
        var line = 0, offset = 0
        while offset < bytes, line < maxLines {
            read(address + offset)
            offset &+= lineBytes
            line &+= 1
        }
    }
}
