import Domain

/// RFC 3339 timestamps ⇄ `UnixMillis`, by hand: no Foundation, no allocation.
///
/// Parsing accepts `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm)`, lowercase `t`/`z`, fractions of any
/// length (truncated to milliseconds, i.e. towards the past), and second 60 (a leap second, which
/// POSIX time folds into the next minute's :00). Years outside 1970…2200 are `absurd_timestamp`.
/// Writing always gives UTC with milliseconds: `2013-07-01T00:00:53.000Z`.
public enum RFC3339 {
    /// Accepted range of the year as written (before applying the offset).
    public static let years: ClosedRange<Int> = 1970...2200

    /// Why a timestamp was rejected: the reason and a detail without the field name.
    public struct Failure: Error, Sendable, Equatable {
        public var reason: RejectionReason
        public var message: String
    }

    /// Parses a timestamp (the string's decoded bytes).
    public static func parse(_ text: UnsafeRawBufferPointer) -> Result<UnixMillis, Failure> {
        if let millis = parseCanonical(text) { return .success(millis) }
        return parseByBytes(text)
    }

    /// The form devices and our own outputs send, `YYYY-MM-DDTHH:MM:SS.mmmZ`, read as three 8-byte words:
    /// every digit and separator checked at once, no branch per byte. Nil for any other text, or a
    /// field out of range, which `parseByBytes` reads and explains.
    @inline(__always)
    static func parseCanonical(_ text: UnsafeRawBufferPointer) -> UnixMillis? {
        guard text.count == 24 else { return nil }
        // Little-endian: byte k of the text is bits 8k..<8k+8 of its word.
        let date = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: 0, as: UInt64.self))  // YYYY-MM-
        let time = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: 8, as: UInt64.self))  // DDTHH:MM
        let rest = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: 16, as: UInt64.self))  // :SS.mmmZ
        guard Canonical.isShaped(date, Canonical.date), Canonical.isShaped(time, Canonical.time),
            Canonical.isShaped(rest, Canonical.rest)
        else { return nil }
        @inline(__always) func digit(_ word: UInt64, _ byte: Int) -> Int { Int(truncatingIfNeeded: word >> (8 * byte)) & 0x0F }
        let year = digit(date, 0) * 1000 + digit(date, 1) * 100 + digit(date, 2) * 10 + digit(date, 3)
        let month = digit(date, 5) * 10 + digit(date, 6)
        let day = digit(time, 0) * 10 + digit(time, 1)
        let hour = digit(time, 3) * 10 + digit(time, 4)
        let minute = digit(time, 6) * 10 + digit(time, 7)
        let second = digit(rest, 1) * 10 + digit(rest, 2)
        let millis = digit(rest, 4) * 100 + digit(rest, 5) * 10 + digit(rest, 6)
        guard years.contains(year), month >= 1, month <= 12, day >= 1, day <= daysInMonth(year: year, month: month),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        let days = Int64(daysFromCivil(year: year, month: month, day: day))
        return (days * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000 + Int64(millis)
    }

    /// The shape of each word of the canonical form: which bytes are digits, and the bytes between them.
    enum Canonical {
        struct Shape {
            /// 0xFF at each digit's byte.
            var digits: UInt64
            /// The separators, at their bytes (0 at the digits').
            var separators: UInt64
        }

        // Written out rather than computed from the patterns, so that they are constants in the code
        // (a computed global is initialized lazily, behind a check on every read).
        /// `YYYY-MM-`
        static var date: Shape { Shape(digits: 0x00FF_FF00_FFFF_FFFF, separators: 0x2D00_002D_0000_0000) }
        /// `DDTHH:MM`
        static var time: Shape { Shape(digits: 0xFFFF_00FF_FF00_FFFF, separators: 0x0000_3A00_0054_0000) }
        /// `:SS.mmmZ`
        static var rest: Shape { Shape(digits: 0x00FF_FFFF_00FF_FF00, separators: 0x5A00_0000_2E00_003A) }

        /// Whether `word` has a digit at each digit byte of `shape` and its separators elsewhere.
        @inline(__always)
        static func isShaped(_ word: UInt64, _ shape: Shape) -> Bool {
            let highNibbles = shape.digits & 0xF0F0_F0F0_F0F0_F0F0
            let threes = shape.digits & 0x3030_3030_3030_3030
            // A digit is 0x30…0x39: its high nibble is 3, and adding 6 leaves it 3 (0x3A…0x3F become 0x40…).
            // A carry out of a separator byte cannot make a bad digit pass: the separators are compared exactly.
            return word & ~shape.digits == shape.separators && word & highNibbles == threes
                && (word &+ 0x0606_0606_0606_0606) & highNibbles == threes
        }
    }

    /// Parses any accepted form byte by byte, and says what is wrong with a text it refuses.
    static func parseByBytes(_ text: UnsafeRawBufferPointer) -> Result<UnixMillis, Failure> {
        func bad(_ message: String) -> Result<UnixMillis, Failure> {
            .failure(Failure(reason: .badTimestamp, message: message))
        }
        let n = text.count
        guard n >= 20 else { return bad("too short for YYYY-MM-DDTHH:MM:SSZ") }
        func digits(_ at: Int, _ count: Int) -> Int? {
            var v = 0
            for k in at..<(at + count) {
                let d = text[k] &- UInt8(ascii: "0")
                if d > 9 { return nil }
                v = v * 10 + Int(d)
            }
            return v
        }
        guard let year = digits(0, 4), text[4] == UInt8(ascii: "-"), let month = digits(5, 2),
            text[7] == UInt8(ascii: "-"), let day = digits(8, 2)
        else { return bad("date must be YYYY-MM-DD") }
        guard text[10] == UInt8(ascii: "T") || text[10] == UInt8(ascii: "t") else {
            return bad("'T' expected between date and time")
        }
        guard let hour = digits(11, 2), text[13] == UInt8(ascii: ":"), let minute = digits(14, 2),
            text[16] == UInt8(ascii: ":"), let second = digits(17, 2)
        else { return bad("time must be HH:MM:SS") }
        var i = 19
        var millis = 0
        if text[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < n, text[i] &- UInt8(ascii: "0") <= 9 {
                if i - fractionStart < 3 { millis = millis * 10 + Int(text[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            let length = i - fractionStart
            guard length > 0 else { return bad("digit expected after '.'") }
            if length == 1 { millis *= 100 } else if length == 2 { millis *= 10 }
        }
        guard i < n else { return bad("time zone expected (Z or ±hh:mm)") }
        var offsetMinutes = 0
        switch text[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard i + 6 <= n, let oh = digits(i + 1, 2), text[i + 3] == UInt8(ascii: ":"), let om = digits(i + 4, 2)
            else { return bad("offset must be ±hh:mm") }
            guard oh <= 23, om <= 59 else { return bad("offset out of range") }
            offsetMinutes = (oh * 60 + om) * (text[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        default:
            return bad("time zone expected (Z or ±hh:mm)")
        }
        guard i == n else { return bad("unexpected text after the time zone") }
        guard years.contains(year) else {
            return .failure(Failure(reason: .absurdTimestamp, message: "year \(year) outside 1970…2200"))
        }
        guard month >= 1 && month <= 12 else { return bad("month \(month) out of range") }
        let monthDays = daysInMonth(year: year, month: month)
        guard day >= 1 && day <= monthDays else {
            return bad("day \(day) out of range for \(year)-\(month < 10 ? "0" : "")\(month)")
        }
        guard hour <= 23 else { return bad("hour \(hour) out of range") }
        guard minute <= 59 else { return bad("minute \(minute) out of range") }
        guard second <= 60 else { return bad("second \(second) out of range") }
        let days = Int64(daysFromCivil(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return .success(seconds * 1000 + Int64(millis))
    }

    static func isLeapYear(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Writes `2013-07-01T00:00:53.000Z` (24 bytes) at `out`.
    /// Years outside 0…9999 are clamped to that range (they cannot come from parsed input).
    static func write(_ millis: UnixMillis, to out: UnsafeMutablePointer<UInt8>) {
        let (days, millisOfDay) = split(millis)
        write(date: civilFromDays(days), millisOfDay: millisOfDay, to: out)
    }

    /// Days since 1970-01-01 and milliseconds into that day (floored, so before 1970 too).
    @inline(__always)
    static func split(_ millis: UnixMillis) -> (days: Int, millisOfDay: Int) {
        let dayMillis: Int64 = 86_400_000
        var days = millis / dayMillis
        var rest = millis % dayMillis
        if rest < 0 {
            rest += dayMillis
            days -= 1
        }
        return (Int(days), Int(rest))
    }

    /// Writes a date and a time of day (`millisOfDay` in 0..<86_400_000) as 24 bytes at `out`.
    @inline(__always)
    static func write(date: (year: Int, month: Int, day: Int), millisOfDay: Int, to out: UnsafeMutablePointer<UInt8>) {
        let year = max(0, min(9999, date.year))
        let ms = millisOfDay % 1000
        let secs = millisOfDay / 1000
        @inline(__always) func put2(_ v: Int, _ at: Int) { JSONWriter.writePair(v, to: out + at) }
        put2(year / 100, 0)
        put2(year % 100, 2)
        out[4] = UInt8(ascii: "-")
        put2(date.month, 5)
        out[7] = UInt8(ascii: "-")
        put2(date.day, 8)
        out[10] = UInt8(ascii: "T")
        put2(secs / 3600, 11)
        out[13] = UInt8(ascii: ":")
        put2(secs / 60 % 60, 14)
        out[16] = UInt8(ascii: ":")
        put2(secs % 60, 17)
        out[19] = UInt8(ascii: ".")
        out[20] = UInt8(truncatingIfNeeded: 48 + ms / 100)
        put2(ms % 100, 21)
        out[23] = UInt8(ascii: "Z")
    }

    /// The timestamp as a `String` (tests, logs).
    public static func string(_ millis: UnixMillis) -> String {
        String(unsafeUninitializedCapacity: 24) { buffer in
            write(millis, to: buffer.baseAddress!)
            return 24
        }
    }
}
