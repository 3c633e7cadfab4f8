import KafkaIO
import Testing

@Suite("Producer and consumer", .serialized)
struct ProducerConsumerTests {
    @Test(.timeLimit(.minutes(5)))
    func roundTripKeysValuesTombstonesAndHeaders() throws {
        let cluster = try MockCluster(brokerCount: 3)
        try cluster.createTopic("trips", partitions: 2)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)

        let headers = [KafkaHeader(key: "source-offset", value: [0, 0, 0, 42]), KafkaHeader(key: "null", value: nil)]
        try producer.produce(topic: "trips", partition: 0, key: TestSupport.bytes("k1"), value: TestSupport.bytes("v1"))
        try producer.produce(topic: "trips", partition: 0, key: TestSupport.bytes("k1"), value: nil)
        try producer.produce(topic: "trips", partition: 0, key: nil, value: [], headers: headers)
        try producer.produce(topic: "trips", partition: 1, key: TestSupport.bytes("k2"), value: TestSupport.bytes("v2"))
        let report = try producer.flush(timeout: .seconds(10))
        #expect(report == DeliveryReport(delivered: 4, failed: 0))
        #expect(try producer.flush(timeout: .seconds(1)) == DeliveryReport(), "counts reset after each flush")

        let consumer = try KafkaConsumer(configuration: TestSupport.consumerConfiguration(cluster, group: "round-trip"))
        try consumer.subscribe(["trips"])
        let records = try TestSupport.pollUntil({ try consumer.poll(maxRecords: 100, timeout: .milliseconds(100)) }) {
            $0.count >= 4
        }
        try consumer.close()

        #expect(records.count == 4)
        let partition0 = records.filter { $0.partition == 0 }.sorted { $0.offset < $1.offset }
        #expect(partition0.map(\.offset) == [0, 1, 2])
        #expect(partition0.map(\.topic) == ["trips", "trips", "trips"])
        #expect(TestSupport.text(partition0[0].key) == "k1")
        #expect(TestSupport.text(partition0[0].value) == "v1")
        #expect(partition0[0].headers.isEmpty)
        #expect(partition0[1].value == nil, "a nil value is a tombstone")
        #expect(TestSupport.text(partition0[1].key) == "k1")
        #expect(partition0[2].key == nil)
        #expect(partition0[2].value == [], "an empty value is not a tombstone")
        #expect(partition0[2].headers == headers)
        #expect(partition0.allSatisfy { $0.timestamp > 1_600_000_000_000 })
        let partition1 = records.filter { $0.partition == 1 }
        #expect(partition1.map { TestSupport.text($0.value) } == ["v2"])
    }

    @Test(.timeLimit(.minutes(5)))
    func keyedRecordsStayOnOnePartition() throws {
        let cluster = try MockCluster(brokerCount: 1)
        try cluster.createTopic("fixes", partitions: 4)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        for index in 0..<20 {
            try producer.produce(
                topic: "fixes", key: TestSupport.bytes("device-7"), value: TestSupport.bytes("\(index)"))
        }
        #expect(try producer.flush(timeout: .seconds(10)).delivered == 20)

        let reader = try KafkaReader(configuration: cluster.clientConfiguration)
        try reader.assign((0..<4).map { (TopicPartition(topic: "fixes", partition: $0), .beginning) })
        let records = try TestSupport.pollUntil({ try reader.poll(maxRecords: 100, timeout: .milliseconds(100)) }) {
            $0.count >= 20
        }
        #expect(Set(records.map(\.partition)).count == 1, "the partitioner keeps one key on one partition")
        #expect(records.map { TestSupport.text($0.value) } == (0..<20).map { "\($0)" })
    }

    @Test(.timeLimit(.minutes(5)))
    func transactionsCommitAndAbort() throws {
        let cluster = try MockCluster(brokerCount: 3)
        try cluster.createTopic("input", partitions: 1)
        try cluster.createTopic("output", partitions: 1)

        let plain = try KafkaProducer(configuration: cluster.clientConfiguration)
        try plain.produce(topic: "input", partition: 0, key: nil, value: TestSupport.bytes("fix"))
        try plain.flush(timeout: .seconds(10))

        let consumer = try KafkaConsumer(configuration: TestSupport.consumerConfiguration(cluster, group: "txn"))
        try consumer.subscribe(["input"])
        let input = try TestSupport.pollUntil({ try consumer.poll(maxRecords: 10, timeout: .milliseconds(100)) }) {
            !$0.isEmpty
        }
        #expect(input.count == 1)

        let producer = try KafkaProducer(configuration: cluster.clientConfiguration, transactionalId: "tripstream-0")
        try producer.initTransactions(timeout: .seconds(10))

        // Producing outside a transaction is refused by librdkafka itself.
        #expect(throws: KafkaError.self) {
            try producer.produce(topic: "output", partition: 0, key: nil, value: TestSupport.bytes("early"))
        }

        try producer.beginTransaction()
        for index in 0..<3 {
            try producer.produce(topic: "output", partition: 0, key: nil, value: TestSupport.bytes("event-\(index)"))
        }
        #expect(try producer.flush(timeout: .seconds(10)) == DeliveryReport(delivered: 3))
        try producer.sendOffsetsToTransaction(
            [TopicPartitionOffset(topic: "input", partition: 0, offset: input[0].offset + 1)],
            consumer: consumer, timeout: .seconds(10))
        try producer.commitTransaction(timeout: .seconds(10))

        // The abort path: the calls succeed and a new transaction can follow (the mock keeps aborted records).
        try producer.beginTransaction()
        try producer.produce(topic: "output", partition: 0, key: nil, value: TestSupport.bytes("doomed"))
        try producer.abortTransaction(timeout: .seconds(10))
        try producer.beginTransaction()
        try producer.produce(topic: "output", partition: 0, key: nil, value: TestSupport.bytes("after-abort"))
        try producer.commitTransaction(timeout: .seconds(10))
        #expect(producer.fatalError == nil)
        try consumer.close()

        let reader = try KafkaReader(configuration: cluster.clientConfiguration)
        try reader.assign([(TopicPartition(topic: "output", partition: 0), .beginning)])
        let output = try TestSupport.pollUntil({ try reader.poll(maxRecords: 10, timeout: .milliseconds(100)) }) {
            $0.contains { TestSupport.text($0.value) == "after-abort" }
        }
        let values = output.compactMap { TestSupport.text($0.value) }
        #expect(Array(values.prefix(3)) == ["event-0", "event-1", "event-2"])
        #expect(values.last == "after-abort")
    }

    @Test(.timeLimit(.minutes(5)))
    func commitAndCommittedOffsets() throws {
        let cluster = try MockCluster(brokerCount: 1)
        try cluster.createTopic("input", partitions: 2)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        for index in 0..<10 {
            try producer.produce(topic: "input", partition: Int32(index % 2), key: nil, value: [UInt8(index)])
        }
        try producer.flush(timeout: .seconds(10))

        let group = TestSupport.consumerConfiguration(cluster, group: "commits")
        let partitions = [TopicPartition(topic: "input", partition: 0), TopicPartition(topic: "input", partition: 1)]
        do {
            let consumer = try KafkaConsumer(configuration: group)
            try consumer.subscribe(["input"])
            _ = try TestSupport.pollUntil({ try consumer.poll(maxRecords: 100, timeout: .milliseconds(100)) }) {
                $0.count >= 10
            }
            #expect(try consumer.committed(partitions, timeout: .seconds(5)).isEmpty, "nothing is auto-committed")
            try consumer.commit([TopicPartitionOffset(topic: "input", partition: 0, offset: 3)])
            #expect(try consumer.committed(partitions, timeout: .seconds(5)) == [partitions[0]: 3])
            try consumer.close()
        }
        // A new member of the group resumes from the committed offset, and from the beginning where none is.
        let consumer = try KafkaConsumer(configuration: group)
        try consumer.subscribe(["input"])
        // A rejoin on the mock can take long on a loaded machine: wait for both partitions' records.
        let records = try TestSupport.pollUntil(timeout: .seconds(90), {
            try consumer.poll(maxRecords: 100, timeout: .milliseconds(100))
        }) { $0.count >= 7 && Set($0.map(\.partition)) == [0, 1] }
        #expect(records.filter { $0.partition == 0 }.map(\.offset).min() == 3)
        #expect(records.filter { $0.partition == 1 }.map(\.offset).min() == 0)
        try consumer.close()
    }
}
