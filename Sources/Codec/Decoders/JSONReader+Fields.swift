import Domain

// MARK: - Typed field values with recorded (not thrown) semantic errors
//
// Decoders read every member even after a field turned out wrong: a syntax error anywhere in the
// record must win (`invalid_json`), and the reader must stay on a value boundary. So the helpers
// below throw only syntax errors; a semantic problem (wrong type, out of range, …) is recorded in
// `issue` (the first one wins), the value is skipped, and nil is returned.

extension JSONReader {
    /// The longest string accepted for ids and names, in UTF-8 bytes.
    public static let maxStringBytes = 256

    static func note(_ error: DecodeError, _ issue: inout DecodeError?) {
        if issue == nil { issue = error }
    }

    /// Skips a value of the wrong kind, recording `wrong_type`.
    mutating func skipWrongType(
        _ field: StaticString, expected: String, _ issue: inout DecodeError?
    ) throws(DecodeError) {
        let kind = peekKind()
        try skipValue()
        Self.note(.wrongType(field, expected: expected, got: kind), &issue)
    }

    /// Consumes `null` if it is next; optional fields treat it as absent.
    mutating func skipNull() throws(DecodeError) -> Bool {
        guard peekByte() == UInt8(ascii: "n") else { return false }
        try readNull()
        return true
    }

    /// A string of 1…`maxBytes` UTF-8 bytes (or 0… when `allowEmpty`); with `identifier`, also
    /// free of control characters (`invalid_identifier`, see `Identifier`).
    mutating func stringField(
        _ field: StaticString, maxBytes: Int = maxStringBytes, allowEmpty: Bool = false, nullable: Bool = false,
        identifier: Bool = false, _ issue: inout DecodeError?
    ) throws(DecodeError) -> String? {
        if nullable, try skipNull() { return nil }
        guard peekKind() == .string else {
            try skipWrongType(field, expected: "a string", &issue)
            return nil
        }
        let token = try readString()
        // Escaped strings are unescaped once, for both the length checks and the value.
        let unescaped = token.hasEscapes ? unescapedBytes(token) : nil
        let count = unescaped?.count ?? token.rawCount
        if count == 0 && !allowEmpty {
            Self.note(DecodeError(.emptyString, "\(field) is empty"), &issue)
            return nil
        }
        if count > maxBytes {
            Self.note(DecodeError(.stringTooLong, "\(field) longer than \(maxBytes) bytes (\(count))"), &issue)
            return nil
        }
        if identifier {
            let found =
                unescaped.map { bytes in bytes.withUnsafeBytes { Identifier.controlCharacter(in: $0) } }
                ?? Identifier.controlCharacter(in: rawBytes(token))
            if let found {
                Self.note(DecodeError(.invalidIdentifier, Identifier.detail(field, found)), &issue)
                return nil
            }
        }
        if let unescaped { return String(decoding: unescaped, as: UTF8.self) }
        return String(decoding: rawBytes(token), as: UTF8.self)
    }

    /// A number, or nil after recording `wrong_type`.
    mutating func numberField(_ field: StaticString, _ issue: inout DecodeError?) throws(DecodeError) -> JSONNumber? {
        guard peekKind() == .number else {
            try skipWrongType(field, expected: "a number", &issue)
            return nil
        }
        return try readNumber()
    }

    /// Degrees as fixed point E7 within ±`limitE7`, rounded exactly from the decimal text.
    mutating func coordinateField(
        _ field: StaticString, limitE7: Int32, _ issue: inout DecodeError?
    ) throws(DecodeError) -> Int32? {
        guard let number = try numberField(field, &issue) else { return nil }
        return coordinate(number, field, limitE7: limitE7, &issue)
    }

    func coordinate(
        _ number: JSONNumber, _ field: StaticString, limitE7: Int32, _ issue: inout DecodeError?
    ) -> Int32? {
        guard let e7 = number.scaledE7, e7 >= -Int64(limitE7), e7 <= Int64(limitE7) else {
            if number.overflowsDouble {
                Self.note(DecodeError(.nonFiniteNumber, "\(field) \(text(number)) is not finite"), &issue)
                return nil
            }
            let limit = limitE7 / 10_000_000
            Self.note(
                DecodeError(.coordinateOutOfRange, "\(field) \(text(number)) out of range [-\(limit), \(limit)]"),
                &issue)
            return nil
        }
        return Int32(e7)
    }

    /// A finite `Double` within `range` (`rangeText` names it in the detail, e.g. "[0, 1000]").
    mutating func doubleField(
        _ field: StaticString, range: ClosedRange<Double>, rangeText: StaticString, nullable: Bool = true,
        _ issue: inout DecodeError?
    ) throws(DecodeError) -> Double? {
        if nullable, try skipNull() { return nil }
        guard let number = try numberField(field, &issue) else { return nil }
        let value = double(number)
        guard value.isFinite else {
            Self.note(DecodeError(.nonFiniteNumber, "\(field) \(text(number)) is not finite"), &issue)
            return nil
        }
        guard range.contains(value) else {
            Self.note(DecodeError(.valueOutOfRange, "\(field) \(text(number)) out of range \(rangeText)"), &issue)
            return nil
        }
        return value
    }

    /// An integer (JSON Schema's sense: `5.0` counts) within `range`.
    mutating func integerField(
        _ field: StaticString, range: ClosedRange<Int64>, nullable: Bool = true, _ issue: inout DecodeError?
    ) throws(DecodeError) -> Int64? {
        if nullable, try skipNull() { return nil }
        guard let number = try numberField(field, &issue) else { return nil }
        guard number.isIntegral else {
            Self.note(DecodeError(.wrongType, "\(field) must be an integer, got \(text(number))"), &issue)
            return nil
        }
        guard let value = number.exactInteger, range.contains(value) else {
            Self.note(
                DecodeError(
                    .valueOutOfRange,
                    "\(field) \(text(number)) out of range [\(range.lowerBound), \(range.upperBound)]"),
                &issue)
            return nil
        }
        return value
    }

    mutating func boolField(_ field: StaticString, nullable: Bool = true, _ issue: inout DecodeError?)
        throws(DecodeError)
        -> Bool?
    {
        if nullable, try skipNull() { return nil }
        guard peekKind() == .bool else {
            try skipWrongType(field, expected: "a boolean", &issue)
            return nil
        }
        return try readBool()
    }

    /// An RFC 3339 timestamp string.
    mutating func timestampField(
        _ field: StaticString, nullable: Bool = false, _ issue: inout DecodeError?
    ) throws(DecodeError) -> UnixMillis? {
        if nullable, try skipNull() { return nil }
        guard peekKind() == .string else {
            try skipWrongType(field, expected: "an RFC 3339 timestamp string", &issue)
            return nil
        }
        let token = try readString()
        let parsed = withDecodedBytes(token) { RFC3339.parse($0) }
        switch parsed {
        case .success(let millis):
            return millis
        case .failure(let failure):
            let shown = String(string(token).prefix(64))
            let detail =
                failure.reason == .absurdTimestamp
                ? "\(field) \"\(shown)\": \(failure.message)"
                : "\(field) \"\(shown)\" is not an RFC 3339 timestamp: \(failure.message)"
            Self.note(DecodeError(failure.reason, detail), &issue)
            return nil
        }
    }

    /// A JSON object kept as its source text; `null` is absent.
    mutating func metadataField(_ field: StaticString, _ issue: inout DecodeError?) throws(DecodeError) -> RawJSON? {
        if try skipNull() { return nil }
        guard peekKind() == .object else {
            try skipWrongType(field, expected: "an object or null", &issue)
            return nil
        }
        return rawJSON(try captureValue())
    }

    /// A string that must be one of a fixed set of names (`choices` lists them for the detail).
    mutating func enumField<T>(
        _ field: StaticString, choices: StaticString, nullable: Bool = true, _ issue: inout DecodeError?,
        _ parse: (UnsafeRawBufferPointer) -> T?
    ) throws(DecodeError) -> T? {
        if nullable, try skipNull() { return nil }
        guard peekKind() == .string else {
            try skipWrongType(field, expected: "a string", &issue)
            return nil
        }
        let token = try readString()
        if let value = withDecodedBytes(token, parse) { return value }
        let shown = String(string(token).prefix(64))
        Self.note(DecodeError(.unknownEnumValue, "\(field) \"\(shown)\" is not one of \(choices)"), &issue)
        return nil
    }

    /// A GeoJSON position `[longitude, latitude]` (a third element, altitude, is allowed and ignored).
    mutating func position(_ field: StaticString, _ issue: inout DecodeError?) throws(DecodeError) -> Coordinate? {
        guard peekKind() == .array else {
            try skipWrongType(field, expected: "an array [longitude, latitude]", &issue)
            return nil
        }
        var cursor = try beginArray()
        var values: (Int32?, Int32?) = (nil, nil)
        var count = 0
        var local: DecodeError?
        while try nextElement(&cursor) {
            switch count {
            case 0: values.0 = try coordinateField("longitude", limitE7: Coordinate.maxLongitudeE7, &local)
            case 1: values.1 = try coordinateField("latitude", limitE7: Coordinate.maxLatitudeE7, &local)
            case 2: _ = try numberField("altitude", &local)
            default: try skipValue()
            }
            count += 1
        }
        if let local {
            Self.note(DecodeError(local.reason, "\(field) \(local.detail)"), &issue)
            return nil
        }
        guard count == 2 || count == 3, let lng = values.0, let lat = values.1 else {
            Self.note(
                DecodeError(.invalidGeometry, "\(field) must be [longitude, latitude], got \(count) elements"), &issue)
            return nil
        }
        return Coordinate(latitudeE7: lat, longitudeE7: lng)
    }

    /// A GeoJSON Point object `{"type": "Point", "coordinates": [lng, lat]}`.
    mutating func pointField(_ field: StaticString, _ issue: inout DecodeError?) throws(DecodeError) -> Coordinate? {
        guard peekKind() == .object else {
            try skipWrongType(field, expected: "a GeoJSON Point object", &issue)
            return nil
        }
        var cursor = try beginObject()
        var isPoint = false
        var coordinate: Coordinate?
        var local: DecodeError?
        while let key = try nextKey(&cursor) {
            if matches(key, "type") {
                isPoint =
                    try enumField("type", choices: "Point", nullable: false, &local) { bytes in
                        bytes.elementsEqual("Point".utf8) ? true : nil
                    } ?? false
            } else if matches(key, "coordinates") {
                coordinate = try position("coordinates", &local)
            } else {
                try skipValue()
            }
        }
        if let local {
            Self.note(DecodeError(local.reason, "\(field).\(local.detail)"), &issue)
            return nil
        }
        guard isPoint, let coordinate else {
            Self.note(
                DecodeError(.invalidGeometry, "\(field) must be {\"type\": \"Point\", \"coordinates\": [lng, lat]}"),
                &issue)
            return nil
        }
        return coordinate
    }
}
