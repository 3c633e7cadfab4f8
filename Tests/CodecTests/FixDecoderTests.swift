import Codec
import Domain
import Testing

@Suite("FixDecoder")
struct FixDecoderTests {
    let porto =
        #"{"userId":"20000380","tripId":"1372636853620000380","createdAt":"2013-07-01T00:00:53Z","latitude":41.140746,"longitude":-8.610291}"#

    @Test func decodesAPortoFix() throws {
        let f = try fix(porto)
        #expect(f.userId == "20000380")
        #expect(f.createdAt == 1_372_636_853_000)
        #expect(f.position == Coordinate(latitudeE7: 411_407_460, longitudeE7: -86_102_910))
        #expect(f.accuracy.isNaN && f.speed.isNaN && f.course.isNaN && f.altitude.isNaN)
        #expect(!f.replayed && f.deviceId == nil && f.metadata == nil)
    }

    @Test func decodesEveryOptionalField() throws {
        let f = try fix(
            #" { "userId" : "u\u00e9", "deviceId":"d1", "createdAt":"2024-02-29T23:59:59.5+01:00", "latitude":-90,"#
                + #" "longitude":180, "accuracy":4.5, "speed":0, "course":360, "altitude":-12.25, "replayed":true,"#
                + #" "metadata":{"a":[1,{"b":null}],"c":"\""} , "extra": [true, false, null, 1e3, {}] } "#)
        #expect(f.userId == "ué")
        #expect(f.deviceId == "d1")
        #expect(f.createdAt == 1_709_247_599_500)
        #expect(f.position == Coordinate(latitudeE7: -900_000_000, longitudeE7: 1_800_000_000))
        #expect(f.accuracy == 4.5 && f.speed == 0 && f.course == 360 && f.altitude == -12.25)
        #expect(f.replayed)
        #expect(f.metadata?.text == #"{"a":[1,{"b":null}],"c":"\""}"#)
    }

    @Test func nullOptionalsAreAbsent() throws {
        let f = try fix(
            #"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2,"accuracy":null,"#
                + #""deviceId":null,"metadata":null,"replayed":null}"#)
        #expect(f.accuracy.isNaN && f.deviceId == nil && f.metadata == nil && !f.replayed)
    }

    @Test func acceptsAGeoJSONLocation() throws {
        let f = try fix(
            #"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","location":{"type":"Point","coordinates":[-8.61,41.14]}}"#
        )
        #expect(f.position == Coordinate(latitudeE7: 411_400_000, longitudeE7: -86_100_000))
    }

    @Test func escapedKeysStillName() throws {
        let f = try fix(
            #"{"user\u0049d":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2,"spe\u0065d":3}"#)
        #expect(f.userId == "u" && f.speed == 3)
    }

    // MARK: - Every rejection reason the fix decoder can produce

    @Test func invalidJSON() {
        expectRejection(.invalidJSON, "invalid JSON at byte 10") { () throws(DecodeError) in try fix(#"{"userId" "u"}"#)
        }
        expectRejection(.invalidJSON, "trailing data") { () throws(DecodeError) in try fix(porto + "x") }
        expectRejection(.invalidJSON, "empty record") { () throws(DecodeError) in try fix("  ") }
        // Syntax errors win over a field error seen earlier.
        expectRejection(.invalidJSON, "invalid JSON") { () throws(DecodeError) in try fix(#"{"latitude":91,"#) }
    }

    @Test func notAnObject() {
        expectRejection(.notAnObject, "record is a JSON array") { () throws(DecodeError) in try fix("[1,2]") }
        expectRejection(.invalidJSON, "") { () throws(DecodeError) in try fix("[1,") }
    }

    @Test func missingField() {
        expectRejection(.missingField, #"missing field "createdAt""#) { () throws(DecodeError) in
            try fix(#"{"userId":"u","latitude":1,"longitude":2}"#)
        }
        expectRejection(.missingField, #"missing field "userId""#) { () throws(DecodeError) in
            try fix(#"{"createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2}"#)
        }
        expectRejection(.missingField, #"missing field "longitude""#) { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1}"#)
        }
    }

    @Test func wrongType() {
        expectRejection(.wrongType, "userId must be a string, got number") { () throws(DecodeError) in
            try fix(#"{"userId":20000380,"createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2}"#)
        }
        expectRejection(.wrongType, "createdAt must be an RFC 3339 timestamp string, got number") {
            () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":1372636853000,"latitude":1,"longitude":2}"#)
        }
        expectRejection(.wrongType, "latitude must be a number, got string") { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":"41.1","longitude":2}"#)
        }
        expectRejection(.wrongType, "metadata must be an object or null, got array") { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2,"metadata":[]}"#)
        }
        expectRejection(.wrongType, "replayed must be a boolean, got string") { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2,"replayed":"yes"}"#)
        }
    }

    @Test func emptyString() {
        expectRejection(.emptyString, "userId is empty") { () throws(DecodeError) in
            try fix(#"{"userId":"","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2}"#)
        }
    }

    @Test func stringTooLong() {
        let long = String(repeating: "x", count: 257)
        expectRejection(.stringTooLong, "userId longer than 256 bytes (257)") { () throws(DecodeError) in
            try fix(#"{"userId":"\#(long)","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2}"#)
        }
        expectRejection(.stringTooLong, "deviceId longer than 256 bytes") { () throws(DecodeError) in
            try fix(
                #"{"userId":"u","deviceId":"\#(long)","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2}"#)
        }
        // 256 bytes exactly is fine, counted after unescaping.
        let exact = String(repeating: "\\u00e9", count: 128)
        #expect(throws: Never.self) {
            try fix(#"{"userId":"\#(exact)","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2}"#)
        }
    }

    @Test func recordTooLarge() {
        let padding = String(repeating: " ", count: 70_000)
        expectRejection(.recordTooLarge, "limit 65536") { () throws(DecodeError) in try fix(porto + padding) }
    }

    @Test func nonFiniteNumber() {
        expectRejection(.nonFiniteNumber, "latitude 1e400 is not finite") { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1e400,"longitude":2}"#)
        }
        expectRejection(.nonFiniteNumber, "altitude -1e309 is not finite") { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2,"altitude":-1e309}"#)
        }
    }

    @Test func coordinateOutOfRange() {
        expectRejection(.coordinateOutOfRange, "latitude 91.2 out of range [-90, 90]") { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":91.2,"longitude":2}"#)
        }
        expectRejection(.coordinateOutOfRange, "longitude -180.00000005 out of range [-180, 180]") {
            () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":-180.00000005}"#)
        }
        // Rounds to -180 exactly: accepted.
        #expect(throws: Never.self) {
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":-180.00000004}"#)
        }
    }

    @Test func valueOutOfRange() {
        expectRejection(.valueOutOfRange, "speed 1200 out of range [0, 1000]") { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2,"speed":1200}"#)
        }
        expectRejection(.valueOutOfRange, "accuracy -1 out of range [0, 100000]") { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2,"accuracy":-1}"#)
        }
        expectRejection(.valueOutOfRange, "course 360.5 out of range [0, 360]") { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","latitude":1,"longitude":2,"course":360.5}"#)
        }
    }

    @Test func badTimestamp() {
        expectRejection(
            .badTimestamp, #"createdAt "2013-02-30T00:00:00Z" is not an RFC 3339 timestamp: day 30 out of range"#
        ) { () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-02-30T00:00:00Z","latitude":1,"longitude":2}"#)
        }
    }

    @Test func absurdTimestamp() {
        expectRejection(.absurdTimestamp, #"createdAt "2300-01-01T00:00:00Z": year 2300 outside 1970…2200"#) {
            () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2300-01-01T00:00:00Z","latitude":1,"longitude":2}"#)
        }
    }

    @Test func invalidGeometryOfALocation() {
        expectRejection(.invalidGeometry, "location.coordinates must be [longitude, latitude], got 1 elements") {
            () throws(DecodeError) in
            try fix(#"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","location":{"type":"Point","coordinates":[1]}}"#)
        }
        expectRejection(.unknownEnumValue, #"location.type "Polygon" is not one of Point"#) { () throws(DecodeError) in
            try fix(
                #"{"userId":"u","createdAt":"2013-07-01T00:00:53Z","location":{"type":"Polygon","coordinates":[1,2]}}"#)
        }
    }

    @Test func firstFieldErrorWins() {
        expectRejection(.coordinateOutOfRange, "latitude") { () throws(DecodeError) in
            try fix(#"{"latitude":100,"userId":"","createdAt":"2013-07-01T00:00:53Z","longitude":2}"#)
        }
    }
}
