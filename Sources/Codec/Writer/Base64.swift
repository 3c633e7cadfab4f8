/// Standard base64 (RFC 4648 §4, with padding), for bytes that are not UTF-8 text.
public enum Base64 {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// Appends the encoding of `bytes` (no quotes) to `out`.
    public static func encode(_ bytes: [UInt8], into out: inout [UInt8]) {
        let a = alphabet.utf8Start
        out.reserveCapacity(out.count + (bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(a[Int(v >> 18 & 63)])
            out.append(a[Int(v >> 12 & 63)])
            out.append(a[Int(v >> 6 & 63)])
            out.append(a[Int(v & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let v = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(a[Int(v >> 18 & 63)])
            out.append(a[Int(v >> 12 & 63)])
            out.append(rest == 2 ? a[Int(v >> 6 & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
    }

    /// Decodes padded base64; nil if the text is not valid base64.
    public static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt32? {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(c - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "+"): 62
            case UInt8(ascii: "/"): 63
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var i = 0
        while i < text.count {
            let last = i + 4 == text.count
            let pad = last ? (text[i + 3] == UInt8(ascii: "=") ? (text[i + 2] == UInt8(ascii: "=") ? 2 : 1) : 0) : 0
            guard let a = value(text[i]), let b = value(text[i + 1]) else { return nil }
            let c = pad >= 2 ? 0 : value(text[i + 2])
            let d = pad >= 1 ? 0 : value(text[i + 3])
            guard let c, let d else { return nil }
            let v = a << 18 | b << 12 | c << 6 | d
            out.append(UInt8(v >> 16 & 0xFF))
            if pad < 2 { out.append(UInt8(v >> 8 & 0xFF)) }
            if pad < 1 { out.append(UInt8(v & 0xFF)) }
            i += 4
        }
        return out
    }
}
