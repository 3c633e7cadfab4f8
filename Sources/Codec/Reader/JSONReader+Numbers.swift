// MARK: - Numbers

extension JSONReader {
    /// Reads a number per RFC 8259 (`-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`) in one pass,
    /// keeping its first 19 significant digits and its power of ten.
    public mutating func readNumber() throws(DecodeError) -> JSONNumber {
        _ = peekByte()
        let n = buffer.count
        let start = index
        var i = index
        var negative = false
        if i < n && buffer[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var significand: UInt64 = 0
        var kept = 0  // significant digits kept
        var exponent = 0
        var dropped = false

        // Integer part.
        guard i < n, Self.isDigit(buffer[i]) else {
            index = i
            throw unexpected("a value")
        }
        if buffer[i] == UInt8(ascii: "0") {
            i += 1
            if i < n && Self.isDigit(buffer[i]) {
                index = i
                throw syntaxError("leading zero in number")
            }
        } else {
            while i < n, Self.isDigit(buffer[i]) {
                let d = UInt64(buffer[i] &- UInt8(ascii: "0"))
                if kept < 19 {
                    significand = significand &* 10 &+ d
                    kept += 1
                } else {
                    exponent += 1
                    if d != 0 { dropped = true }
                }
                i += 1
            }
        }
        // Fraction.
        if i < n && buffer[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n, Self.isDigit(buffer[i]) else {
                index = i
                throw syntaxError("digit expected after decimal point")
            }
            while i < n, Self.isDigit(buffer[i]) {
                let d = UInt64(buffer[i] &- UInt8(ascii: "0"))
                if kept < 19 {
                    significand = significand &* 10 &+ d
                    if significand != 0 { kept += 1 }  // leading zeros are not significant
                    exponent -= 1
                } else if d != 0 {
                    dropped = true
                }
                i += 1
            }
        }
        // Exponent.
        if i < n && (buffer[i] == UInt8(ascii: "e") || buffer[i] == UInt8(ascii: "E")) {
            i += 1
            var expNegative = false
            if i < n && (buffer[i] == UInt8(ascii: "+") || buffer[i] == UInt8(ascii: "-")) {
                expNegative = buffer[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < n, Self.isDigit(buffer[i]) else {
                index = i
                throw syntaxError("digit expected in exponent")
            }
            var e = 0
            while i < n, Self.isDigit(buffer[i]) {
                if e < JSONNumber.exponentLimit { e = e * 10 + Int(buffer[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            exponent += expNegative ? -e : e
            exponent = max(-JSONNumber.exponentLimit, min(JSONNumber.exponentLimit, exponent))
        }
        index = i
        return JSONNumber(
            significand: significand, exponent: exponent, negative: negative, hasDroppedDigits: dropped,
            start: start, end: i)
    }

    static func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    /// The number's source text, for error details.
    public func text(_ number: JSONNumber) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: buffer[number.start..<number.end]), as: UTF8.self)
    }

    /// The number as the nearest `Double` (±infinity if beyond its range).
    ///
    /// Exact fast path (Clinger) when the significand fits in 53 bits and the power of ten is at
    /// most 22; otherwise the standard library's correctly rounded parser on the source text.
    public func double(_ number: JSONNumber) -> Double {
        if number.significand == 0 { return number.negative ? -0.0 : 0.0 }
        if !number.hasDroppedDigits && number.significand <= 1 << 53 && abs(number.exponent) <= 22 {
            let m = Double(number.significand)
            let p = JSONNumber.exactDoublePowers[abs(number.exponent)]
            let v = number.exponent >= 0 ? m * p : m / p
            return number.negative ? -v : v
        }
        if number.overflowsDouble { return number.negative ? -.infinity : .infinity }
        if number.magnitudeDigits < -330 { return number.negative ? -0.0 : 0.0 }
        return Double(text(number)) ?? .nan
    }
}
