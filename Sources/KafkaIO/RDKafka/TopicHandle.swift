import CRdKafka

/// Owns an `rd_kafka_topic_t` (a producer's per-topic handle) and destroys it in `deinit`.
///
/// Producing through a cached handle skips librdkafka's per-call topic lookup by name. The strong reference to the
/// client guarantees the handle is destroyed before its `rd_kafka_t`.
final class TopicHandle {
    let client: RDKafkaClient
    let pointer: OpaquePointer

    init(client: RDKafkaClient, name: String) throws(KafkaError) {
        guard let pointer = rd_kafka_topic_new(client.handle, name, nil) else {
            throw KafkaError(rd_kafka_last_error(), "topic \(name)")
        }
        self.client = client
        self.pointer = pointer
    }

    deinit {
        rd_kafka_topic_destroy(pointer)
    }
}
