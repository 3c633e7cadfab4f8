import KafkaIO
import Runtime

/// librdkafka's mock cluster with every TripStream topic created (the mock cannot create topics through
/// the admin API): what `tripstream dev-broker` and `demo` serve, and what `tripstream-bench --pipeline`
/// measures on.
public enum DevBrokerCluster {
    public static func start(brokerCount: Int, partitions: Int32, topics: Topics) throws -> MockCluster {
        try start(brokerCount: brokerCount, topics: topicSpecs(partitions: partitions, brokerCount: brokerCount, topics: topics))
    }

    public static func start(brokerCount: Int, topics: [TopicSpec]) throws -> MockCluster {
        let cluster = try MockCluster(brokerCount: max(brokerCount, 1))
        for topic in topics {
            try cluster.createTopic(topic.name, partitions: topic.partitions, replicationFactor: topic.replicationFactor)
        }
        return cluster
    }

    /// Every TripStream topic with `partitions` partitions, the geofences' at most 3.
    public static func topicSpecs(partitions: Int32, brokerCount: Int, topics: Topics) -> [TopicSpec] {
        topics.all.map { topic in
            TopicSpec(name: topic, partitions: topic == topics.geofences ? min(partitions, 3) : partitions,
                      replicationFactor: Int16(min(brokerCount, 3)))
        }
    }
}
