import Codec
import Domain
import Foundation
import Testing

/// Multi-leg trips in trip commands and in events (Radar's leg objects).
@Suite("Trip legs")
struct TripLegCodecTests {
    @Test func decodesAStartWithRadarsLegs() throws {
        let c = try command(
            #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","legs":["#
                + #"{"_id":"pickup","destination":{"destinationGeofenceTag":"store","destinationGeofenceExternalId":"s1"},"#
                + #""stopDuration":5,"metadata":{"order":"o-1"}},"#
                + #"{"destination":{"coordinates":[-73.9911,40.7342],"arrivalRadius":40}}]}}"#)
        let legs = try #require(c.trip.legs)
        #expect(legs.count == 2)
        #expect(legs[0].id == "pickup" && legs[0].destinationGeofenceTag == "store" && legs[0].stopDuration == 5)
        #expect(legs[0].metadata?.text == #"{"order":"o-1"}"#)
        #expect(legs[1].id.isEmpty, "numbered by the fold")
        #expect(legs[1].destinationCoordinates == Coordinate(latitudeE7: 407_342_000, longitudeE7: -739_911_000))
        #expect(legs[1].arrivalRadius == 40 && legs[1].stopDuration == 0)
    }

    @Test func decodesTheLegCommands() throws {
        let add = try command(
            #"{"type":"addLegs","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","legs":["#
                + #"{"destination":{"destinationGeofenceTag":"store","destinationGeofenceExternalId":"s2"}}]}}"#)
        #expect(add.kind == .addLegs && add.trip.legs?.first?.destinationGeofenceExternalId == "s2")
        let reorder = try command(
            #"{"type":"reorderLegs","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","legIds":["b","a"]}}"#)
        #expect(reorder.kind == .reorderLegs && reorder.trip.legIds == ["b", "a"])
        let skip = try command(
            #"{"type":"updateLeg","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","legId":"a","status":"canceled"}}"#)
        #expect(skip.kind == .updateLeg && skip.trip.legId == "a" && skip.trip.status == .canceled)
    }

    @Test func rejectsLegsThatCannotBeFollowed() {
        expectRejection(.missingField, #"missing field "trip.legs[].destination""#) { () throws(DecodeError) in
            try command(
                #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","legs":[{"stopDuration":5}]}}"#)
        }
        expectRejection(.invalidTransition, #"trip.legs repeats _id "a""#) { () throws(DecodeError) in
            try command(
                #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","legs":["#
                    + #"{"_id":"a","destination":{"coordinates":[1,2]}},{"_id":"a","destination":{"coordinates":[1,3]}}]}}"#)
        }
        expectRejection(.missingField, #"missing field "trip.legs""#) { () throws(DecodeError) in
            try command(#"{"type":"addLegs","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t"}}"#)
        }
        expectRejection(.missingField, #"missing field "trip.legId""#) { () throws(DecodeError) in
            try command(
                #"{"type":"updateLeg","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","status":"arrived"}}"#)
        }
        expectRejection(.invalidTransition, #"cannot be set by an updateLeg command: an updateLeg sets arrived"#) {
            () throws(DecodeError) in
            try command(
                #"{"type":"updateLeg","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","legId":"a","status":"started"}}"#)
        }
        expectRejection(.valueOutOfRange, "trip.legs[].stopDuration 1441 out of range [0, 1440]") {
            () throws(DecodeError) in
            try command(
                #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","legs":["#
                    + #"{"destination":{"coordinates":[1,2]},"stopDuration":1441}]}}"#)
        }
    }

    @Test func commandsWithLegsStatusAndExpiryRoundTripThroughTheInputEncoder() throws {
        // What `tripstream simulate` and the fuzz harness write must read back the same.
        let data = try Data(contentsOf: PackagePaths.schemas.appendingPathComponent("examples/trip-commands.ndjson"))
        var checked = 0
        for line in data.split(separator: UInt8(ascii: "\n")) {
            let decoded = try TripCommandDecoder.decode(Array(line))
            var bytes: [UInt8] = []
            InputRecordEncoder.encode(decoded, into: &bytes)
            #expect(try TripCommandDecoder.decode(bytes) == decoded, "\(String(decoding: bytes, as: UTF8.self))")
            if decoded.trip.legs != nil || decoded.trip.legIds != nil || decoded.trip.status != nil { checked += 1 }
        }
        #expect(checked >= 4, "the examples have pending, leg and status commands")
    }

    @Test func eventsShowTheLegsWithTheCurrentOneAsTheTrip() throws {
        let event = try #require(Fixtures.allEvents.first { $0.trip?.plan.legs.isEmpty == false })
        let text = EventEncoder.string(event, actualCreatedAt: Fixtures.processedAt)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let trip = try #require(object["trip"] as? [String: Any])
        let legs = try #require(trip["legs"] as? [[String: Any]])
        #expect(legs.map { $0["_id"] as? String } == ["pickup", "leg-2", "leg-3"])
        #expect(legs.map { $0["status"] as? String } == ["completed", "arrived", "pending"])
        #expect(trip["currentLegId"] as? String == "leg-2")
        #expect(legs[1]["arrivedAt"] as? String == trip["arrivedAt"] as? String)
        let destination = try #require(legs[1]["destination"] as? [String: Any])
        #expect(destination["coordinates"] as? [Double] == [-73.9911, 40.7342])
        #expect(destination["arrivalRadius"] as? Double == 40.5 && destination.count == 2)
        #expect(legs[0]["arrivedAt"] as? String == "2026-05-12T14:10:00.000Z")
        #expect(trip["destinationLocation"] != nil, "the trip heads where its current leg does")
    }

    /// An event's legs all carry their ids (the fold names the ones a command left unnamed). A leg
    /// without one is refused: decoded, it was written back with an empty `currentLegId`, which no
    /// event may have (found by the fuzzer: the decoder took what it then could not read back).
    @Test func anEventLegWithoutAnIdIsRefused() throws {
        let event = try #require(Fixtures.allEvents.first { $0.trip?.plan.legs.isEmpty == false })
        let text = EventEncoder.string(event, actualCreatedAt: Fixtures.processedAt)
        #expect(throws: Never.self) { try EventDecoder.decode(Array(text.utf8)) }
        for unnamed in ["\"_id\":\"leg-3\",", "\"_id\":\"pickup\","] {
            #expect(text.contains(unnamed))
            let changed = text.replacingOccurrences(of: unnamed, with: "")
            #expect(throws: DecodeError(.missingField, "missing field \"trip.legs[]._id\"")) {
                try EventDecoder.decode(Array(changed.utf8))
            }
        }
    }
}
