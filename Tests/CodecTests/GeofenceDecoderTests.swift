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
}
