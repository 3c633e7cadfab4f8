/// The kind of JSON value that starts at the reader's position, told from its first byte.
public enum JSONValueKind: UInt8, Sendable {
    case object, array, string, number, bool, null
    /// The first byte cannot start any JSON value.
    case invalid

    init(firstByte b: UInt8) {
        switch b {
        case UInt8(ascii: "{"): self = .object
        case UInt8(ascii: "["): self = .array
        case UInt8(ascii: "\""): self = .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): self = .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): self = .bool
        case UInt8(ascii: "n"): self = .null
        default: self = .invalid
        }
    }

    /// The name used in `wrong_type` details ("got number").
    public var name: String {
        switch self {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .number: "number"
        case .bool: "boolean"
        case .null: "null"
        case .invalid: "invalid JSON"
        }
    }
}
