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

    /// The address of `object`, nil if none, for a prefetch: from `Unmanaged`, without reading the
    /// object or retaining it (a retain would write the very line a prefetch loads, and wait for it).
    /// Take it in a statement of its own, before the prefetch: the reference is then used no
    /// further, and stays unretained; passed into the call that prefetches, it was retained across it.
    @inline(__always)
    static func address<Object: AnyObject>(of object: Object?) -> UnsafeRawPointer? {
        object.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) }
    }

    /// Starts loading the header of `array`'s storage, where its count is, and its first `elementBytes`
    /// bytes, without waiting for them: the count is not read (the array lends its elements' address
    /// without it, once it is unused). The header lies before the first element (the standard
    /// library's layout: 32 bytes, the count at 16); a wrong guess costs speed only, as a prefetch
    /// never faults. `inout` only to be reached in place: an array passed by value is retained.
    @inline(__always)
    static func read<Element>(storageOf array: inout [Element], elementBytes: Int, maxLines: Int) {
        array.withUnsafeBufferPointer { elements in
            guard let first = elements.baseAddress else { return }
            read(UnsafeRawPointer(first) - headerCountOffset, bytes: headerCountOffset + elementBytes, maxLines: maxLines)
        }
    }

    /// Starts loading `array`'s elements from index `from` on (at most `maxLines` lines), without
    /// waiting for them. Reads the count: ask once the header is cached (`read(storageOf:…)`), or this
    /// waits for it. `inout` only to be reached in place: an array passed by value is retained.
    @inline(__always)
    static func read<Element>(elementsOf array: inout [Element], from: Int, maxLines: Int) {
        array.withUnsafeBufferPointer { elements in
            guard from < elements.count, let first = elements.baseAddress else { return }
            read(UnsafeRawPointer(first + from), bytes: (elements.count - from) * MemoryLayout<Element>.stride,
                 maxLines: maxLines)
        }
    }

    /// How far before an array's first element its count lies.
    private static let headerCountOffset = 16

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
