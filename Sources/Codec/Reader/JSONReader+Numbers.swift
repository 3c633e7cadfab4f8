// MARK: - Numbers

extension JSONReader {
    /// Reads a number per RFC 8259 (`-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`) in one pass,
    /// keeping its first 19 significant digits and its power of ten.
    public mutating func readNumber() throws(DecodeError) -> JSONNumber {
        _ = peekByte()
        if let number = readShortNumber() { return number }
        return try readNumberByBytes()
    }

    /// The numbers of fixes and most records, `-?(0|[1-9][0-9]{0,7})(.[0-9]{1,8})?` not followed by
    /// an exponent, read a run of digits at a time (`digitRun`); nil for anything else, and near the
    /// buffer's end, which `readNumberByBytes` reads. At most 16 digits: none is dropped, so the
    /// number is the one `readNumberByBytes` gives.
    @inline(__always)
    mutating func readShortNumber() -> JSONNumber? {
        let start = index, n = buffer.count
        var i = index
        let negative = i < n && buffer[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        // A run of digits and the byte after it, inside the buffer: fewer than 8 digits end within
        // the word, 8 are ended by the byte after it.
        @inline(__always) func run(at i: Int) -> (value: UInt64, digits: Int)? {
            guard i + 8 < n else { return nil }
            let run = Self.digitRun(load(at: i))
            guard run.digits > 0, run.digits < 8 || !Self.isDigit(buffer[i + 8]) else { return nil }
            return run
        }
        guard let integer = run(at: i) else { return nil }
        // A leading zero followed by digits is an error that `readNumberByBytes` reports.
        guard integer.digits == 1 || buffer[i] != UInt8(ascii: "0") else { return nil }
        i += integer.digits
        var significand = integer.value
        var exponent = 0
        if buffer[i] == UInt8(ascii: ".") {
            guard let fraction = run(at: i + 1) else { return nil }
            significand = significand &* JSONNumber.pow10(fraction.digits) &+ fraction.value
            exponent = -fraction.digits
            i += 1 + fraction.digits
        }
        guard buffer[i] | 0x20 != UInt8(ascii: "e") else { return nil }
        index = i
        return JSONNumber(significand: significand, exponent: exponent, negative: negative, hasDroppedDigits: false,
                          start: start, end: i)
    }

    /// The digits that start `word` (its bytes in text order, byte k in bits 8k..<8k+8): how many
    /// (0…8) and their value. SWAR: every byte told digit or not at once, the digits combined in pairs,
    /// then fours, then eights.
    @inline(__always)
    static func digitRun(_ word: UInt64) -> (value: UInt64, digits: Int) {
        let values = word ^ 0x3030_3030_3030_3030  // a digit's value; 10 or more for any other byte
        // 0x80 in each byte whose value is 10 or more (7 bits, so no carry crosses into the next byte).
        let other = (((values & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7676_7676_7676_7676) | values) & 0x8080_8080_8080_8080
        let digits = other.trailingZeroBitCount >> 3
        guard digits > 0 else { return (0, 0) }
        // The digits moved to the top bytes, zeros before them: the value of 8 digits.
        var v = values << (8 * UInt64(8 - digits))
        v = (v &* 10 &+ (v >> 8)) & 0x00FF_00FF_00FF_00FF
        v = (v &* 100 &+ (v >> 16)) & 0x0000_FFFF_0000_FFFF
        v = (v &* 10_000 &+ (v >> 32)) & 0x0000_0000_FFFF_FFFF
        return (v, digits)
    }

    /// Reads any number byte by byte.
    mutating func readNumberByBytes() throws(DecodeError) -> JSONNumber {
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
