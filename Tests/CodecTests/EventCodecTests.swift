import Codec
import Domain
import Foundation
import Testing

/// Compares everything the JSON carries (geofences by their fields: `Event ==` compares them by identity).
func expectSameEvent(_ a: Event, _ b: Event, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        a.id == b.id && a.type == b.type && a.userId == b.userId && a.createdAt == b.createdAt,
        sourceLocation: sourceLocation)
    #expect(a.replayed == b.replayed && a.late == b.late && a.revision == b.revision && a.location == b.location, sourceLocation: sourceLocation)
    #expect(a.locationAccuracy.bitPattern == b.locationAccuracy.bitPattern, sourceLocation: sourceLocation)
    #expect(a.deviceId == b.deviceId && a.userMetadata == b.userMetadata, sourceLocation: sourceLocation)
    #expect(a.durationSeconds == b.durationSeconds && a.trip == b.trip, sourceLocation: sourceLocation)
    #expect((a.geofence == nil) == (b.geofence == nil), sourceLocation: sourceLocation)
    if let g = a.geofence, let h = b.geofence {
        #expect(
            g.tag == h.tag && g.externalId == h.externalId && g.description == h.description,
            sourceLocation: sourceLocation)
        #expect(
            g.metadata == h.metadata && g.enabled == h.enabled && g.dwellThreshold == h.dwellThreshold,
            sourceLocation: sourceLocation)
        if case .circle = g.shape { #expect(g.shape == h.shape, sourceLocation: sourceLocation) }
    }
}

@Suite("Event codec")
struct EventCodecTests {
    @Test func everyEventRoundTrips() throws {
        for event in Fixtures.allEvents {
            var bytes: [UInt8] = []
            EventEncoder.encode(event, actualCreatedAt: Fixtures.processedAt, into: &bytes)
            let decoded = try EventDecoder.decode(bytes)
            expectSameEvent(event, decoded.event)
            #expect(decoded.actualCreatedAt == Fixtures.processedAt)
            // Re-encoding gives the same bytes.
            var again: [UInt8] = []
            EventEncoder.encode(decoded.event, actualCreatedAt: Fixtures.processedAt, into: &again)
            #expect(again == bytes, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func alwaysWritesIdAndActualCreatedAtAndNeverNull() throws {
        for event in Fixtures.allEvents {
            let text = EventEncoder.string(event, actualCreatedAt: Fixtures.processedAt)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let id = try #require(object["_id"] as? String)
            #expect(id.count == 24 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
            #expect(object["actualCreatedAt"] as? String == "2026-05-12T14:30:01.234Z")
            #expect(!text.contains("null"))
        }
    }

    @Test func exactBytesOfAnExitedGeofence() {
        let text = EventEncoder.string(Fixtures.allEvents[1], actualCreatedAt: Fixtures.processedAt)
        #expect(
            text
                == #"{"_id":"0123456789abcdef00000002","type":"user.exited_geofence","createdAt":"2026-05-12T14:30:02.000Z","#
                + #""actualCreatedAt":"2026-05-12T14:30:01.234Z","live":true,"#
                + #""location":{"type":"Point","coordinates":[-73.9911,40.7342]},"locationAccuracy":5,"#
                + #""user":{"userId":"pro_user_456","deviceId":"device-1","metadata":{"companyId":"company_abc123","name":"John Doe"}},"#
                + #""geofence":{"tag":"shift","externalId":"shift_12345","description":"123 Main St - Water Heater Repair","#
                + #""type":"circle","geometryCenter":{"type":"Point","coordinates":[-73.9911,40.7342]},"geometryRadius":100,"#
                + #""metadata":{"shiftId":"shift_12345","customerId":"customer_abc"},"dwellThreshold":15},"confidence":3,"duration":105}"#
        )
        // A visit ended by a deleted geofence says so after the duration.
        let deleted = EventEncoder.string(Fixtures.allEvents[2], actualCreatedAt: Fixtures.processedAt)
        #expect(deleted.hasSuffix(#""confidence":3,"duration":8.33,"exitReason":"geofence_deleted"}"#))
    }

    @Test func exactBytesOfACompletedTrip() {
        let text = EventEncoder.string(Fixtures.allEvents[9], actualCreatedAt: Fixtures.processedAt)
        let expected: String = [
            #""trip":{"externalId":"trip_shift_12345","status":"completed","mode":"car","destinationGeofenceTag":"shift","#,
            #""destinationGeofenceExternalId":"shift_12345","#,
            #""destinationLocation":{"type":"Point","coordinates":[-73.9911,40.7342]},"approachingThreshold":5,"#,
            #""scheduledArrivalAt":"2026-05-12T14:45:00.000Z","delayThreshold":2,"#,
            #""metadata":{"shiftId":"shift_12345","proName":"John Doe"},"#,
            #""startedAt":"2026-05-12T14:30:00.000Z","arrivedAt":"2026-05-12T14:45:00.000Z","#,
            #""eta":{"duration":0,"distance":0,"durationLow":0,"durationHigh":0},"delay":{"delayed":false,"scheduledArrivalTimeDelay":0},"#,
            #""summary":{"distance":7440,"duration":45.17,"timeOnSite":8.5,"etaError25":1.58,"etaError50":-0.67,"etaInRange25":true,"etaInRange50":false}}}"#,
        ].joined()
        #expect(text.hasSuffix(expected), "\(text)")
    }

    @Test func revisionFlags() {
        #expect(
            EventEncoder.string(Fixtures.allEvents[11], actualCreatedAt: 0).contains(#""live":true,"corrected":true,"#))
        #expect(
            EventEncoder.string(Fixtures.allEvents[14], actualCreatedAt: 0).contains(#""live":true,"retracted":true,"#))
        // `live` is Radar's (live key, not test key): always true; offline replay and lateness have their own flags.
        #expect(
            EventEncoder.string(Fixtures.allEvents[6], actualCreatedAt: 0)
                .contains(#""live":true,"replayed":true,"late":true,"location""#))
        #expect(!EventEncoder.string(Fixtures.allEvents[5], actualCreatedAt: 0).contains("replayed"))
    }

    @Test func appendsToTheCallersBuffer() {
        var buffer: [UInt8] = Array("x\n".utf8)
        EventEncoder.encode(Fixtures.allEvents[0], actualCreatedAt: 0, into: &buffer)
        #expect(buffer.starts(with: Array("x\n{\"_id\"".utf8)) && buffer.last == UInt8(ascii: "}"))
    }

    @Test func decodesRadarsExamplePayloads() throws {
        for name in ["radar-entered-geofence.json", "radar-exited-geofence.json"] {
            let bytes = try Array(Data(contentsOf: PackagePaths.schemas.appendingPathComponent("examples/\(name)")))
            let decoded = try EventDecoder.decode(bytes).event
            #expect(decoded.userId == "pro_user_456" && decoded.geofence?.tag == "shift")
            #expect(decoded.location == Coordinate(latitudeE7: 407_342_000, longitudeE7: -739_911_000))
            #expect(decoded.userMetadata?.text.contains("company_abc123") == true)
        }
    }
}
