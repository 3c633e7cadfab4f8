import KafkaIO
import Testing

@Suite("Consumer group", .serialized)
struct ConsumerGroupTests {
    @Test(.timeLimit(.minutes(5)))
    func twoMembersSplitPartitionsAndTheSurvivorTakesAll() throws {
        let cluster = try MockCluster(brokerCount: 3)
        try cluster.createTopic("fixes", partitions: 4)
        let all = (0..<4).map { TopicPartition(topic: "fixes", partition: $0) }
        let configuration = TestSupport.consumerConfiguration(cluster, group: "fold")

        let first = try KafkaConsumer(configuration: configuration)
        let second = try KafkaConsumer(configuration: configuration)
        try first.subscribe(["fixes"])
        try second.subscribe(["fixes"])

        var firstEvents: [RebalanceEvent] = []
        var secondEvents: [RebalanceEvent] = []
        func pollBoth() throws {
            _ = try first.poll(maxRecords: 10, timeout: .milliseconds(50))
            _ = try second.poll(maxRecords: 10, timeout: .milliseconds(50))
            firstEvents += first.takeRebalanceEvents()
            secondEvents += second.takeRebalanceEvents()
        }

        // Both members must end up with a non-empty, disjoint half of the partitions.
        let deadline = ContinuousClock.now + .seconds(60)
        var split = false
        while !split, ContinuousClock.now < deadline {
            try pollBoth()
            let a = try first.assignment()
            let b = try second.assignment()
            split = !a.isEmpty && !b.isEmpty && Set(a).isDisjoint(with: b) && (a + b).sorted() == all
        }
        #expect(split)
        #expect(try first.assignment().count == 2, "cooperative-sticky balances 4 partitions as 2 + 2")
        #expect(firstEvents.contains { if case .assigned = $0 { true } else { false } })
        #expect(secondEvents.contains { if case .assigned = $0 { true } else { false } })
        #expect(!firstEvents.contains { if case .failed = $0 { true } else { false } })

        // The events replay to the current assignment.
        #expect(Self.replay(firstEvents) == Set(try first.assignment()))

        let secondHad = try second.assignment()
        try second.close()
        secondEvents += second.takeRebalanceEvents()
        #expect(secondEvents.last == .revoked(secondHad), "closing revokes the member's partitions")
        #expect(try second.assignment().isEmpty)

        var firstHasAll = false
        while !firstHasAll, ContinuousClock.now < deadline {
            _ = try first.poll(maxRecords: 10, timeout: .milliseconds(100))
            firstEvents += first.takeRebalanceEvents()
            firstHasAll = try first.assignment() == all
        }
        #expect(firstHasAll)
        #expect(firstEvents.last == .assigned(secondHad), "cooperative: only the freed partitions are added")
        #expect(Self.replay(firstEvents) == Set(all))
        try first.close()
    }

    @Test(.timeLimit(.minutes(5)))
    func eagerProtocolAlsoWorks() throws {
        let cluster = try MockCluster(brokerCount: 1)
        try cluster.createTopic("fixes", partitions: 2)
        var configuration = TestSupport.consumerConfiguration(cluster, group: "eager")
        configuration["partition.assignment.strategy"] = "range"
        let consumer = try KafkaConsumer(configuration: configuration)
        try consumer.subscribe(["fixes"])
        let deadline = ContinuousClock.now + .seconds(60)
        var events: [RebalanceEvent] = []
        while try consumer.assignment().count < 2, ContinuousClock.now < deadline {
            _ = try consumer.poll(maxRecords: 10, timeout: .milliseconds(100))
            events += consumer.takeRebalanceEvents()
        }
        events += consumer.takeRebalanceEvents()
        #expect(
            events == [
                .assigned([TopicPartition(topic: "fixes", partition: 0), TopicPartition(topic: "fixes", partition: 1)])
            ])
        try consumer.close()
        #expect(consumer.takeRebalanceEvents().count == 1)
    }

    @Test(.timeLimit(.minutes(5)))
    func seekPauseResumeAndWatermarks() throws {
        let cluster = try MockCluster(brokerCount: 1)
        try cluster.createTopic("fixes", partitions: 1)
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        for index in 0..<10 { try producer.produce(topic: "fixes", partition: 0, key: nil, value: [UInt8(index)]) }
        try producer.flush(timeout: .seconds(10))

        let consumer = try KafkaConsumer(configuration: TestSupport.consumerConfiguration(cluster, group: "seek"))
        #expect(try consumer.partitionCount(topic: "fixes", timeout: .seconds(5)) == 1)
        #expect(try consumer.partitionCount(topic: "missing", timeout: .seconds(5)) == nil)
        let marks = try consumer.watermarks(topic: "fixes", partition: 0, timeout: .seconds(5))
        #expect(marks.low == 0 && marks.high == 10)

        try consumer.subscribe(["fixes"])
        let first = try TestSupport.pollUntil({ try consumer.poll(maxRecords: 100, timeout: .milliseconds(100)) }) {
            $0.count >= 10
        }
        #expect(first.map(\.offset) == Array(0..<10))
        let partition = TopicPartition(topic: "fixes", partition: 0)

        // Rewind, as the runtime does after an aborted transaction.
        try consumer.seek([TopicPartitionOffset(partition, offset: 4)])
        let replayed = try TestSupport.pollUntil({ try consumer.poll(maxRecords: 100, timeout: .milliseconds(100)) }) {
            $0.count >= 6
        }
        #expect(replayed.map(\.offset) == Array(4..<10))

        try consumer.pause([partition])
        try producer.produce(topic: "fixes", partition: 0, key: nil, value: [10])
        try producer.flush(timeout: .seconds(10))
        #expect(try consumer.poll(maxRecords: 100, timeout: .seconds(1)).isEmpty, "a paused partition yields nothing")
        try consumer.resume([partition])
        let resumed = try TestSupport.pollUntil({ try consumer.poll(maxRecords: 100, timeout: .milliseconds(100)) }) {
            !$0.isEmpty
        }
        #expect(resumed.map(\.offset) == [10])
        #expect(try consumer.positions([partition]) == [partition: 11])
        try consumer.close()
    }

    /// Applies assigned/revoked/lost events to an empty set, as the runtime would track ownership.
    static func replay(_ events: [RebalanceEvent]) -> Set<TopicPartition> {
        var owned: Set<TopicPartition> = []
        for event in events {
            switch event {
            case .assigned(let partitions): owned.formUnion(partitions)
            case .revoked(let partitions), .lost(let partitions): owned.subtract(partitions)
            case .failed: break
            }
        }
        return owned
    }
}
