/// Builds JSON text by appending, for the console's responses (no intermediate objects: a snapshot of
/// 100,000 drivers is one pass).
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ text: String) {
        bytes.append(34)
        for byte in text.utf8 {
            switch byte {
            case 34: bytes += [92, 34]
            case 92: bytes += [92, 92]
            // `<` escaped so a response can never close a script element it is embedded in.
            case 60: bytes += Array("\\u003c".utf8)
            case 0..<32:
                let hex = Array("0123456789abcdef".utf8)
                bytes += [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(34)
    }

    mutating func optionalString(_ text: String?) {
        if let text { string(text) } else { raw("null") }
    }

    mutating func int(_ value: Int64) { bytes += Array(String(value).utf8) }

    mutating func optionalInt(_ value: Int64?) {
        if let value { int(value) } else { raw("null") }
    }

    /// A number with at most `decimals` decimals (coordinates: 6, about 0.1 m).
    mutating func number(_ value: Double, decimals: Int = 6) {
        guard value.isFinite else { return raw("null") }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard abs(scaled) < 9e15 else { return bytes += Array(String(value).utf8) }
        var integer = Int64(scaled)
        if integer < 0 {
            bytes.append(45)
            integer = -integer
        }
        var digits = Array(String(integer).utf8)
        if decimals > 0 {
            while digits.count <= decimals { digits.insert(48, at: 0) }
            var fraction = Array(digits.suffix(decimals))
            while fraction.last == 48 { fraction.removeLast() }
            bytes += digits.prefix(digits.count - decimals)
            if !fraction.isEmpty { bytes.append(46); bytes += fraction }
        } else {
            bytes += digits
        }
    }

    mutating func optionalNumber(_ value: Double?, decimals: Int = 6) {
        if let value { number(value, decimals: decimals) } else { raw("null") }
    }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }
}
