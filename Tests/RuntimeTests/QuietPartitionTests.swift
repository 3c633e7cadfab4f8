import Codec
import Domain
import Foundation
import KafkaIO
import Runtime
import Testing

/// Timers fire on a quiet partition: a user inside a geofence gets their dwell event even when
/// no further input arrives on their partition, once the partition has been idle long enough.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct QuietPartitionTests {
    @Test func aDwellFiresWithoutAnotherInputOnceThePartitionIsIdle() throws {
        let harness = try KafkaRuntimeHarness(users: 1, geofences: 1, minutes: 1)
        let producer = try KafkaProducer(configuration: harness.cluster.clientConfiguration)
        let center = Coordinate(latitude: 41.148, longitude: -8.611)
        let fence = Geofence(tag: "store", externalId: "g1", shape: .circle(center: center, radius: 150), dwellThreshold: 2)
        var value: [UInt8] = []
        InputRecordEncoder.encode(fence, into: &value)
        try producer.produce(topic: harness.topics.geofences, key: Array("store/g1".utf8), value: value)
        // Entered 10 minutes ago (event time), nothing since: the 2-minute dwell is long due.
        let entered = WallClock.now() - 600_000
        value.removeAll()
        InputRecordEncoder.encode(Fix(userId: "u1", createdAt: entered, position: center, accuracy: 5), into: &value)
        try producer.produce(topic: harness.topics.locations, partition: KafkaRuntimeHarness.partition(of: "u1"),
                             key: Array("u1".utf8), value: value)
        #expect(try producer.flush(timeout: .seconds(30)).allDelivered)

        let runtime = harness.start(instance: "a") { $0.idleAdvance = 1_000 }
        #expect(harness.waitUntilConsumed([runtime], atLeast: 1))
        let dwelled = harness.wait(timeout: 60) {
            runtime.metrics.snapshot.fold.eventsByType[Int(EventType.dwelledInGeofence.rawValue)] > 0
        }
        #expect(runtime.halt())
        #expect(runtime.failure == nil)
        #expect(dwelled, "the dwell timer fired on the idle partition")
        let dwell = try harness.readEvents().first { $0.type == .dwelledInGeofence }
        #expect(dwell?.createdAt == entered + 120_000, "at its due time in event time")
    }
}
