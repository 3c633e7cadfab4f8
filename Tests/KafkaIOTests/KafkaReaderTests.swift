import KafkaIO
import Testing

@Suite("Reader", .serialized)
struct KafkaReaderTests {
    @Test(.timeLimit(.minutes(5)))
    func readsEveryPartitionFromTheBeginningUpToTheHighWatermarkThenFollows() throws {
        let cluster = try MockCluster(brokerCount: 3)
        try cluster.createTopic("geofences", partitions: 3)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        for index in 0..<60 {
            try producer.produce(
                topic: "geofences", partition: Int32(index % 3), key: TestSupport.bytes("fence-\(index % 7)"),
                value: TestSupport.bytes("\(index)"))
        }
        try producer.flush(timeout: .seconds(10))

        let reader = try KafkaReader(
            configuration: cluster.clientConfiguration.merging(
                KafkaConfiguration(properties: [("group.id", "must-not-join")])))
        let partitions = (0..<3).map { TopicPartition(topic: "geofences", partition: $0) }
        #expect(try reader.partitionCount(topic: "geofences", timeout: .seconds(5)) == 3)
        var high: [TopicPartition: Int64] = [:]
        for partition in partitions {
            high[partition] = try reader.watermarks(
                topic: "geofences", partition: partition.partition, timeout: .seconds(5)
            ).high
        }
        #expect(high.values.allSatisfy { $0 == 20 })

        try reader.assign(partitions.map { ($0, .beginning) })
        #expect(try reader.assignment() == partitions)
        // Caught up when every position has reached its high watermark (robust to transaction markers).
        var records: [ConsumedRecord] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            records += try reader.poll(maxRecords: 1000, timeout: .milliseconds(100))
            let positions = try reader.positions(partitions)
            if partitions.allSatisfy({ (positions[$0] ?? -1) >= high[$0]! }) { break }
        }
        #expect(records.count == 60)
        for partition in partitions {
            #expect(records.filter { $0.partition == partition.partition }.map(\.offset) == Array(0..<20))
        }

        // It keeps following live writes.
        try producer.produce(topic: "geofences", partition: 1, key: nil, value: TestSupport.bytes("live"))
        try producer.flush(timeout: .seconds(10))
        let live = try TestSupport.pollUntil({ try reader.poll(maxRecords: 10, timeout: .milliseconds(100)) }) {
            !$0.isEmpty
        }
        #expect(live.map { TestSupport.text($0.value) } == ["live"])
        #expect(live.first?.offset == 20)

        // No group was joined and nothing was committed under the reader's group id.
        let probe = try KafkaConsumer(configuration: TestSupport.consumerConfiguration(cluster, group: "must-not-join"))
        #expect(try probe.committed(partitions, timeout: .seconds(5)).isEmpty)
        try probe.close()
        try reader.close()
    }

    @Test(.timeLimit(.minutes(5)))
    func restoresOnePartitionFromAnOffsetAndReportsItsEnd() throws {
        let cluster = try MockCluster(brokerCount: 1)
        try cluster.createTopic("changelog", partitions: 2)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        for index in 0..<15 {
            try producer.produce(topic: "changelog", partition: 1, key: nil, value: TestSupport.bytes("\(index)"))
        }
        try producer.flush(timeout: .seconds(10))

        let reader = try KafkaReader(configuration: cluster.clientConfiguration, enablePartitionEOF: true)
        let partition = TopicPartition(topic: "changelog", partition: 1)
        try reader.assign([(partition, .offset(10))])
        var records: [ConsumedRecord] = []
        var ends: [TopicPartitionOffset] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while ends.isEmpty, ContinuousClock.now < deadline {
            records += try reader.poll(maxRecords: 100, timeout: .milliseconds(100))
            ends += reader.takeEndOfPartitions()
        }
        #expect(records.map(\.offset) == Array(10..<15))
        #expect(ends == [TopicPartitionOffset(partition, offset: 15)])

        try reader.remove([partition])
        #expect(try reader.assignment().isEmpty)
    }

    @Test(.timeLimit(.minutes(5)))
    func endOffsetsAreTheBrokersCurrentEnds() throws {
        let cluster = try MockCluster(brokerCount: 2)
        try cluster.createTopic("inputs", partitions: 3)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        for index in 0..<7 {
            try producer.produce(topic: "inputs", partition: 1, key: nil, value: TestSupport.bytes("\(index)"))
        }
        try producer.produce(topic: "inputs", partition: 2, key: nil, value: TestSupport.bytes("x"))
        try producer.flush(timeout: .seconds(10))

        let probe = try KafkaReader(configuration: cluster.clientConfiguration)
        let partitions = (0..<3).map { TopicPartition(topic: "inputs", partition: Int32($0)) }
        #expect(try probe.endOffsets(partitions, timeout: .seconds(10)) == [
            partitions[0]: 0, partitions[1]: 7, partitions[2]: 1,
        ])
        try producer.produce(topic: "inputs", partition: 0, key: nil, value: TestSupport.bytes("y"))
        try producer.flush(timeout: .seconds(10))
        #expect(try probe.endOffsets([partitions[0]], timeout: .seconds(10)) == [partitions[0]: 1])
        try probe.close()
    }

    /// offsetsForTimes by timestamp on librdkafka's mock cluster. The mock of librdkafka 2.0 (Debian 12) does not
    /// index timestamps: it answers -1 for any timestamp, so `offsets(at:)` has no offset for the partition, while
    /// the end (timestamp -1) is right. `tripstream replay --since` therefore falls back on a search of record
    /// timestamps when the broker gives no offset; when this test fails, the mock learnt timestamps.
    @Test(.timeLimit(.minutes(5)))
    func mockClusterGivesNoOffsetForATimestamp() throws {
        let cluster = try MockCluster(brokerCount: 1)
        try cluster.createTopic("inputs", partitions: 1)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        for index in 0..<6 {  // timestamps 1000, 2000, … 6000
            try producer.produce(topic: "inputs", partition: 0, key: nil, value: TestSupport.bytes("\(index)"),
                                 timestamp: Int64(index + 1) * 1000)
        }
        try producer.flush(timeout: .seconds(10))

        let probe = try KafkaReader(configuration: cluster.clientConfiguration)
        let partition = TopicPartition(topic: "inputs", partition: 0)
        #expect(try probe.offsets(at: 3000, of: [partition], timeout: .seconds(10)) == [:])
        #expect(try probe.offsets(at: 0, of: [partition], timeout: .seconds(10)) == [:])
        #expect(try probe.endOffsets([partition], timeout: .seconds(10)) == [partition: 6])
        try probe.close()
    }
}
