import Domain

/// Decodes a location fix (`tripstream.locations`, `schemas/fix.schema.json`).
///
/// Required: `userId` (1…256 bytes), `createdAt` (RFC 3339), `latitude`, `longitude` (degrees;
/// or instead a GeoJSON `location` Point). Optional: `accuracy` (m, 0…100000), `speed` (m/s,
/// 0…1000), `course` (degrees, 0…360), `altitude` (m, finite), `deviceId`, `replayed`, `metadata`
/// (object). Optional fields may be `null` (= absent). Unknown fields are skipped. `userId` and
/// `deviceId` may not hold control characters (`invalid_identifier`, see `Identifier`): `deviceId`
/// is echoed in events and user states as the userId is, and is validated as strictly as it
/// already was for type and length.
public enum FixDecoder {
    /// Records larger than this are `record_too_large` before any parsing.
    public static let maxRecordBytes = 64 * 1024

    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> Fix {
        try bytes.withUnsafeBytes { buffer in Result { () throws(DecodeError) in try decode(buffer) } }.get()
    }

    /// - Complexity: One pass over the bytes; allocates only for strings over 15 bytes and metadata.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> Fix {
        try decode(bytes, predictingNames: true)
    }

    /// - Parameter predictingNames: false reads every member name as a string, as a decoder that
    ///   expects no order would (the reference the tests and the fuzzer hold the prediction to).
    @inline(__always)
    public static func decode(_ bytes: UnsafeRawBufferPointer, predictingNames: Bool) throws(DecodeError) -> Fix {
        guard bytes.count <= maxRecordBytes else {
            throw DecodeError(.recordTooLarge, "record is \(bytes.count) bytes, limit \(maxRecordBytes)")
        }
        var reader = JSONReader(bytes)
        try reader.expectTopLevelObject()
        var issue: DecodeError?
        var userId: String?
        var createdAt: UnixMillis?
        var latitude: Int32?
        var longitude: Int32?
        var location: Coordinate?
        var accuracy: Float = .nan
        var speed: Float = .nan
        var course: Float = .nan
        var altitude: Float = .nan
        var deviceId: String?
        var replayed = false
        var metadata: RawJSON?

        var cursor = try reader.beginObject()
        // Devices send the members in one order, mostly ours: each name is first compared with the
        // one that follows the previous member in `Field`'s order, and read as a string only if it differs.
        var expected = Field.userId
        while try reader.nextMember(&cursor) {
            let field: Field
            if predictingNames, reader.skipKey(quotedFieldWords[expected.rawValue]) {
                field = expected
            } else {
                guard let named = Self.field(try reader.readKey(), reader) else {
                    try reader.skipValue()
                    continue
                }
                field = named
            }
            expected = Field(rawValue: field.rawValue + 1) ?? .userId
            switch field {
            case .userId:
                userId = try reader.stringField("userId", identifier: true, &issue)
            case .createdAt:
                createdAt = try reader.timestampField("createdAt", &issue)
            case .latitude:
                latitude = try reader.coordinateField("latitude", limitE7: Coordinate.maxLatitudeE7, &issue)
            case .longitude:
                longitude = try reader.coordinateField("longitude", limitE7: Coordinate.maxLongitudeE7, &issue)
            case .accuracy:
                if let v = try reader.doubleField("accuracy", range: 0...100_000, rangeText: "[0, 100000]", &issue) {
                    accuracy = Float(v)
                }
            case .speed:
                if let v = try reader.doubleField("speed", range: 0...1000, rangeText: "[0, 1000]", &issue) {
                    speed = Float(v)
                }
            case .course:
                if let v = try reader.doubleField("course", range: 0...360, rangeText: "[0, 360]", &issue) {
                    course = Float(v)
                }
            case .altitude:
                // Finite as a Float: anything beyond ±3.4e38 m is not an altitude.
                let limit = Double(Float.greatestFiniteMagnitude)
                if let v = try reader.doubleField(
                    "altitude", range: -limit...limit, rangeText: "[-3.4e38, 3.4e38]", &issue)
                {
                    altitude = Float(v)
                }
            case .deviceId:
                deviceId = try reader.stringField("deviceId", nullable: true, identifier: true, &issue)
            case .replayed:
                replayed = try reader.boolField("replayed", &issue) ?? false
            case .metadata:
                metadata = try reader.metadataField("metadata", &issue)
            case .location:
                if try reader.skipNull() { break }
                location = try reader.pointField("location", &issue)
            }
        }
        try reader.finish()
        if let issue { throw issue }
        guard let userId else { throw .missing("userId") }
        guard let createdAt else { throw .missing("createdAt") }
        let position: Coordinate
        if let latitude, let longitude {
            position = Coordinate(latitudeE7: latitude, longitudeE7: longitude)
        } else if let location {
            position = location
        } else {
            throw .missing(latitude == nil ? "latitude" : "longitude")
        }
        return Fix(
            userId: userId, createdAt: createdAt, position: position, accuracy: accuracy, speed: speed, course: course,
            altitude: altitude, replayed: replayed, deviceId: deviceId, metadata: metadata)
    }

    /// Known members, in the order of `fieldNames`: most frequent first, and the order in which
    /// devices (and `InputRecordEncoder`) usually send them.
    private enum Field: Int {
        case userId, createdAt, latitude, longitude, accuracy, speed, course, altitude, deviceId, replayed, metadata,
            location

        var name: StaticString {
            switch self {
            case .userId: "userId"
            case .createdAt: "createdAt"
            case .latitude: "latitude"
            case .longitude: "longitude"
            case .accuracy: "accuracy"
            case .speed: "speed"
            case .course: "course"
            case .altitude: "altitude"
            case .deviceId: "deviceId"
            case .replayed: "replayed"
            case .metadata: "metadata"
            case .location: "location"
            }
        }
    }

    /// The member a key names. Unescaped keys are told apart by length and one byte, then
    /// compared in full (a word at a time); escaped ones go through the generic lookup.
    @inline(__always)
    private static func field(_ key: JSONStringToken, _ reader: JSONReader) -> Field? {
        if key.hasEscapes { return reader.fieldIndex(key, in: fieldNames).flatMap { Field(rawValue: $0) } }
        let candidate: Field
        switch key.rawCount {
        case 5: candidate = .speed
        case 6:
            candidate = reader.byte(at: key.start) == UInt8(ascii: "u") ? .userId : .course
        case 8:
            switch reader.byte(at: key.start + 1) {
            case UInt8(ascii: "a"): candidate = .latitude
            case UInt8(ascii: "c"): candidate = .accuracy
            case UInt8(ascii: "l"): candidate = .altitude
            case UInt8(ascii: "e"):
                switch reader.byte(at: key.start) {
                case UInt8(ascii: "d"): candidate = .deviceId
                case UInt8(ascii: "r"): candidate = .replayed
                default: candidate = .metadata
                }
            default: candidate = .location
            }
        case 9:
            candidate = reader.byte(at: key.start) == UInt8(ascii: "c") ? .createdAt : .longitude
        default:
            return nil
        }
        if let words = reader.keyWords(key) { return words == fieldWords[candidate.rawValue] ? candidate : nil }
        return reader.matches(key, candidate.name) ? candidate : nil
    }

    private static let fieldNames: [StaticString] = [
        "userId", "createdAt", "latitude", "longitude", "accuracy", "speed", "course", "altitude", "deviceId",
        "replayed", "metadata", "location",
    ]
    private static let fieldWords = fieldNames.map(KeyWords.init)
    private static let quotedFieldWords = fieldNames.map { name in
        let quoted = [UInt8(ascii: "\"")] + UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
            + [UInt8(ascii: "\"")]
        return quoted.withUnsafeBytes { KeyWords($0) }
    }
}
