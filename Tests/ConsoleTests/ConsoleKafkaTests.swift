import Codec
import KafkaIO
import Synchronization
import Testing

@testable import Console

/// The feed and the playback reader against librdkafka's mock cluster.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ConsoleKafkaTests {
    func cluster(_ topics: [(String, Int32)]) throws -> MockCluster {
        let cluster = try MockCluster(brokerCount: 1)
        for (name, partitions) in topics { try cluster.createTopic(name, partitions: partitions) }
        return cluster
    }

    @Test func theFeedReadsTheOutputTopicsIntoTheStore() throws {
        let topics = ConsoleTopics()
        let cluster = try cluster([(topics.users, 2), (topics.events, 2), (topics.eta, 1), (topics.tripSummaries, 1),
                                   (topics.geofences, 1)])
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        for user in ["u1", "u2"] {
            try producer.produce(topic: topics.users, key: Array(user.utf8),
                                 value: Fixtures.userState(user, lon: 1, lat: 2, fix: "2026-05-12T14:30:05.000Z", trip: "t-\(user)"))
        }
        try producer.produce(topic: topics.geofences, key: Array("store/store-1".utf8), value: Fixtures.circle)
        try producer.produce(topic: topics.events, key: Array("u1".utf8), value: Fixtures.event("u1", type: "user.entered_geofence"))
        try producer.produce(topic: topics.tripSummaries, key: Array("u2".utf8), value: Fixtures.summary("u2", trip: "t-u2"))
        try producer.produce(topic: topics.users, key: Array("u3".utf8), value: Array("not json".utf8))
        _ = try producer.flush(timeout: .seconds(10))

        let store = FleetStore(topics: topics)
        let feed = try ConsoleFeed(kafka: cluster.clientConfiguration, store: store, log: { _ in })
        let deadline = ContinuousClock.now + .seconds(60)
        try feed.run(shouldStop: {
            ContinuousClock.now > deadline
                || store.read { $0.drivers.count == 2 && $0.geofences.count == 1 && $0.feed.count == 1 && $0.recordsRejected == 1
                    && $0.trips[TripKey(user: "u2", trip: "t-u2")]?.status == "completed" }
        })
        store.read { model in
            #expect(Set(model.drivers.keys) == ["u1", "u2"])
            #expect(model.geofences.keys.first == "store/store-1")
            #expect(model.feed.first?.type == "user.entered_geofence")
            #expect(model.recordsRejected == 1)
            #expect(model.trips[TripKey(user: "u2", trip: "t-u2")]?.endedAt != nil)
            #expect(model.trips[TripKey(user: "u1", trip: "t-u1")]?.isActive == true)
        }
    }

    @Test func playbackReadsOneUsersFixesOfTheWindow() throws {
        let cluster = try cluster([("tripstream.locations", 3)])
        let producer = try KafkaProducer(configuration: cluster.clientConfiguration)
        let base: Int64 = 1_800_000_000_000
        for index in 0..<60 {
            for user in ["u1", "u2"] {
                let fix = "{\"userId\":\"\(user)\",\"createdAt\":\"2027-01-15T08:00:\(String(format2: index))Z\","
                    + "\"latitude\":41.1,\"longitude\":\(user == "u1" ? -8.6 : -8.7),\"speed\":3}"
                try producer.produce(topic: "tripstream.locations", key: Array(user.utf8), value: Array(fix.utf8),
                                     timestamp: base + Int64(index) * 1000)
            }
        }
        _ = try producer.flush(timeout: .seconds(10))
        let reader = PlaybackReader(kafka: cluster.clientConfiguration, topic: "tripstream.locations")
        let (points, truncated) = try reader.read(user: "u1", from: base + 10_000, to: base + 20_000)
        #expect(!truncated)
        #expect(points.count == 10)  // records 10...19 of u1, none of u2
        #expect(points.allSatisfy { $0.longitude == -8.6 && $0.speed == 3 })
        #expect(points.map(\.time).sorted().first == JSONValue.object(["t": .string("2027-01-15T08:00:10Z")]).time("t"))
        #expect(try reader.read(user: "u3", from: base, to: base + 60_000).points.isEmpty)
        #expect(try PlaybackReader(kafka: cluster.clientConfiguration, topic: "missing").read(user: "u1", from: 0, to: 1).points.isEmpty)
    }
}

extension String {
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
}
