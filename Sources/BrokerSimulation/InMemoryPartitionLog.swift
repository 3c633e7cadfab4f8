import KafkaIO

/// One partition's append-only log, as a broker stores it: data records and transaction markers,
/// each at its own offset. Whether a transactional record is visible is not the log's business
/// (it asks the transaction's outcome, see ``InMemoryBroker/State/isVisible(_:)``).
package struct InMemoryPartitionLog {
    package enum Entry {
        /// `transaction` is the serial of the transaction that wrote it, nil when written outside one.
        case record(key: [UInt8]?, value: [UInt8]?, timestamp: Int64, transaction: Int?)
        /// A commit or abort marker (Kafka's control record): takes an offset, never delivered.
        case marker(transaction: Int)
    }

    private(set) var entries: [Entry] = []

    /// The offset the next entry will get (Kafka's log end offset, the high watermark on one replica).
    package var endOffset: Int64 { Int64(entries.count) }

    /// - Returns: the entry's offset.
    @discardableResult
    package mutating func append(_ entry: Entry) -> Int64 {
        entries.append(entry)
        return Int64(entries.count - 1)
    }

    package func entry(at offset: Int64) -> Entry { entries[Int(offset)] }
}

/// Chooses a partition from a key as librdkafka's `consistent` partitioner does: CRC-32 (IEEE) of
/// the key bytes modulo the partition count; a null key hashes as empty, so it lands on partition 0.
/// For non-null keys this is also what librdkafka's default (`consistent_random`) picks.
package enum CRC32KeyPartitioner {
    package static func partition(forKey key: [UInt8]?, partitionCount: Int) -> Int32 {
        Int32(crc32(key ?? []) % UInt32(partitionCount))
    }

    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
