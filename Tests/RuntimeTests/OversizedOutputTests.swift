import Codec
import Domain
import Foundation
import KafkaIO
import Runtime
import Testing

/// Poison pills: an output the broker would refuse as too large must not abort every transaction
/// forever. It is published as a dead letter (with its first bytes) and everything else goes on.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct OversizedOutputTests {
    @Test func anEventOverTheSizeLimitBecomesADeadLetterAndTransactionsGoOn() throws {
        let harness = try KafkaRuntimeHarness(users: 2, geofences: 1, minutes: 1)
        let topics = harness.topics
        let producer = try KafkaProducer(configuration: harness.cluster.clientConfiguration)
        let center = Coordinate(latitude: 41.148, longitude: -8.611)
        // A geofence whose metadata alone is 300 KB: every event naming it is over the 200 KB limit.
        let huge = RawJSON("{\"notes\":\"" + String(repeating: "x", count: 300_000) + "\"}")
        let fence = Geofence(tag: "store", externalId: "big", description: "big", shape: .circle(center: center, radius: 200),
                             metadata: huge)
        let small = Geofence(tag: "store", externalId: "small", description: "small",
                             shape: .circle(center: Coordinate(latitude: 41.16, longitude: -8.611), radius: 200))
        for geofence in [fence, small] {
            var value: [UInt8] = []
            InputRecordEncoder.encode(geofence, into: &value)
            try producer.produce(topic: topics.geofences, key: Array("store/\(geofence.externalId)".utf8), value: value)
        }
        let now = WallClock.now() - 60_000
        var published = 0
        for (index, position) in [center, center, Coordinate(latitude: 41.16, longitude: -8.611)].enumerated() {
            var value: [UInt8] = []
            InputRecordEncoder.encode(Fix(userId: "u1", createdAt: now + UnixMillis(index * index) * 30_000, position: position,
                                          accuracy: 5), into: &value)
            try producer.produce(topic: topics.locations, partition: KafkaRuntimeHarness.partition(of: "u1"),
                                 key: Array("u1".utf8), value: value)
            published += 1
        }
        #expect(try producer.flush(timeout: .seconds(30)).allDelivered)

        let runtime = harness.start(instance: "a") { $0.kafka["message.max.bytes"] = "200000" }
        #expect(harness.waitUntilConsumed([runtime], atLeast: published), "inputs not consumed")
        #expect(runtime.halt())
        #expect(runtime.failure == nil)
        let values = runtime.metrics.snapshot
        #expect(values.transactionsAborted == 0, "the oversized event must not abort the transaction")
        #expect(values.transactionsCommitted > 0)
        #expect(values.processor.deadLetters[.outputTooLarge, default: 0] >= 1)

        let events = try harness.readEvents()
        #expect(!events.contains { $0.geofence?.externalId == "big" }, "no oversized event was published")
        #expect(events.contains { $0.type == .enteredGeofence && $0.geofence?.externalId == "small" },
                "the other events were published")
    }

    @Test func aDeadLetterKeepsAPrefixTheOriginalSizeAndAHash() throws {
        let original = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let letter = DeadLetter(reason: .recordTooLarge, detail: "too big", topic: "t", partition: 0, offset: 7, key: nil,
                                value: original, receivedAt: 0).capped()
        #expect(letter.value?.count == DeadLetter.maximumValueBytes)
        #expect(letter.originalValueSize == 1_000_000)
        var encoded: [UInt8] = []
        DeadLetterEncoder.encode(letter, into: &encoded)
        #expect(encoded.count < 20_000)
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains("\"valueTruncated\":true,\"valueSize\":1000000,\"valueHash\":\"fnv1a64:"))
        let whole = DeadLetter(reason: .recordTooLarge, detail: "", topic: "t", partition: 0, offset: 7, key: nil,
                               value: Array("{}".utf8), receivedAt: 0).capped()
        #expect(whole.value == Array("{}".utf8) && whole.originalValueSize == nil)
    }
}
