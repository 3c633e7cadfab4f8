import KafkaIO
import Testing

@Suite("Admin", .serialized)
struct KafkaAdminTests {
    @Test(.timeLimit(.minutes(5)))
    func createsTopicsIdempotentlyAndReportsPartitionCounts() throws {
        let cluster = try MockCluster(brokerCount: 3)
        let admin = try KafkaAdmin(mockCluster: cluster)
        let specs = [
            TopicSpec(name: "fixes", partitions: 6, replicationFactor: 3),
            TopicSpec(name: "geofences", partitions: 1, config: ["cleanup.policy": "compact"]),
        ]
        #expect(try admin.createTopics(specs, timeout: .seconds(10)) == ["fixes", "geofences"])
        #expect(try admin.createTopics(specs, timeout: .seconds(10)) == [], "existing topics count as success")

        let counts = try admin.partitionCounts(["fixes", "geofences", "missing"], timeout: .seconds(10))
        #expect(counts == ["fixes": 6, "geofences": 1])
        #expect(try admin.partitionCounts(["missing"], timeout: .seconds(5)).isEmpty, "looking does not create")
    }

    @Test(.timeLimit(.minutes(5)))
    func theMockDoesNotImplementCreateTopicsOverTheWire() throws {
        // Documents a quirk the runtime must know: against a mock (e.g. `tripstream dev-broker` in another process),
        // the CreateTopics admin request is never answered and times out; topics must come from the mock itself
        // (MockCluster.createTopic) or from auto-creation.
        let cluster = try MockCluster(brokerCount: 1)
        let admin = try KafkaAdmin(configuration: cluster.clientConfiguration)
        #expect {
            try admin.createTopics([TopicSpec(name: "fixes", partitions: 2)], timeout: .seconds(2))
        } throws: { ($0 as? KafkaError)?.code == .timedOut }
        #expect(try admin.partitionCounts(["fixes"], timeout: .seconds(5)).isEmpty)
    }
}
