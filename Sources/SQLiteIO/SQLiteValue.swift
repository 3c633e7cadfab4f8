/// One value of a row or a statement parameter, as SQLite stores it.
public enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null

    public var integer: Int64? {
        guard case .integer(let value) = self else { return nil }
        return value
    }

    /// Text as text, and a blob read as UTF-8 (tools write MBTiles metadata either way).
    public var text: String? {
        switch self {
        case .text(let value): value
        case .blob(let bytes): String(validating: bytes, as: UTF8.self)
        default: nil
        }
    }

    public var blob: [UInt8]? {
        guard case .blob(let bytes) = self else { return nil }
        return bytes
    }
}
