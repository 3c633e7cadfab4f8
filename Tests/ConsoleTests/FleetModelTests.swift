import Codec
import Testing

@testable import Console

@Suite struct FleetModelTests {
    @Test func userStatesPlaceDriversAndTheirTrips() {
        var model = FleetModel()
        Fixtures.apply(&model, Fixtures.topics.users, key: "u1",
                       Fixtures.userState("u1", lon: -8.61, lat: 41.14, fix: "2026-05-12T14:30:05.000Z", trip: "t1"))
        Fixtures.apply(&model, Fixtures.topics.users, key: "u2",
                       Fixtures.userState("u2", lon: -8.62, lat: 41.15, fix: "2026-05-12T14:31:00.500Z"))
        #expect(model.drivers.count == 2)
        #expect(model.drivers["u1"]?.activeTrip == "t1")
        #expect(model.drivers["u2"]?.activeTrip == nil)
        #expect(model.streamTime == 1_778_596_260_500)  // 2026-05-12T14:31:00.500Z
        let trip = model.trips[TripKey(user: "u1", trip: "t1")]
        #expect(trip?.etaMinutes == 7.5)
        #expect(trip?.etaLowMinutes == 6 && trip?.etaHighMinutes == 10)
        #expect(trip?.destinationExternalId == "store-1")
        #expect(trip?.track.count == 1)
        #expect(model.recordsApplied == 2 && model.recordsRejected == 0)
    }

    @Test func aTombstoneRemovesTheDriver() {
        var model = FleetModel()
        Fixtures.apply(&model, Fixtures.topics.users, key: "u1",
                       Fixtures.userState("u1", lon: 1, lat: 2, fix: "2026-05-12T14:30:05.000Z"))
        _ = model.takeChanges()
        Fixtures.apply(&model, Fixtures.topics.users, key: "u1", nil)
        #expect(model.drivers.isEmpty)
        #expect(model.takeChanges().removedDrivers == ["u1"])
    }

    @Test func theTrackGrowsWhileTheTripIsActiveOnly() {
        var model = FleetModel()
        let key = TripKey(user: "u1", trip: "t1")
        for (second, lon) in [(1, 1.0), (2, 1.001), (3, 1.001), (4, 1.002)] {
            Fixtures.apply(&model, Fixtures.topics.users, key: "u1",
                           Fixtures.userState("u1", lon: lon, lat: 2, fix: "2026-05-12T14:30:0\(second).000Z", trip: "t1"))
        }
        #expect(model.trips[key]?.track.map(\.longitude) == [1.0, 1.001, 1.002])  // a repeated position adds nothing
        Fixtures.apply(&model, Fixtures.topics.users, key: "u1",
                       Fixtures.userState("u1", lon: 1.003, lat: 2, fix: "2026-05-12T14:30:05.000Z", trip: "t1",
                                          status: "completed"), at: 5000)
        Fixtures.apply(&model, Fixtures.topics.users, key: "u1",
                       Fixtures.userState("u1", lon: 1.009, lat: 2, fix: "2026-05-12T14:30:09.000Z"), at: 9000)
        #expect(model.trips[key]?.track.count == 3)
        #expect(model.trips[key]?.endedAt == 5000)
        #expect(model.drivers["u1"]?.activeTrip == nil)
    }

    @Test func anEndedTripIsNotRevivedByAnOlderRecordOfAnotherTopic() {
        var model = FleetModel()
        let key = TripKey(user: "u1", trip: "t1")
        Fixtures.apply(&model, Fixtures.topics.tripSummaries, key: "u1", Fixtures.summary("u1", trip: "t1"), at: 7000)
        Fixtures.apply(&model, Fixtures.topics.events, key: "u1",
                       Fixtures.event("u1", type: "user.updated_trip", trip: "t1"), at: 6000)
        #expect(model.trips[key]?.status == "completed")
        #expect(model.trips[key]?.endedAt == 7000)
        #expect(model.trips[key]?.arrivedAt != nil)
    }

    @Test func geofencesAreDrawnAndDeleted() {
        var model = FleetModel()
        Fixtures.apply(&model, Fixtures.topics.geofences, key: "store/store-1", Fixtures.circle)
        Fixtures.apply(&model, Fixtures.topics.geofences, key: "zone/z", Fixtures.polygon)
        #expect(model.geofences["store/store-1"]?.shape == .circle(longitude: -8.6, latitude: 41.15, radius: 80))
        #expect(model.geofences["zone/z"]?.shape == .polygon([[[-8.6, 41.1], [-8.5, 41.1], [-8.5, 41.2]]]))
        _ = model.takeChanges()
        Fixtures.apply(&model, Fixtures.topics.geofences, key: "zone/z", nil)
        #expect(model.geofences.count == 1)
        #expect(model.takeChanges().removedGeofences == ["zone/z"])
    }

    @Test func eventsFillABoundedFeedAndDeltasCarryTheNewOnes() {
        var model = FleetModel()
        for index in 0..<(FleetModel.feedLength * 2) {
            Fixtures.apply(&model, Fixtures.topics.events, key: "u1", Fixtures.event("u1", type: "user.entered_geofence"))
            if index == 9 { #expect(model.takeChanges().events.count == 10) }
        }
        #expect(model.feed.count <= FleetModel.feedLength + FleetModel.feedLength / 4)
        #expect(model.feed.last?.sequence == Int64(FleetModel.feedLength * 2))
        let changes = model.takeChanges()
        #expect(changes.events.map(\.sequence) == model.feed.map(\.sequence))  // all of it is newer than 10
        #expect(changes.events.last?.sequence == Int64(FleetModel.feedLength * 2))
        // The page's events/s counts every event read, also those the bounded feed dropped before a tick.
        #expect(changes.eventCount == FleetModel.feedLength * 2 - 10)
        #expect(changes.events.count < changes.eventCount)
        #expect(model.takeChanges().events.isEmpty)
    }

    @Test func undecodableRecordsAreCountedAndSkipped() {
        var model = FleetModel()
        for value in ["not json", "[]", "{\"userId\":5}", "{\"type\":\"user.entered_geofence\"}"] {
            Fixtures.apply(&model, Fixtures.topics.users, key: "u", Array(value.utf8))
            Fixtures.apply(&model, Fixtures.topics.events, key: "u", Array(value.utf8))
            Fixtures.apply(&model, Fixtures.topics.geofences, key: "g", Array(value.utf8))
        }
        Fixtures.apply(&model, Fixtures.topics.users, key: "u",
                       Fixtures.userState("u", lon: 500, lat: 2, fix: "2026-05-12T14:30:05.000Z"))  // off the globe
        #expect(model.recordsRejected == 12)
        #expect(model.drivers.isEmpty && model.feed.isEmpty && model.geofences.isEmpty)
    }

    /// Times in records are read as Codec reads every timestamp of the service's inputs.
    @Test func timestamps() {
        func time(_ text: String) -> Int64? { JSONValue.object(["t": .string(text)]).time("t") }
        #expect(time("1970-01-01T00:00:00Z") == 0)
        #expect(time("2026-05-12T14:30:01.234Z") == 1_778_596_201_234)
        #expect(time("2026-05-12T14:30:01.2Z") == 1_778_596_201_200)
        #expect(time("2026-05-12T14:30:01.23456Z") == 1_778_596_201_234)
        #expect(time("2026-05-12 14:30:01Z") == nil)
        #expect(time("2026-13-12T14:30:01Z") == nil)
        #expect(time("2026-05-12T14:30:01.Z") == nil)
        #expect(time("2026-05-12T15:30:01.234+01:00") == 1_778_596_201_234)
        #expect(time("2026-05-12T13:00:01.234-01:30") == 1_778_596_201_234)
        #expect(time("2026-05-12T14:30:01+1:00") == nil)
        #expect(time("2026-05-12T14:30:01+25:00") == nil)
        #expect(JSONValue.object(["t": .number(5)]).time("t") == nil)
    }

    /// Records no TripStream writes, each on every topic: counted as rejected, nothing drawn, nothing thrown.
    static let malformed: [String] = [
        // (An empty value is no mistake: a tombstone.)
        " ", "null", "7", "\"text\"", "[]", "{", "{\"userId\":\"u\"", "{\"userId\":\"u\"}x", "{} {}",
        "{\"userId\":\"u\",}", "[1,]", "\u{feff}{\"userId\":\"u\"}",  // trailing comma, BOM: Foundation let them by
        "{\"userId\":\"u\",\"speed\":1e400}", "{\"userId\":\"u\",\"speed\":NaN}", "{'userId':'u'}",
        "{\"userId\":\"a\u{01}b\"}", "{\"userId\":\"\\ud800\"}", "{\"type\":\"user.entered_geofence\",\"user\":5}",
        String(repeating: "[", count: 5_000), String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000),
        "{\"tag\":\"t\",\"externalId\":\"e\",\"type\":\"polygon\",\"coordinates\":[[1,1],[2,2]]}",
        "{\"tag\":\"t\",\"externalId\":\"e\",\"type\":\"circle\",\"coordinates\":[1,1],\"radius\":-5}",
        "{\"tag\":\"t\",\"externalId\":\"e\",\"type\":\"circle\",\"coordinates\":[999,1],\"radius\":5}",
        "{\"tag\":\"t\",\"externalId\":\"e\",\"type\":\"hexagon\",\"coordinates\":[1,1]}",
        "{\"userId\":\"\",\"externalId\":\"t\",\"status\":\"started\"}",
    ]

    @Test func malformedRecordsAreCountedAndChangeNothing() {
        var model = FleetModel()
        let topics = Fixtures.topics
        let all = [topics.users, topics.events, topics.eta, topics.tripSummaries, topics.geofences]
        var sent = Self.malformed.map { Array($0.utf8) }
        sent.append([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])  // {"<not UTF-8>":1}
        for value in sent {
            for topic in all { Fixtures.apply(&model, topic, key: "u", value) }
        }
        #expect(model.recordsRejected == sent.count * all.count)
        #expect(model.recordsApplied == 0)
        #expect(model.drivers.isEmpty && model.trips.isEmpty && model.feed.isEmpty && model.geofences.isEmpty)
        #expect(model.takeChanges().isEmpty)
    }

    /// Valid records with bytes flipped, cut and repeated, seeded: every one is applied or counted, none crashes.
    @Test func mutatedRecordsNeverCrashTheModel() {
        let topics = Fixtures.topics
        let seeds: [(String, [UInt8])] = [
            (topics.users, Fixtures.userState("u1", lon: -8.61, lat: 41.14, fix: "2026-05-12T14:30:05.000Z", trip: "t1")),
            (topics.events, Fixtures.event("u1", type: "user.entered_geofence", trip: "t1")),
            (topics.tripSummaries, Fixtures.summary("u1", trip: "t1")),
            (topics.geofences, Fixtures.circle), (topics.geofences, Fixtures.polygon),
        ]
        var model = FleetModel()
        var random = SeededRandom(seed: 42)
        let rounds = 4_000
        for round in 0..<rounds {
            let (topic, original) = seeds[round % seeds.count]
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 4 {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: bytes.removeSubrange(at...)
                case 2: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 16)], at: at)
                default: bytes.remove(at: at)
                }
                if bytes.isEmpty { bytes = [0x7b] }
            }
            Fixtures.apply(&model, topic, key: round % 2 == 0 ? "u1" : nil, bytes)
        }
        #expect(model.recordsApplied + model.recordsRejected == rounds)
        #expect(model.recordsRejected > rounds / 2)  // most mutations break the JSON
    }
}

/// SplitMix64: the tests' reproducible random numbers.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
