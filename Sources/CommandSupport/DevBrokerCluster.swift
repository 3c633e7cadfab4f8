import KafkaIO
import Runtime

/// librdkafka's mock cluster with every TripStream topic created (the mock cannot create topics through
/// the admin API): what `tripstream dev-broker` and `demo` serve, and what `tripstream-bench --pipeline`
/// measures on.
public enum DevBrokerCluster {
    public static func start(brokerCount: Int, partitions: Int32, topics: Topics) throws -> MockCluster {
        let cluster = try MockCluster(brokerCount: max(brokerCount, 1))
        for topic in topics.all {
            try cluster.createTopic(topic, partitions: topic == topics.geofences ? min(partitions, 3) : partitions,
                                    replicationFactor: Int16(min(brokerCount, 3)))
        }
        return cluster
    }
}
