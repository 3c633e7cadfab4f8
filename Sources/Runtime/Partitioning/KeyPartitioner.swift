/// The partition of a keyed record as Kafka's default partitioner picks it (Java's
/// `DefaultPartitioner` / `BuiltInPartitioner`, librdkafka's `murmur2_random`):
/// `(murmur2(key) & 0x7fffffff) % partitions`.
///
/// `tripstream replay` splits users with it, so each replay partition holds the users one
/// partition of the service's topics would hold when producers use that partitioner.
public struct KeyPartitioner: Sendable {
    public let partitions: Int

    public init(partitions: Int) {
        precondition(partitions > 0, "a topic has at least one partition")
        self.partitions = partitions
    }

    public func partition<Key: Collection<UInt8>>(of key: Key) -> Int {
        Int(UInt32(bitPattern: Murmur2.hash(key)) & 0x7fff_ffff) % partitions
    }

    /// Hashes the string's own UTF-8 storage when it has one: stepping a `String.UTF8View`'s iterator
    /// costs more than the hash (about 1% of a replay, which partitions every line).
    public func partition(ofUser userId: String) -> Int {
        userId.utf8.withContiguousStorageIfAvailable { partition(of: $0) } ?? partition(of: userId.utf8)
    }
}
