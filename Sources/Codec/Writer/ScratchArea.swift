/// A heap byte area owned by a class, so a `JSONWriter` value that outlives a scope keeps it alive
/// and it is freed exactly once.
final class ScratchArea {
    let pointer: UnsafeMutablePointer<UInt8>

    init(capacity: Int) { pointer = .allocate(capacity: capacity) }

    deinit { pointer.deallocate() }
}
