import KafkaIO
import Testing

@Suite("Fault injection", .serialized)
struct FaultInjectionTests {
    @Test(.timeLimit(.minutes(5)))
    func idempotentProducerRetriesProduceErrorsWithoutDuplicatesOrReordering() throws {
        let cluster = try MockCluster(brokerCount: 3)
        try cluster.createTopic("events", partitions: 1, replicationFactor: 3)
        let producer = try KafkaProducer(
            configuration: cluster.clientConfiguration.merging(
                KafkaConfiguration(properties: [("linger.ms", "1"), ("batch.num.messages", "10")])))

        // Retriable errors on the next several Produce requests, including a dropped connection.
        cluster.pushRequestErrors(
            apiKey: .produce,
            errors: [
                .notLeaderForPartition, .requestTimedOut, .notEnoughReplicas, .transport,
                .notEnoughReplicasAfterAppend, .leaderNotAvailable,
            ])

        let count = 200
        for index in 0..<count {
            try producer.produce(topic: "events", partition: 0, key: nil, value: TestSupport.bytes("\(index)"))
        }
        let report = try producer.flush(timeout: .seconds(30))
        #expect(report == DeliveryReport(delivered: count, failed: 0))

        let reader = try KafkaReader(configuration: cluster.clientConfiguration)
        #expect(
            try reader.watermarks(topic: "events", partition: 0, timeout: .seconds(5)).high == Int64(count),
            "exactly one copy of each record was appended")
        try reader.assign([(TopicPartition(topic: "events", partition: 0), .beginning)])
        let records = try TestSupport.pollUntil({ try reader.poll(maxRecords: 1000, timeout: .milliseconds(100)) }) {
            $0.count >= count
        }
        #expect(records.map { TestSupport.text($0.value) } == (0..<count).map { "\($0)" })
        #expect(records.map(\.offset) == (0..<Int64(count)).map { $0 })
    }

    @Test(.timeLimit(.minutes(5)))
    func recordsProducedWhileTheBrokerIsDownAreDeliveredWhenItReturns() throws {
        let cluster = try MockCluster(brokerCount: 1)
        try cluster.createTopic("events", partitions: 1)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        try producer.produce(topic: "events", partition: 0, key: nil, value: TestSupport.bytes("before"))
        #expect(try producer.flush(timeout: .seconds(10)).delivered == 1)

        try cluster.setBrokerDown(1)
        for index in 0..<5 {
            try producer.produce(topic: "events", partition: 0, key: nil, value: TestSupport.bytes("during-\(index)"))
        }
        #expect(throws: KafkaError.self, "nothing can be delivered during the outage") {
            try producer.flush(timeout: .seconds(2))
        }
        #expect(producer.inFlightCount == 5)

        try cluster.setBrokerUp(1)
        let report = try producer.flush(timeout: .seconds(60))
        #expect(report == DeliveryReport(delivered: 5, failed: 0))

        let reader = try KafkaReader(configuration: cluster.clientConfiguration)
        try reader.assign([(TopicPartition(topic: "events", partition: 0), .beginning)])
        let records = try TestSupport.pollUntil({ try reader.poll(maxRecords: 100, timeout: .milliseconds(100)) }) {
            $0.count >= 6
        }
        #expect(records.map { TestSupport.text($0.value) } == ["before"] + (0..<5).map { "during-\($0)" })
    }

    /// A leader that moved, or a broker between restarts, answers a ListOffsets with an error the client should
    /// retry; librdkafka's watermark and offsets-for-times queries hand it back instead. Under chaos `run` died at
    /// startup on one (NOT_LEADER_FOR_PARTITION while reading where a topic ends): the queries retry until their
    /// timeout.
    @Test(.timeLimit(.minutes(5)))
    func endQueriesRetryWhatALeaderMoveAnswers() throws {
        let cluster = try MockCluster(brokerCount: 3)
        try cluster.createTopic("changelog", partitions: 2)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        for index in 0..<7 {
            try producer.produce(topic: "changelog", partition: 1, key: nil, value: TestSupport.bytes("\(index)"))
        }
        #expect(try producer.flush(timeout: .seconds(10)).delivered == 7)
        let reader = try KafkaReader(configuration: cluster.clientConfiguration)
        let partition = TopicPartition(topic: "changelog", partition: 1)

        let transient: [KafkaError.Code] = [.notLeaderForPartition, .leaderNotAvailable, .requestTimedOut]
        cluster.pushRequestErrors(apiKey: .listOffsets, errors: transient)
        #expect(try reader.watermarks(topic: "changelog", partition: 1, timeout: .seconds(10)).high == 7)
        cluster.pushRequestErrors(apiKey: .listOffsets, errors: transient)
        #expect(try reader.endOffsets([partition], timeout: .seconds(10)) == [partition: 7])

        try cluster.setPartitionLeader(topic: "changelog", partition: 1, brokerId: 2)
        #expect(try reader.watermarks(topic: "changelog", partition: 1, timeout: .seconds(10)).high == 7)

        // What is not the broker failing is said at once, not retried until the timeout (were it retried, the next
        // ListOffsets would answer). A watermark query is two ListOffsets, one per end: both are refused.
        cluster.pushRequestErrors(apiKey: .listOffsets, errors: [.topicAuthorizationFailed, .topicAuthorizationFailed])
        let refusal = #expect(throws: KafkaError.self) {
            try reader.watermarks(topic: "changelog", partition: 1, timeout: .seconds(10))
        }
        #expect(refusal?.code == .topicAuthorizationFailed)
        try reader.close()
    }
}
