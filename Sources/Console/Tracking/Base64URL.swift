/// Base64url without padding (RFC 4648 §5): what a URL path carries without escaping.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let chunk = UInt32(bytes[index]) << 16 | (remaining > 1 ? UInt32(bytes[index + 1]) << 8 : 0)
                | (remaining > 2 ? UInt32(bytes[index + 2]) : 0)
            out.append(alphabet[Int(chunk >> 18 & 63)])
            out.append(alphabet[Int(chunk >> 12 & 63)])
            if remaining > 1 { out.append(alphabet[Int(chunk >> 6 & 63)]) }
            if remaining > 2 { out.append(alphabet[Int(chunk & 63)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Nil for characters outside the alphabet, padding, or a length no encoding has.
    public static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt32] = []
        values.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case 65...90: values.append(UInt32(byte - 65))
            case 97...122: values.append(UInt32(byte - 71))
            case 48...57: values.append(UInt32(byte + 4))
            case UInt8(ascii: "-"): values.append(62)
            case UInt8(ascii: "_"): values.append(63)
            default: return nil
            }
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var index = 0
        while index < values.count {
            let count = min(4, values.count - index)
            var chunk: UInt32 = 0
            for offset in 0..<4 { chunk = chunk << 6 | (offset < count ? values[index + offset] : 0) }
            out.append(UInt8(chunk >> 16 & 0xff))
            if count > 2 { out.append(UInt8(chunk >> 8 & 0xff)) }
            if count > 3 { out.append(UInt8(chunk & 0xff)) }
            index += 4
        }
        // Unused low bits must be zero, so each byte string has exactly one encoding.
        guard encode(out) == text else { return nil }
        return out
    }
}
