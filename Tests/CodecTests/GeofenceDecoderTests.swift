import Codec
import Domain
import Testing

func geofenceChange(key: String?, _ value: String?) throws(DecodeError) -> GeofenceChange {
    try GeofenceDecoder.decode(key: key.map { Array($0.utf8) }, value: value.map { Array($0.utf8) })
}

func geofence(key: String? = nil, _ value: String) throws(DecodeError) -> Geofence? {
    if case .upsert(let g) = try geofenceChange(key: key, value) { return g }
    return nil
}

@Suite("GeofenceDecoder")
struct GeofenceDecoderTests {
    @Test func decodesACircleAsRadarCreatesIt() throws {
        let g = try #require(
            try geofence(
                key: "shift/shift_12345",
                #"{"tag":"shift","externalId":"shift_12345","description":"123 Main St - Water Heater Repair","#
                    + #""type":"circle","coordinates":[-73.9911,40.7342],"radius":100,"#
                    + #""metadata":{"shiftId":"shift_12345"},"deleteAfter":"2026-01-01T00:00:00.000Z"}"#))
        #expect(
            g.tag == "shift" && g.externalId == "shift_12345" && g.description == "123 Main St - Water Heater Repair")
        #expect(g.shape == .circle(center: Coordinate(latitudeE7: 407_342_000, longitudeE7: -739_911_000), radius: 100))
        #expect(g.enabled && g.dwellThreshold == nil && g.metadata?.text == #"{"shiftId":"shift_12345"}"#)
        #expect(g.id == GeofenceID(tag: "shift", externalId: "shift_12345"))
    }

    @Test func decodesPolygonsInBothNestings() throws {
        let ring = "[[-8.6,41.1],[-8.5,41.1],[-8.5,41.2],[-8.6,41.1]]"
        for coordinates in ["[\(ring)]", ring, "[\(ring),[[-8.58,41.12],[-8.57,41.12],[-8.57,41.13]]]"] {
            // `type` after `coordinates`: the decoder must wait for it.
            let g = try #require(
                try geofence(
                    #"{"coordinates":\#(coordinates),"tag":"t","externalId":"e","type":"polygon","enabled":false,"dwellThreshold":10}"#
                ))
            guard case .polygon(let rings) = g.shape else {
                Issue.record("not a polygon")
                continue
            }
            #expect(rings[0].count == 4 && rings[0][1] == Coordinate(latitudeE7: 411_000_000, longitudeE7: -85_000_000))
            #expect(!g.enabled && g.dwellThreshold == 10)
        }
    }

    @Test func decodesStopDetectionAndScheduledEnds() throws {
        let g = try #require(
            try geofence(
                #"{"tag":"shift","externalId":"s1","type":"circle","coordinates":[-73.9911,40.7342],"radius":100,"#
                    + #""stopDetection":true,"disableAfter":"2026-01-01T00:00:00Z","deleteAfter":"2026-01-02T00:00:00.000Z"}"#))
        #expect(g.stopDetection)
        #expect(g.disableAfter == 1_767_225_600_000 && g.deleteAfter == 1_767_312_000_000)
        #expect(g.scheduledEnd == 1_767_225_600_000 && g.scheduledEndReason == .geofenceDisabled && g.hasFoldOptions)
        let plain = try #require(
            try geofence(
                #"{"tag":"t","externalId":"e","type":"circle","coordinates":[0,0],"radius":5,"stopDetection":null,"#
                    + #""disableAfter":null,"deleteAfter":null}"#))
        #expect(!plain.stopDetection && plain.scheduledEnd == .max && !plain.hasFoldOptions)
        for bad in [#""disableAfter":"tomorrow""#, #""deleteAfter":17"#, #""stopDetection":"yes""#] {
            #expect(throws: DecodeError.self) {
                try geofence(#"{"tag":"t","externalId":"e","type":"circle","coordinates":[0,0],"radius":5,\#(bad)}"#)
            }
        }
    }

    @Test func deletes() throws {
        for value: String? in [nil, "", "null", "  null "] {
            guard case .delete(let id, let tag, let externalId) = try geofenceChange(key: "shift/a/b", value) else {
                Issue.record("not a delete for \(String(describing: value))")
                continue
            }
            #expect(tag == "shift" && externalId == "a/b" && id == GeofenceID(tag: "shift", externalId: "a/b"))
        }
    }

    @Test func rejections() {
        expectRejection(.keyMismatch, #"key "shift/x" does not match the value's tag/externalId "shift/y""#) {
            () throws(DecodeError) in
            try geofence(
                key: "shift/x", #"{"tag":"shift","externalId":"y","type":"circle","coordinates":[0,0],"radius":5}"#)
        }
        expectRejection(.keyMismatch, #"key "noslash" is not tag/externalId"#) { () throws(DecodeError) in
            try geofenceChange(key: "noslash", nil)
        }
        expectRejection(.missingField, "a tombstone needs tag/externalId") { () throws(DecodeError) in
            try geofenceChange(key: nil, nil)
        }
        expectRejection(.missingField, #"missing field "radius""#) { () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"circle","coordinates":[0,0]}"#)
        }
        expectRejection(.valueOutOfRange, "radius 100001 out of range [1, 100000]") { () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"circle","coordinates":[0,0],"radius":100001}"#)
        }
        expectRejection(.unknownEnumValue, #"type "square" is not one of circle, polygon"#) { () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"square","coordinates":[0,0],"radius":1}"#)
        }
        expectRejection(.invalidGeometry, "polygon ring 0 has 2 distinct positions, at least 3 needed") {
            () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"polygon","coordinates":[[[0,0],[1,1],[0,0],[0,0]]]}"#)
        }
        expectRejection(.invalidGeometry, "polygon has no rings") { () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"polygon","coordinates":[]}"#)
        }
        expectRejection(.coordinateOutOfRange, "polygon ring 1 position 2: coordinates latitude 91 out of range") {
            () throws(DecodeError) in
            try geofence(
                #"{"tag":"t","externalId":"e","type":"polygon","coordinates":[[[0,0],[1,0],[1,1]],[[0,0],[1,0],[1,91]]]}"#
            )
        }
        let many = (0..<10_001).map { "[\(Double($0) / 100_000),\(Double($0 % 7) / 1000)]" }.joined(separator: ",")
        expectRejection(.invalidGeometry, "polygon has more than 10000 positions") { () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"polygon","coordinates":[[\#(many)]]}"#)
        }
        expectRejection(.wrongType, "coordinates longitude must be a number, got array") { () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"circle","coordinates":[[0,0],[1,1],[2,2]],"radius":1}"#)
        }
    }

    /// Circles may cross ±180°; a polygon that does is refused with the RFC's advice, as is any
    /// geofence reaching past ±89° latitude. The halves of a split polygon are accepted.
    @Test func antimeridianAndPoles() throws {
        let fiji = try #require(
            try geofence(#"{"tag":"island","externalId":"fiji","type":"circle","coordinates":[179.9,-17.8],"radius":50000}"#))
        #expect(fiji.geometry.boundingBox.crossesAntimeridian)
        #expect(fiji.geometry.signedDistance(to: Coordinate(latitude: -17.8, longitude: -179.95)) < 0)

        expectRejection(
            .invalidGeometry,
            "polygon crosses the antimeridian: ring 0 edge from position 1 [179.9, -17.9] to position 2 "
                + "[-179.9, -17.9] spans 359.8° of longitude; split it into two polygons as RFC 7946 §3.1.9 recommends"
        ) { () throws(DecodeError) in
            try geofence(
                #"{"tag":"t","externalId":"e","type":"polygon","coordinates":"#
                    + #"[[[179.9,-17.7],[179.9,-17.9],[-179.9,-17.9],[-179.9,-17.7],[179.9,-17.7]]]}"#)
        }
        // In a hole too, and through the closing edge of an unclosed single ring.
        expectRejection(.invalidGeometry, "polygon crosses the antimeridian: ring 1 edge") { () throws(DecodeError) in
            try geofence(
                #"{"tag":"t","externalId":"e","type":"polygon","coordinates":"#
                    + #"[[[170,0],[179,0],[179,5],[170,5]],[[178,1],[-178,1],[-178,2]]]}"#)
        }
        expectRejection(.invalidGeometry, "edge from position 2 [70, 10] to position 0 [-170, 10] spans 240°") {
            () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"polygon","coordinates":[[-170,10],[-50,10],[70,10]]}"#)
        }
        // The two halves RFC 7946 asks for.
        for ring in ["[[179,-18],[180,-18],[180,-16],[179,-16],[179,-18]]", "[[-180,-18],[-179,-18],[-179,-16],[-180,-16]]"] {
            #expect(throws: Never.self) {
                try geofence(#"{"tag":"t","externalId":"e","type":"polygon","coordinates":[\#(ring)]}"#)
            }
        }

        expectRejection(
            .invalidGeometry,
            "circle reaches latitude 89.4497°N (center [0, 89], radius 50000 m): geofences must stay within ±89°"
        ) { () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"circle","coordinates":[0,89],"radius":50000}"#)
        }
        expectRejection(.invalidGeometry, "circle reaches latitude 90.0009°S") { () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"circle","coordinates":[45,-90],"radius":100}"#)
        }
        expectRejection(.invalidGeometry, "polygon ring 0 position 1 [10, 89.5] is beyond ±89° of latitude") {
            () throws(DecodeError) in
            try geofence(#"{"tag":"t","externalId":"e","type":"polygon","coordinates":[[0,88],[10,89.5],[20,88]]}"#)
        }
        #expect(throws: Never.self) {
            try geofence(#"{"tag":"t","externalId":"e","type":"circle","coordinates":[0,88],"radius":100000}"#)
        }
    }
}
