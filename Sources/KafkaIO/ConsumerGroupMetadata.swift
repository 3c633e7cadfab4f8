import CRdKafka

/// A consumer's group identity (group id, generation, member id), needed to commit input offsets inside a
/// producer's transaction with ``KafkaProducer/sendOffsetsToTransaction(_:groupMetadata:timeout:)``.
///
/// Take a fresh one right before sending offsets: the generation changes with every rebalance, and a stale one makes
/// the broker reject the commit (which is the point — it fences zombie members).
public final class ConsumerGroupMetadata {
    /// The `rd_kafka_consumer_group_metadata_t *`, destroyed in `deinit`.
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        rd_kafka_consumer_group_metadata_destroy(pointer)
    }
}
