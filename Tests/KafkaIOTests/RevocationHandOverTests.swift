import Foundation
import KafkaIO
import Testing

/// `releasesRevokedPartitions`: a partition revoked in an orderly rebalance stays with its member until it
/// releases it (after committing its work), and only then does the group give it to another.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct RevocationHandOverTests {
    @Test func aRevokedPartitionGoesToTheNewMemberOnlyOnceReleased() throws {
        let cluster = try MockCluster(brokerCount: 1)
        try cluster.createTopic("input", partitions: 2)
        let group = TestSupport.consumerConfiguration(cluster, group: "hand-over")
        let first = try KafkaConsumer(configuration: group, releasesRevokedPartitions: true)
        try first.subscribe(["input"])
        var events: [RebalanceEvent] = []
        let deadline = Date().addingTimeInterval(90)
        while try first.assignment().count < 2, Date() < deadline {
            _ = try first.poll(maxRecords: 10, timeout: .milliseconds(100))
            events += first.takeRebalanceEvents()
        }
        #expect(try first.assignment().count == 2, "the first member gets both partitions: \(events)")

        let second = try KafkaConsumer(configuration: group, releasesRevokedPartitions: true)
        try second.subscribe(["input"])
        var revoked: [TopicPartition] = []
        while revoked.isEmpty, Date() < deadline {
            _ = try first.poll(maxRecords: 10, timeout: .milliseconds(100))
            _ = try second.poll(maxRecords: 10, timeout: .milliseconds(100))
            for case let .revoked(partitions) in first.takeRebalanceEvents() { revoked += partitions }
        }
        #expect(revoked.count == 1, "one partition is to move")
        // Held: both members go on polling for a while, and the second is given nothing.
        let held = Date().addingTimeInterval(4)
        var early: [TopicPartition] = []
        while Date() < held {
            _ = try first.poll(maxRecords: 10, timeout: .milliseconds(100))
            _ = try second.poll(maxRecords: 10, timeout: .milliseconds(100))
            for case let .assigned(partitions) in second.takeRebalanceEvents() { early += partitions }
        }
        #expect(early.isEmpty, "the second member got the partition before it was released: \(early)")
        #expect(try first.assignment().count == 2, "still the first member's until released")

        try first.release(revoked)
        var assigned = early
        while assigned.isEmpty, Date() < deadline {
            _ = try first.poll(maxRecords: 10, timeout: .milliseconds(100))
            _ = try second.poll(maxRecords: 10, timeout: .milliseconds(100))
            for case let .assigned(partitions) in second.takeRebalanceEvents() { assigned += partitions }
        }
        #expect(assigned == revoked, "released, it goes to the second member")
        #expect(try first.assignment().count == 1)
        try first.close()
        try second.close()
    }
}
