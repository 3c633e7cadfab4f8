import BrokerSimulation
import Codec
import Domain
import Foundation
import Runtime
import Testing

/// In `run`: couriers pass store g1, then store g2; the g1 part of each ride was offline and arrives
/// after the service published the g2 entry and exit. g1's visits are added; g2's events are never
/// published again (neither retracted nor under a new `_id`).
@Suite(.serialized) struct RunEventIdentityTests {
    static let base: UnixMillis = 1_780_300_800_000  // 2026-06-01T08:00:00Z, after the harness's fleet
    /// Far from the simulated city: nobody else passes here.
    static let road = Coordinate(latitude: 40.5, longitude: -8.0)

    static func point(north meters: Double) -> Coordinate {
        Coordinate(latitude: road.latitude + meters / 111_195, longitude: road.longitude)
    }

    static func geofence(_ id: String, north: Double) -> (key: [UInt8], value: [UInt8]) {
        let center = point(north: north)
        let json = #"{"tag":"store","externalId":"\#(id)","description":"\#(id)","type":"circle","coordinates":[\#(center.longitude),\#(center.latitude)],"radius":150,"enabled":true}"#
        return (Array("store/\(id)".utf8), Array(json.utf8))
    }

    static func fix(_ user: String, at seconds: Int64, north: Double, replayed: Bool = false) -> [UInt8] {
        let at = point(north: north)
        let json = #"{"userId":"\#(user)","createdAt":"\#(RFC3339.string(base + seconds * 1000))","latitude":\#(at.latitude),"longitude":\#(at.longitude),"accuracy":10\#(replayed ? #","replayed":true"# : "")}"#
        return Array(json.utf8)
    }

    @Test func aLateBufferLeavesAnotherGeofencesEventsAlone() throws {
        let harness = try FakeBrokerHarness(users: 1, minutes: 1, commands: false)
        let broker = harness.broker, topics = harness.topics
        for (id, north) in [("g1", 0.0), ("g2", 3_000.0)] {
            let record = Self.geofence(id, north: north)
            try broker.append(topic: topics.geofences, key: record.key, value: record.value)
        }
        let couriers = (0..<10).map { "courier-\($0)" }
        func publish(_ user: String, _ value: [UInt8]) throws {
            try broker.append(topic: topics.locations, partition: KafkaRuntimeHarness.partition(of: user),
                              key: Array(user.utf8), value: value)
        }
        for user in couriers {
            for (seconds, north) in [(0, -2_000.0), (400, 1_500), (600, 3_000), (660, 3_010), (720, 3_020), (900, 4_500)]
                as [(Int64, Double)]
            {
                try publish(user, Self.fix(user, at: seconds, north: north))
            }
        }
        let runtime = harness.start(instance: "a")
        func events(at externalId: String) throws -> [Event] {
            try harness.committedEvents().filter { $0.geofence?.externalId == externalId }
        }
        #expect(harness.wait { (try? events(at: "g2").count) == 20 }, "each courier's g2 entry and exit")
        for user in couriers {
            for (seconds, north) in [(120, 0.0), (180, 10), (240, 20)] as [(Int64, Double)] {
                try publish(user, Self.fix(user, at: seconds, north: north, replayed: true))
            }
        }
        #expect(harness.wait { (try? events(at: "g1").count) == 20 }, "each courier's g1 entry and exit, placed late")
        // Whatever else the buffers republish is committed with the g1 events or before the next fold round.
        Thread.sleep(forTimeInterval: 1)
        #expect(runtime.halt())
        #expect(runtime.failure == nil, "\(String(describing: runtime.failure))")
        let g1 = try events(at: "g1"), g2 = try events(at: "g2")
        #expect(g2.count == 20 && Set(g2.map(\.id)).count == 20, "g2's events were published once: \(g2.count)")
        #expect(g2.allSatisfy { $0.revision == .original && !$0.replayed })
        #expect(g1.count == 20 && g1.allSatisfy { $0.revision == .original && $0.replayed })
        #expect(try harness.committedEvents().allSatisfy { $0.revision != .retracted })
    }
}
