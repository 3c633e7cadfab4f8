/// FNV-1a over bytes, finished with a 64-bit mix: a hash that is the same in every process.
///
/// Swift's `Hasher` is seeded per process, so anything persisted or published (event `_id`s,
/// geofence ids in state) must use this instead.
public struct StableHasher: Sendable {
    @usableFromInline var state: UInt64

    /// The plain FNV-1a hash of what was combined (no final mix), e.g. to name bytes in a dead letter.
    public var fnv1a: UInt64 { state }

    @inlinable
    public init(seed: UInt64 = 0xcbf2_9ce4_8422_2325) { state = seed }

    @inlinable
    public mutating func combine(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    @inlinable
    public mutating func combine(_ string: String) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes { combine(byte) }
        }
        if done == nil {
            for byte in string.utf8 { combine(byte) }
        }
        combine(UInt8(0xff))  // terminator: ("ab","c") and ("a","bc") must differ
    }

    @inlinable
    public mutating func combine(_ value: UInt64) {
        var v = value
        for _ in 0..<8 {
            combine(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
    }

    @inlinable
    public mutating func combine(_ value: Int64) { combine(UInt64(bitPattern: value)) }

    /// The hash, finished with splitmix64's mixer so nearby inputs spread over all bits.
    @inlinable
    public var value: UInt64 {
        var z = state &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
