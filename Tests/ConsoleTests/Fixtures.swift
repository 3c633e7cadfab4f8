@testable import Console

/// Output-topic records as TripStream writes them, for the read model and route tests.
enum Fixtures {
    static let topics = ConsoleTopics()

    static func userState(_ user: String, lon: Double, lat: Double, fix: String, trip: String? = nil,
                          status: String = "started", delayed: Bool = false) -> [UInt8]
    {
        var json = "{\"userId\":\"\(user)\",\"updatedAt\":\"2026-05-12T14:30:01.234Z\",\"lastFixAt\":\"\(fix)\","
            + "\"location\":{\"type\":\"Point\",\"coordinates\":[\(lon),\(lat)]},\"speed\":4.5"
        if let trip {
            json += ",\"trip\":{\"externalId\":\"\(trip)\",\"status\":\"\(status)\",\"mode\":\"car\","
                + "\"destinationGeofenceTag\":\"store\",\"destinationGeofenceExternalId\":\"store-1\","
                + "\"startedAt\":\"2026-05-12T14:00:00.000Z\",\"eta\":{\"duration\":7.5,\"distance\":2100,"
                + "\"durationLow\":6,\"durationHigh\":10},"
                + "\"delay\":{\"delayed\":\(delayed),\"scheduledArrivalTimeDelay\":\(delayed ? 4 : 0)}}"
        }
        return Array((json + ",\"geofences\":[]}").utf8)
    }

    static func event(_ user: String, type: String, trip: String? = nil, id: String = "0123456789abcdef00000001")
        -> [UInt8]
    {
        var json = "{\"_id\":\"\(id)\",\"type\":\"\(type)\",\"createdAt\":\"2026-05-12T14:30:01.000Z\","
            + "\"actualCreatedAt\":\"2026-05-12T14:30:01.234Z\",\"live\":true,"
            + "\"location\":{\"type\":\"Point\",\"coordinates\":[-8.61,41.14]},\"user\":{\"userId\":\"\(user)\"}"
        if let trip { json += ",\"trip\":{\"externalId\":\"\(trip)\",\"status\":\"started\"}" }
        return Array((json + "}").utf8)
    }

    static let circle = Array(
        "{\"tag\":\"store\",\"externalId\":\"store-1\",\"description\":\"Store 1\",\"type\":\"circle\",\"coordinates\":[-8.6,41.15],\"radius\":80}".utf8)
    static let polygon = Array(
        "{\"tag\":\"zone\",\"externalId\":\"z\",\"type\":\"polygon\",\"coordinates\":[[-8.6,41.1],[-8.5,41.1],[-8.5,41.2]]}".utf8)

    static func summary(_ user: String, trip: String, status: String = "completed") -> [UInt8] {
        Array(("{\"_id\":\"0123456789abcdef0000000a\",\"userId\":\"\(user)\",\"tripExternalId\":\"\(trip)\","
            + "\"status\":\"\(status)\",\"startedAt\":\"2026-05-12T14:00:00.000Z\",\"stoppedAt\":\"2026-05-12T14:40:00.000Z\","
            + "\"arrived\":true,\"arrivedAt\":\"2026-05-12T14:35:00.000Z\",\"actualCreatedAt\":\"2026-05-12T14:40:01.000Z\"}").utf8)
    }

    static func apply(_ model: inout FleetModel, _ topic: String, key: String?, _ value: [UInt8]?, at time: Int64 = 1000) {
        model.apply(topic: topic, key: key.map { Array($0.utf8) }, value: value, timestamp: time, topics: topics)
    }
}
