/// A deterministic event `_id`: 96 bits, printed as 24 lowercase hex digits (the shape of Radar's ids).
///
/// Derived from what the event is about (user, type, visit or trip ordinal, fix time), never from
/// a clock or counter of the process, so a replay, a refold or a repeat after a crash gives the
/// same id and consumers can upsert by it.
public struct EventID: Hashable, Sendable, Comparable {
    public var high: UInt64
    public var low: UInt32

    public init(high: UInt64, low: UInt32) {
        self.high = high
        self.low = low
    }

    public init(hashing hasher: StableHasher) {
        high = hasher.value
        var second = hasher
        second.combine(UInt8(0x5a))
        low = UInt32(truncatingIfNeeded: second.value)
    }

    public static func < (lhs: EventID, rhs: EventID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    /// The 24 hex digits.
    public var hexString: String {
        var out = [UInt8](repeating: 0, count: 24)
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        for i in 0..<16 { out[i] = digits[Int((high >> (60 - 4 * UInt64(i))) & 0xf)] }
        for i in 0..<8 { out[16 + i] = digits[Int((low >> (28 - 4 * UInt32(i))) & 0xf)] }
        return String(decoding: out, as: UTF8.self)
    }
}
