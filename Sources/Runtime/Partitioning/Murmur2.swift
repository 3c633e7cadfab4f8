/// Kafka's 32-bit murmur2 (seed 0x9747b28c), as Java's `Utils.murmur2` and librdkafka's
/// `rd_murmur2` compute it: the hash behind the default partitioner of keyed records.
///
/// Pure and allocation-free; own code rather than a C call, so the partition of a key is known
/// without a Kafka client (file replays).
public enum Murmur2 {
    /// The hash of `bytes`, as Java's signed `int`.
    public static func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int32 {
        let m: UInt32 = 0x5bd1_e995
        let length = bytes.count
        var h: UInt32 = 0x9747_b28c ^ UInt32(truncatingIfNeeded: length)
        var iterator = bytes.makeIterator()
        // Four bytes at a time, little-endian.
        for _ in 0..<(length / 4) {
            var k = UInt32(iterator.next()!)
            k |= UInt32(iterator.next()!) << 8
            k |= UInt32(iterator.next()!) << 16
            k |= UInt32(iterator.next()!) << 24
            k &*= m
            k ^= k >> 24
            k &*= m
            h &*= m
            h ^= k
        }
        // The 1 to 3 bytes left, as Java's fall-through switch takes them.
        let tail = length % 4
        if tail > 0 {
            var rest: UInt32 = 0
            for shift in 0..<tail { rest |= UInt32(iterator.next()!) << (8 * UInt32(shift)) }
            h ^= rest
            h &*= m
        }
        h ^= h >> 13
        h &*= m
        h ^= h >> 15
        return Int32(bitPattern: h)
    }
}
