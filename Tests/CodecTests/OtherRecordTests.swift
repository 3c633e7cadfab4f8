import Codec
import Domain
import Foundation
import Testing

@Suite("ETA, user state and dead-letter records")
struct OtherRecordTests {
    @Test func etaRecord() {
        var bytes: [UInt8] = []
        #expect(EtaEncoder.encode(Fixtures.allEvents[13], actualCreatedAt: Fixtures.processedAt, into: &bytes))
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"_id":"0123456789abcdef0000000e","userId":"pro_user_456","externalId":"trip_shift_12345","#
                + #""status":"started","createdAt":"2026-05-12T14:30:14.000Z","actualCreatedAt":"2026-05-12T14:30:01.234Z","#
                + #""live":true,"location":{"type":"Point","coordinates":[-73.9911,40.7342]},"eta":{"duration":19.5,"distance":9000,"durationLow":19.5,"durationHigh":19.5},"#
                + #""destinationGeofenceTag":"shift","destinationGeofenceExternalId":"shift_12345","#
                + #""scheduledArrivalAt":"2026-05-12T14:45:00.000Z","delayed":true}"#)
        var none: [UInt8] = []
        #expect(!EtaEncoder.encode(Fixtures.allEvents[0], actualCreatedAt: 0, into: &none) && none.isEmpty)
    }

    @Test func tripSummaryRecord() throws {
        let stops = Fixtures.allEvents.filter { $0.type == .stoppedTrip && $0.trip?.summary != nil }
        #expect(stops.count >= 2, "the fixtures stop trips")
        for stop in stops {
            var bytes: [UInt8] = []
            #expect(TripSummaryEncoder.encode(stop, actualCreatedAt: Fixtures.processedAt, into: &bytes))
            let record = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            let trip = stop.trip!, summary = trip.summary!
            #expect(record["_id"] as? String == stop.id.hexString, "upserts with its stop event")
            #expect(record["tripExternalId"] as? String == trip.plan.externalId)
            #expect(record["durationSeconds"] as? Int == Int(summary.durationSeconds))
            #expect(record["distanceMeters"] as? Int == Int(summary.distanceMeters))
            #expect(record["arrived"] as? Bool == (trip.arrivedAt != nil))
            #expect((record["corrected"] as? Bool ?? false) == (stop.revision == .corrected))
            if let arrived = trip.arrivedAt, let scheduled = trip.plan.scheduledArrivalAt {
                #expect(record["arrivalDelaySeconds"] as? Int == Int((arrived - scheduled) / 1000))
            } else {
                #expect(record["arrivalDelaySeconds"] == nil)
            }
            let errors = summary.etaErrors
            #expect(record["etaError25Seconds"] as? Int == errors.quarter.map(Int.init))
            #expect(record["etaError50Seconds"] as? Int == errors.half.map(Int.init))
            #expect(record["etaError75Seconds"] as? Int == errors.threeQuarters.map(Int.init))
            #expect(record["etaInRange25"] as? Bool == errors.inRange.quarter)
            #expect(record["etaInRange50"] as? Bool == errors.inRange.half)
            #expect(record["etaInRange75"] == nil && errors.inRange.threeQuarters == nil)
        }
        #expect(stops.contains { $0.trip?.summary?.etaErrors.quarter == 95 }, "a fixture grades its ETA")
        #expect(stops.contains { $0.trip?.summary?.etaErrors.inRange.half == false }, "and its range")
        var none: [UInt8] = []
        let notAStop = try #require(Fixtures.allEvents.first { $0.type != .stoppedTrip })
        #expect(!TripSummaryEncoder.encode(notAStop, actualCreatedAt: 0, into: &none) && none.isEmpty)
    }

    @Test func userState() throws {
        let snapshot = UserSnapshot(
            userId: "u1", deviceId: "d", metadata: Fixtures.userMetadata, lastFixAt: Fixtures.t0,
            location: Coordinate(latitudeE7: 1, longitudeE7: -1), locationAccuracy: 12.5, speed: 3.25,
            trip: Fixtures.allEvents[5].trip,
            geofences: [
                UserSnapshot.Presence(geofence: Fixtures.shift, enteredAt: Fixtures.t0 - 60_000),
                UserSnapshot.Presence(geofence: Fixtures.yard, enteredAt: Fixtures.t0 - 120_000),
            ])
        var bytes: [UInt8] = []
        UserStateEncoder.encode(snapshot, updatedAt: Fixtures.processedAt, into: &bytes)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["userId"] as? String == "u1" && object["speed"] as? Double == 3.25)
        #expect((object["geofences"] as? [[String: Any]])?[1]["externalId"] as? String == "north \"yard\"")
        var empty: [UInt8] = []
        UserStateEncoder.encode(
            UserSnapshot(
                userId: "u2", deviceId: nil, metadata: nil, lastFixAt: nil, location: nil, locationAccuracy: .nan,
                speed: .nan, trip: nil, geofences: []), updatedAt: 0, into: &empty)
        #expect(
            String(decoding: empty, as: UTF8.self)
                == #"{"userId":"u2","updatedAt":"1970-01-01T00:00:00.000Z","geofences":[]}"#)
    }

    @Test func deadLettersKeepTheOriginalBytes() throws {
        let cases: [([UInt8]?, [UInt8]?)] = [
            (Array("20000380".utf8), Array(#"{"userId":"u","bad":"\u0000 é"}"#.utf8)),
            (nil, [0xFF, 0x00, 0x22, 0x5C, 0x0A]),
            ([0xC3], nil),
            (Array("k\u{0}\n\"".utf8), Array("plain text with \t tab".utf8)),
        ]
        for (key, value) in cases {
            let letter = DeadLetter(
                reason: .invalidJSON, detail: "invalid JSON at byte 3: \"x\"", topic: "tripstream.locations",
                partition: 3, offset: 1234, key: key, value: value, receivedAt: Fixtures.processedAt)
            var bytes: [UInt8] = []
            DeadLetterEncoder.encode(letter, into: &bytes)
            #expect(try DeadLetterDecoder.decode(bytes) == letter)
            // Independent check with Foundation: the text field holds the exact original string.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            if let value, let text = String(validating: value, as: UTF8.self) {
                #expect(object["value"] as? String == text)
            } else if let value {
                #expect(object["valueBase64"] as? String == Data(value).base64EncodedString())
            }
        }
    }

    /// A file's record: file and line round-trip, offset -1; no stream time yet: no receivedAt, not a 1970 one.
    @Test func aFilesDeadLetterRoundTripsItsFileAndLineAndNoTime() throws {
        var letter = DeadLetter(reason: .missingField, detail: "missing createdAt", topic: "tripstream.locations",
                                partition: 0, offset: -1, key: nil, value: Array("{}".utf8), receivedAt: .min)
        letter.file = "in/fixes.ndjson"
        letter.line = 12
        var bytes: [UInt8] = []
        DeadLetterEncoder.encode(letter, into: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""offset":-1,"file":"in/fixes.ndjson","line":12,"#), "\(text)")
        #expect(!text.contains("receivedAt"), "\(text)")
        #expect(try DeadLetterDecoder.decode(bytes) == letter)
    }
}
