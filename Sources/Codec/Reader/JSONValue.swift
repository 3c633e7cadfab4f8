import Domain

/// A JSON value read whole, for a reader that takes what it needs from records whose every field it does not
/// check: the console reads the output topics this way. Built by `JSONReader`, so a record is held to the same
/// RFC 8259 validation as every input the service decodes, nesting included (at most `JSONReader.maxDepth`).
///
/// Numbers are `Double`s; a number too large for one is `non_finite_number`. An object that names a member
/// twice keeps the last.
public enum JSONValue: Sendable, Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// Reads one JSON text: exactly one value, with nothing but whitespace around it.
    public static func parse(_ bytes: [UInt8]) throws(DecodeError) -> JSONValue {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(DecodeError) in
                var reader = JSONReader(buffer)
                let value = try read(&reader)
                try reader.finish()
                return value
            }
        }.get()
    }

    /// Reads the value at the reader's position.
    public static func read(_ reader: inout JSONReader) throws(DecodeError) -> JSONValue {
        switch reader.peekKind() {
        case .object:
            var members: [String: JSONValue] = [:]
            var cursor = try reader.beginObject()
            while let key = try reader.nextKey(&cursor) { members[reader.string(key)] = try read(&reader) }
            return .object(members)
        case .array:
            var elements: [JSONValue] = []
            var cursor = try reader.beginArray()
            while try reader.nextElement(&cursor) { elements.append(try read(&reader)) }
            return .array(elements)
        case .string:
            return .string(reader.string(try reader.readString()))
        case .number:
            let number = try reader.readNumber()
            let value = reader.double(number)
            guard value.isFinite else {
                throw DecodeError(.nonFiniteNumber, "number \(reader.text(number).prefix(64)) is not finite")
            }
            return .number(value)
        case .bool:
            return .bool(try reader.readBool())
        case .null:
            try reader.readNull()
            return .null
        case .invalid:
            throw reader.unexpected("a value")
        }
    }

    // MARK: - Reading members

    /// The member `name` of an object; nil for a missing member or when this is not an object.
    public subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[name]
    }

    public var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    public var double: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    public var bool: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    public var array: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    public var isObject: Bool {
        guard case .object = self else { return false }
        return true
    }
}
