import Codec
import Domain
import Foundation
import Testing

/// Members Radar gives that TripStream now gives too: a geofence destination's
/// `trip.destinationLocation`, and a polygon's `geometryCenter`/`geometryRadius`.
@Suite("Radar's trip and geofence members")
struct RadarTripFieldsTests {
    func object(_ event: Event) throws -> [String: Any] {
        let text = EventEncoder.string(event, actualCreatedAt: Fixtures.processedAt)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aGeofenceDestinationHasItsCenterAsDestinationLocation() throws {
        let event = try #require(Fixtures.allEvents.first { $0.trip?.destinationLocation != nil })
        let trip = try #require(try object(event)["trip"] as? [String: Any])
        let location = try #require(trip["destinationLocation"] as? [String: Any])
        #expect(location["coordinates"] as? [Double] == [-73.9911, 40.7342])
        #expect(trip["destinationRadius"] == nil, "the geofence's shape decides arrival, not a radius")
        #expect(trip["destinationGeofenceTag"] as? String == "shift")
        let decoded = try EventDecoder.decode(Array(EventEncoder.string(event, actualCreatedAt: 0).utf8)).event
        #expect(decoded.trip?.destinationLocation == event.trip?.destinationLocation)
        #expect(decoded.trip?.plan.destinationCoordinates == nil, "still a geofence destination")
    }

    @Test func aPolygonHasItsCentroidAndFarthestVertex() throws {
        let event = try #require(Fixtures.allEvents.first { $0.geofence === Fixtures.yard })
        let geofence = try #require(try object(event)["geofence"] as? [String: Any])
        #expect(geofence["type"] as? String == "polygon")
        let center = try #require((geofence["geometryCenter"] as? [String: Any])?["coordinates"] as? [Double])
        // The triangle (41.0, -8.0), (41.0, -7.9), (41.1, -7.9): its centroid is the vertices' mean.
        #expect(abs(center[0] - (-7.9333333)) < 2e-6 && abs(center[1] - 41.0333333) < 2e-6)
        let radius = try #require(geofence["geometryRadius"] as? Double)
        let farthest = [Coordinate(latitude: 41.0, longitude: -8.0), Coordinate(latitude: 41.0, longitude: -7.9),
                        Coordinate(latitude: 41.1, longitude: -7.9)]
            .map { Geodesy.distance($0, Coordinate(latitude: center[1], longitude: center[0])) }.max()!
        #expect(abs(radius - farthest) <= 20 && radius == radius.rounded())
    }
}
