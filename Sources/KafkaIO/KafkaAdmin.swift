import CRdKafka

/// Topic administration: create topics, read partition counts.
///
/// Against a real cluster it uses the CreateTopics admin API. librdkafka 2.0.2's mock cluster does not implement
/// CreateTopics (the request is never answered and fails with `timedOut`), so an admin made with
/// ``init(mockCluster:)`` creates topics through the mock's own API instead (topic configs are then accepted but
/// ignored).
public final class KafkaAdmin {
    /// A producer-type instance: admin requests and metadata need no more.
    private let client: RDKafkaClient
    private let mockCluster: MockCluster?

    /// Creates an admin client for a real cluster (or anything reached via `bootstrap.servers`).
    public init(configuration: KafkaConfiguration) throws(KafkaError) {
        client = try RDKafkaClient(type: RD_KAFKA_PRODUCER, configuration: configuration)
        mockCluster = nil
    }

    /// Creates an admin client for an in-process mock cluster.
    public init(mockCluster: MockCluster, configuration: KafkaConfiguration = KafkaConfiguration()) throws(KafkaError) {
        client = try RDKafkaClient(
            type: RD_KAFKA_PRODUCER, configuration: configuration.merging(mockCluster.clientConfiguration))
        self.mockCluster = mockCluster
    }

    /// Creates topics; a topic that already exists counts as success (its partition count is not checked — compare
    /// with ``partitionCounts(_:timeout:)`` if it matters).
    ///
    /// - Returns: The names of the topics this call created (the others already existed).
    /// - Throws: ``KafkaError`` for the first topic that failed otherwise.
    @discardableResult
    public func createTopics(_ topics: [TopicSpec], timeout: Duration) throws(KafkaError) -> [String] {
        guard !topics.isEmpty else { return [] }
        if let mockCluster {
            var created: [String] = []
            for topic in topics {
                do {
                    try mockCluster.createTopic(
                        topic.name, partitions: topic.partitions, replicationFactor: topic.replicationFactor)
                    created.append(topic.name)
                } catch  where error.code == .topicAlreadyExists {
                    continue
                }
            }
            return created
        }
        return try createWithAdminAPI(topics, timeout: timeout)
    }

    private func createWithAdminAPI(_ topics: [TopicSpec], timeout: Duration) throws(KafkaError) -> [String] {
        var errstr = [CChar](repeating: 0, count: 512)
        var newTopics: [OpaquePointer?] = []
        defer { for newTopic in newTopics { rd_kafka_NewTopic_destroy(newTopic) } }
        for topic in topics {
            guard
                let newTopic = rd_kafka_NewTopic_new(
                    topic.name, topic.partitions, Int32(topic.replicationFactor), &errstr, errstr.count)
            else {
                throw KafkaError(
                    code: .invalidArgument, message: "topic \(topic.name): \(RDKafkaClient.string(errstr))")
            }
            newTopics.append(newTopic)
            for (key, value) in topic.config.sorted(by: { $0.key < $1.key }) {
                try KafkaError.check(rd_kafka_NewTopic_set_config(newTopic, key, value))
            }
        }

        let options = rd_kafka_AdminOptions_new(client.handle, RD_KAFKA_ADMIN_OP_CREATETOPICS)
        defer { rd_kafka_AdminOptions_destroy(options) }
        let millis = timeout.kafkaMilliseconds
        _ = rd_kafka_AdminOptions_set_request_timeout(options, millis, &errstr, errstr.count)
        _ = rd_kafka_AdminOptions_set_operation_timeout(options, millis, &errstr, errstr.count)

        // A private queue: the result event comes back on it, and nothing else does.
        let queue = rd_kafka_queue_new(client.handle)
        defer { rd_kafka_queue_destroy(queue) }
        newTopics.withUnsafeMutableBufferPointer {
            rd_kafka_CreateTopics(client.handle, $0.baseAddress, $0.count, options, queue)
        }
        // librdkafka enforces the request timeout itself; the margin only guards against a lost event.
        guard let event = rd_kafka_queue_poll(queue, millis &+ 5_000) else {
            throw KafkaError(code: .timedOut, message: "CreateTopics: no result after \(timeout)")
        }
        defer { rd_kafka_event_destroy(event) }
        try KafkaError.check(rd_kafka_event_error(event))

        var created: [String] = []
        var count = 0
        let result = rd_kafka_event_CreateTopics_result(event)
        guard let results = rd_kafka_CreateTopics_result_topics(result, &count) else { return [] }
        for index in 0..<count {
            let topicResult = results[index]
            let name = String(cString: rd_kafka_topic_result_name(topicResult))
            let err = rd_kafka_topic_result_error(topicResult)
            if err == RD_KAFKA_RESP_ERR_NO_ERROR {
                created.append(name)
            } else if err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS {
                let message = rd_kafka_topic_result_error_string(topicResult).map { String(cString: $0) } ?? ""
                throw KafkaError(err, "topic \(name): \(message)")
            }
        }
        return created
    }

    /// Partition counts of the `topics` that exist; missing topics are absent. Never auto-creates topics.
    public func partitionCounts(_ topics: [String], timeout: Duration) throws(KafkaError) -> [String: Int] {
        try client.partitionCounts(topics: topics, timeout: timeout)
    }
}
