import Domain

/// Decodes a geofence record (`tripstream.geofences`, `schemas/geofence.schema.json`), named as
/// Radar's Geofences API: `{"tag", "externalId", "description", "type": "circle"|"polygon",
/// "coordinates", "radius", "metadata", "enabled", "dwellThreshold", "stopDetection", "disableAfter",
/// "deleteAfter"}` (the last two RFC 3339).
///
/// Coordinates are GeoJSON order, [lng, lat]. A circle has `coordinates` = [lng, lat] and a
/// `radius` of 1…100000 m. A polygon has `coordinates` = [[[lng, lat], …], …] (outer ring, then
/// holes; a single ring [[lng, lat], …] is accepted too), each ring with at least 3 distinct
/// positions (closed or not), at most 10,000 positions in all. `dwellThreshold` is whole minutes,
/// 1…10080. Geofences must stay within ±89° of latitude, and a polygon edge may not span more
/// than 180° of longitude (a polygon crossing the antimeridian: split it in two, RFC 7946
/// §3.1.9); both are `invalid_geometry` (see `GeofenceShape.problem`). Circles may cross the
/// antimeridian. The record key is `tag/externalId` (split at the first `/`); a null or empty
/// value deletes, and a key that names another geofence than the value is `key_mismatch`.
public enum GeofenceDecoder {
    public static let maxVertices = 10_000
    public static let maxRadius = 100_000.0

    public static func decode(key: [UInt8]?, value: [UInt8]?) throws(DecodeError) -> GeofenceChange {
        let keyString = key.map { String(decoding: $0, as: UTF8.self) }
        guard let value else { return try delete(key: keyString) }
        return try value.withUnsafeBytes { buffer in
            Result { () throws(DecodeError) in try decode(key: keyString, value: buffer) }
        }.get()
    }

    public static func decode(key: String?, value: UnsafeRawBufferPointer?) throws(DecodeError) -> GeofenceChange {
        guard let value, !isNullOrEmpty(value) else { return try delete(key: key) }
        guard value.count <= FixDecoder.maxRecordBytes * 16 else {
            throw DecodeError(
                .recordTooLarge, "record is \(value.count) bytes, limit \(FixDecoder.maxRecordBytes * 16)")
        }
        let geofence = try decodeGeofence(value)
        if let key {
            guard let (tag, externalId) = split(key), tag == geofence.tag, externalId == geofence.externalId else {
                throw DecodeError(
                    .keyMismatch,
                    "key \"\(key.prefix(300))\" does not match the value's tag/externalId "
                        + "\"\(geofence.tag)/\(geofence.externalId)\"")
            }
        }
        return .upsert(geofence)
    }

    private static func delete(key: String?) throws(DecodeError) -> GeofenceChange {
        guard let key else { throw DecodeError(.missingField, "missing record key: a tombstone needs tag/externalId") }
        guard let (tag, externalId) = split(key) else {
            throw DecodeError(.keyMismatch, "key \"\(key.prefix(300))\" is not tag/externalId")
        }
        return .delete(GeofenceID(tag: tag, externalId: externalId), tag: tag, externalId: externalId)
    }

    /// `tag/externalId`, split at the first `/`; both parts non-empty.
    static func split(_ key: String) -> (String, String)? {
        guard let slash = key.firstIndex(of: "/") else { return nil }
        let tag = String(key[..<slash])
        let externalId = String(key[key.index(after: slash)...])
        guard !tag.isEmpty, !externalId.isEmpty else { return nil }
        return (tag, externalId)
    }

    private static func isNullOrEmpty(_ value: UnsafeRawBufferPointer) -> Bool {
        var reader = JSONReader(value)
        guard let b = reader.peekByte() else { return true }
        guard b == UInt8(ascii: "n") else { return false }
        do {
            try reader.readNull()
            try reader.finish()
            return true
        } catch {
            return false
        }
    }

    // MARK: - Value

    private static func decodeGeofence(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Geofence {
        var reader = JSONReader(bytes)
        try reader.expectTopLevelObject()
        var issue: DecodeError?
        var tag: String?
        var externalId: String?
        var description = ""
        var isCircle: Bool?
        var coordinates: Range<Int>?
        var radius: Double?
        var metadata: RawJSON?
        var enabled = true
        var dwellThreshold: Int?
        var stopDetection = false
        var disableAfter: UnixMillis?
        var deleteAfter: UnixMillis?

        var cursor = try reader.beginObject()
        while let key = try reader.nextKey(&cursor) {
            if reader.matches(key, "tag") {
                tag = try reader.stringField("tag", &issue)
            } else if reader.matches(key, "externalId") {
                externalId = try reader.stringField("externalId", &issue)
            } else if reader.matches(key, "description") {
                description =
                    try reader.stringField("description", maxBytes: 1024, allowEmpty: true, nullable: true, &issue)
                    ?? ""
            } else if reader.matches(key, "type") {
                isCircle = try reader.enumField("type", choices: "circle, polygon", nullable: false, &issue) { bytes in
                    bytes.elementsEqual("circle".utf8) ? true : bytes.elementsEqual("polygon".utf8) ? false : nil
                }
            } else if reader.matches(key, "coordinates") {
                // Its shape depends on `type`, which may come later: keep the range, read it after.
                coordinates = try reader.captureValue()
            } else if reader.matches(key, "radius") {
                radius = try reader.doubleField("radius", range: 1...maxRadius, rangeText: "[1, 100000]", &issue)
            } else if reader.matches(key, "metadata") {
                metadata = try reader.metadataField("metadata", &issue)
            } else if reader.matches(key, "enabled") {
                enabled = try reader.boolField("enabled", &issue) ?? true
            } else if reader.matches(key, "dwellThreshold") {
                dwellThreshold = try reader.integerField("dwellThreshold", range: 1...10_080, &issue).map { Int($0) }
            } else if reader.matches(key, "stopDetection") {
                stopDetection = try reader.boolField("stopDetection", &issue) ?? false
            } else if reader.matches(key, "disableAfter") {
                disableAfter = try reader.timestampField("disableAfter", nullable: true, &issue)
            } else if reader.matches(key, "deleteAfter") {
                deleteAfter = try reader.timestampField("deleteAfter", nullable: true, &issue)
            } else {
                try reader.skipValue()
            }
        }
        try reader.finish()
        if let issue { throw issue }
        guard let tag else { throw .missing("tag") }
        guard let externalId else { throw .missing("externalId") }
        guard let isCircle else { throw .missing("type") }
        guard let coordinates else { throw .missing("coordinates") }
        var sub = reader.subReader(coordinates)
        let shape: GeofenceShape
        if isCircle {
            guard let radius else { throw .missing("radius") }
            guard let center = try sub.position("coordinates", &issue) else { throw issue! }
            shape = .circle(center: center, radius: radius)
        } else {
            shape = .polygon(rings: try polygon(&sub))
        }
        // Antimeridian-crossing polygons and shapes reaching past ±89° latitude (see the domain's rule).
        if let problem = shape.problem { throw DecodeError(.invalidGeometry, problem) }
        return Geofence(
            tag: tag, externalId: externalId, description: description, shape: shape, metadata: metadata,
            enabled: enabled, dwellThreshold: dwellThreshold, stopDetection: stopDetection,
            disableAfter: disableAfter, deleteAfter: deleteAfter)
    }

    /// Reads polygon rings and checks them.
    private static func polygon(_ reader: inout JSONReader) throws(DecodeError) -> [[Coordinate]] {
        func invalid(_ detail: String) -> DecodeError { DecodeError(.invalidGeometry, "polygon \(detail)") }
        guard reader.peekKind() == .array else {
            throw DecodeError(.wrongType, "coordinates must be an array of rings, got \(reader.peekKind().name)")
        }
        // Depth tells [[lng, lat], …] (one ring) from [[[lng, lat], …], …] (rings).
        var probe = reader
        var outer = try probe.beginArray()
        guard try probe.nextElement(&outer) else { throw invalid("has no rings") }
        guard probe.peekKind() == .array else { throw invalid("coordinates must be rings of [lng, lat] positions") }
        var first = try probe.beginArray()
        let singleRing = try probe.nextElement(&first) && probe.peekKind() == .number

        var rings: [[Coordinate]] = []
        var total = 0
        var issue: DecodeError?
        func readRing(_ reader: inout JSONReader, index: Int) throws(DecodeError) -> [Coordinate] {
            guard reader.peekKind() == .array else { throw invalid("ring \(index) must be an array of positions") }
            var ring: [Coordinate] = []
            var cursor = try reader.beginArray()
            while try reader.nextElement(&cursor) {
                guard let c = try reader.position("coordinates", &issue) else {
                    let e = issue!
                    throw DecodeError(e.reason, "polygon ring \(index) position \(ring.count): \(e.detail)")
                }
                ring.append(c)
                total += 1
                if total > maxVertices { throw invalid("has more than \(maxVertices) positions") }
            }
            var distinct = ring
            if ring.count >= 2 && ring.first == ring.last { distinct.removeLast() }
            if Set(distinct).count < 3 {
                throw invalid("ring \(index) has \(Set(distinct).count) distinct positions, at least 3 needed")
            }
            return ring
        }
        if singleRing {
            rings.append(try readRing(&reader, index: 0))
        } else {
            var cursor = try reader.beginArray()
            while try reader.nextElement(&cursor) { rings.append(try readRing(&reader, index: rings.count)) }
        }
        guard !rings.isEmpty else { throw invalid("has no rings") }
        return rings
    }
}
