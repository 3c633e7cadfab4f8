import Simulation

/// Deterministic mutations for the built-in harness (libFuzzer brings its own): byte flips and
/// arithmetic, truncation, erasure, duplication, crossover, and insertion of tokens that break
/// decoders — quotes and escapes, `\u0000` and lone surrogates, `1e309`, `-0`, huge integers,
/// deep nesting, invalid UTF-8, long strings; for binary state, extreme integers and varints.
/// The same seed gives the same inputs on every machine.
struct Mutator {
    var random: SeededRandom
    let json: Bool
    let tokens: [[UInt8]]
    let maxLength: Int

    init(seed: UInt64, json: Bool, maxLength: Int) {
        random = SeededRandom(seed: seed)
        self.json = json
        tokens = json ? Tokens.json : Tokens.binary
        self.maxLength = maxLength
    }

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(random.next() % UInt64(n)) }

    /// 1 to 4 stacked mutations of `input`; `other` is another input to cross over with.
    mutating func mutate(_ input: [UInt8], other: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0...below(4) { mutateOnce(&bytes, other: other) }
        if bytes.count > maxLength { bytes.removeLast(bytes.count - maxLength) }
        return bytes
    }

    private mutating func mutateOnce(_ bytes: inout [UInt8], other: [UInt8]) {
        let at = below(bytes.count + 1)  // a position, possibly the end
        let token = tokens[below(tokens.count)]
        switch below(16) {
        case 0:  // flip one bit
            guard !bytes.isEmpty else { fallthrough }
            bytes[min(at, bytes.count - 1)] ^= 1 << UInt8(below(8))
        case 1:  // a random byte
            guard !bytes.isEmpty else { fallthrough }
            bytes[min(at, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
        case 2:  // an interesting byte
            guard !bytes.isEmpty else { fallthrough }
            bytes[min(at, bytes.count - 1)] = Tokens.bytes[below(Tokens.bytes.count)]
        case 3:  // a byte plus or minus a little
            guard !bytes.isEmpty else { fallthrough }
            let i = min(at, bytes.count - 1)
            bytes[i] = bytes[i] &+ UInt8(truncatingIfNeeded: below(33) - 16)
        case 4:  // insert a token
            bytes.insert(contentsOf: token, at: at)
        case 5, 6:  // overwrite with a token
            let end = min(bytes.count, at + token.count)
            bytes.replaceSubrange(at..<end, with: token)
        case 7:  // erase a few bytes
            let end = min(bytes.count, at + 1 + below(below(2) == 0 ? 8 : 64))
            bytes.removeSubrange(at..<end)
        case 8:  // truncate
            bytes.removeSubrange(at...)
        case 9:  // duplicate a piece elsewhere
            guard !bytes.isEmpty else { fallthrough }
            let start = below(bytes.count)
            let piece = Array(bytes[start..<min(bytes.count, start + 1 + below(32))])
            bytes.insert(contentsOf: piece, at: below(bytes.count + 1))
        case 10:  // cross over: this input's head, the other's tail
            let cut = below(other.count + 1)
            bytes = Array(bytes[..<at]) + other[cut...]
        case 11:  // JSON: replace the number or string around a position; binary: the varint at it
            if json {
                replaceValue(&bytes, at: at, with: token)
            } else {
                replaceVarint(&bytes, at: at)
            }
        case 12:  // deep nesting
            let opener: [UInt8] = below(2) == 0 ? Array("[".utf8) : Array(#"{"a":"#.utf8)
            let depth = below(3) == 0 ? 60 + below(10) : 1 + below(8)
            bytes.insert(contentsOf: (0..<depth).flatMap { _ in opener }, at: at)
        case 13:  // a long run (long strings, long numbers, long varints)
            let filler = Tokens.bytes[below(Tokens.bytes.count)]
            let count = below(4) == 0 ? 257 + below(70_000) : 1 + below(300)
            bytes.insert(contentsOf: repeatElement(filler, count: count), at: at)
        case 14:  // an extreme little-endian integer
            let width = [1, 2, 4, 8][below(4)]
            let value = Tokens.integers[below(Tokens.integers.count)]
            let encoded = (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
            let end = min(bytes.count, at + width)
            bytes.replaceSubrange(at..<end, with: encoded)
        default:  // swap two bytes
            guard bytes.count >= 2 else { return bytes.insert(contentsOf: token, at: at) }
            bytes.swapAt(below(bytes.count), below(bytes.count))
        }
    }

    /// Replaces the LEB128 varint starting at `at` by an extreme one (zigzag or plain), keeping
    /// what follows aligned: delta-encoded state records break on values, not on bytes.
    private mutating func replaceVarint(_ bytes: inout [UInt8], at: Int) {
        var end = at
        while end < bytes.count && end - at < 10 && bytes[end] & 0x80 != 0 { end += 1 }
        end = min(end + 1, bytes.count)
        let values: [Int64] = [.max, .min, .max - 1, .min + 1, 0, -1, 1, Int64(Int32.max) + 1, Int64(Int32.min) - 1]
        let value = values[below(values.count)]
        var raw = below(2) == 0 ? UInt64(bitPattern: (value << 1) ^ (value >> 63)) : UInt64(bitPattern: value)
        var encoded: [UInt8] = []
        while raw >= 0x80 {
            encoded.append(UInt8(raw & 0x7F) | 0x80)
            raw >>= 7
        }
        encoded.append(UInt8(raw))
        bytes.replaceSubrange(at..<end, with: encoded)
    }

    /// Replaces the JSON number or string that contains `at` (if any) by `token`.
    private mutating func replaceValue(_ bytes: inout [UInt8], at: Int, with token: [UInt8]) {
        guard at < bytes.count else { return bytes.append(contentsOf: token) }
        func isNumberByte(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2B || b == 0x2E || b == 0x65 || b == 0x45
        }
        var start = at
        var end = at
        if isNumberByte(bytes[at]) {
            while start > 0 && isNumberByte(bytes[start - 1]) { start -= 1 }
            while end < bytes.count && isNumberByte(bytes[end]) { end += 1 }
        } else {
            // The enclosing quotes, roughly (escaped quotes are fine to cut through: it is fuzzing).
            guard let open = bytes[..<at].lastIndex(of: 0x22), let close = bytes[at...].firstIndex(of: 0x22) else {
                return bytes.insert(contentsOf: token, at: at)
            }
            start = open
            end = close + 1
        }
        bytes.replaceSubrange(start..<end, with: token)
    }
}

/// Tokens that break decoders, for the built-in mutator and as libFuzzer dictionaries.
enum Tokens {
    static let json: [[UInt8]] = {
        var tokens = [
            #"""#, #"\"#, #"\\"#, #"\""#, #"\u0000"#, #"\u001f"#, #"\ud800"#, #"\udc00"#, #"\ud83d\ude00"#, #"\u00e9"#,
            "1e309", "-1e309", "1e-400", "-0", "-0.0", "0.0", "0e0", "00", "01", "-", ".5", "5.", "1e", "1e+", "+1",
            "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "3.4028235e38", "3.5e38", "1e22", "1e23",
            "9007199254740993", "123456789012345678901234567890", "0.1234567890123456789012345",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "18446744073709551615", "18446744073709551616", "2147483647", "2147483648", "-2147483649", "4294967296",
            "65535", "65536", "1440", "1441", "10080", "100000", "100000.0000001",
            "90", "90.00000005", "90.00000004", "-90.00000005", "180", "180.00000005", "-180.00000005", "1e-7", "5e-8",
            "0.00000005", "-0.00000005", "1e999999999999", "1e-999999999999", "NaN", "Infinity", "-Infinity",
            "true", "false", "null", "nul", "tru", "[]", "{}", "[", "]", "{", "}", ",", ":", "[[[[", "]]]]", "{{", "[,]",
            #"{"a":"#, #","#, #":"#, #"""" "#,
            #""2013-07-01T00:00:53Z""#, #""2013-07-01T00:00:53.123456789Z""#, #""2024-02-29T23:59:60.999+23:59""#,
            #""1969-12-31T23:59:59Z""#, #""1970-01-01T00:00:00-23:59""#, #""2200-12-31T23:59:59.999-23:59""#,
            #""2201-01-01T00:00:00Z""#, #""2023-02-29T00:00:00Z""#, #""9999-99-99T99:99:99Z""#, #""2013-07-01t00:00:53z""#,
            #""2013-07-01T00:00:53""#, #""2013-07-01T00:00:53+24:00""#, #""2013-07-01T00:00:53.Z""#,
            #""user\u0049d""#, #""\u0075serId""#, "AA==", "A===", "////", "+/+/", "=",
        ].map { Array($0.utf8) }
        let names = [
            "userId", "createdAt", "latitude", "longitude", "accuracy", "speed", "course", "altitude", "deviceId",
            "replayed", "metadata", "location", "type", "trip", "externalId", "destinationGeofenceTag",
            "destinationGeofenceExternalId", "destinationCoordinates", "destinationRadius", "mode",
            "approachingThreshold", "scheduledArrivalAt", "tag", "description", "coordinates", "radius", "enabled",
            "dwellThreshold", "circle", "polygon", "Point", "start", "update", "complete", "cancel", "car", "foot",
            "_id", "live", "corrected", "retracted", "locationAccuracy", "user", "geofence", "duration",
            "geometryCenter", "geometryRadius", "status", "eta", "distance", "delay", "delayed",
            "scheduledArrivalTimeDelay", "etaRising", "summary", "stopDetection", "disableAfter", "deleteAfter",
            "confidence", "exitReason", "geofence_deleted", "timeOnSite", "startedAt", "arrivedAt",
            "destinationLocation", "actualCreatedAt", "reason", "detail", "topic", "partition", "offset", "key",
            "keyBase64", "value", "valueBase64", "receivedAt", "invalid_json", "user.entered_geofence",
            "user.updated_trip", "started", "arrived", "000000000000000000000000", "ffffffffffffffffffffffff",
            "pending", "expiresAfter", "legs", "legId", "legIds", "currentLegId", "stopDuration", "arrivalRadius",
            "addLegs", "reorderLegs", "updateLeg", "etaError25",
        ]
        tokens += names.map { Array("\"\($0)\"".utf8) }
        // Invalid UTF-8: overlong, surrogate, beyond U+10FFFF, stray continuation, truncated sequences.
        tokens += [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x80], [0xC3], [0xE2, 0x82],
                   [0xF0, 0x9F, 0x98], [0xEF, 0xBB, 0xBF], [0x00], [0x1F], [0x7F]]
        return tokens
    }()

    static let binary: [[UInt8]] = {
        var tokens: [[UInt8]] = [
            [0x00], [0x01], [0x02], [0x03], [0x7F], [0x80], [0xFF],
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // varint 2^64 - 1
            [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // zigzag Int64.max
            [0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01],  // zigzag Int64.min + 1
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02],  // varint too long
            [0xFF, 0xFF, 0xFF, 0xFF, 0x0F], [0xFF, 0xFF, 0xFF, 0xFF, 0x7F],  // huge lengths
            [0xFE, 0xFF, 0xFF, 0xFF, 0x0F], [0xFF, 0xFF, 0x03],  // zigzag ±2^31, a length of 65535
            [0x00, 0x00, 0xC0, 0x7F], [0x00, 0x00, 0x80, 0x7F], [0x00, 0x00, 0x80, 0xFF],  // Float NaN, ±inf
            [0, 0, 0, 0, 0, 0, 0xF8, 0x7F], [0, 0, 0, 0, 0, 0, 0xF0, 0x7F],  // Double NaN, inf
            Array("TSSNAP1\n".utf8), Array("\u{0}partition-checkpoint".utf8),
            [0x04, 0x22, 0x4D, 0x18], [0x50, 0x2A, 0x4D, 0x18],  // LZ4 frame and skippable magic numbers
            [0x64, 0x40], [0x6C, 0x70], [0x60, 0x40], [0x44, 0x40], [0x00, 0x00, 0x00, 0x00],
            [0x00, 0x00, 0x00, 0x80], [0xFF, 0xFF, 0x3F, 0x00],  // an uncompressed block, a 4 MiB block
        ]
        tokens += integers.map { v in (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
        return tokens
    }()

    /// Interesting bytes: JSON syntax, control characters, UTF-8 leads and continuations.
    static let bytes: [UInt8] =
        Array(#"{}[]",:\-+.eE0123456789tfnu/ a"#.utf8) + [0x00, 0x01, 0x09, 0x0A, 0x1F, 0x7F, 0x80, 0xBF, 0xC2, 0xED, 0xF4, 0xFF]

    /// Bit patterns of extreme integers (written little-endian, 1 to 8 bytes).
    static let integers: [UInt64] = [
        0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF,
        0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, 0xFFFF_FFFF_FFFF_FFFF, 1_000_000_000, 900_000_001,
        1_800_000_001, UInt64(bitPattern: -1_800_000_001), UInt64(bitPattern: Int64(1_767_600_000_000)),
    ]

    /// libFuzzer's dictionary format: one `"…"` token a line, `\\`, `\"` and `\xNN` escaped.
    static func libFuzzerText(_ tokens: [[UInt8]]) -> String {
        var text = ""
        for token in tokens {
            text += "\""
            for b in token {
                switch b {
                case UInt8(ascii: "\\"): text += "\\\\"
                case UInt8(ascii: "\""): text += "\\\""
                case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(b))
                default:
                    let hex = String(b, radix: 16)
                    text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
                }
            }
            text += "\"\n"
        }
        return text
    }
}
