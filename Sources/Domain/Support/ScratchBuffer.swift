/// Uninitialized scratch memory for a few values of trivial type: on the stack up to `stackBytes`,
/// on the heap beyond.
///
/// Why not `withUnsafeTemporaryAllocation(capacity: count)` directly: with a capacity the compiler
/// cannot bound, the standard library compiles in a heap fallback that calls the closure out of
/// line under its typed-throws convention, and Swift 6.3.1 miscompiled such a closure in the
/// release build (it ended in a tail call to `memmove` without restoring the error register; the
/// caller then saw a thrown `Never` and trapped, or under `-Ounchecked` smashed the stack, on a fix
/// in more than 32 geofences). Here the stack capacity is a constant, so that fallback is never
/// compiled, and the heap case is plain code.
enum ScratchBuffer {
    /// The most `withUnsafeTemporaryAllocation` places on the stack without asking the system.
    static let stackBytes = 1024

    /// Calls `body` with room for `count` values of `T` (uninitialized; `T` must be trivial, as
    /// nothing is deinitialized).
    @inline(__always)
    static func with<T, Result>(
        _ type: T.Type, count: Int, _ body: (UnsafeMutableBufferPointer<T>) -> Result
    ) -> Result {
        let stackCapacity = stackBytes / MemoryLayout<T>.stride
        if count <= stackCapacity {
            return withUnsafeTemporaryAllocation(of: T.self, capacity: stackCapacity) { stack in
                body(UnsafeMutableBufferPointer(rebasing: stack[0..<max(count, 0)]))
            }
        }
        let heap = UnsafeMutableBufferPointer<T>.allocate(capacity: count)
        defer { heap.deallocate() }
        return body(heap)
    }
}
