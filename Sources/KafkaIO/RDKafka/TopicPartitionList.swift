import CRdKafka

/// Owns an `rd_kafka_topic_partition_list_t` and destroys it in `deinit`.
///
/// - Important: The raw list is only reachable inside ``withPointer(_:)``, which keeps this object alive for the
///   call; Swift may otherwise release a temporary right after its last use, before C is done with the pointer.
final class TopicPartitionList {
    private let pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>

    /// Takes ownership of a list librdkafka allocated for us (e.g. from `rd_kafka_assignment`).
    init(owning pointer: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) {
        self.pointer = pointer
    }

    /// A list of partitions; offsets are left at librdkafka's default (`RD_KAFKA_OFFSET_INVALID`).
    convenience init(_ partitions: [TopicPartition]) {
        self.init(owning: rd_kafka_topic_partition_list_new(Int32(clamping: partitions.count)))
        for partition in partitions {
            rd_kafka_topic_partition_list_add(pointer, partition.topic, partition.partition)
        }
    }

    /// A list of partitions with offsets.
    convenience init(_ offsets: [TopicPartitionOffset]) {
        self.init(owning: rd_kafka_topic_partition_list_new(Int32(clamping: offsets.count)))
        for entry in offsets {
            rd_kafka_topic_partition_list_add(pointer, entry.topic, entry.partition).pointee.offset = entry.offset
        }
    }

    deinit {
        rd_kafka_topic_partition_list_destroy(pointer)
    }

    /// Runs `body` with the raw list; the pointer must not escape it.
    func withPointer<R>(_ body: (UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) -> R) -> R {
        withExtendedLifetime(self) { body(pointer) }
    }

    /// The entries without offsets.
    var partitions: [TopicPartition] { withPointer { Self.partitions(of: $0) } }

    /// The entries with offsets.
    var offsets: [TopicPartitionOffset] { withPointer { Self.offsets(of: $0) } }

    /// The first per-partition error, e.g. after `rd_kafka_seek_partitions` or `rd_kafka_pause_partitions`.
    var firstError: KafkaError? {
        for index in 0..<Int(pointer.pointee.cnt) {
            let element = pointer.pointee.elems[index]
            if element.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                let name = String(cString: element.topic)
                return KafkaError(
                    element.err, "\(name)[\(element.partition)]: \(String(cString: rd_kafka_err2str(element.err)))")
            }
        }
        return nil
    }

    /// Reads a list this code does not own (e.g. the one passed to the rebalance callback).
    static func offsets(of list: UnsafePointer<rd_kafka_topic_partition_list_t>?) -> [TopicPartitionOffset] {
        forEach(list) {
            TopicPartitionOffset(topic: String(cString: $0.topic), partition: $0.partition, offset: $0.offset)
        }
    }

    /// Reads the partitions (without offsets) of a list this code does not own.
    static func partitions(of list: UnsafePointer<rd_kafka_topic_partition_list_t>?) -> [TopicPartition] {
        forEach(list) { TopicPartition(topic: String(cString: $0.topic), partition: $0.partition) }
    }

    private static func forEach<T>(
        _ list: UnsafePointer<rd_kafka_topic_partition_list_t>?,
        _ body: (rd_kafka_topic_partition_t) -> T
    ) -> [T] {
        guard let list, list.pointee.cnt > 0 else { return [] }
        return (0..<Int(list.pointee.cnt)).map { body(list.pointee.elems[$0]) }
    }
}
