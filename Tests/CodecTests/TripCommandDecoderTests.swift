import Codec
import Domain
import Testing

func command(_ json: String) throws(DecodeError) -> TripCommand { try TripCommandDecoder.decode(Array(json.utf8)) }

@Suite("TripCommandDecoder")
struct TripCommandDecoderTests {
    @Test func decodesAStartToAGeofence() throws {
        let c = try command(
            #"{"type":"start","userId":"pro_user_456","createdAt":"2026-05-12T14:00:00Z","trip":{"#
                + #""externalId":"trip_shift_12345","destinationGeofenceTag":"shift","#
                + #""destinationGeofenceExternalId":"shift_12345","mode":"car","approachingThreshold":5,"#
                + #""scheduledArrivalAt":"2026-05-12T14:45:00.000Z","metadata":{"shiftId":"shift_12345"}}}"#)
        #expect(c.kind == .start && c.userId == "pro_user_456" && c.createdAt == 1_778_594_400_000)
        #expect(c.trip.externalId == "trip_shift_12345")
        #expect(c.trip.destinationGeofenceTag == "shift" && c.trip.destinationGeofenceExternalId == "shift_12345")
        #expect(c.trip.mode == .car && c.trip.approachingThreshold == 5)
        #expect(c.trip.scheduledArrivalAt == 1_778_597_100_000)
        #expect(c.trip.metadata?.text == #"{"shiftId":"shift_12345"}"#)
    }

    @Test func decodesAStartToCoordinates() throws {
        let c = try command(
            #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","#
                + #""destinationCoordinates":[-73.9911,40.7342],"destinationRadius":50,"mode":"motorbike","#
                + #""approachingThreshold":3.0}}"#)
        #expect(c.trip.destinationCoordinates == Coordinate(latitudeE7: 407_342_000, longitudeE7: -739_911_000))
        #expect(c.trip.destinationRadius == 50 && c.trip.mode == .motorbike && c.trip.approachingThreshold == 3)
    }

    @Test func completeAndCancelNeedOnlyTheExternalId() throws {
        for kind in ["complete", "cancel", "update"] {
            let c = try command(
                #"{"type":"\#(kind)","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t"}}"#)
            #expect(c.kind.name == kind && c.trip == TripOptions(externalId: "t"))
        }
    }

    @Test func startNeedsADestination() {
        expectRejection(.missingField, #"or "trip.destinationCoordinates": a start needs a destination"#) {
            () throws(DecodeError) in
            try command(#"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t"}}"#)
        }
        expectRejection(.missingField, #"missing field "trip.destinationGeofenceExternalId""#) {
            () throws(DecodeError) in
            try command(
                #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","destinationGeofenceTag":"shift"}}"#
            )
        }
    }

    @Test func rejections() {
        expectRejection(.missingField, #"missing field "trip.externalId""#) { () throws(DecodeError) in
            try command(#"{"type":"cancel","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{}}"#)
        }
        expectRejection(.missingField, #"missing field "trip""#) { () throws(DecodeError) in
            try command(#"{"type":"cancel","userId":"u","createdAt":"2026-05-12T14:00:00Z"}"#)
        }
        expectRejection(.missingField, #"missing field "type""#) { () throws(DecodeError) in
            try command(#"{"userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t"}}"#)
        }
        expectRejection(.unknownEnumValue, #"type "pause" is not one of start, update, complete, cancel"#) {
            () throws(DecodeError) in
            try command(#"{"type":"pause","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t"}}"#)
        }
        expectRejection(.unknownEnumValue, #"trip.mode "plane" is not one of car, truck, bike, foot, motorbike"#) {
            () throws(DecodeError) in
            try command(
                #"{"type":"update","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","mode":"plane"}}"#
            )
        }
        expectRejection(.valueOutOfRange, "trip.approachingThreshold 0 out of range [1, 1440]") {
            () throws(DecodeError) in
            try command(
                #"{"type":"update","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","approachingThreshold":0}}"#
            )
        }
        expectRejection(.wrongType, "trip.approachingThreshold must be an integer, got 5.5") { () throws(DecodeError) in
            try command(
                #"{"type":"update","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","approachingThreshold":5.5}}"#
            )
        }
        expectRejection(.coordinateOutOfRange, "trip.destinationCoordinates latitude 95 out of range [-90, 90]") {
            () throws(DecodeError) in
            try command(
                #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","destinationCoordinates":[1,95]}}"#
            )
        }
        expectRejection(.invalidGeometry, "trip.destinationCoordinates must be [longitude, latitude], got 1 elements") {
            () throws(DecodeError) in
            try command(
                #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","destinationCoordinates":[1]}}"#
            )
        }
        expectRejection(.wrongType, "trip must be an object, got string") { () throws(DecodeError) in
            try command(#"{"type":"cancel","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":"t"}"#)
        }
        expectRejection(.badTimestamp, "trip.scheduledArrivalAt") { () throws(DecodeError) in
            try command(
                #"{"type":"update","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","scheduledArrivalAt":"soon"}}"#
            )
        }
    }

    @Test func decodesStatusAndExpiry() throws {
        let pending = try command(
            #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","#
                + #""destinationGeofenceTag":"shift","destinationGeofenceExternalId":"s1","status":"pending","#
                + #""expiresAfter":90}}"#)
        #expect(pending.trip.status == .pending && pending.trip.expiresAfter == 90)
        for status in TripStatus.allCases where status != .pending && status != .expired {
            let update = try command(
                #"{"type":"update","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","status":"\#(status.name)"}}"#)
            #expect(update.trip.status == status)
        }
    }

    @Test func rejectsStatusesNoCommandSets() {
        expectRejection(.invalidTransition, #"trip.status "arrived" cannot be set by a start command"#) {
            () throws(DecodeError) in
            try command(
                #"{"type":"start","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","#
                    + #""destinationCoordinates":[1,2],"status":"arrived"}}"#)
        }
        expectRejection(.invalidTransition, #"trip.status "pending" cannot be set by an update command"#) {
            () throws(DecodeError) in
            try command(
                #"{"type":"update","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","status":"pending"}}"#)
        }
        expectRejection(.invalidTransition, #"trip.status "expired" cannot be set by an update command"#) {
            () throws(DecodeError) in
            try command(
                #"{"type":"update","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","status":"expired"}}"#)
        }
        expectRejection(.unknownEnumValue, #"trip.status "paused" is not one of pending, started"#) {
            () throws(DecodeError) in
            try command(
                #"{"type":"update","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","status":"paused"}}"#)
        }
        expectRejection(.valueOutOfRange, "trip.expiresAfter 0 out of range [1, 43200]") { () throws(DecodeError) in
            try command(
                #"{"type":"update","userId":"u","createdAt":"2026-05-12T14:00:00Z","trip":{"externalId":"t","expiresAfter":0}}"#)
        }
    }
}
