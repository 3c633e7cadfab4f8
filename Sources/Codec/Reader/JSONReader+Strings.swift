// MARK: - Strings

extension JSONReader {
    /// Reads a string at the reader's position (after whitespace), validating escapes (including
    /// `\u` surrogate pairs), control characters and UTF-8.
    public mutating func readString() throws(DecodeError) -> JSONStringToken {
        guard peekByte() == UInt8(ascii: "\"") else { throw unexpected("a string") }
        index += 1
        let start = index
        var hasEscapes = false
        let n = buffer.count
        var i = index
        while true {
            // Fast scan over plain ASCII, 8 bytes at a time (SWAR): the common case for keys, ids
            // and timestamps. A word passes if no byte is '"', '\\', a control character or ≥ 0x80.
            while i + 8 <= n {
                let word = buffer.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let ones: UInt64 = 0x0101_0101_0101_0101
                let highs: UInt64 = 0x8080_8080_8080_8080
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special =
                    ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | (word &- ones &* 0x20) | word
                let flagged = special & highs
                if flagged != 0 {
                    // The lowest flagged byte is the first that stops the scan: a flag above it may be a
                    // borrow's, never one below. Straight to it, not byte by byte.
                    i += flagged.trailingZeroBitCount >> 3
                    break
                }
                i += 8
            }
            while i < n {
                let b = buffer[i]
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
                i += 1
            }
            guard i < n else {
                index = i
                throw syntaxError("unterminated string")
            }
            let b = buffer[i]
            if b == UInt8(ascii: "\"") {
                index = i + 1
                return JSONStringToken(start: start, end: i, hasEscapes: hasEscapes)
            }
            if b == UInt8(ascii: "\\") {
                hasEscapes = true
                index = i
                i = try validateEscape(at: i)
            } else if b < 0x20 {
                index = i
                throw syntaxError("control character 0x\(String(b, radix: 16)) in string must be escaped")
            } else {
                index = i
                i = try validateUTF8Sequence(at: i)
            }
        }
    }

    /// Validates the escape starting at `i` (a backslash) and returns the offset after it.
    private func validateEscape(at i: Int) throws(DecodeError) -> Int {
        guard i + 1 < buffer.count else { throw syntaxError("unterminated escape") }
        switch buffer[i + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return i + 2
        case UInt8(ascii: "u"):
            guard let unit = hex4(at: i + 2) else { throw syntaxError("\\u must be followed by 4 hex digits") }
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw syntaxError("lone low surrogate \\u\(String(unit, radix: 16))")
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard i + 7 < buffer.count, buffer[i + 6] == UInt8(ascii: "\\"), buffer[i + 7] == UInt8(ascii: "u"),
                    let low = hex4(at: i + 8), low >= 0xDC00 && low <= 0xDFFF
                else {
                    throw syntaxError("high surrogate \\u\(String(unit, radix: 16)) not followed by a low surrogate")
                }
                return i + 12
            }
            return i + 6
        default:
            throw syntaxError("invalid escape")
        }
    }

    private func hex4(at i: Int) -> UInt32? {
        guard i + 4 <= buffer.count else { return nil }
        var value: UInt32 = 0
        for k in 0..<4 {
            guard let d = Self.hexValue(buffer[i + k]) else { return nil }
            value = value << 4 | UInt32(d)
        }
        return value
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }

    /// Validates one multi-byte UTF-8 sequence at `i` (Unicode Table 3-7: no overlongs, no
    /// surrogates, nothing above U+10FFFF) and returns the offset after it.
    private func validateUTF8Sequence(at i: Int) throws(DecodeError) -> Int {
        let lead = buffer[i]
        let n = buffer.count
        func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
            i + k < n && buffer[i + k] >= lo && buffer[i + k] <= hi
        }
        switch lead {
        case 0xC2...0xDF:
            if cont(1) { return i + 2 }
        case 0xE0:
            if cont(1, 0xA0, 0xBF) && cont(2) { return i + 3 }
        case 0xE1...0xEC, 0xEE...0xEF:
            if cont(1) && cont(2) { return i + 3 }
        case 0xED:
            if cont(1, 0x80, 0x9F) && cont(2) { return i + 3 }
        case 0xF0:
            if cont(1, 0x90, 0xBF) && cont(2) && cont(3) { return i + 4 }
        case 0xF1...0xF3:
            if cont(1) && cont(2) && cont(3) { return i + 4 }
        case 0xF4:
            if cont(1, 0x80, 0x8F) && cont(2) && cont(3) { return i + 4 }
        default:
            break
        }
        throw syntaxError("invalid UTF-8")
    }

    // MARK: - Materializing

    /// The string's raw bytes (between the quotes); escapes are still escaped.
    public func rawBytes(_ token: JSONStringToken) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[token.start..<token.end])
    }

    /// The decoded UTF-8 bytes of a string with escapes.
    public func unescapedBytes(_ token: JSONStringToken) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(token.rawCount)
        var i = token.start
        while i < token.end {
            let b = buffer[i]
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                i += 1
                continue
            }
            let e = buffer[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(at: i)!  // validated by readString
                i += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = hex4(at: i + 2)!
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                Self.appendUTF8(scalar, to: &out)
            default: out.append(e)  // \" \\ \/
            }
        }
        return out
    }

    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Number of UTF-8 bytes of the decoded string.
    public func decodedCount(_ token: JSONStringToken) -> Int {
        token.hasEscapes ? unescapedBytes(token).count : token.rawCount
    }

    /// The decoded string. Strings of up to 15 UTF-8 bytes are stored inline by Swift: no allocation.
    public func string(_ token: JSONStringToken) -> String {
        if token.hasEscapes { return String(decoding: unescapedBytes(token), as: UTF8.self) }
        return String(decoding: rawBytes(token), as: UTF8.self)
    }

    /// Calls `body` with the decoded bytes of the string, copying only if it has escapes.
    public func withDecodedBytes<R>(_ token: JSONStringToken, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if token.hasEscapes { return unescapedBytes(token).withUnsafeBytes(body) }
        return body(rawBytes(token))
    }

    /// Whether the (decoded) string equals `name`. Compares raw bytes unless the string has escapes.
    public func matches(_ token: JSONStringToken, _ name: StaticString) -> Bool {
        let n = name.utf8CodeUnitCount
        if !token.hasEscapes {
            guard token.rawCount == n else { return false }
            let p = name.utf8Start
            for k in 0..<n where buffer[token.start + k] != p[k] { return false }
            return true
        }
        let decoded = unescapedBytes(token)
        return decoded.count == n && decoded.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: n))
    }
}

// MARK: - Field lookup

extension JSONReader {
    /// The index in `names` of the (decoded) key, or nil for an unknown key.
    ///
    /// - Complexity: One length compare per name, a byte compare only on equal lengths.
    public func fieldIndex(_ key: JSONStringToken, in names: [StaticString]) -> Int? {
        if key.hasEscapes {
            let decoded = unescapedBytes(key)
            for (i, name) in names.enumerated()
            where decoded.elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)) {
                return i
            }
            return nil
        }
        let n = key.rawCount
        for i in names.indices where names[i].utf8CodeUnitCount == n {
            let p = names[i].utf8Start
            var equal = true
            for k in 0..<n where buffer[key.start + k] != p[k] {
                equal = false
                break
            }
            if equal { return i }
        }
        return nil
    }
}
